/* RSA-OAEP encryption to a TPM RSA key (salts, secrets). */
#include <string.h>

#include <mbedtls/md.h>
#include <mbedtls/rsa.h>

#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/rsa.h"

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

int rsa_oaep_encrypt(const uint8_t *n, size_t nlen, uint32_t e,
		     uint16_t hash, const void *label, size_t labellen,
		     const uint8_t *in, size_t inlen, uint8_t *out,
		     size_t *outlen)
{
	mbedtls_md_type_t md;
	mbedtls_rsa_context r;
	uint8_t eb[4];
	int rc;

	if ((md = (mbedtls_md_type_t)hash_md_type(hash)) == MBEDTLS_MD_NONE)
		return -1;
	if (!e)
		e = 65537;
	eb[0] = (uint8_t)(e >> 24);
	eb[1] = (uint8_t)(e >> 16);
	eb[2] = (uint8_t)(e >> 8);
	eb[3] = (uint8_t)e;
	mbedtls_rsa_init(&r, MBEDTLS_RSA_PKCS_V21, md);
	rc = mbedtls_rsa_import_raw(&r, n, nlen, NULL, 0, NULL, 0, NULL, 0,
				    eb, 4) ||
	     mbedtls_rsa_complete(&r) || mbedtls_rsa_check_pubkey(&r);
	if (!rc)
		rc = mbedtls_rsa_rsaes_oaep_encrypt(&r, rng_cb, NULL,
						    MBEDTLS_RSA_PUBLIC, label,
						    labellen, inlen, in, out);
	if (!rc)
		*outlen = mbedtls_rsa_get_len(&r);
	mbedtls_rsa_free(&r);
	return rc ? -1 : 0;
}
