/* AES key wrap, RFC 3394 section 2.2.1 (wrap) and 2.2.2 (unwrap), the
 * index-based form, over mbedTLS's AES block function. */
#include <string.h>

#include <mbedtls/aes.h>

#include "crypto/keywrap.h"

#define KW_MAX 64	/* the longest key wrapped here (bytes) */

static const uint8_t kw_iv[8] = {
	0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6 };

static int kw_len_ok(size_t klen, size_t n)
{
	return (klen == 16 || klen == 24 || klen == 32) && n >= 16 &&
	       n <= KW_MAX && n % 8 == 0;
}

/* A ^= t, t big-endian 64-bit */
static void xor_t(uint8_t a[8], uint64_t t)
{
	int i;

	for (i = 7; i >= 0; i--, t >>= 8)
		a[i] ^= (uint8_t)t;
}

int aes_kw_wrap(const uint8_t *kek, size_t klen, const uint8_t *in,
		size_t n, uint8_t *out)
{
	mbedtls_aes_context aes;
	uint8_t b[16], r[KW_MAX];
	size_t nb = n / 8, i, j;
	int rc;

	if (!kw_len_ok(klen, n))
		return -1;
	memcpy(b, kw_iv, 8);
	memcpy(r, in, n);
	mbedtls_aes_init(&aes);
	rc = mbedtls_aes_setkey_enc(&aes, kek, (unsigned)klen * 8);
	for (j = 0; !rc && j < 6; j++)
		for (i = 0; !rc && i < nb; i++) {
			memcpy(b + 8, r + 8 * i, 8);
			rc = mbedtls_aes_crypt_ecb(&aes, MBEDTLS_AES_ENCRYPT, b,
						   b);
			xor_t(b, (uint64_t)(nb * j + i + 1));
			memcpy(r + 8 * i, b + 8, 8);
		}
	mbedtls_aes_free(&aes);
	if (!rc) {
		memcpy(out, b, 8);
		memcpy(out + 8, r, n);
	}
	explicit_bzero(b, sizeof(b));
	explicit_bzero(r, sizeof(r));
	return rc ? -1 : 0;
}

int aes_kw_unwrap(const uint8_t *kek, size_t klen, const uint8_t *in,
		  size_t n, uint8_t *out)
{
	mbedtls_aes_context aes;
	uint8_t b[16], r[KW_MAX], diff = 0;
	size_t nb, i, k;
	int rc, j;

	if (n < 8 || !kw_len_ok(klen, n - 8))
		return -1;
	nb = (n - 8) / 8;
	memcpy(b, in, 8);
	memcpy(r, in + 8, n - 8);
	mbedtls_aes_init(&aes);
	rc = mbedtls_aes_setkey_dec(&aes, kek, (unsigned)klen * 8);
	for (j = 5; !rc && j >= 0; j--)
		for (k = nb; !rc && k > 0; k--) {
			i = k - 1;
			xor_t(b, (uint64_t)(nb * (size_t)j + i + 1));
			memcpy(b + 8, r + 8 * i, 8);
			rc = mbedtls_aes_crypt_ecb(&aes, MBEDTLS_AES_DECRYPT, b,
						   b);
			memcpy(r + 8 * i, b + 8, 8);
		}
	mbedtls_aes_free(&aes);
	for (i = 0; i < 8; i++)
		diff |= b[i] ^ kw_iv[i];
	if (!rc && !diff)
		memcpy(out, r, n - 8);
	explicit_bzero(b, sizeof(b));
	explicit_bzero(r, sizeof(r));
	return rc || diff ? -1 : 0;
}
