/* X25519 through mbedTLS's Montgomery-curve arithmetic (ECP with
 * Curve25519). */
#include <string.h>

#include <mbedtls/ecp.h>

#include "crypto/pk.h"
#include "crypto/x25519.h"

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

int x25519(uint8_t out[X25519_BYTES], const uint8_t scalar[X25519_BYTES],
	   const uint8_t u[X25519_BYTES])
{
	mbedtls_ecp_group g;
	mbedtls_ecp_point p, r;
	mbedtls_mpi d;
	uint8_t k[X25519_BYTES], x[X25519_BYTES], acc = 0;
	int rc = -1;
	size_t i;

	/* RFC 7748, 5: clamp the scalar, mask the top bit of u. */
	memcpy(k, scalar, sizeof(k));
	k[0] &= 248;
	k[31] &= 127;
	k[31] |= 64;
	memcpy(x, u, sizeof(x));
	x[31] &= 127;
	mbedtls_ecp_group_init(&g);
	mbedtls_ecp_point_init(&p);
	mbedtls_ecp_point_init(&r);
	mbedtls_mpi_init(&d);
	if (mbedtls_ecp_group_load(&g, MBEDTLS_ECP_DP_CURVE25519) ||
	    mbedtls_mpi_read_binary_le(&d, k, sizeof(k)) ||
	    mbedtls_mpi_read_binary_le(&p.X, x, sizeof(x)) ||
	    mbedtls_mpi_lset(&p.Z, 1) ||
	    mbedtls_ecp_mul(&g, &r, &d, &p, rng_cb, NULL) ||
	    mbedtls_mpi_write_binary_le(&r.X, out, X25519_BYTES))
		goto out;
	for (i = 0; i < X25519_BYTES; i++)
		acc |= out[i];
	rc = acc ? 0 : -1;
out:
	mbedtls_mpi_free(&d);
	mbedtls_ecp_point_free(&p);
	mbedtls_ecp_point_free(&r);
	mbedtls_ecp_group_free(&g);
	explicit_bzero(k, sizeof(k));
	if (rc)
		explicit_bzero(out, X25519_BYTES);
	return rc;
}

int x25519_base(uint8_t out[X25519_BYTES],
		const uint8_t scalar[X25519_BYTES])
{
	static const uint8_t nine[X25519_BYTES] = { 9 };

	return x25519(out, scalar, nine);
}
