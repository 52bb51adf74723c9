/* IMA binary measurement lists: parse, replay in each bank, match
 * against PCR values (own and zero-padded digests, prefixes), split each
 * entry into its template fields, and the text and JSON output: one line
 * per entry whatever the log holds (no forged line). */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "log/imalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pcr_vals v;
	struct ima_field f[IMA_MAX_FIELDS];
	struct ima_match m;
	struct imalog log;
	struct tberr e;
	uint32_t i;
	int k;

	memset(&e, 0, sizeof(e));
	memset(&log, 0, sizeof(log));
	if (imalog_parse(data, size, &log, &e) == 0) {
		imalog_replay(&log, TPM2_ALG_SHA1, &v, &e);
		imalog_replay(&log, TPM2_ALG_SHA256, &v, &e);
		/* Match against the replayed values themselves (a full
		 * match) in both banks, and sha384 against nothing. */
		imalog_match(&log, TPM2_ALG_SHA1, &v, &m, &e);
		imalog_match(&log, TPM2_ALG_SHA256, &v, &m, &e);
		imalog_match(&log, TPM2_ALG_SHA384, &v, &m, &e);
		for (i = 0; i < log.n; i++)
			imalog_fields(&log.ent[i], f, IMA_MAX_FIELDS);
		for (k = 0; k < 2; k++) {
			char *text = imalog_format(&log, k);
			size_t lines = 0;
			const char *p;

			for (p = text; p && *p; p++)
				lines += *p == '\n';
			/* text: a line per entry; JSON: one per entry and 4 */
			if (text && lines != log.n + (k ? 4 : 0))
				abort();
			free(text);
		}
	}
	imalog_free(&log);
	return 0;
}
