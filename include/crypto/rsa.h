/* RSA-OAEP encryption with a public key given as modulus and exponent, as
 * TPM 2.0 uses it to encrypt a session salt or a secret to an RSA storage
 * key (Part 1, B.10.3: label "SECRET" including its terminating NUL). */
#ifndef TPMBOX_CRYPTO_RSA_H
#define TPMBOX_CRYPTO_RSA_H

#include <stddef.h>
#include <stdint.h>

/* OAEP-encrypt in[0..inlen) to out (nlen bytes written to *outlen; out
 * must hold nlen bytes).  n is the big-endian modulus, e the public
 * exponent (0 means 65537, as in a TPM public area), hash the OAEP/MGF1
 * hash as a TPM algorithm ID, label[0..labellen) the OAEP label (pass
 * "SECRET", 7 to include the NUL).  -1 on failure. */
int rsa_oaep_encrypt(const uint8_t *n, size_t nlen, uint32_t e,
		     uint16_t hash, const void *label, size_t labellen,
		     const uint8_t *in, size_t inlen, uint8_t *out,
		     size_t *outlen);

#endif
