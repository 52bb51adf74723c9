/* The endorsement key: see include/tpm2/ek.h. */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "tpm2/cmd.h"
#include "tpm2/ek.h"
#include "tpm2/nv.h"
#include "tpm2/policy.h"
#include "tpm2/session.h"

/* PolicySecret(TPM_RH_ENDORSEMENT), SHA-256 (EK Credential Profile). */
static const uint8_t ek_policy[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
	0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
	0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa
};

void tpm2_ek_template(struct tpm2_public *p, int rsa)
{
	tpm2_srk_template_zeros(p, rsa);
	p->attrs = TPM2_EK_ATTRS;
	memcpy(p->policy, ek_policy, sizeof(ek_policy));
	p->policylen = sizeof(ek_policy);
	tpm2_public_finish(p);
}

int tpm2_ek_matches(const struct tpm2_public *p, int *rsa)
{
	struct tpm2_public q = *p;

	/* the SRK template's checks, with the EK's attributes and policy */
	if (p->attrs != TPM2_EK_ATTRS || p->policylen != sizeof(ek_policy) ||
	    memcmp(p->policy, ek_policy, sizeof(ek_policy)))
		return 0;
	q.attrs = TPM2_SRK_ATTRS;
	q.policylen = 0;
	return tpm2_srk_matches(&q, rsa);
}

int tpm2_ek_find(struct tpm *t, int rsa, struct tpm2_srk *k)
{
	struct tpm2_public tmpl;
	struct tpm2_auth a;
	int rc, type;

	memset(k, 0, sizeof(*k));
	k->handle = rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE;
	rc = tpm2_readpublic(t, k->handle, &k->pub);
	if (rc == 0 && tpm2_ek_matches(&k->pub, &type) && type == rsa)
		return 0;
	if (rc && rc != EX_NOENT)
		return rc;
	err_clear(t->e);
	tpm2_ek_template(&tmpl, rsa);
	tpm2_auth_pw(&a, NULL, 0);
	if (tpm2_create_primary(t, TPM2_RH_ENDORSEMENT, &a, &tmpl, NULL, 0,
				&k->handle, &k->pub)) {
		k->handle = 0;
		return err_prefix(t->e, "making the EK");
	}
	k->transient = 1;
	if (!tpm2_ek_matches(&k->pub, &type) || type != rsa) {
		tpm2_srk_put(t, k);
		return err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key "
			       "made is not the EK its template asks for");
	}
	return 0;
}

int tpm2_ek_auth(struct tpm *t, struct tpm2_session **s,
		 struct tpm2_auth *a)
{
	struct tpm2_auth ea;
	int rc;

	/* A policy session that authorized a command starts over by itself
	 * (Part 1: its policyDigest is reset): no PolicyRestart needed. */
	if (!*s && (rc = tpm2_session_start(t, TPM2_SE_POLICY, TPM2_RH_NULL,
					    NULL, TPM2_RH_NULL, NULL, 0, 0,
					    s)))
		return rc;
	tpm2_auth_pw(&ea, NULL, 0);
	if (tpm2_policy_secret(t, TPM2_RH_ENDORSEMENT, &ea,
			       tpm2_session_handle(*s)))
		return err_prefix(t->e, "the EK's policy (PolicySecret with "
				  "the endorsement hierarchy)");
	tpm2_session_use(*s, a, NULL, 0);
	return 0;
}

/* An NV index's whole contents, read with its own empty value (the
 * profile's indices are readable so); 0 and *n = 0 when it is not
 * defined. */
static int nv_whole(struct tpm *t, uint32_t index, uint8_t *out, size_t cap,
		    size_t *n)
{
	struct nv_public p;
	struct nv_access x;
	struct tpm2_auth a;
	int rc;

	*n = 0;
	rc = tpm2_nv_readpublic(t, index, &p);
	if (rc == EX_NOENT) {
		err_clear(t->e);
		return 0;
	}
	if (rc)
		return rc;
	if (p.size > cap)
		return err_set(t->e, EX_FAIL, "NV index 0x%08x: %u bytes is "
			       "too large for an EK template or nonce",
			       index, (unsigned)p.size);
	tpm2_auth_pw(&a, NULL, 0);
	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.auth_handle = index;
	x.a = &a;
	x.chunk = 512;
	if (tpm2_nv_read(t, &x, out, p.size, 0))
		return err_prefix(t->e, "NV index 0x%08x", index);
	*n = p.size;
	return 0;
}

/* The template from NV (and its nonce), if the profile's index holds
 * one.  *found = 0 when not. */
