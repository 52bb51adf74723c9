/* PE/COFF images: the Authenticode digest (every bank), and the
 * secure-boot variable values pcrpredict reads (EFI_SIGNATURE_LIST
 * sequences, SecureBoot's byte, an efivarfs attributes word first). */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "fmt/authenticode.h"
#include "log/predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t algs[] = { TPM2_ALG_SHA1, TPM2_ALG_SHA256,
					 TPM2_ALG_SHA384, TPM2_ALG_SHA512 };
	static const char *const names[] = { "db", "SecureBoot" };
	uint8_t out[4][64];
	struct tberr e;
	const uint8_t *v;
	size_t n;
	int i;

	memset(&e, 0, sizeof(e));
	(void)authenticode_digests(data, size, algs, 4, out, &e);
	for (i = 0; i < 2; i++) {
		v = data;
		n = size;
		if (pred_var_value(names[i], &v, &n, &e) == 0 &&
		    (v < data || n > size || (size_t)(v - data) > size - n))
			abort();
	}
	return 0;
}
