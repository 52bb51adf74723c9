/* The age reader behind recover (lib/fmt/age.c): the header parser, then a
 * decryption with the age spec's example identity (32 x 0x42; the seeds
 * in corpus/fuzz_age are made for it), so stanza unwrapping, the header
 * MAC and the STREAM chunks all see the fuzzer's bytes. */
#include <stdlib.h>
#include <string.h>

#include "fmt/age.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[1][AGE_KEY], *out = NULL;
	struct tberr e;
	size_t n;

	memset(&e, 0, sizeof(e));
	memset(id, 0x42, sizeof(id));
	(void)age_count(data, size);
	if (age_decrypt(data, size, (const uint8_t (*)[AGE_KEY])id, 1, &out,
			&n, &e) == 0)
		free(out);
	return 0;
}
