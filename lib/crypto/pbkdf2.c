/* PBKDF2-HMAC (RFC 8018 5.2) on mbedTLS's HMAC, the one lib/crypto/kdf.c
 * uses: mbedTLS's own pkcs5 module is not in the small build's
 * configuration, and this is a loop over what is there already. */
#include <string.h>

#include <mbedtls/md.h>

#include "crypto/hash.h"
#include "crypto/pbkdf2.h"

#define PBKDF2_MD_MAX 64	/* the largest digest: SHA-512 */

/* One block: T_i = U_1 ^ ... ^ U_c, U_1 = HMAC(P, S || INT(i)),
 * U_j = HMAC(P, U_{j-1}); md is keyed with P (reset keeps the key). */
static int block(mbedtls_md_context_t *md, size_t hlen, const void *salt,
		 size_t saltlen, uint32_t i, uint32_t iter, uint8_t *t)
{
	uint8_t u[PBKDF2_MD_MAX], be[4];
	uint32_t j;
	size_t k;
	int r;

	be[0] = (uint8_t)(i >> 24);
	be[1] = (uint8_t)(i >> 16);
	be[2] = (uint8_t)(i >> 8);
	be[3] = (uint8_t)i;
	r = mbedtls_md_hmac_reset(md) ||
	    (saltlen && mbedtls_md_hmac_update(md, salt, saltlen)) ||
	    mbedtls_md_hmac_update(md, be, 4) ||
	    mbedtls_md_hmac_finish(md, u);
	memcpy(t, u, hlen);
	for (j = 1; j < iter && !r; j++) {
		r = mbedtls_md_hmac_reset(md) ||
		    mbedtls_md_hmac_update(md, u, hlen) ||
		    mbedtls_md_hmac_finish(md, u);
		for (k = 0; k < hlen; k++)
			t[k] ^= u[k];
	}
	explicit_bzero(u, sizeof(u));
	return r ? -1 : 0;
}

int pbkdf2_hmac(uint16_t alg, const void *pass, size_t passlen,
		const void *salt, size_t saltlen, uint32_t iter,
		uint8_t *out, size_t outlen)
{
	static const unsigned char none[1];
	const mbedtls_md_info_t *info =
		mbedtls_md_info_from_type((mbedtls_md_type_t)
					  hash_md_type(alg));
	size_t hlen = hash_size(alg), at, n;
	uint8_t t[PBKDF2_MD_MAX];
	mbedtls_md_context_t md;
	uint32_t i;
	int r = 0;

	if (!info || !hlen || hlen > PBKDF2_MD_MAX || !iter || !outlen ||
	    (uint64_t)(outlen - 1) / hlen >= 0xffffffffu ||
	    (passlen && !pass) || (saltlen && !salt)) {
		if (out && outlen)
			memset(out, 0, outlen);
		return -1;
	}
	mbedtls_md_init(&md);
	if (mbedtls_md_setup(&md, info, 1) ||
	    mbedtls_md_hmac_starts(&md, passlen ? pass : none, passlen))
		r = -1;
	for (at = 0, i = 1; at < outlen && !r; at += n, i++) {
		r = block(&md, hlen, salt, saltlen, i, iter, t);
		n = outlen - at < hlen ? outlen - at : hlen;
		memcpy(out + at, t, n);
	}
	mbedtls_md_free(&md);	/* zeroizes the key pads */
	explicit_bzero(t, sizeof(t));
	if (r)
		memset(out, 0, outlen);
	return r;
}
