/* Public keys to SubjectPublicKeyInfo (PEM/DER), and the random source. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/pk.h>
#include <mbedtls/rsa.h>

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

static int setup_p256(mbedtls_pk_context *pk, const uint8_t *x, size_t xlen,
		      const uint8_t *y, size_t ylen)
{
	mbedtls_ecp_keypair *kp;

	if (xlen > 32 || ylen > 32 ||
	    mbedtls_pk_setup(pk, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY)))
		return -1;
	kp = mbedtls_pk_ec(*pk);
	if (mbedtls_ecp_group_load(&kp->grp, MBEDTLS_ECP_DP_SECP256R1) ||
	    mbedtls_mpi_read_binary(&kp->Q.X, x, xlen) ||
	    mbedtls_mpi_read_binary(&kp->Q.Y, y, ylen) ||
	    mbedtls_mpi_lset(&kp->Q.Z, 1) ||
	    mbedtls_ecp_check_pubkey(&kp->grp, &kp->Q))
		return -1;
	return 0;
}

static int setup_rsa(mbedtls_pk_context *pk, const uint8_t *n, size_t nlen,
		     uint32_t e)
{
	uint8_t eb[4];
	mbedtls_rsa_context *r;

	if (!e)
		e = 65537;
	eb[0] = (uint8_t)(e >> 24);
	eb[1] = (uint8_t)(e >> 16);
	eb[2] = (uint8_t)(e >> 8);
	eb[3] = (uint8_t)e;
	if (mbedtls_pk_setup(pk, mbedtls_pk_info_from_type(MBEDTLS_PK_RSA)))
		return -1;
	r = mbedtls_pk_rsa(*pk);
	if (mbedtls_rsa_import_raw(r, n, nlen, NULL, 0, NULL, 0, NULL, 0,
				   eb, 4) ||
	    mbedtls_rsa_complete(r) || mbedtls_rsa_check_pubkey(r))
		return -1;
	return 0;
}

static int write_pem(mbedtls_pk_context *pk, char **pem, size_t *pemlen)
{
	size_t cap = 4096;
	char *buf = malloc(cap);

	if (!buf)
		return -1;
	if (mbedtls_pk_write_pubkey_pem(pk, (unsigned char *)buf, cap)) {
		free(buf);
		return -1;
	}
	*pem = buf;
	*pemlen = strlen(buf);
	return 0;
}

static int write_der(mbedtls_pk_context *pk, uint8_t **der, size_t *derlen)
{
	unsigned char tmp[2048];
	int n = mbedtls_pk_write_pubkey_der(pk, tmp, sizeof(tmp));

	if (n <= 0 || !(*der = malloc((size_t)n)))
		return -1;
	/* The DER is written at the end of the buffer. */
	memcpy(*der, tmp + sizeof(tmp) - (size_t)n, (size_t)n);
	*derlen = (size_t)n;
	return 0;
}

int pk_pem_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, char **pem, size_t *pemlen)
{
	mbedtls_pk_context pk;
	int rc;

	mbedtls_pk_init(&pk);
	rc = setup_p256(&pk, x, xlen, y, ylen) || write_pem(&pk, pem, pemlen);
	mbedtls_pk_free(&pk);
	return rc ? -1 : 0;
}

int pk_pem_rsa(const uint8_t *n, size_t nlen, uint32_t e, char **pem,
	       size_t *pemlen)
{
	mbedtls_pk_context pk;
	int rc;

	mbedtls_pk_init(&pk);
	rc = setup_rsa(&pk, n, nlen, e) || write_pem(&pk, pem, pemlen);
	mbedtls_pk_free(&pk);
	return rc ? -1 : 0;
}

int pk_der_p256(const uint8_t *x, size_t xlen, const uint8_t *y,
		size_t ylen, uint8_t **der, size_t *derlen)
{
	mbedtls_pk_context pk;
	int rc;

	mbedtls_pk_init(&pk);
	rc = setup_p256(&pk, x, xlen, y, ylen) || write_der(&pk, der, derlen);
	mbedtls_pk_free(&pk);
	return rc ? -1 : 0;
}

int pk_der_rsa(const uint8_t *n, size_t nlen, uint32_t e, uint8_t **der,
	       size_t *derlen)
{
	mbedtls_pk_context pk;
	int rc;

	mbedtls_pk_init(&pk);
	rc = setup_rsa(&pk, n, nlen, e) || write_der(&pk, der, derlen);
	mbedtls_pk_free(&pk);
	return rc ? -1 : 0;
}
