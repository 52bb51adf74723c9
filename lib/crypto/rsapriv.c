/* RSA-OAEP decryption with a private key from its integers. */
#include <string.h>

#include <mbedtls/md.h>
#include <mbedtls/rsa.h>

#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/rsapriv.h"

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

static int load(mbedtls_rsa_context *r, const struct rsa_priv *k)
{
	return mbedtls_rsa_import_raw(r, k->n, k->nlen, k->p, k->plen,
				      k->q, k->qlen, k->d, k->dlen, k->e,
				      k->elen) ||
	       mbedtls_rsa_complete(r) || mbedtls_rsa_check_pubkey(r) ?
	       -1 : 0;
}

size_t rsa_priv_check(const struct rsa_priv *k)
{
	mbedtls_rsa_context r;
	size_t n = 0;

	mbedtls_rsa_init(&r, MBEDTLS_RSA_PKCS_V21, MBEDTLS_MD_SHA256);
	if (!load(&r, k) && !mbedtls_rsa_check_privkey(&r))
		n = mbedtls_rsa_get_len(&r);
	mbedtls_rsa_free(&r);
	return n;
}

int rsa_oaep_decrypt(const struct rsa_priv *k, uint16_t hash,
		     const uint8_t *in, size_t inlen, uint8_t *out,
		     size_t cap, size_t *outlen)
{
	mbedtls_md_type_t md;
	mbedtls_rsa_context r;
	int rc;

	if ((md = (mbedtls_md_type_t)hash_md_type(hash)) == MBEDTLS_MD_NONE)
		return -1;
	mbedtls_rsa_init(&r, MBEDTLS_RSA_PKCS_V21, md);
	rc = load(&r, k);
	if (!rc && inlen != mbedtls_rsa_get_len(&r))
		rc = -1;
	if (!rc)
		rc = mbedtls_rsa_rsaes_oaep_decrypt(&r, rng_cb, NULL,
						    MBEDTLS_RSA_PRIVATE, NULL,
						    0, outlen, in, out, cap);
	mbedtls_rsa_free(&r);
	return rc ? -1 : 0;
}
