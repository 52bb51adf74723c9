/* The LUKS2 header reader and every token behind it (lib/fmt/luks2.c,
 * lib/fmt/luks2tok.c through lib/job/luks.c's luks_load_mem).  The first
 * byte: odd, the input made a valid primary copy (below); even, as
 * given. */
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

	if (size < 1)
		return 0;
	img = malloc(size);
	v = malloc(sizeof(*v));
	if (!img || !v)
		goto out;
	memcpy(img, data + 1, size - 1);
	size--;
	/* libFuzzer's inputs stop at 16 KiB (run.sh's -max_len): the odd
	 * mode makes the input the primary copy of a 16 KiB header, its
	 * magic, version, size, offset, algorithm, NUL and checksum right,
	 * so that the metadata and every token reader are reached. */
	if ((data[0] & 1) && size >= 512) {
		uint8_t *h = calloc(1, 32768);
		static const uint8_t m[8] = { 'L', 'U', 'K', 'S', 0xba, 0xbe,
					      0, 2 };

		if (!h)
			goto out;
		memcpy(h, img, size > 16383 ? 16383 : size);
		memcpy(h, m, 8);
		memset(h + 8, 0, 8);
		h[14] = 0x40;	/* hdr_size 16384 */
		memset(h + 256, 0, 8);
		memset(h + 72, 0, 32);
		memcpy(h + 72, "sha256", 6);
		memset(h + 448, 0, 64);
		hash_buf(TPM2_ALG_SHA256, h, 16384, h + 448);
		free(img);
		img = h;
		size = 32768;
	}
	memset(&e, 0, sizeof(e));
	if (luks_load_mem(img, size, "fuzz", v, &e) == 0)
		luks_vol_free(v);
out:
	free(img);
	free(v);
	return 0;
}
