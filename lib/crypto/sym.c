/* AES-CFB128 (TPM parameter encryption) and AES-256-GCM (bulk data). */
#include <string.h>

#include <mbedtls/aes.h>
#include <mbedtls/gcm.h>

#include "crypto/sym.h"

int aes_cfb(const uint8_t *key, size_t klen, const uint8_t iv[AES_BLOCK],
	    uint8_t *buf, size_t n, int decrypt)
{
	mbedtls_aes_context aes;
	uint8_t ivc[AES_BLOCK];
	size_t off = 0;
	int rc;

	if (klen != 16 && klen != 24 && klen != 32)
		return -1;
	if (n == 0)
		return 0;
	memcpy(ivc, iv, AES_BLOCK);
	mbedtls_aes_init(&aes);
	/* CFB uses the forward cipher in both directions. */
	rc = mbedtls_aes_setkey_enc(&aes, key, (unsigned)klen * 8);
	if (!rc)
		rc = mbedtls_aes_crypt_cfb128(&aes, decrypt ? MBEDTLS_AES_DECRYPT
					      : MBEDTLS_AES_ENCRYPT, n, &off,
					      ivc, buf, buf);
	mbedtls_aes_free(&aes);
	explicit_bzero(ivc, sizeof(ivc));
	return rc ? -1 : 0;
}

int aes_gcm_encrypt(const uint8_t key[32], const uint8_t *iv, size_t ivlen,
		    const uint8_t *aad, size_t aadlen, const uint8_t *in,
		    size_t n, uint8_t *out, uint8_t tag[GCM_TAG])
{
	mbedtls_gcm_context g;
	int rc;

	mbedtls_gcm_init(&g);
	rc = mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, key, 256);
	if (!rc)
		rc = mbedtls_gcm_crypt_and_tag(&g, MBEDTLS_GCM_ENCRYPT, n, iv,
					       ivlen, aad, aadlen, in, out,
					       GCM_TAG, tag);
	mbedtls_gcm_free(&g);
	return rc ? -1 : 0;
}

int aes_gcm_decrypt(const uint8_t key[32], const uint8_t *iv, size_t ivlen,
		    const uint8_t *aad, size_t aadlen, const uint8_t *in,
		    size_t n, uint8_t *out, const uint8_t tag[GCM_TAG])
{
	mbedtls_gcm_context g;
	int rc;

	mbedtls_gcm_init(&g);
	rc = mbedtls_gcm_setkey(&g, MBEDTLS_CIPHER_ID_AES, key, 256);
	if (!rc)
		rc = mbedtls_gcm_auth_decrypt(&g, n, iv, ivlen, aad, aadlen,
					      tag, GCM_TAG, in, out);
	mbedtls_gcm_free(&g);
	if (rc && n)
		explicit_bzero(out, n);
	return rc ? -1 : 0;
}
