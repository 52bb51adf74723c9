/* tpmbox's own LUKS2 token (lib/fmt/luks2tok.c's tpmboxtok_parse), then
 * the blob it carries as luks list reads it (fmt/keyfile.h): the input
 * is the token's JSON text. */
#include <string.h>

#include "fmt/keyfile.h"
#include "fmt/luks2tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct json_limits lim = { 16, 1 << 21, 1024, 65536 };
	static struct keyfile k;
	struct tpmboxtok t;
	struct json *j;
	struct tberr e;

	memset(&e, 0, sizeof(e));
	if (json_parse((const char *)data, size, &lim, "fuzz", &j, &e))
		return 0;
	if (tpmboxtok_parse(j, "fuzz", &t, &e) == 0) {
		memset(&k, 0, sizeof(k));
		(void)keyfile_decode(t.text, t.n, &k, &e);
		keyfile_free(&k);
		tpmboxtok_free(&t);
	}
	json_free(j);
	return 0;
}
