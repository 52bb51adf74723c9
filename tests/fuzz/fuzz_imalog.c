/* IMA binary measurement lists: parse, replay in each bank, match
 * against PCR values (own and zero-padded digests, prefixes), split each
 * entry into its template fields. */
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
	}
	imalog_free(&log);
	return 0;
}
