/* The systemd-tpm2 token reader (lib/fmt/luks2tok.c): the input is the
 * token's JSON text. */
#include <string.h>

#include "fmt/luks2tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct json_limits lim = { 16, 262144, 1024, 65536 };
	static struct sdtpm2 t;
	struct json *j;
	struct tberr e;

	memset(&e, 0, sizeof(e));
	if (json_parse((const char *)data, size, &lim, "fuzz", &j, &e))
		return 0;
	(void)sdtpm2_parse(j, "fuzz", &t, &e);
	sdtpm2_free(&t);
	json_free(j);
	return 0;
}
