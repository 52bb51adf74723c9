/* Public keys out of TPM public areas, and random bytes. */
#ifndef TPMBOX_CRYPTO_PK_H
#define TPMBOX_CRYPTO_PK_H

#include <stddef.h>
#include <stdint.h>

/* SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----", readable by
 * `openssl pkey -pubin`) of an ECC NIST P-256 point (x, y big-endian, at
 * most 32 bytes each, left-padded).  *pem is malloc'd and NUL-terminated;
 * *pemlen excludes the NUL.  -1 on failure (invalid point included). */
int pk_pem_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen);
/* The same for RSA (modulus n big-endian, exponent e; 0 means 65537). */
int pk_pem_rsa(const uint8_t *n, size_t nlen, uint32_t e, char **pem,
	       size_t *pemlen);
/* DER SubjectPublicKeyInfo instead of PEM (same arguments, malloc'd). */
int pk_der_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen);
int pk_der_rsa(const uint8_t *n, size_t nlen, uint32_t e, uint8_t **der,
	       size_t *derlen);
/* The same for NIST P-384 (x, y at most 48 bytes each). */
int pk_pem_p384(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen);
int pk_der_p384(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen);
/* The same for NIST P-521 (x, y at most 66 bytes each: the H-4 EK).  -1
 * in a build whose mbedTLS has no P-521 (make tiny); pk_has_p521 says. */
int pk_pem_p521(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen);
int pk_der_p521(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen);
int pk_has_p521(void);

/* The key fingerprint systemd writes as "pkfp" in its signed-policy JSON
 * (fmt/polsig.h): SHA-256 of the DER that OpenSSL's i2d_PublicKey writes, the
 * PKCS#1 RSAPublicKey for RSA (n big-endian, e; 0 means 65537), the
 * uncompressed point 04||x||y for P-256 (rsa 0: x = a, y = b).  -1 for a
 * key out of range. */
int pk_fingerprint(int rsa, const uint8_t *a, size_t alen, const uint8_t *b,
		   size_t blen, uint32_t e, uint8_t out[32]);

/* n random bytes from mbedTLS's CTR-DRBG seeded from getrandom(2) (a fresh
 * DRBG per call, no global state).  -1 on failure (out is zeroed then). */
int rng_bytes(void *out, size_t n);

#endif
