/* Signing with a private key read by lib/fmt/x509.c: RSASSA-PKCS1-v1_5 and
 * ECDSA, over a digest the caller made.  policysign signs policy digests
 * with them (include/fmt/polsig.h). */
#ifndef TPMBOX_CRYPTO_SIGN_H
#define TPMBOX_CRYPTO_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/rsapriv.h"

/* The most a DER ECDSA-Sig-Value on P-384 takes: SEQUENCE of two
 * INTEGERs of up to 49 bytes. */
#define SIGN_ECDSA_MAX 104

/* RSASSA-PKCS1-v1_5 (RFC 8017 8.2) of digest[0..dlen), a hash_alg (TPM
 * algorithm ID) digest: the DigestInfo is built here.  sig gets the
 * modulus size (at most cap).  -1 on failure. */
int sign_rsa_pkcs1(const struct rsa_priv *k, uint16_t hash_alg,
		   const uint8_t *digest, size_t dlen, uint8_t *sig,
		   size_t cap, size_t *siglen);
/* ECDSA with the private scalar d on curve (EC_NIST_P256/P384, crypto/
 * ecdh.h), k random; the signature as DER SEQUENCE { r, s } (what OpenSSL
 * writes and `openssl dgst -verify` reads).  -1 on failure. */
int sign_ecdsa(uint16_t curve, const uint8_t *d, size_t dlen,
	       const uint8_t *digest, size_t n, uint8_t *sig, size_t cap,
	       size_t *siglen);

#endif
