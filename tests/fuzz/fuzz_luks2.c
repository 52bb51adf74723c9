/* The LUKS2 header reader and every token behind it (lib/fmt/luks2.c,
 * lib/fmt/luks2tok.c through lib/job/luks.c's luks_load_mem).  The first
 * byte: odd, the primary copy's checksum is made right first, so that
 * the fuzzer reaches the metadata and the tokens; even, as given. */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "job/luks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct luks_vol *v;
	struct tberr e;
	uint8_t *img;
	size_t hs = 0;
	int i;

	if (size < 1)
		return 0;
	img = malloc(size);
	v = malloc(sizeof(*v));
	if (!img || !v)
		goto out;
	memcpy(img, data + 1, size - 1);
	size--;
	if ((data[0] & 1) && size >= 16) {
		for (i = 8; i < 16; i++)
			hs = hs << 8 | img[i];
		if (hs >= 4096 && hs <= size) {
			memset(img + 448, 0, 64);
			hash_buf(TPM2_ALG_SHA256, img, hs, img + 448);
		}
	}
	memset(&e, 0, sizeof(e));
	if (luks_load_mem(img, size, "fuzz", v, &e) == 0)
		luks_vol_free(v);
out:
	free(img);
	free(v);
	return 0;
}
