/* AES key wrap (RFC 3394) with the default IV A6A6A6A6A6A6A6A6: what
 * CMS's id-aes256-wrap (RFC 3565) names.  Keys to wrap are multiples of
 * 8 bytes, at least 16. */
#ifndef TPMBOX_CRYPTO_KEYWRAP_H
#define TPMBOX_CRYPTO_KEYWRAP_H

#include <stddef.h>
#include <stdint.h>

/* out gets n + 8 bytes.  kek is klen bytes (16, 24 or 32).  -1 on a bad
 * length or failure. */
int aes_kw_wrap(const uint8_t *kek, size_t klen, const uint8_t *in,
		size_t n, uint8_t *out);
/* in is n bytes (n - 8 of key); -1 when the integrity check fails (a
 * wrong KEK or damaged input; out is wiped) or on a bad length. */
int aes_kw_unwrap(const uint8_t *kek, size_t klen, const uint8_t *in,
		  size_t n, uint8_t *out);

#endif
