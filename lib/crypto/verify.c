#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/bignum.h>
#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/pk.h>
#include <mbedtls/rsa.h>

#include "crypto/hash.h"
#include "crypto/verify.h"
#include "tpm2/constants.h"

struct vkey {
	mbedtls_pk_context pk;
};

static mbedtls_md_type_t md_of(uint16_t alg)
{
	switch (alg) {
	case TPM2_ALG_SHA1: return MBEDTLS_MD_SHA1;
	case TPM2_ALG_SHA256: return MBEDTLS_MD_SHA256;
	case TPM2_ALG_SHA384: return MBEDTLS_MD_SHA384;
	case TPM2_ALG_SHA512: return MBEDTLS_MD_SHA512;
	}
	return MBEDTLS_MD_NONE;
}

int vkey_parse(const uint8_t *data, size_t n, struct vkey **out,
	       struct tberr *e)
{
	struct vkey *k;
	uint8_t *z;
	int r;

	*out = NULL;
	/* mbedTLS wants PEM text NUL-terminated, with the NUL counted. */
	z = malloc(n + 1);
	k = calloc(1, sizeof(*k));
	if (!z || !k) {
		free(z);
		free(k);
		return err_set(e, EX_FAIL, "out of memory");
	}
	memcpy(z, data, n);
	z[n] = '\0';
	mbedtls_pk_init(&k->pk);
	r = mbedtls_pk_parse_public_key(&k->pk, z,
					memchr(z, '-', n) ? n + 1 : n);
	free(z);
	if (r == 0 && vkey_type(k) == 0) {
		mbedtls_pk_free(&k->pk);
		free(k);
		return err_set(e, EX_USAGE, "public key: neither RSA nor "
			       "ECC");
	}
	if (r) {
		mbedtls_pk_free(&k->pk);
		free(k);
		return err_set(e, EX_USAGE, "public key: not a PEM or DER "
			       "public key (mbedTLS -0x%04x)", (unsigned)-r);
	}
	*out = k;
	return 0;
}

void vkey_free(struct vkey *k)
{
	if (!k)
		return;
	mbedtls_pk_free(&k->pk);
	free(k);
}

uint16_t vkey_type(const struct vkey *k)
{
	switch (mbedtls_pk_get_type(&k->pk)) {
	case MBEDTLS_PK_RSA:
		return TPM2_ALG_RSA;
	case MBEDTLS_PK_ECKEY:
	case MBEDTLS_PK_ECDSA:
		return TPM2_ALG_ECC;
	default:
		return 0;
	}
}

size_t vkey_bits(const struct vkey *k)
{
	return mbedtls_pk_get_bitlen(&k->pk);
}

int vkey_raw(const struct vkey *k, uint8_t *a, size_t acap, size_t *alen,
	     uint8_t *b, size_t bcap, size_t *blen, uint32_t *exp)
{
	*alen = *blen = 0;
	*exp = 0;
	if (vkey_type(k) == TPM2_ALG_ECC) {
		const mbedtls_ecp_keypair *ec = mbedtls_pk_ec(k->pk);

		if (ec->grp.id != MBEDTLS_ECP_DP_SECP256R1 || acap < 32 ||
		    bcap < 32 ||
		    mbedtls_mpi_write_binary(&ec->Q.X, a, 32) ||
		    mbedtls_mpi_write_binary(&ec->Q.Y, b, 32))
			return -1;
		*alen = *blen = 32;
		return 0;
	}
	if (vkey_type(k) == TPM2_ALG_RSA) {
		mbedtls_rsa_context *rsa = mbedtls_pk_rsa(k->pk);
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
	mbedtls_ecp_keypair *ec = mbedtls_pk_ec(k->pk);
	mbedtls_mpi mr, ms;
	int rc;

	mbedtls_mpi_init(&mr);
	mbedtls_mpi_init(&ms);
	if (mbedtls_mpi_read_binary(&mr, r, rlen) ||
	    mbedtls_mpi_read_binary(&ms, s, slen)) {
		rc = err_set(e, EX_FAIL, "out of memory");
	} else if (mbedtls_ecdsa_verify(&ec->grp, digest, dlen, &ec->Q, &mr,
					&ms)) {
		rc = err_set(e, EX_FAIL, "the ECDSA signature does not "
			     "verify with this key");
	} else {
		rc = 0;
	}
	mbedtls_mpi_free(&mr);
	mbedtls_mpi_free(&ms);
	return rc;
}

static int verify_rsassa(const struct vkey *k, uint16_t hashalg,
			 const uint8_t *digest, size_t dlen,
			 const uint8_t *sig, size_t slen, struct tberr *e)
{
	mbedtls_rsa_context *rsa = mbedtls_pk_rsa(k->pk);

	if (slen != mbedtls_rsa_get_len(rsa))
		return err_set(e, EX_FAIL, "the RSA signature is %zu bytes, "
			       "the key's modulus %zu", slen,
			       mbedtls_rsa_get_len(rsa));
	if (mbedtls_rsa_rsassa_pkcs1_v15_verify(rsa, NULL, NULL,
						MBEDTLS_RSA_PUBLIC,
						md_of(hashalg),
						(unsigned)dlen, digest, sig))
		return err_set(e, EX_FAIL, "the RSASSA signature does not "
			       "verify with this key");
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
		return verify_rsassa(k, hashalg, digest, dlen, a, alen, e);
	}
	return err_set(e, EX_FAIL, "unsupported signature algorithm 0x%04x "
		       "(ECDSA and RSASSA are)", sigalg);
}

