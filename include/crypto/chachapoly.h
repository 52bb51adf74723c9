/* ChaCha20-Poly1305 (RFC 8439), the AEAD of the age format: 32-byte key,
 * 12-byte nonce, 16-byte tag appended to the ciphertext. */
#ifndef TPMBOX_CRYPTO_CHACHAPOLY_H
#define TPMBOX_CRYPTO_CHACHAPOLY_H

#include <stddef.h>
#include <stdint.h>

#define CHACHAPOLY_KEY 32
#define CHACHAPOLY_NONCE 12
#define CHACHAPOLY_TAG 16

/* out[0..n) = the ciphertext of in[0..n), out[n..n+16) the tag (no
 * additional data).  out may equal in.  -1 on failure. */
int chachapoly_seal(const uint8_t key[CHACHAPOLY_KEY],
		    const uint8_t nonce[CHACHAPOLY_NONCE], const uint8_t *in,
		    size_t n, uint8_t *out);
/* in[0..n) is the ciphertext followed by its 16-byte tag (n >= 16);
 * out gets n - 16 bytes.  -1 when the tag does not verify (out wiped). */
int chachapoly_open(const uint8_t key[CHACHAPOLY_KEY],
		    const uint8_t nonce[CHACHAPOLY_NONCE], const uint8_t *in,
		    size_t n, uint8_t *out);

#endif
