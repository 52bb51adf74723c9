/* tpm-tools' sealed file (tssfile): whatever parses must write back as
 * the same text, its sections must go through the TPM 1.2 structure
 * readers without harm, and its data through the CBC step. */
#include <stdlib.h>
#include <string.h>

#include "fmt/tssfile.h"
#include "tpm12/structs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t key[TSSFILE_AES_KEY] = { 1, 2, 3 };
	static struct tpm12_key k;
	static struct tpm12_stored s;
	struct tssfile f;
	struct tberr e;
	uint8_t *out;
	size_t n;
	char *text;

	memset(&e, 0, sizeof(e));
	if (tssfile_parse((const char *)data, size, &f, &e))
		return 0;
	/* What parses is canonical: the writer gives the input back. */
	if (tssfile_format(&f, &text, &n, &e) || n != size ||
	    memcmp(text, data, size))
		abort();
	free(text);
	tpm12_key_parse(f.key, f.keylen, &k, "key", &e);
	tpm12_stored_parse(f.enckey, f.enckeylen, &s, "enckey", &e);
	if (tssfile_decrypt(&f, key, &out, &n, &e) == 0) {
		if (n >= f.encdatlen)
			abort();
		free(out);
	}
	tssfile_free(&f);
	return 0;
}
