#ifndef TPMBOX_BASE_HEX_H
#define TPMBOX_BASE_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Lowercase hex of n bytes into out (2n+1 bytes). */
void hex_encode(const uint8_t *p, size_t n, char *out);
/* Parse hex (an optional 0x prefix, no separators) into out[0..cap).
 * Returns the byte count, or -1 on odd length, bad digit or overflow. */
long hex_decode(const char *s, uint8_t *out, size_t cap);
/* The value of one hex digit (either case), -1 for anything else. */
int hex_digit(int c);
/* Parse a decimal or 0x-hex unsigned number fully; -1 if not one. */
int parse_u64(const char *s, uint64_t *v);

#endif
