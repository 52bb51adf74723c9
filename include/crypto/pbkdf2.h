/* PBKDF2 (RFC 8018 5.2) with HMAC over any hash lib/crypto/hash.h knows
 * (TPM algorithm IDs: TPM2_ALG_SHA1, TPM2_ALG_SHA256, ...).  The password
 * is turned into HMAC's key once, so a long password costs one hash, not
 * one per iteration. */
#ifndef TPMBOX_CRYPTO_PBKDF2_H
#define TPMBOX_CRYPTO_PBKDF2_H

#include <stddef.h>
#include <stdint.h>

/* out[0..outlen) = PBKDF2-HMAC-alg(pass, salt, iter, outlen).  pass and
 * salt may be empty; iter >= 1; outlen >= 1 and at most (2^32 - 1) blocks
 * of the hash.  0, or -1 on an unsupported hash, a bad argument or
 * memory short (out is zeroed then). */
int pbkdf2_hmac(uint16_t alg, const void *pass, size_t passlen,
		const void *salt, size_t saltlen, uint32_t iter,
		uint8_t *out, size_t outlen);

#endif
