/* The SHA-1 block function for the small build (MBEDTLS_SHA1_PROCESS_ALT):
 * FIPS 180-4 section 6.1.2 as one loop over a 16-word rolling schedule,
 * about 300 bytes of code against mbedTLS's 4.7 KiB of unrolled rounds.
 * Speed is not the point: tpmbox hashes a few kilobytes per run. */
#include <stdint.h>

#include "mbedtls/sha1.h"

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

int mbedtls_internal_sha1_process(mbedtls_sha1_context *ctx,
				  const unsigned char data[64])
{
	uint32_t w[16], a, b, c, d, e, f, k, t;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)data[4 * i] << 24 |
		       (uint32_t)data[4 * i + 1] << 16 |
		       (uint32_t)data[4 * i + 2] << 8 | data[4 * i + 3];
	a = ctx->state[0];
	b = ctx->state[1];
	c = ctx->state[2];
	d = ctx->state[3];
	e = ctx->state[4];
	for (i = 0; i < 80; i++) {
		if (i >= 16)
			w[i & 15] = rol(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^
					w[(i + 2) & 15] ^ w[i & 15], 1);
		if (i < 20)
			f = (b & c) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		t = rol(a, 5) + f + e + k + w[i & 15];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	ctx->state[0] += a;
	ctx->state[1] += b;
	ctx->state[2] += c;
	ctx->state[3] += d;
	ctx->state[4] += e;
	/* the schedule held message words: do not leave them on the stack */
	for (i = 0; i < 16; i++)
		((volatile uint32_t *)w)[i] = 0;
	return 0;
}