static int nv_template(struct tpm *t, int rsa, struct tpm2_public *tmpl,
		       int *found)
{
	uint8_t *buf = malloc(TPM2_PUBLIC_MAX), nonce[512];
	size_t n, nn;
	int rc;

	*found = 0;
	if (!buf)
		return err_set(t->e, EX_FAIL, "out of memory");
	rc = nv_whole(t, rsa ? TPM2_EK_NV_RSA_TEMPLATE :
		      TPM2_EK_NV_ECC_TEMPLATE, buf, TPM2_PUBLIC_MAX, &n);
	if (rc || n == 0)
		goto out;
	if ((rc = tpm2_public_parse(buf, n, tmpl, t->e))) {
		err_prefix(t->e, "the EK template in NV");
		goto out;
	}
	if ((rc = nv_whole(t, rsa ? TPM2_EK_NV_RSA_NONCE :
			   TPM2_EK_NV_ECC_NONCE, nonce, sizeof(nonce), &nn)))
		goto out;
	if (nn) {
		/* the nonce first, zeros to the key's size */
		size_t cap = rsa ? tmpl->rsa_bits / 8 : 32;

		if (nn > cap || cap > sizeof(tmpl->rsa_n)) {
			rc = err_set(t->e, EX_FAIL, "the EK nonce in NV is "
				     "larger than the key");
			goto out;
		}
		if (rsa) {
			memset(tmpl->rsa_n, 0, cap);
			memcpy(tmpl->rsa_n, nonce, nn);
			tmpl->rsa_nlen = cap;
		} else {
			memset(tmpl->ecc_x, 0, 32);
			memset(tmpl->ecc_y, 0, 32);
			memcpy(tmpl->ecc_x, nonce, nn);
			tmpl->ecc_xlen = tmpl->ecc_ylen = 32;
		}
	}
	if (tpm2_public_finish(tmpl)) {
		rc = err_set(t->e, EX_FAIL, "the EK template in NV is too "
			     "large");
		goto out;
	}
	*found = 1;
out:
	free(buf);
	return rc;
}

/* The EK from tmpl (under the endorsement hierarchy, empty auth), not
 * kept: its public area in pub, which must be the one tmpl makes.  high:
 * the high range template's number, named in errors; 0 for another. */
static int make_ek(struct tpm *t, const struct tpm2_public *tmpl,
		   struct tpm2_public *pub, int high)
{
	struct tpm2_auth a;
	uint32_t h = 0;
	int rc;

	tpm2_auth_pw(&a, NULL, 0);
	rc = tpm2_create_primary(t, TPM2_RH_ENDORSEMENT, &a, tmpl, NULL, 0,
				 &h, pub);
	if (h)
		tpm2_flush(t, h);
	if (rc && high)
		return err_prefix(t->e, "making the EK (template H-%d)", high);
	if (rc)
		return err_prefix(t->e, "making the EK");
	if (tpm2_public_same_template(pub, tmpl))
		return 0;
	if (high)
		return err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key "
			       "made is not the EK its template (H-%d) asks "
			       "for", high);
	return err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key made is "
		       "not the EK its template asks for");
}

int tpm2_ek_public(struct tpm *t, int rsa, struct tpm2_public *pub,
		   int *how)
{
	struct tpm2_public tmpl;
	int rc, found;

	rc = tpm2_readpublic(t, rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE,
			     pub);
	if (rc == 0 && pub->type == (rsa ? TPM2_ALG_RSA : TPM2_ALG_ECC) &&
	    (pub->attrs & TPMA_OBJECT_RESTRICTED) &&
	    (pub->attrs & TPMA_OBJECT_DECRYPT)) {
		*how = EK_PERSISTED;
		return 0;
	}
	if (rc && rc != EX_NOENT)
		return rc;
	err_clear(t->e);
	if ((rc = nv_template(t, rsa, &tmpl, &found)))
		return rc;
	if (!found)
		tpm2_ek_template(&tmpl, rsa);
	*how = found ? EK_NV_TEMPLATE : EK_TEMPLATE;
	return make_ek(t, &tmpl, pub, 0);
}

/* PolicyB (EK Credential Profile 2.x, the high range): PolicyOR of
 * PolicySecret(endorsement) and PolicyAuthorizeNV(0x01c07f01), per hash.
 * The SHA-384 one is what swtpm_setup's persisted H-3 EK carries
 * (measured); all three are the profile's Table of policy digests. */
static const uint8_t ek_policy_b256[32] = {
	0xca, 0x3d, 0x0a, 0x99, 0xa2, 0xb9, 0x39, 0x06, 0xf7, 0xa3, 0x34,
	0x24, 0x14, 0xef, 0xcf, 0xb3, 0xa3, 0x85, 0xd4, 0x4c, 0xd1, 0xfd,
	0x45, 0x90, 0x89, 0xd1, 0x9b, 0x50, 0x71, 0xc0, 0xb7, 0xa0
};
static const uint8_t ek_policy_b384[48] = {
	0xb2, 0x6e, 0x7d, 0x28, 0xd1, 0x1a, 0x50, 0xbc, 0x53, 0xd8, 0x82,
	0xbc, 0xf5, 0xfd, 0x3a, 0x1a, 0x07, 0x41, 0x48, 0xbb, 0x35, 0xd3,
	0xb4, 0xe4, 0xcb, 0x1c, 0x0a, 0xd9, 0xbd, 0xe4, 0x19, 0xca, 0xcb,
	0x47, 0xba, 0x09, 0x69, 0x96, 0x46, 0x15, 0x0f, 0x9f, 0xc0, 0x00,
	0xf3, 0xf8, 0x0e, 0x12
};

