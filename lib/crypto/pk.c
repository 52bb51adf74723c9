/* Public keys to SubjectPublicKeyInfo (PEM/DER), and the random source. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/rsa.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"

/* Entropy callback for the DRBG: getrandom(2), blocking until the kernel
 * pool is initialized, retried on EINTR and short reads. */
static int entropy_getrandom(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	while (n) {
		ssize_t r = getrandom(out, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		out += r;
		n -= (size_t)r;
	}
	return 0;
}

int rng_bytes(void *out, size_t n)
{
	static const unsigned char pers[] = "tpmbox rng";
	mbedtls_ctr_drbg_context d;
	unsigned char *p = out;
	int rc;

	mbedtls_ctr_drbg_init(&d);
	rc = mbedtls_ctr_drbg_seed(&d, entropy_getrandom, NULL, pers,
				   sizeof(pers) - 1);
	while (!rc && n) {
		size_t k = n > MBEDTLS_CTR_DRBG_MAX_REQUEST ?
			   MBEDTLS_CTR_DRBG_MAX_REQUEST : n;

		rc = mbedtls_ctr_drbg_random(&d, p, k);
		p += k;
		n -= k;
	}
	mbedtls_ctr_drbg_free(&d);
	if (rc) {
		explicit_bzero(out, (size_t)(p - (unsigned char *)out) + n);
		return -1;
	}
	return 0;
}

/* The key checks mbedTLS makes before anything is written: the point is
 * on P-256; the modulus and exponent make an RSA public key. */
static int check_ec(mbedtls_ecp_group_id id, size_t cs, const uint8_t *x,
		    size_t xlen, const uint8_t *y, size_t ylen)
{
	mbedtls_ecp_group g;
	mbedtls_ecp_point q;
	int r;

	if (xlen > cs || ylen > cs)
		return -1;
	mbedtls_ecp_group_init(&g);
	mbedtls_ecp_point_init(&q);
	r = mbedtls_ecp_group_load(&g, id) ||
	    mbedtls_mpi_read_binary(&q.X, x, xlen) ||
	    mbedtls_mpi_read_binary(&q.Y, y, ylen) ||
	    mbedtls_mpi_lset(&q.Z, 1) || mbedtls_ecp_check_pubkey(&g, &q);
	mbedtls_ecp_group_free(&g);
	mbedtls_ecp_point_free(&q);
	return r ? -1 : 0;
}

static int check_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		      size_t ylen)
{
	return check_ec(MBEDTLS_ECP_DP_SECP256R1, 32, x, xlen, y, ylen);
}

static int check_rsa(const uint8_t *n, size_t nlen, const uint8_t eb[4])
{
	mbedtls_rsa_context r;
	int rc;

	mbedtls_rsa_init(&r, MBEDTLS_RSA_PKCS_V15, 0);
	rc = mbedtls_rsa_import_raw(&r, n, nlen, NULL, 0, NULL, 0, NULL, 0,
				    eb, 4) ||
	     mbedtls_rsa_complete(&r) || mbedtls_rsa_check_pubkey(&r);
	mbedtls_rsa_free(&r);
	return rc ? -1 : 0;
}

/* AlgorithmIdentifiers, whole (RFC 3279, RFC 5480). */
static const uint8_t alg_rsa[] = { 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48,
	0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00 };
static const uint8_t alg_p256[] = { 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48,
	0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d,
	0x03, 0x01, 0x07 };
static const uint8_t alg_p384[] = { 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48,
	0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22 };
#ifdef MBEDTLS_ECP_DP_SECP521R1_ENABLED
static const uint8_t alg_p521[] = { 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48,
	0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23 };
#endif

/* SEQUENCE { alg, BIT STRING { 00 key } } into a malloc'd buffer; the key
 * bytes are written by put (count n). */
static int spki(const uint8_t *alg, size_t alen, size_t n,
		void (*put)(struct tb *, const void *), const void *arg,
		uint8_t **der, size_t *derlen)
{
	size_t bits = der_size(n + 1), all = der_size(alen + bits);
	struct tb b;

	if (!(*der = malloc(all)))
		return -1;
	tb_init(&b, *der, all);
	der_tl(&b, DER_SEQ, alen + bits);
	tb_put_bytes(&b, alg, alen);
	der_tl(&b, DER_BITS, n + 1);
	tb_put_u8(&b, 0);
	put(&b, arg);
	if (tb_err(&b) || b.len != all) {
		free(*der);
		*der = NULL;
		return -1;
	}
	*derlen = all;
	return 0;
}

struct ec_pt { const uint8_t *x, *y; size_t xlen, ylen, cs; };

/* 04 || X || Y, each coordinate left-padded to the curve's size */
static void put_ec(struct tb *b, const void *arg)
{
	const struct ec_pt *p = arg;
	static const uint8_t zeros[66];

	tb_put_u8(b, 0x04);
	tb_put_bytes(b, zeros, p->cs - p->xlen);
	tb_put_bytes(b, p->x, p->xlen);
	tb_put_bytes(b, zeros, p->cs - p->ylen);
	tb_put_bytes(b, p->y, p->ylen);
}

struct rsa_pub { const uint8_t *n; size_t nlen; uint8_t e[4]; };

