/* The signer of a signed policy and TPM2_VerifySignature
 * (include/tpm2/authorize.h). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "crypto/pk.h"
#include "crypto/verify.h"
#include "tpm2/authorize.h"
#include "tpm2/cmd.h"
#include "tpm2/rc.h"

#define SIGNER_ATTRS (TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_DECRYPT | \
		      TPMA_OBJECT_SIGN_ENCRYPT)

static void signer_template(struct tpm2_public *k, uint16_t type)
{
	memset(k, 0, sizeof(*k));
	k->type = type;
	k->name_alg = TPM2_ALG_SHA256;
	k->attrs = SIGNER_ATTRS;
	k->sym_alg = TPM2_ALG_NULL;
	k->scheme = TPM2_ALG_NULL;
	k->kdf = TPM2_ALG_NULL;
	if (type == TPM2_ALG_ECC)
		k->curve = TPM2_ECC_NIST_P256;
}

int signer_pub_read(const char *path, struct tpm2_public *k,
		    const char *from, struct tberr *e)
{
	uint8_t *data = NULL;
	size_t n;
	int rc;

	if (file_read(path, 1 << 16, &data, &n, e))
		return err_prefix(e, "%s", from);
	rc = signer_pub_parse(data, n, k, from, path, e);
	free(data);
	return rc;
}

int signer_pub_parse(const uint8_t *data, size_t n, struct tpm2_public *k,
		     const char *from, const char *path, struct tberr *e)
{
	struct vkey *vk = NULL;
	size_t xl = 0, yl = 0;
	uint32_t exp = 0;
	int rc;

	if ((rc = vkey_parse(data, n, &vk, e))) {
		err_prefix(e, "%s %s", from, path);
		goto out;
	}
	if (vkey_type(vk) == TPM2_ALG_ECC) {
		signer_template(k, TPM2_ALG_ECC);
		rc = vkey_bits(vk) != 256 ||
		     vkey_raw(vk, k->ecc_x, sizeof(k->ecc_x), &xl, k->ecc_y,
			      sizeof(k->ecc_y), &yl, &exp);
		k->ecc_xlen = xl;
		k->ecc_ylen = yl;
	} else {
		signer_template(k, TPM2_ALG_RSA);
		rc = vkey_raw(vk, k->rsa_n, sizeof(k->rsa_n), &xl, NULL, 0,
			      &yl, &exp);
		k->rsa_nlen = xl;
		k->rsa_bits = (uint16_t)(xl * 8);
		k->rsa_exp = exp;
	}
	if (!rc && (!signer_pub_valid(k) || tpm2_public_finish(k)))
		rc = -1;
	if (rc)
		rc = err_set(e, EX_USAGE, "%s %s: not an RSA-2048/3072 or EC "
			     "P-256 public key", from, path);
out:
	vkey_free(vk);
	return rc;
}

int signer_pub_valid(const struct tpm2_public *k)
{
	if (k->name_alg != TPM2_ALG_SHA256 || k->attrs != SIGNER_ATTRS ||
	    k->policylen || k->sym_alg != TPM2_ALG_NULL ||
	    k->scheme != TPM2_ALG_NULL)
		return 0;
	if (k->type == TPM2_ALG_RSA)
		return (k->rsa_bits == 2048 || k->rsa_bits == 3072) &&
		       k->rsa_nlen * 8 == k->rsa_bits && k->rsa_nlen &&
		       (k->rsa_n[0] & 0x80) && k->rsa_exp != 1;
	if (k->type == TPM2_ALG_ECC)
		return k->curve == TPM2_ECC_NIST_P256 &&
		       k->kdf == TPM2_ALG_NULL && k->ecc_xlen &&
		       k->ecc_xlen <= 32 && k->ecc_ylen && k->ecc_ylen <= 32;
	return 0;
}

int signer_fingerprint(const struct tpm2_public *k, uint8_t out[32])
{
	if (k->type == TPM2_ALG_RSA)
		return pk_fingerprint(1, k->rsa_n, k->rsa_nlen, NULL, 0,
				      k->rsa_exp, out);
	return pk_fingerprint(0, k->ecc_x, k->ecc_xlen, k->ecc_y, k->ecc_ylen,
			      0, out);
}

/* TPMT_SIGNATURE of sig: RSASSA with the signature as is, or ECDSA with r
 * and s out of the DER ECDSA-Sig-Value. */
static int put_signature(struct tb *b, const struct tpm2_public *k,
			 const uint8_t *sig, size_t siglen)
{
	if (k->type == TPM2_ALG_RSA) {
		if (siglen != k->rsa_nlen)
			return -1;
		tb_put_u16(b, TPM2_ALG_RSASSA);
		tb_put_u16(b, TPM2_ALG_SHA256);
		tb_put_tpm2b(b, sig, siglen);
	} else {
		struct tb d, seq;
		const uint8_t *r, *s;
		size_t rl, sl;

		tb_init_read(&d, sig, siglen);
		if (der_get(&d, DER_SEQ, &seq) || tb_left(&d) ||
		    der_get_mag(&seq, &r, &rl) || der_get_mag(&seq, &s, &sl) ||
		    tb_left(&seq) || rl > 32 || sl > 32)
			return -1;
		tb_put_u16(b, TPM2_ALG_ECDSA);
		tb_put_u16(b, TPM2_ALG_SHA256);
		tb_put_tpm2b(b, r, rl);
		tb_put_tpm2b(b, s, sl);
	}
	return tb_err(b) ? -1 : 0;
}

int tpm2_verify_signature(struct tpm *t, uint32_t h, const uint8_t *name,
			  size_t namelen, const struct tpm2_public *k,
			  const uint8_t *digest, size_t dlen,
			  const uint8_t *sig, size_t siglen,
			  struct tpm2_ticket *tk)
{
	uint8_t pb[2 + TPM2_MAX_DIGEST + 8 + 2 + 512];
	struct tpm2_call c;
	struct tb b, r;
	int rc;

	tb_init(&b, pb, sizeof(pb));
	tb_put_tpm2b(&b, digest, dlen);
	if (put_signature(&b, k, sig, siglen))
		return err_set(t->e, EX_AUTH, "the signature is malformed for "
			       "the signer's key");
	memset(&c, 0, sizeof(c));
	c.cc = TPM2_CC_VerifySignature;
	c.nh = 1;
	c.h[0] = h;
	c.name[0].p = name;
	c.name[0].n = namelen;
	c.params = pb;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c))) {
		if (rc_base(t->e->rc) == 0x09b)	/* TPM_RC_SIGNATURE */
			return err_set(t->e, EX_AUTH, "the signature does not "
				       "verify with the signer's key");
		return rc;
	}
	tb_init_read(&r, c.rparams, c.rplen);
	tk->tag = tb_get_u16(&r);
	tk->hierarchy = tb_get_u32(&r);
	tk->len = tb_get_tpm2b(&r, tk->digest, sizeof(tk->digest));
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_VerifySignature: malformed "
			       "response");
	return 0;
}
