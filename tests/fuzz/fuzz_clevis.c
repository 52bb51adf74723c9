/* The clevis token reader (lib/fmt/luks2tok.c): first byte odd, the
 * input is a compact JWE (what sss nests, what clevis encrypt writes);
 * a multiple of 4, the token's JSON text; else the JWK a tpm2 pin
 * unseals (what the TPM answers, luks unlock). */
#include <stdlib.h>
#include <string.h>

#include "fmt/luks2tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct json_limits lim = { 16, 262144, 1024, 65536 };
	struct clevis *c;
	struct json *j;
	struct tberr e;

	if (size < 1 || !(c = malloc(sizeof(*c))))
		return 0;
	memset(&e, 0, sizeof(e));
	if (data[0] & 1) {
		(void)clevis_parse_compact((const char *)data + 1, size - 1,
					   "fuzz", c, &e);
		clevis_free(c);
	} else if (data[0] & 2) {
		uint8_t key[32];

		(void)clevis_jwk_key(data + 1, size - 1, "fuzz", key, &e);
	} else if (json_parse((const char *)data + 1, size - 1, &lim, "fuzz",
			      &j, &e) == 0) {
		(void)clevis_parse_token(j, "fuzz", c, &e);
		clevis_free(c);
		json_free(j);
	}
	free(c);
	return 0;
}
