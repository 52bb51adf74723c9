/* Signature verification with a public key from a PEM file, and PEM
 * reading.  The TPM's signature algorithms: ECDSA (any curve mbedTLS
 * knows, P-256 for tpmbox's AKs) and RSASSA-PKCS1-v1_5.  Only
 * lib/crypto/verify.c sees mbedTLS. */
#ifndef TPMBOX_CRYPTO_VERIFY_H
#define TPMBOX_CRYPTO_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct vkey;

/* Parse a public key: PEM "PUBLIC KEY" (SubjectPublicKeyInfo, what
 * tpm2_readpublic -f pem and openssl write), PEM "RSA PUBLIC KEY", or
 * the same in DER.  Exit 2 when it is not a public key. */
int vkey_parse(const uint8_t *data, size_t n, struct vkey **out,
	       struct tberr *e);
void vkey_free(struct vkey *k);
/* TPM2_ALG_RSA or TPM2_ALG_ECC. */
uint16_t vkey_type(const struct vkey *k);
/* Key size in bits (RSA modulus, ECC curve). */
size_t vkey_bits(const struct vkey *k);
/* The raw public key: P-256 x (a) and y (b), 32 bytes each; or the RSA
 * modulus (a) and exponent (*exp).  -1 for other keys. */
int vkey_raw(const struct vkey *k, uint8_t *a, size_t acap, size_t *alen,
	     uint8_t *b, size_t bcap, size_t *blen, uint32_t *exp);

/* Verify a signature over digest (already hashed with hashalg, a TPM
 * algorithm ID).  sigalg TPM2_ALG_ECDSA: a/alen = r, b/blen = s;
 * TPM2_ALG_RSASSA: a/alen = the signature, b unused.  Returns 0, or 1
 * with e set to why it does not verify. */
int vkey_verify(const struct vkey *k, uint16_t sigalg, uint16_t hashalg,
		const uint8_t *digest, size_t dlen, const uint8_t *a,
		size_t alen, const uint8_t *b, size_t blen, struct tberr *e);

#endif
