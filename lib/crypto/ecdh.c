/* ECDH on P-256 and P-384 for CMS key agreement. */
#include <string.h>

#include <mbedtls/ecp.h>

#include "crypto/ecdh.h"
#include "crypto/pk.h"

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

static mbedtls_ecp_group_id group_id(uint16_t curve)
{
	switch (curve) {
	case EC_NIST_P256: return MBEDTLS_ECP_DP_SECP256R1;
	case EC_NIST_P384: return MBEDTLS_ECP_DP_SECP384R1;
	}
	return MBEDTLS_ECP_DP_NONE;
}

size_t ec_bytes(uint16_t curve)
{
	switch (curve) {
	case EC_NIST_P256: return 32;
	case EC_NIST_P384: return 48;
	}
	return 0;
}

/* Load the group and an uncompressed point on it (checked: an off-curve
 * point would leak bits of the scalar it meets). */
static int load(uint16_t curve, const uint8_t *q, size_t qlen,
		mbedtls_ecp_group *g, mbedtls_ecp_point *p)
{
	size_t n = ec_bytes(curve);

	if (!n || (q && (qlen != 1 + 2 * n || q[0] != 0x04)))
		return -1;
	if (mbedtls_ecp_group_load(g, group_id(curve)))
		return -1;
	if (!q)
		return 0;
	return mbedtls_ecp_point_read_binary(g, p, q, qlen) ||
	       mbedtls_ecp_check_pubkey(g, p) ? -1 : 0;
}

int ec_point_check(uint16_t curve, const uint8_t *q, size_t qlen)
{
	mbedtls_ecp_group g;
	mbedtls_ecp_point p;
	int rc;

	mbedtls_ecp_group_init(&g);
	mbedtls_ecp_point_init(&p);
	rc = load(curve, q, qlen, &g, &p);
	mbedtls_ecp_point_free(&p);
	mbedtls_ecp_group_free(&g);
	return rc == 0;
}

/* Z = x(d * P) written as n bytes; -1 for the point at infinity. */
static int shared_x(mbedtls_ecp_group *g, const mbedtls_mpi *d,
		    const mbedtls_ecp_point *p, uint8_t *z, size_t n)
{
	mbedtls_ecp_point s;
	int rc;

	mbedtls_ecp_point_init(&s);
	rc = mbedtls_ecp_mul(g, &s, d, p, rng_cb, NULL) ||
	     mbedtls_ecp_is_zero(&s) ||
	     mbedtls_mpi_write_binary(&s.X, z, n);
	mbedtls_ecp_point_free(&s);
	return rc ? -1 : 0;
}

static int write_point(mbedtls_ecp_group *g, const mbedtls_ecp_point *p,
		       uint8_t *out, size_t n)
{
	size_t olen;

	return mbedtls_ecp_point_write_binary(g, p,
			MBEDTLS_ECP_PF_UNCOMPRESSED, &olen, out, 1 + 2 * n) ||
	       olen != 1 + 2 * n ? -1 : 0;
}

int ecdh_ephemeral(uint16_t curve, const uint8_t *q, size_t qlen,
		   uint8_t *e, uint8_t *z)
{
	mbedtls_ecp_group g;
	mbedtls_ecp_point p, ep;
	mbedtls_mpi d;
	size_t n = ec_bytes(curve);
	int rc = -1;

	mbedtls_ecp_group_init(&g);
	mbedtls_ecp_point_init(&p);
	mbedtls_ecp_point_init(&ep);
	mbedtls_mpi_init(&d);
	if (!load(curve, q, qlen, &g, &p) &&
	    !mbedtls_ecp_gen_keypair(&g, &d, &ep, rng_cb, NULL) &&
	    !shared_x(&g, &d, &p, z, n) && !write_point(&g, &ep, e, n))
		rc = 0;
	mbedtls_mpi_free(&d);
	mbedtls_ecp_point_free(&ep);
	mbedtls_ecp_point_free(&p);
	mbedtls_ecp_group_free(&g);
	if (rc && n)
		explicit_bzero(z, n);
	return rc;
}

/* A private scalar with its group, and a point (loaded or not). */
struct priv {
	mbedtls_ecp_group g;
	mbedtls_ecp_point p;
	mbedtls_mpi d;
};

/* The group, the point q (none if NULL) and the scalar dv, checked. */
static int priv_load(struct priv *k, uint16_t curve, const uint8_t *dv,
		     size_t dlen, const uint8_t *q, size_t qlen)
{
	mbedtls_ecp_group_init(&k->g);
	mbedtls_ecp_point_init(&k->p);
	mbedtls_mpi_init(&k->d);
	return load(curve, q, qlen, &k->g, &k->p) ||
	       mbedtls_mpi_read_binary(&k->d, dv, dlen) ||
	       mbedtls_ecp_check_privkey(&k->g, &k->d) ? -1 : 0;
}

/* mbedtls_mpi_free zeroes the scalar. */
static void priv_free(struct priv *k)
{
	mbedtls_mpi_free(&k->d);
	mbedtls_ecp_point_free(&k->p);
	mbedtls_ecp_group_free(&k->g);
}

int ecdh_shared(uint16_t curve, const uint8_t *dv, size_t dlen,
		const uint8_t *pv, size_t plen, uint8_t *z)
{
	struct priv k;
	size_t n = ec_bytes(curve);
	int rc = -1;

	if (!priv_load(&k, curve, dv, dlen, pv, plen) &&
	    !shared_x(&k.g, &k.d, &k.p, z, n))
		rc = 0;
	priv_free(&k);
	if (rc && n)
		explicit_bzero(z, n);
	return rc;
}

int ec_public(uint16_t curve, const uint8_t *dv, size_t dlen, uint8_t *q)
{
	struct priv k;
	size_t n = ec_bytes(curve);
	int rc = -1;

	if (!priv_load(&k, curve, dv, dlen, NULL, 0) &&
	    !mbedtls_ecp_mul(&k.g, &k.p, &k.d, &k.g.G, rng_cb, NULL) &&
	    !write_point(&k.g, &k.p, q, n))
		rc = 0;
	priv_free(&k);
	return rc;
}
