/* RSASSA-PKCS1-v1_5 and ECDSA signatures (include/crypto/sign.h). */
#include <string.h>

#include <mbedtls/ecdsa.h>
#include <mbedtls/md.h>
#include <mbedtls/rsa.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/ecdh.h"
#include "crypto/pk.h"
#include "crypto/sign.h"

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

int sign_rsa_pkcs1(const struct rsa_priv *k, uint16_t hash_alg,
		   const uint8_t *digest, size_t dlen, uint8_t *sig,
		   size_t cap, size_t *siglen)
{
	mbedtls_rsa_context r;
	mbedtls_md_type_t md;
	int rc;

	if ((md = (mbedtls_md_type_t)hash_md_type(hash_alg)) == MBEDTLS_MD_NONE)
		return -1;
	if (dlen != mbedtls_md_get_size(mbedtls_md_info_from_type(md)))
		return -1;
	mbedtls_rsa_init(&r, MBEDTLS_RSA_PKCS_V15, 0);
	rc = mbedtls_rsa_import_raw(&r, k->n, k->nlen, k->p, k->plen, k->q,
				    k->qlen, k->d, k->dlen, k->e, k->elen) ||
	     mbedtls_rsa_complete(&r) || mbedtls_rsa_check_privkey(&r) ||
	     mbedtls_rsa_get_len(&r) > cap;
	/* blinded private operation; the result is checked against the
	 * public key by mbedTLS (MBEDTLS_RSA_NO_CRT aside) */
	if (!rc)
		rc = mbedtls_rsa_pkcs1_sign(&r, rng_cb, NULL,
					    MBEDTLS_RSA_PRIVATE, md,
					    (unsigned)dlen, digest, sig);
	if (!rc)
		*siglen = mbedtls_rsa_get_len(&r);
	mbedtls_rsa_free(&r);
	return rc ? -1 : 0;
}

int sign_ecdsa(uint16_t curve, const uint8_t *d, size_t dlen,
	       const uint8_t *digest, size_t n, uint8_t *sig, size_t cap,
	       size_t *siglen)
{
	mbedtls_ecp_group g;
	mbedtls_mpi md, r, s;
	uint8_t rb[EC_MAX_BYTES], sb[EC_MAX_BYTES];
	size_t len = ec_bytes(curve);
	struct tb b;
	int rc;

	if (!len || dlen != len)
		return -1;
	mbedtls_ecp_group_init(&g);
	mbedtls_mpi_init(&md);
	mbedtls_mpi_init(&r);
	mbedtls_mpi_init(&s);
	rc = mbedtls_ecp_group_load(&g, curve == EC_NIST_P256 ?
				    MBEDTLS_ECP_DP_SECP256R1 :
				    MBEDTLS_ECP_DP_SECP384R1) ||
	     mbedtls_mpi_read_binary(&md, d, dlen) ||
	     mbedtls_ecp_check_privkey(&g, &md) ||
	     mbedtls_ecdsa_sign(&g, &r, &s, &md, digest, n, rng_cb, NULL) ||
	     mbedtls_mpi_write_binary(&r, rb, len) ||
	     mbedtls_mpi_write_binary(&s, sb, len);
	mbedtls_ecp_group_free(&g);
	mbedtls_mpi_free(&md);
	mbedtls_mpi_free(&r);
	mbedtls_mpi_free(&s);
	if (rc)
		return -1;
	tb_init(&b, sig, cap);
	der_ecdsa_sig(&b, rb, len, sb, len);
	if (tb_err(&b))
		return -1;
	*siglen = b.len;
	return 0;
}
