#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/bignum.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/rsa.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/verify.h"

/* A verifier's public key: RSA, or ECC on P-256 or P-384.  The DER is
 * read here with lib/base/der.c, so mbedTLS's key layer (and the private-key
 * code its tables pull in) stays out of the binary. */
struct vkey {
	uint16_t type;			/* TPM2_ALG_RSA or TPM2_ALG_ECC */
	mbedtls_rsa_context rsa;
	mbedtls_ecp_group grp;
	mbedtls_ecp_point q;
};

/* RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } */
static int read_rsa(struct tb *b, struct vkey *k)
{
	struct tb seq;
	const uint8_t *n, *e;
	size_t nlen, elen;

	if (der_get(b, DER_SEQ, &seq) || tb_left(b) ||
	    der_get_mag(&seq, &n, &nlen) || der_get_mag(&seq, &e, &elen) ||
	    tb_left(&seq))
		return -1;
	k->type = TPM2_ALG_RSA;
	return mbedtls_rsa_import_raw(&k->rsa, n, nlen, NULL, 0, NULL, 0,
				      NULL, 0, e, elen) ||
	       mbedtls_rsa_complete(&k->rsa) ||
	       mbedtls_rsa_check_pubkey(&k->rsa) ? -1 : 0;
}

/* SubjectPublicKeyInfo (RFC 5280, RFC 5480), or PKCS#1 RSAPublicKey. */
static int read_key(const uint8_t *der, size_t len, struct vkey *k)
{
	struct tb b, spki, alg, oid, bits;
	mbedtls_ecp_group_id id;
	const uint8_t *pt;
	uint16_t curve;

	tb_init_read(&b, der, len);
	if (der_get(&b, DER_SEQ, &spki) || tb_left(&b))
		return -1;
	if (der_peek(&spki) == DER_INT) {	/* PKCS#1 RSAPublicKey */
		tb_init_read(&b, der, len);
		return read_rsa(&b, k);
	}
	if (der_get(&spki, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid) ||
	    der_get(&spki, DER_BITS, &bits) || tb_left(&spki) ||
	    tb_get_u8(&bits) != 0 || tb_err(&bits))
		return -1;	/* a key is a whole number of bytes */
	if (der_key_alg(&oid, &alg, &curve))
		return -1;
	if (!curve)
		return read_rsa(&bits, k);
	id = curve == TPM2_ECC_NIST_P256 ? MBEDTLS_ECP_DP_SECP256R1 :
					   MBEDTLS_ECP_DP_SECP384R1;
	k->type = TPM2_ALG_ECC;
	len = tb_left(&bits);
	pt = tb_get_ref(&bits, len);
	return !pt || mbedtls_ecp_group_load(&k->grp, id) ||
	       mbedtls_ecp_point_read_binary(&k->grp, &k->q, pt, len) ||
	       mbedtls_ecp_check_pubkey(&k->grp, &k->q) ? -1 : 0;
}

static mbedtls_md_type_t md_of(uint16_t alg)
{
	return (mbedtls_md_type_t)hash_md_type(alg);
}

int vkey_parse(const uint8_t *data, size_t n, struct vkey **out,
	       struct tberr *e)
{
	static const char *const labels[] = { "PUBLIC KEY", "RSA PUBLIC KEY" };
	struct vkey *k;
	uint8_t *der = NULL;
	size_t i, len = 0;
	int r = PEM_NONE;

	*out = NULL;
	/* PEM text is decoded by lib/base/pem.c, the one PEM codec. */
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]) && r == PEM_NONE;
	     i++)
		r = pem_block((const char *)data, n, labels[i], &der, &len);
	if (r == PEM_NOMEM)
		return err_set(e, EX_FAIL, "out of memory");
	if (r != PEM_OK && r != PEM_NONE)
		return err_set(e, EX_USAGE, "public key: the %s PEM block is "
			       "damaged (%s)", labels[i - 1],
			       r == PEM_NOEND ? "no END line" :
			       r == PEM_TWICE ? "more than one" :
			       "not valid base64");
	if (!(k = calloc(1, sizeof(*k)))) {
		free(der);
		return err_set(e, EX_FAIL, "out of memory");
	}
	mbedtls_rsa_init(&k->rsa, MBEDTLS_RSA_PKCS_V15, 0);
	mbedtls_ecp_group_init(&k->grp);
	mbedtls_ecp_point_init(&k->q);
	r = read_key(der ? der : data, der ? len : n, k);
	free(der);
	if (r) {
		vkey_free(k);
		return err_set(e, EX_USAGE, "public key: not an RSA or ECC "
			       "(P-256, P-384) public key in PEM or DER");
	}
	*out = k;
	return 0;
}

void vkey_free(struct vkey *k)
{
	if (!k)
		return;
	mbedtls_rsa_free(&k->rsa);
	mbedtls_ecp_group_free(&k->grp);
	mbedtls_ecp_point_free(&k->q);
	free(k);
}

uint16_t vkey_type(const struct vkey *k)
{
	return k->type;
}

size_t vkey_bits(const struct vkey *k)
{
	return k->type == TPM2_ALG_RSA ? mbedtls_mpi_bitlen(&k->rsa.N) :
	       k->grp.pbits;
}

