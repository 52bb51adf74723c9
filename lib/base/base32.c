/* Base32, include/base/base32.h. */
#include "base/base32.h"

long b32_encode(const uint8_t *p, size_t n, int pad, char *out, size_t cap)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	size_t o = 0, i, len = (n * 8 + 4) / 5;
	uint32_t acc = 0;
	int bits = 0;

	if (pad)
		len = (len + 7) / 8 * 8;
	if (len >= cap)
		return -1;
	for (i = 0; i < n; i++) {
		acc = (acc << 8 | p[i]) & 0xfff;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			out[o++] = abc[acc >> bits & 31];
		}
	}
	if (bits)
		out[o++] = abc[acc << (5 - bits) & 31];
	while (o < len)
		out[o++] = '=';
	out[o] = '\0';
	return (long)o;
}
