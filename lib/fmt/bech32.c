/* Bech32 (BIP 173), include/fmt/bech32.h. */
#include <string.h>

#include "fmt/bech32.h"

static const char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint32_t polymod_step(uint32_t c, uint8_t v)
{
	static const uint32_t gen[5] = { 0x3b6a57b2, 0x26508e6d, 0x1ea119fa,
					 0x3d4233dd, 0x2a1462b3 };
	uint32_t top = c >> 25;
	int i;

	c = (c & 0x1ffffff) << 5 ^ v;
	for (i = 0; i < 5; i++)
		if (top >> i & 1)
			c ^= gen[i];
	return c;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The checksum state after the expanded human-readable part. */
static uint32_t hrp_state(const char *hrp, size_t n)
{
	uint32_t c = 1;
	size_t i;

	for (i = 0; i < n; i++)
		c = polymod_step(c, (uint8_t)(lower(hrp[i]) >> 5));
	c = polymod_step(c, 0);
	for (i = 0; i < n; i++)
		c = polymod_step(c, (uint8_t)(lower(hrp[i]) & 31));
	return c;
}

int bech32_encode(const char *hrp, const uint8_t *data, size_t n, int upper,
		  char *out, size_t cap)
{
	size_t hl = strlen(hrp), groups = (n * 8 + 4) / 5, o = 0, i;
	uint32_t c, acc = 0;
	int bits = 0;
	uint8_t v;

	if (hl < 1 || hl + 1 + groups + 6 + 1 > cap)
		return -1;
	for (i = 0; i < hl; i++) {
		if (hrp[i] < 33 || hrp[i] > 126)
			return -1;
		out[o++] = upper ? hrp[i] : lower(hrp[i]);
	}
	out[o++] = '1';
	c = hrp_state(hrp, hl);
	for (i = 0; i < n; i++) {
		acc = acc << 8 | data[i];
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			v = (uint8_t)(acc >> bits & 31);
			c = polymod_step(c, v);
			out[o++] = charset[v];
		}
	}
	if (bits) {
		v = (uint8_t)(acc << (5 - bits) & 31);
		c = polymod_step(c, v);
		out[o++] = charset[v];
	}
	for (i = 0; i < 6; i++)
		c = polymod_step(c, 0);
	c ^= 1;
	for (i = 0; i < 6; i++)
		out[o++] = charset[c >> (5 * (5 - i)) & 31];
	out[o] = '\0';
	if (upper)
		for (i = 0; i < o; i++)
			if (out[i] >= 'a' && out[i] <= 'z')
				out[i] = (char)(out[i] - 'a' + 'A');
	return 0;
}

int bech32_decode(const char *s, size_t slen, char *hrp, size_t hrpcap,
		  uint8_t *data, size_t cap, size_t *n)
{
	size_t sep = 0, i, o = 0;
	int up = 0, lo = 0, bits = 0;
	uint32_t c, acc = 0;

	for (i = 0; i < slen; i++) {
		if (s[i] < 33 || s[i] > 126)
			return -1;
		up |= s[i] >= 'A' && s[i] <= 'Z';
		lo |= s[i] >= 'a' && s[i] <= 'z';
		if (s[i] == '1')
			sep = i;
	}
	if ((up && lo) || sep < 1 || slen - sep - 1 < 6 || sep + 1 > hrpcap)
		return -1;
	for (i = 0; i < sep; i++)
		hrp[i] = lower(s[i]);
	hrp[sep] = '\0';
	c = hrp_state(s, sep);
	for (i = sep + 1; i < slen; i++) {
		const char *q = strchr(charset, lower(s[i]));
		uint8_t v;

		if (!q || !*q)
			return -1;
		v = (uint8_t)(q - charset);
		c = polymod_step(c, v);
		if (i >= slen - 6)
			continue;	/* the checksum */
		acc = acc << 5 | v;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap)
				return -1;
			data[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* at most 4 padding bits, all zero */
	if (c != 1 || bits > 4 || (acc & ((1u << bits) - 1)))
		return -1;
	*n = o;
	return 0;
}