int vkey_raw(const struct vkey *k, uint8_t *a, size_t acap, size_t *alen,
	     uint8_t *b, size_t bcap, size_t *blen, uint32_t *exp)
{
	*alen = *blen = 0;
	*exp = 0;
	if (vkey_type(k) == TPM2_ALG_ECC) {
		if (k->grp.id != MBEDTLS_ECP_DP_SECP256R1 || acap < 32 ||
		    bcap < 32 ||
		    mbedtls_mpi_write_binary(&k->q.X, a, 32) ||
		    mbedtls_mpi_write_binary(&k->q.Y, b, 32))
			return -1;
		*alen = *blen = 32;
		return 0;
	}
	if (vkey_type(k) == TPM2_ALG_RSA) {
		mbedtls_rsa_context *rsa = (mbedtls_rsa_context *)&k->rsa;
		mbedtls_mpi n, e;
		size_t len = mbedtls_rsa_get_len(rsa);
		int r;

		if (len > acap)
			return -1;
		mbedtls_mpi_init(&n);
		mbedtls_mpi_init(&e);
		r = mbedtls_rsa_export(rsa, &n, NULL, NULL, NULL, &e) ||
		    mbedtls_mpi_write_binary(&n, a, len) ||
		    mbedtls_mpi_bitlen(&e) > 32;
		if (!r) {
			uint8_t eb[4];

			r = mbedtls_mpi_write_binary(&e, eb, 4);
			*exp = (uint32_t)eb[0] << 24 | (uint32_t)eb[1] << 16 |
			       (uint32_t)eb[2] << 8 | eb[3];
		}
		mbedtls_mpi_free(&n);
		mbedtls_mpi_free(&e);
		if (r)
			return -1;
		*alen = len;
		return 0;
	}
	return -1;
}

static int verify_ecdsa(const struct vkey *k, const uint8_t *digest,
			size_t dlen, const uint8_t *r, size_t rlen,
			const uint8_t *s, size_t slen, struct tberr *e)
{
	mbedtls_mpi mr, ms;
	int rc;

	mbedtls_mpi_init(&mr);
	mbedtls_mpi_init(&ms);
	if (mbedtls_mpi_read_binary(&mr, r, rlen) ||
	    mbedtls_mpi_read_binary(&ms, s, slen)) {
		rc = err_set(e, EX_FAIL, "out of memory");
	} else if (mbedtls_ecdsa_verify((mbedtls_ecp_group *)&k->grp,
					digest, dlen, &k->q, &mr, &ms)) {
		rc = err_set(e, EX_FAIL, "the ECDSA signature does not "
			     "verify with this key");
	} else {
		rc = 0;
	}
	mbedtls_mpi_free(&mr);
	mbedtls_mpi_free(&ms);
	return rc;
}

/* RSASSA-PKCS1-v1_5, or RSASSA-PSS (RFC 8017 8.1) with MGF1 of the same
 * hash and any salt length (a TPM uses the digest's size or the largest
 * that fits). */
static int verify_rsa(const struct vkey *k, int pss, uint16_t hashalg,
		      const uint8_t *digest, size_t dlen,
		      const uint8_t *sig, size_t slen, struct tberr *e)
{
	mbedtls_rsa_context *rsa = (mbedtls_rsa_context *)&k->rsa;
	int rc;

	if (slen != mbedtls_rsa_get_len(rsa))
		return err_set(e, EX_FAIL, "the RSA signature is %zu bytes, "
			       "the key's modulus %zu", slen,
			       mbedtls_rsa_get_len(rsa));
	rc = pss ? mbedtls_rsa_rsassa_pss_verify_ext(rsa, NULL, NULL,
						     MBEDTLS_RSA_PUBLIC,
						     md_of(hashalg),
						     (unsigned)dlen, digest,
						     md_of(hashalg),
						     MBEDTLS_RSA_SALT_LEN_ANY,
						     sig) :
		   mbedtls_rsa_rsassa_pkcs1_v15_verify(rsa, NULL, NULL,
						       MBEDTLS_RSA_PUBLIC,
						       md_of(hashalg),
						       (unsigned)dlen, digest,
						       sig);
	if (rc)
		return err_set(e, EX_FAIL, "the %s signature does not verify "
			       "with this key", pss ? "RSAPSS" : "RSASSA");
	return 0;
}

int vkey_verify(const struct vkey *k, uint16_t sigalg, uint16_t hashalg,
		const uint8_t *digest, size_t dlen, const uint8_t *a,
		size_t alen, const uint8_t *b, size_t blen, struct tberr *e)
{
	if (md_of(hashalg) == MBEDTLS_MD_NONE || dlen != hash_size(hashalg))
		return err_set(e, EX_FAIL, "unsupported signature hash "
			       "0x%04x", hashalg);
	switch (sigalg) {
	case TPM2_ALG_ECDSA:
		if (vkey_type(k) != TPM2_ALG_ECC)
			return err_set(e, EX_FAIL, "an ECDSA signature "
				       "cannot be checked with an RSA key");
		return verify_ecdsa(k, digest, dlen, a, alen, b, blen, e);
	case TPM2_ALG_RSASSA:
		if (vkey_type(k) != TPM2_ALG_RSA)
			return err_set(e, EX_FAIL, "an RSASSA signature "
				       "cannot be checked with an ECC key");
		return verify_rsa(k, 0, hashalg, digest, dlen, a, alen, e);
	case TPM2_ALG_RSAPSS:
		if (vkey_type(k) != TPM2_ALG_RSA)
			return err_set(e, EX_FAIL, "an RSAPSS signature "
				       "cannot be checked with an ECC key");
		return verify_rsa(k, 1, hashalg, digest, dlen, a, alen, e);
	}
	return err_set(e, EX_FAIL, "unsupported signature algorithm 0x%04x "
		       "(ECDSA, RSASSA and RSAPSS are)", sigalg);
}

