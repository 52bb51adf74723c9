/* HKDF-SHA-256 (RFC 5869): extract with salt, expand with info. */
#ifndef TPMBOX_CRYPTO_HKDF_H
#define TPMBOX_CRYPTO_HKDF_H

#include <stddef.h>
#include <stdint.h>

/* out[0..outlen) = HKDF-SHA-256(ikm, salt, info); salt and info may be
 * NULL when their length is 0.  outlen at most 255 * 32.  -1 on failure. */
int hkdf_sha256(const void *ikm, size_t ikmlen, const void *salt,
		size_t saltlen, const void *info, size_t infolen,
		uint8_t *out, size_t outlen);

#endif
