/* Ephemeral ECDH on NIST P-256 for salting sessions to an ECC key. */
#include <string.h>

#include <mbedtls/ecp.h>

#include "crypto/ecc.h"
#include "crypto/pk.h"

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

int ecc_p256_ephemeral(const uint8_t *qx, size_t qxlen, const uint8_t *qy,
		       size_t qylen, uint8_t ex[P256_BYTES],
		       uint8_t ey[P256_BYTES], uint8_t z[P256_BYTES])
{
	mbedtls_ecp_group g;
	mbedtls_ecp_point q, e, s;
	mbedtls_mpi d;
	int rc = -1;

	if (qxlen > P256_BYTES || qylen > P256_BYTES)
		return -1;
	mbedtls_ecp_group_init(&g);
	mbedtls_ecp_point_init(&q);
	mbedtls_ecp_point_init(&e);
	mbedtls_ecp_point_init(&s);
	mbedtls_mpi_init(&d);
	if (mbedtls_ecp_group_load(&g, MBEDTLS_ECP_DP_SECP256R1) ||
	    mbedtls_mpi_read_binary(&q.X, qx, qxlen) ||
	    mbedtls_mpi_read_binary(&q.Y, qy, qylen) ||
	    mbedtls_mpi_lset(&q.Z, 1) ||
	    /* An off-curve point would leak bits of d (invalid-curve). */
	    mbedtls_ecp_check_pubkey(&g, &q) ||
	    mbedtls_ecp_gen_keypair(&g, &d, &e, rng_cb, NULL) ||
	    mbedtls_ecp_mul(&g, &s, &d, &q, rng_cb, NULL) ||
	    mbedtls_ecp_is_zero(&s) ||
	    mbedtls_mpi_write_binary(&e.X, ex, P256_BYTES) ||
	    mbedtls_mpi_write_binary(&e.Y, ey, P256_BYTES) ||
	    mbedtls_mpi_write_binary(&s.X, z, P256_BYTES))
		goto out;
	rc = 0;
out:
	mbedtls_mpi_free(&d);	/* zeroizes */
	mbedtls_ecp_point_free(&s);
	mbedtls_ecp_point_free(&e);
	mbedtls_ecp_point_free(&q);
	mbedtls_ecp_group_free(&g);
	if (rc)
		explicit_bzero(z, P256_BYTES);
	return rc;
}
