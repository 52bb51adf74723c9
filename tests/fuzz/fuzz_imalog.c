/* IMA binary measurement lists: parse and replay in each bank. */
#include <stdlib.h>
#include <string.h>

#include "imalog.h"
#include "tpm2/constants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pcr_vals v;
	struct imalog log;
	struct tberr e;

	memset(&e, 0, sizeof(e));
	memset(&log, 0, sizeof(log));
	if (imalog_parse(data, size, &log, &e) == 0) {
		imalog_replay(&log, TPM2_ALG_SHA1, &v, &e);
		imalog_replay(&log, TPM2_ALG_SHA256, &v, &e);
	}
	imalog_free(&log);
	return 0;
}
