/* Base32 (RFC 4648 section 6): the alphabet A-Z 2-7, as otpauth URIs
 * carry TOTP secrets. */
#ifndef TPMBOX_BASE_BASE32_H
#define TPMBOX_BASE_BASE32_H

#include <stddef.h>
#include <stdint.h>

/* The base32 of p[0..n) into out[0..cap), NUL-terminated, with '='
 * padding to a multiple of 8 characters when pad, none otherwise.  The
 * length written, or -1 when cap is too small. */
long b32_encode(const uint8_t *p, size_t n, int pad, char *out, size_t cap);

#endif
