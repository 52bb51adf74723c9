/* Elliptic-curve helpers for session salting (TPM 2.0 Part 1, C.6.1 "ECDH"
 * secret sharing): an ephemeral key pair on NIST P-256 and the shared
 * x-coordinate Z with the TPM key's public point. */
#ifndef TPMBOX_CRYPTO_ECC_H
#define TPMBOX_CRYPTO_ECC_H

#include <stddef.h>
#include <stdint.h>

#define P256_BYTES 32

/* Given the TPM key's point (qx, qy; big-endian, at most 32 bytes each,
 * shorter values are left-padded), generate an ephemeral key, write its
 * public point to ex/ey (32 bytes each) and Z = x(d_e * Q) to z (32
 * bytes).  Returns -1 if Q is not a valid point on P-256 or on failure. */
int ecc_p256_ephemeral(const uint8_t *qx, size_t qxlen, const uint8_t *qy,
		       size_t qylen, uint8_t ex[P256_BYTES],
		       uint8_t ey[P256_BYTES], uint8_t z[P256_BYTES]);

#endif