static const uint8_t ek_policy_b512[64] = {
	0xb8, 0x22, 0x1c, 0xa6, 0x9e, 0x85, 0x50, 0xa4, 0x91, 0x4d, 0xe3,
	0xfa, 0xa6, 0xa1, 0x8c, 0x07, 0x2c, 0xc0, 0x12, 0x08, 0x07, 0x3a,
	0x92, 0x8d, 0x5d, 0x66, 0xd5, 0x9e, 0xf7, 0x9e, 0x49, 0xa4, 0x29,
	0xc4, 0x1a, 0x6b, 0x26, 0x95, 0x71, 0xd5, 0x7e, 0xdb, 0x25, 0xfb,
	0xdb, 0x18, 0x38, 0x42, 0x56, 0x08, 0xb4, 0x13, 0xcd, 0x61, 0x6a,
	0x5f, 0x6d, 0xb5, 0xb6, 0x07, 0x1a, 0xf9, 0x9b, 0xea
};

/* The high range templates tpmbox makes (B.4.4).  H-5 (SM2 P-256) is
 * not among them: its name algorithm is SM3-256, which tpmbox cannot
 * compute (nor can it check the TPM's answer without it). */
static const struct {
	int n;
	uint16_t type, name_alg, sym_bits, curve, rsa_bits;
	const uint8_t *policy;
	size_t policylen;
} ek_high[] = {
	{ 1, TPM2_ALG_RSA, TPM2_ALG_SHA256, 128, 0, 2048,
	  ek_policy_b256, sizeof(ek_policy_b256) },
	{ 2, TPM2_ALG_ECC, TPM2_ALG_SHA256, 128, TPM2_ECC_NIST_P256, 0,
	  ek_policy_b256, sizeof(ek_policy_b256) },
	{ 3, TPM2_ALG_ECC, TPM2_ALG_SHA384, 256, TPM2_ECC_NIST_P384, 0,
	  ek_policy_b384, sizeof(ek_policy_b384) },
	{ 4, TPM2_ALG_ECC, TPM2_ALG_SHA512, 256, TPM2_ECC_NIST_P521, 0,
	  ek_policy_b512, sizeof(ek_policy_b512) },
	{ 6, TPM2_ALG_RSA, TPM2_ALG_SHA384, 256, 0, 3072,
	  ek_policy_b384, sizeof(ek_policy_b384) },
	{ 7, TPM2_ALG_RSA, TPM2_ALG_SHA384, 256, 0, 4096,
	  ek_policy_b384, sizeof(ek_policy_b384) },
};

int tpm2_ek_template_high(struct tpm2_public *p, int n)
{
	size_t i;

	for (i = 0; i < sizeof(ek_high) / sizeof(ek_high[0]); i++)
		if (ek_high[i].n == n)
			break;
	if (i == sizeof(ek_high) / sizeof(ek_high[0]))
		return -1;
	memset(p, 0, sizeof(*p));
	p->type = ek_high[i].type;
	p->name_alg = ek_high[i].name_alg;
	p->attrs = TPM2_EK_ATTRS | TPMA_OBJECT_USERWITHAUTH;
	memcpy(p->policy, ek_high[i].policy, ek_high[i].policylen);
	p->policylen = ek_high[i].policylen;
	p->sym_alg = TPM2_ALG_AES;
	p->sym_bits = ek_high[i].sym_bits;
	p->sym_mode = TPM2_ALG_CFB;
	p->scheme = TPM2_ALG_NULL;
	p->kdf = TPM2_ALG_NULL;
	p->curve = ek_high[i].curve;
	p->rsa_bits = ek_high[i].rsa_bits;
	/* unique empty: the high range templates leave it so */
	tpm2_public_finish(p);
	return 0;
}

int tpm2_ek_public_high(struct tpm *t, int n, struct tpm2_public *pub,
			int *how)
{
	struct tpm2_public tmpl;
	int rc;

	if (tpm2_ek_template_high(&tmpl, n))
		return err_set(t->e, EX_USAGE, "template H-%d: %s", n,
			       n == 5 ? "SM2, whose names are SM3-256 hashes "
			       "tpmbox does not compute" :
			       "not a TCG high range template");
	rc = tpm2_readpublic(t, TPM2_EK_HIGH_HANDLE(n), pub);
	if (rc == 0 && tpm2_public_same_template(pub, &tmpl)) {
		*how = EK_PERSISTED;
		return 0;
	}
	if (rc && rc != EX_NOENT)
		return rc;
	err_clear(t->e);
	*how = EK_TEMPLATE;
	return make_ek(t, &tmpl, pub, n);
}
