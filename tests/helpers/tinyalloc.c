/* tests/dispatch.bats: the small build's allocator for mbedTLS
 * (tiny/alloc.c), driven by random sizes and orders: every block handed
 * out is zeroed, 16-byte aligned and overlaps no other live block (each
 * is filled with its own byte and checked when freed), large and
 * arena-exhausting requests still succeed (from calloc), overflowing
 * counts fail.  Exit 0 when all held. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *tpmbox_mbedtls_calloc(size_t n, size_t size);
void tpmbox_mbedtls_free(void *p);

#define LIVE 512

static unsigned long long rnd = 88172645463325252ULL;
static unsigned long long next(void)
{
	rnd ^= rnd << 13; rnd ^= rnd >> 7; rnd ^= rnd << 17;
	return rnd;
}

int main(void)
{
	unsigned char *p[LIVE] = { 0 };
	size_t len[LIVE];
	unsigned char tag[LIVE];
	long i, k, bad = 0;

	/* a count whose product wraps to 4 bytes */
	if (tpmbox_mbedtls_calloc(((size_t)1 << (sizeof(size_t) * 8 - 2)) + 1, 4) != NULL)
		bad++, fprintf(stderr, "overflowing count accepted\n");
	for (i = 0; i < 2000000; i++) {
		k = (long)(next() % LIVE);
		if (p[k] != NULL) {
			for (size_t j = 0; j < len[k]; j++)
				if (p[k][j] != tag[k]) {
					bad++;
					fprintf(stderr, "block %ld byte %zu overwritten\n", k, j);
					break;
				}
			tpmbox_mbedtls_free(p[k]);
			p[k] = NULL;
			continue;
		}
		switch (next() % 8) {
		case 0: len[k] = next() % 4096; break;	/* past the classes */
		case 1: len[k] = 0; break;
		default: len[k] = next() % 1100; break;
		}
		p[k] = tpmbox_mbedtls_calloc(1, len[k]);
		if (p[k] == NULL) {
			bad++, fprintf(stderr, "calloc(1, %zu) failed\n", len[k]);
			continue;
		}
		if ((uintptr_t)p[k] % 16)
			bad++, fprintf(stderr, "block not 16-byte aligned\n");
		for (size_t j = 0; j < len[k]; j++)
			if (p[k][j] != 0) {
				bad++, fprintf(stderr, "block not zeroed\n");
				break;
			}
		tag[k] = (unsigned char)(1 + next() % 255);
		memset(p[k], tag[k], len[k]);
	}
	for (k = 0; k < LIVE; k++)
		tpmbox_mbedtls_free(p[k]);
	tpmbox_mbedtls_free(NULL);
	if (bad)
		fprintf(stderr, "%ld faults\n", bad);
	return bad != 0;
}
