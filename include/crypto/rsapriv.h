/* RSA-OAEP decryption with a private key given as its integers (read from
 * PKCS#1 or PKCS#8 by lib/fmt/x509.c), for opening CMS key-transport
 * recipients (RFC 8017 RSAES-OAEP, RFC 4055 parameters). */
#ifndef TPMBOX_CRYPTO_RSAPRIV_H
#define TPMBOX_CRYPTO_RSAPRIV_H

#include <stddef.h>
#include <stdint.h>

/* Big-endian magnitudes; the CRT values are recomputed. */
struct rsa_priv {
	const uint8_t *n, *e, *d, *p, *q;
	size_t nlen, elen, dlen, plen, qlen;
};

/* Modulus size in bytes after the key checks, 0 when the integers do not
 * make an RSA key. */
size_t rsa_priv_check(const struct rsa_priv *k);
/* OAEP-decrypt in[0..inlen) (MGF1 with the same hash; hash is a TPM
 * algorithm ID; empty label) into out[0..cap).  -1 when it does not
 * decrypt (wrong key, damaged input) or the result is longer than cap. */
int rsa_oaep_decrypt(const struct rsa_priv *k, uint16_t hash,
		     const uint8_t *in, size_t inlen, uint8_t *out,
		     size_t cap, size_t *outlen);

#endif
