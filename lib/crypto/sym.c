/* AES-CFB128 (TPM parameter encryption), AES-256-GCM (bulk data) and
 * AES-256-CBC with PKCS#7 padding (tpm-tools' sealed files). */
#include <stdint.h>
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

static int aes256_cbc(const uint8_t key[32], const uint8_t iv[AES_BLOCK],
		      const uint8_t *in, size_t n, uint8_t *out, int decrypt)
{
	mbedtls_aes_context aes;
	uint8_t ivc[AES_BLOCK];
	int rc;

	memcpy(ivc, iv, AES_BLOCK);
	mbedtls_aes_init(&aes);
	rc = decrypt ? mbedtls_aes_setkey_dec(&aes, key, 256)
		     : mbedtls_aes_setkey_enc(&aes, key, 256);
	if (!rc)
		rc = mbedtls_aes_crypt_cbc(&aes, decrypt ? MBEDTLS_AES_DECRYPT
					   : MBEDTLS_AES_ENCRYPT, n, ivc, in,
					   out);
	mbedtls_aes_free(&aes);
	explicit_bzero(ivc, sizeof(ivc));
	return rc ? -1 : 0;
}

int aes256_cbc_pad_encrypt(const uint8_t key[32], const uint8_t iv[AES_BLOCK],
			   const uint8_t *in, size_t n, uint8_t *out,
			   size_t *outlen)
{
	size_t pad = AES_BLOCK - n % AES_BLOCK;

	*outlen = 0;
	if (n > SIZE_MAX - AES_BLOCK)
		return -1;
	if (n)
		memmove(out, in, n);
	memset(out + n, (int)pad, pad);
	if (aes256_cbc(key, iv, out, n + pad, out, 0)) {
		explicit_bzero(out, n + pad);
		return -1;
	}
	*outlen = n + pad;
	return 0;
}

int aes256_cbc_pad_decrypt(const uint8_t key[32], const uint8_t iv[AES_BLOCK],
			   const uint8_t *in, size_t n, uint8_t *out,
			   size_t *outlen)
{
	unsigned pad, bad, i;

	*outlen = 0;
	if (n == 0 || n % AES_BLOCK)
		return -1;
	if (aes256_cbc(key, iv, in, n, out, 1)) {
		explicit_bzero(out, n);
		return -1;
	}
	/* Look at all 16 bytes of the last block whatever pad says: byte i
	 * from the end must equal pad when i < pad.  bad collects, with
	 * masks, pad == 0, pad > 16 and every mismatch. */
	pad = out[n - 1];
	bad = ((pad - 1u) >> 8) & 1;		/* pad == 0 */
	bad |= ((16u - pad) >> 8) & 1;		/* pad > 16 */
	for (i = 0; i < AES_BLOCK; i++) {
		unsigned in_pad = ((i - pad) >> 8) & 1;	/* i < pad */
		unsigned diff = out[n - 1 - i] ^ pad;

		bad |= in_pad & (((diff - 1u) >> 8) ^ 1);	/* diff != 0 */
	}
	if (bad) {
		explicit_bzero(out, n);
		return -1;
	}
	*outlen = n - pad;
	return 0;
}