/* n and the exponent e (0 meaning 65537) as 4 big-endian bytes */
static void rsa_pub_set(struct rsa_pub *r, const uint8_t *n, size_t nlen,
			uint32_t e)
{
	if (!e)
		e = 65537;
	r->n = n;
	r->nlen = nlen;
	r->e[0] = (uint8_t)(e >> 24);
	r->e[1] = (uint8_t)(e >> 16);
	r->e[2] = (uint8_t)(e >> 8);
	r->e[3] = (uint8_t)e;
}

static size_t rsa_body(const struct rsa_pub *r)
{
	return der_mag_size(r->n, r->nlen) + der_mag_size(r->e, 4);
}

/* RSAPublicKey ::= SEQUENCE { modulus, publicExponent } */
static void put_rsa(struct tb *b, const void *arg)
{
	const struct rsa_pub *r = arg;

	der_tl(b, DER_SEQ, rsa_body(r));
	der_mag(b, r->n, r->nlen);
	der_mag(b, r->e, 4);
}

int pk_der_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen)
{
	struct ec_pt p = { x, y, xlen, ylen, 32 };

	if (check_p256(x, xlen, y, ylen))
		return -1;
	return spki(alg_p256, sizeof(alg_p256), 65, put_ec, &p, der,
		    derlen);
}

int pk_der_p384(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen)
{
	struct ec_pt p = { x, y, xlen, ylen, 48 };

	if (check_ec(MBEDTLS_ECP_DP_SECP384R1, 48, x, xlen, y, ylen))
		return -1;
	return spki(alg_p384, sizeof(alg_p384), 97, put_ec, &p, der,
		    derlen);
}

/* NIST P-521: the high range EK template H-4's key.  Not in the small
 * build's mbedTLS (tiny/mbedtls-config.h): -1 there. */
int pk_der_p521(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen)
{
#ifdef MBEDTLS_ECP_DP_SECP521R1_ENABLED
	struct ec_pt p = { x, y, xlen, ylen, 66 };

	if (check_ec(MBEDTLS_ECP_DP_SECP521R1, 66, x, xlen, y, ylen))
		return -1;
	return spki(alg_p521, sizeof(alg_p521), 133, put_ec, &p, der,
		    derlen);
#else
	(void)x; (void)xlen; (void)y; (void)ylen; (void)der; (void)derlen;
	return -1;
#endif
}

int pk_has_p521(void)
{
#ifdef MBEDTLS_ECP_DP_SECP521R1_ENABLED
	return 1;
#else
	return 0;
#endif
}

static int to_pem(uint8_t *der, size_t n, char **pem, size_t *pemlen);

typedef int ec_der_fn(const uint8_t *, size_t, const uint8_t *, size_t,
		      uint8_t **, size_t *);

/* An EC point's SubjectPublicKeyInfo (der makes it) as PEM. */
static int ec_pem(ec_der_fn *der, const uint8_t *x, size_t xlen,
		  const uint8_t *y, size_t ylen, char **pem, size_t *pemlen)
{
	uint8_t *d;
	size_t n;

	*pem = NULL;
	if (der(x, xlen, y, ylen, &d, &n))
		return -1;
	return to_pem(d, n, pem, pemlen);
}

int pk_pem_p384(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen)
{
	return ec_pem(pk_der_p384, x, xlen, y, ylen, pem, pemlen);
}

int pk_pem_p521(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen)
{
	return ec_pem(pk_der_p521, x, xlen, y, ylen, pem, pemlen);
}

int pk_der_rsa(const uint8_t *n, size_t nlen, uint32_t e, uint8_t **der,
	       size_t *derlen)
{
	struct rsa_pub r;

	rsa_pub_set(&r, n, nlen, e);
	if (check_rsa(n, nlen, r.e))
		return -1;
	return spki(alg_rsa, sizeof(alg_rsa), der_size(rsa_body(&r)),
		    put_rsa, &r, der, derlen);
}

/* The SubjectPublicKeyInfo as PEM, through lib/base/pem.c (the one PEM codec);
 * der is freed. */
static int to_pem(uint8_t *der, size_t n, char **pem, size_t *pemlen)
{
	int r;

	*pem = NULL;
	*pemlen = 0;
	r = pem_append(pem, pemlen, "PUBLIC KEY", der, n);
	free(der);
	if (r) {
		free(*pem);
		*pem = NULL;
	}
	return r;
}

int pk_pem_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen)
{
	return ec_pem(pk_der_p256, x, xlen, y, ylen, pem, pemlen);
}

int pk_pem_rsa(const uint8_t *n, size_t nlen, uint32_t e, char **pem,
	       size_t *pemlen)
{
	uint8_t *der;
	size_t m;

	*pem = NULL;
	if (pk_der_rsa(n, nlen, e, &der, &m))
		return -1;
	return to_pem(der, m, pem, pemlen);
}

int pk_fingerprint(int rsa, const uint8_t *a, size_t alen, const uint8_t *b,
		   size_t blen, uint32_t e, uint8_t out[32])
{
	uint8_t mem[1100];
	struct tb t;

	tb_init(&t, mem, sizeof(mem));
	if (rsa) {
		struct rsa_pub r;

		rsa_pub_set(&r, a, alen, e);
		put_rsa(&t, &r);
	} else {
		struct ec_pt p = { a, b, alen, blen, 32 };

		if (alen > 32 || blen > 32)
			return -1;
		put_ec(&t, &p);
	}
	if (tb_err(&t))
		return -1;
	return hash_buf(TPM2_ALG_SHA256, t.p, t.len, out) ? -1 : 0;
}
