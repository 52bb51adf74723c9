/* Shamir's secret sharing over a prime field, the combining half, as
 * clevis' sss pin uses it (facts from clevis' src/pins/sss): the prime p
 * is big-endian of plen bytes; a share (a "point") is x then y, each
 * plen bytes big-endian; the secret is the polynomial's value at 0,
 * sum_i y_i * prod_{j != i} x_j / (x_j - x_i) mod p, written in plen
 * bytes big-endian. */
#ifndef TPMBOX_CRYPTO_SSS_H
#define TPMBOX_CRYPTO_SSS_H

#include <stddef.h>
#include <stdint.h>

/* Combine the n points pts[i] (2 * plen bytes each) into out (plen
 * bytes).  0, or -1: a coordinate not below p, two points with the same
 * x, p < 2, plen past 512, or out of memory (out zeroed then). */
int sss_combine(const uint8_t *p, size_t plen, const uint8_t *const *pts,
		int n, uint8_t *out);

#endif
