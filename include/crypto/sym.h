/* Symmetric ciphers: AES-CFB as TPM 2.0 parameter encryption and
 * sensitive-area protection use it (full-block CFB-128, the IV chained
 * across calls only within one call), and AES-256-GCM for the seal
 * helper's bulk data. */
#ifndef TPMBOX_CRYPTO_SYM_H
#define TPMBOX_CRYPTO_SYM_H

#include <stddef.h>
#include <stdint.h>

#define AES_BLOCK 16
#define GCM_TAG 16

/* AES-CFB128 over buf[0..n) in place; klen 16 (AES-128) or 32 (AES-256);
 * decrypt nonzero to decrypt.  iv is not modified.  -1 on a bad key
 * length. */
int aes_cfb(const uint8_t *key, size_t klen, const uint8_t iv[AES_BLOCK],
	    uint8_t *buf, size_t n, int decrypt);

/* AES-256-GCM: key is 32 bytes, iv ivlen bytes (12 recommended), aad may
 * be NULL.  out may equal in.  Writes a 16-byte tag.  -1 on failure. */
int aes_gcm_encrypt(const uint8_t key[32], const uint8_t *iv, size_t ivlen,
		    const uint8_t *aad, size_t aadlen, const uint8_t *in,
		    size_t n, uint8_t *out, uint8_t tag[GCM_TAG]);
/* Decrypt and verify the tag.  -1 when the tag does not verify (out is
 * wiped then) or on failure. */
int aes_gcm_decrypt(const uint8_t key[32], const uint8_t *iv, size_t ivlen,
		    const uint8_t *aad, size_t aadlen, const uint8_t *in,
		    size_t n, uint8_t *out, const uint8_t tag[GCM_TAG]);

/* AES-256-CBC with PKCS#7 padding (tpm-tools' sealed-file data).
 * Encrypt in[0..n) into out, which holds n + 16 - n % 16 bytes (one full
 * block of padding when n is a multiple of 16); *outlen gets that size.
 * out may not overlap in.  -1 on failure. */
int aes256_cbc_pad_encrypt(const uint8_t key[32], const uint8_t iv[AES_BLOCK],
			   const uint8_t *in, size_t n, uint8_t *out,
			   size_t *outlen);
/* Decrypt in[0..n) (n a positive multiple of 16) into out (n bytes) and
 * strip the padding; *outlen gets the data size.  -1 on a bad length or
 * bad padding (out wiped then); the padding is checked without branching
 * on its bytes. */
int aes256_cbc_pad_decrypt(const uint8_t key[32], const uint8_t iv[AES_BLOCK],
			   const uint8_t *in, size_t n, uint8_t *out,
			   size_t *outlen);

#endif
