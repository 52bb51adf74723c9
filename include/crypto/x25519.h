/* X25519 (RFC 7748, section 5): the Diffie-Hellman function on
 * Curve25519 that age's X25519 recipients use.  Scalars and u-coordinates
 * are 32 bytes, little-endian, as the RFC encodes them. */
#ifndef TPMBOX_CRYPTO_X25519_H
#define TPMBOX_CRYPTO_X25519_H

#include <stdint.h>

#define X25519_BYTES 32

/* out = X25519(scalar, u).  The scalar is clamped as the RFC says; the
 * top bit of u is ignored.  -1 on failure or when the result is all
 * zeros (u of small order: the RFC's "abort" case). */
int x25519(uint8_t out[X25519_BYTES], const uint8_t scalar[X25519_BYTES],
	   const uint8_t u[X25519_BYTES]);
/* out = X25519(scalar, 9): the public key of a secret scalar. */
int x25519_base(uint8_t out[X25519_BYTES],
		const uint8_t scalar[X25519_BYTES]);

#endif
