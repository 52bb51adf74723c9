/* ChaCha20-Poly1305 through mbedTLS's chachapoly module. */
#include <string.h>

#include <mbedtls/chachapoly.h>

#include "crypto/chachapoly.h"

int chachapoly_seal(const uint8_t key[CHACHAPOLY_KEY],
		    const uint8_t nonce[CHACHAPOLY_NONCE], const uint8_t *in,
		    size_t n, uint8_t *out)
{
	mbedtls_chachapoly_context c;
	int rc;

	mbedtls_chachapoly_init(&c);
	rc = mbedtls_chachapoly_setkey(&c, key) ||
	     mbedtls_chachapoly_encrypt_and_tag(&c, n, nonce, NULL, 0, in,
						out, out + n);
	mbedtls_chachapoly_free(&c);
	return rc ? -1 : 0;
}

int chachapoly_open(const uint8_t key[CHACHAPOLY_KEY],
		    const uint8_t nonce[CHACHAPOLY_NONCE], const uint8_t *in,
		    size_t n, uint8_t *out)
{
	mbedtls_chachapoly_context c;
	int rc;

	if (n < CHACHAPOLY_TAG)
		return -1;
	n -= CHACHAPOLY_TAG;
	mbedtls_chachapoly_init(&c);
	rc = mbedtls_chachapoly_setkey(&c, key) ||
	     mbedtls_chachapoly_auth_decrypt(&c, n, nonce, NULL, 0, in + n,
					     in, out);
	mbedtls_chachapoly_free(&c);
	if (rc && n)
		explicit_bzero(out, n);
	return rc ? -1 : 0;
}
