/* The sealed blob: DER for the TPM 2.0 key file, a tb record for the
 * tpmbox extra block, PEM around both.  See docs/blob-format.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "fmt/keyfile.h"
#include "fmt/tpmkey.h"
#include "tpm2/authorize.h"
#include "tpm2/policy.h"

#define PEM_KEY		TPMKEY_LABEL
#define PEM_EXTRA	"TPMBOX SEALED EXTRA"
#define EXTRA_MAGIC	"TBSX"

/* extra block flags */
#define XF_PCR		1u
#define XF_AUTH		2u
#define XF_RSA		4u
#define XF_GCM		8u
#define XF_OR		16u	/* version 2: PolicyOR of PolicyPCR branches */
#define XF_AUTHZ	32u	/* version 2: PolicyAuthorize */
#define XF_V1		(XF_PCR | XF_AUTH | XF_RSA | XF_GCM)
#define XF_ALL		(XF_V1 | XF_OR | XF_AUTHZ)

/* The digests of the branches, back to back (hash_size each). */
static int branch_digests(const struct keyfile *k, uint8_t *out)
{
	struct policy_branch *pb = malloc(sizeof(*pb));
	size_t sz = hash_size(k->policy_alg);
	int i, rc = 0;

	if (!pb || !sz)
		rc = -1;
	for (i = 0; !rc && i < k->nbranch; i++) {
		pb->sel = k->br[i].sel;
		pb->vals = k->br[i].vals;
		if (policy_branch_digest(k->policy_alg, pb, out + i * sz) != sz)
			rc = -1;
	}
	free(pb);
	return rc;
}

/* PolicyAuthorize's commandPolicy in the key file: the signer's
 * TPM2B_PUBLIC, the policyRef (empty) and a TPMT_SIGNATURE left empty
 * (TPM_ALG_NULL: the signatures come with unseal --signature). */
static void put_authorize(struct tb *b, const struct keyfile *k)
{
	tb_put_bytes(b, k->signer, k->signerlen);
	tb_put_u16(b, 0);
	tb_put_u16(b, TPM2_ALG_NULL);
}

/* The TPMKey half: sealed data under the SRK, the policy as the commands
 * it runs. */
static int to_tpmkey(const struct keyfile *k, struct tpmkey *t)
{
	uint8_t ds[POLICY_BRANCHES * 64];
	size_t sz = hash_size(k->policy_alg);
	struct tb pb;
	int i;

	memset(t, 0, sizeof(*t));
	t->type = k->seedlen ? TPMKEY_IMPORTABLE :
		  k->loadable ? TPMKEY_LOADABLE : TPMKEY_SEALED;
	t->empty_auth = k->empty_auth;
	t->rsa_parent = k->rsa_parent;
	t->parent = k->parent;
	if (k->publen > sizeof(t->pub) || k->privlen > sizeof(t->priv) ||
	    k->nbranch < 0 || k->nbranch > POLICY_BRANCHES ||
	    (k->nbranch && k->br[0].pcrdigestlen > sizeof(k->br[0].pcrdigest)))
		return -1;
	memcpy(t->pub, k->pub, k->publen);
	t->publen = k->publen;
	memcpy(t->priv, k->priv, k->privlen);
	t->privlen = k->privlen;
	if (k->seedlen > sizeof(t->secret))
		return -1;
	memcpy(t->secret, k->seed, k->seedlen);
	t->secretlen = k->seedlen;
	tb_init(&pb, t->policy[0].body, sizeof(t->policy[0].body));
	if (k->authorized) {
		put_authorize(&pb, k);
		t->policy[0].cc = TPM2_CC_PolicyAuthorize;
	} else if (k->nbranch == 1) {
		policy_pcr_marshal(&pb, &k->br[0].sel, k->br[0].pcrdigest,
				   k->br[0].pcrdigestlen);
		t->policy[0].cc = TPM2_CC_PolicyPCR;
	} else if (k->nbranch > 1) {
		if (branch_digests(k, ds))
			return -1;
		tb_put_u32(&pb, (uint32_t)k->nbranch);
		for (i = 0; i < k->nbranch; i++)
			tb_put_tpm2b(&pb, ds + i * sz, sz);
		t->policy[0].cc = TPM2_CC_PolicyOR;
	}
	if (tb_err(&pb))
		return -1;
	if (t->policy[0].cc) {
		t->policy[0].len = pb.len;
		t->npolicy = 1;
	}
	if (k->auth)
		t->policy[t->npolicy++].cc = TPM2_CC_PolicyAuthValue;
	return 0;
}

/* ---- extra block ---- */

static size_t extra_size(const struct keyfile *k)
{
	size_t n = 64 + KEYFILE_NAME_MAX + 64 + 8 + KEYFILE_IV + KEYFILE_TAG +
		   k->ctlen + k->signerlen + 8;
	int i;

	for (i = 0; i < k->nbranch && i < POLICY_BRANCHES; i++)
		n += 8 + TPM2_MAX_BANKS * 7 +
		     (size_t)k->br[i].vals.n * (5 + TPM2_MAX_DIGEST);
	return n;
}

/* One branch: TPML_PCR_SELECTION, count, (alg, index, TPM2B value)... */
static void put_branch(struct tb *b, const struct keyfile_branch *br)
{
	int i;

	pcr_sel_marshal(b, &br->sel);
	tb_put_u32(b, (uint32_t)br->vals.n);
	for (i = 0; i < br->vals.n; i++) {
		tb_put_u16(b, br->vals.v[i].alg);
		tb_put_u8(b, br->vals.v[i].idx);
		tb_put_tpm2b(b, br->vals.v[i].d, br->vals.v[i].len);
	}
}

static void encode_extra(const struct keyfile *k, struct tb *b)
{
	uint16_t flags = 0;
	int i;

	if (k->nbranch)
		flags |= XF_PCR;
	if (k->nbranch > 1)
		flags |= XF_OR;
	if (k->authorized)
		flags |= XF_AUTHZ;
	if (k->auth)
		flags |= XF_AUTH;
	if (k->rsa_parent)
		flags |= XF_RSA;
	if (k->mode == KEYFILE_GCM)
		flags |= XF_GCM;
	tb_put_bytes(b, EXTRA_MAGIC, 4);
	tb_put_u16(b, (flags & ~XF_V1) ? KEYFILE_VERSION2 : KEYFILE_VERSION);
	tb_put_u16(b, flags);
	tb_put_u32(b, k->parent);
	tb_put_tpm2b(b, k->parent_name, k->parent_namelen);
	tb_put_u16(b, k->policy_alg);
	tb_put_tpm2b(b, k->policy, k->policylen);
	if (k->nbranch > 1)
		tb_put_u8(b, (uint8_t)k->nbranch);
	for (i = 0; i < k->nbranch && i < POLICY_BRANCHES; i++)
		put_branch(b, &k->br[i]);
	if (k->authorized) {
		tb_put_u16(b, k->signer_bank);
		tb_put_bytes(b, k->signer, k->signerlen);
	}
	if (k->mode == KEYFILE_GCM) {
		tb_put_bytes(b, k->iv, KEYFILE_IV);
		tb_put_bytes(b, k->tag, KEYFILE_TAG);
		tb_put_u32(b, (uint32_t)k->ctlen);
		tb_put_bytes(b, k->ct, k->ctlen);
	}
}

int keyfile_encode(const struct keyfile *k, char **pem, size_t *n,
		   struct tberr *e)
{
	uint8_t der[TPMKEY_DER_MAX];
	size_t xcap = extra_size(k);
	uint8_t *x = malloc(xcap);
	struct tpmkey t;
	struct tb b, xb;
	char *buf = NULL;
	size_t len = 0;

	*pem = NULL;
	*n = 0;
	if (!x)
		return err_set(e, EX_FAIL, "blob: out of memory");
	tb_init(&b, der, sizeof(der));
	tb_init(&xb, x, xcap);
	if (to_tpmkey(k, &t) || tpmkey_der(&t, &b)) {
		free(x);
		return err_set(e, EX_FAIL, "blob: a field is too large to "
			       "encode");
	}
	explicit_bzero(&t, sizeof(t));
	encode_extra(k, &xb);
	if (tb_err(&xb)) {
		free(x);
		return err_set(e, EX_FAIL, "blob: the extra block is too "
			       "large to encode");
	}
	if (pem_append(&buf, &len, PEM_KEY, b.p, b.len) ||
	    pem_append(&buf, &len, PEM_EXTRA, xb.p, xb.len)) {
		free(buf);
		free(x);
		return err_set(e, EX_FAIL, "blob: out of memory");
	}
	explicit_bzero(der, sizeof(der));
	free(x);
	*pem = buf;
	*n = len;
	return 0;
}

/* ---- decoding ---- */

/* A TPML_PCR_SELECTION as the TPM would accept it. */
static int get_sel(struct tb *b, struct pcr_sel *sel)
{
	uint32_t n = tb_get_u32(b), i;
	int j;

	memset(sel, 0, sizeof(*sel));
	if (tb_err(b) || n == 0 || n > TPM2_MAX_BANKS)
		return -1;
	for (i = 0; i < n; i++) {
		uint16_t alg = tb_get_u16(b);
		uint8_t sz = tb_get_u8(b);
		uint32_t m = 0;

		if (tb_err(b) || sz < 1 || sz > 4 || !hash_size(alg))
			return -1;
		for (j = 0; j < sz; j++)
			m |= (uint32_t)tb_get_u8(b) << (8 * j);
		for (j = 0; j < (int)i; j++)
			if (sel->b[j].alg == alg)
				return -1;
		if (m == 0)
			return -1;
		sel->b[i].alg = alg;
		sel->b[i].mask = m;
	}
	sel->n = (int)n;
	return tb_err(b) ? -1 : 0;
}

static int bad(struct tberr *e, const char *why)
{
	return err_set(e, EX_FAIL, "blob: %s", why);
}

/* The TPMKey half: sealed data, the policy tpmbox writes, the SRK.  *kind
 * gets the first policy command (PolicyPCR, PolicyOR, PolicyAuthorize) or
 * 0; its parameters are checked against the extra block later
 * (same_policy). */
static int from_tpmkey(const struct tpmkey *t, struct keyfile *k,
		       uint32_t *kind, struct tberr *e)
{
	int i;

	if (t->type != TPMKEY_SEALED && t->type != TPMKEY_IMPORTABLE &&
	    t->type != TPMKEY_LOADABLE)
		return bad(e, "not sealed data (the key type OID is not "
			   "2.23.133.10.1.5, nor .4 for one sealed with "
			   "--to, nor .3 for totp's HMAC key)");
	k->loadable = t->type == TPMKEY_LOADABLE;
	k->empty_auth = t->empty_auth;
	k->rsa_parent = t->rsa_parent;
	k->parent = t->parent;
	memcpy(k->pub, t->pub, t->publen);
	k->publen = t->publen;
	memcpy(k->priv, t->priv, t->privlen);
	k->privlen = t->privlen;
	memcpy(k->seed, t->secret, t->secretlen);
	k->seedlen = t->secretlen;
	*kind = 0;
	for (i = 0; i < t->npolicy; i++) {
		uint32_t cc = t->policy[i].cc;

		if (i == 0 && (cc == TPM2_CC_PolicyPCR ||
			       cc == TPM2_CC_PolicyOR ||
			       cc == TPM2_CC_PolicyAuthorize)) {
			*kind = cc;
		} else if (cc == TPM2_CC_PolicyAuthValue && !k->auth &&
			   t->policy[i].len == 0) {
			k->auth = 1;
		} else {
			return err_set(e, EX_FAIL, "blob: policy command 0x%x "
				       "is not supported here (tpmbox seals "
				       "with PolicyPCR, PolicyOR or "
				       "PolicyAuthorize, then PolicyAuthValue)",
				       cc);
		}
	}
	if (k->parent != KEYFILE_PARENT_SRK &&
	    k->parent != KEYFILE_PARENT_OWNER &&
	    (k->parent != KEYFILE_PARENT_EK || !k->seedlen))
		return err_set(e, EX_FAIL, "blob: parent 0x%08x is not "
			       "supported (tpmbox seals under the SRK, "
			       "0x81000001, or with seal --to-ek under the "
			       "EK)", k->parent);
	return 0;
}

/* One branch of the extra block, checked: values for exactly the
 * selection, and pcrDigest computed from them. */
static int get_branch(struct tb *b, struct keyfile_branch *br,
		      uint16_t halg, struct tberr *e)
{
	uint32_t cnt, i;

	if (get_sel(b, &br->sel))
		return bad(e, "malformed PCR selection");
	cnt = tb_get_u32(b);
	if (tb_err(b) || cnt > sizeof(br->vals.v) / sizeof(br->vals.v[0]))
		return bad(e, "malformed PCR values");
	for (i = 0; i < cnt; i++) {
		struct pcr_val *v = &br->vals.v[i];

		v->alg = tb_get_u16(b);
		v->idx = tb_get_u8(b);
		v->len = (uint8_t)tb_get_tpm2b(b, v->d, sizeof(v->d));
	}
	br->vals.n = (int)cnt;
	if (tb_err(b) || policy_check_vals(&br->sel, &br->vals, e))
		return bad(e, "malformed PCR values");
	br->pcrdigestlen = policy_pcr_digest(halg, &br->vals, br->pcrdigest);
	return br->pcrdigestlen ? 0 : bad(e, "malformed PCR values");
}

/* The recorded digest must be what the policy computes to (no policy at
 * all: an empty authPolicy, checked before). */
static int check_digest(const struct keyfile *k, struct tberr *e)
{
	struct policy_spec *ps = calloc(1, sizeof(*ps));
	struct tpm2_public sp;
	struct tberr ign;
	struct tb b;
	uint8_t pol[64];
	int i, rc = 0;

	if (!ps)
		return err_set(e, EX_FAIL, "blob: out of memory");
	ps->halg = k->policy_alg;
	ps->nbranch = k->nbranch;
	for (i = 0; i < k->nbranch; i++) {
		ps->br[i].sel = k->br[i].sel;
		ps->br[i].vals = k->br[i].vals;
	}
	ps->auth = k->auth;
	if (k->authorized) {
		tb_init_read(&b, k->signer, k->signerlen);
		if (tpm2_public_get2b(&b, &sp, &ign) || tb_left(&b) ||
		    !signer_pub_valid(&sp))
			rc = bad(e, "the signer's public key is not one "
				 "tpmbox seals to");
		ps->authorize = 1;
		memcpy(ps->signer, sp.name, sp.namelen);
		ps->signerlen = sp.namelen;
	}
	if (!rc && k->policylen &&
	    (policy_compute(ps, pol) != k->policylen ||
	     memcmp(pol, k->policy, k->policylen)))
		rc = bad(e, "the policy digest does not match the policy");
	free(ps);
	return rc;
}

static int decode_extra(const uint8_t *d, size_t n, struct keyfile *k,
			uint32_t kind, struct tberr *e)
{
	struct tb b;
	uint16_t flags;
	uint32_t parent;
	int i, want;

	tb_init_read(&b, d, n);
	if (n < 6 || memcmp(d, EXTRA_MAGIC, 4))
		return bad(e, "the " PEM_EXTRA " block has no TBSX magic");
	tb_skip(&b, 4);
	k->version = tb_get_u16(&b);
	if (k->version != KEYFILE_VERSION && k->version != KEYFILE_VERSION2)
		return err_set(e, EX_FAIL, "blob: format version %u is not "
			       "supported (this tpmbox reads versions %d and "
			       "%d)", k->version, KEYFILE_VERSION,
			       KEYFILE_VERSION2);
	flags = tb_get_u16(&b);
	parent = tb_get_u32(&b);
	k->parent_namelen = tb_get_tpm2b(&b, k->parent_name,
					 sizeof(k->parent_name));
	k->policy_alg = tb_get_u16(&b);
	k->policylen = tb_get_tpm2b(&b, k->policy, sizeof(k->policy));
	if (tb_err(&b) || (flags & ~XF_ALL) ||
	    (k->version == KEYFILE_VERSION && (flags & ~XF_V1)) ||
	    (k->version == KEYFILE_VERSION2 && !(flags & ~XF_V1)))
		return bad(e, "malformed " PEM_EXTRA " header");
	switch (kind) {
	case TPM2_CC_PolicyPCR: want = XF_PCR; break;
	case TPM2_CC_PolicyOR: want = XF_PCR | XF_OR; break;
	case TPM2_CC_PolicyAuthorize: want = XF_AUTHZ; break;
	default: want = 0;
	}
	if ((int)(flags & (XF_PCR | XF_OR | XF_AUTHZ)) != want ||
	    !!(flags & XF_AUTH) != k->auth ||
	    !!(flags & XF_RSA) != k->rsa_parent || parent != k->parent)
		return bad(e, "the two blocks disagree (policy or parent)");
	if (k->empty_auth == k->auth)
		return bad(e, "emptyAuth disagrees with the policy");
	if (k->parent_namelen < 2 || k->policy_alg != TPM2_ALG_SHA256 ||
	    k->policylen != ((want || k->auth) ?
			     hash_size(k->policy_alg) : 0))
		return bad(e, "bad parent name or policy digest");
	k->nbranch = (flags & XF_PCR) ? 1 : 0;
	if (flags & XF_OR) {
		k->nbranch = tb_get_u8(&b);
		if (tb_err(&b) || k->nbranch < 2 ||
		    k->nbranch > POLICY_BRANCHES)
			return bad(e, "bad count of PolicyOR branches");
	}
	for (i = 0; i < k->nbranch; i++)
		if (get_branch(&b, &k->br[i], k->policy_alg, e))
			return e->code;
	if (flags & XF_AUTHZ) {
		k->authorized = 1;
		k->signer_bank = tb_get_u16(&b);
		k->signerlen = tb_get_u16(&b);
		if (tb_err(&b) || !hash_size(k->signer_bank) ||
		    k->signerlen + 2 > sizeof(k->signer) ||
		    k->signerlen > tb_left(&b))
			return bad(e, "malformed signer key");
		k->signer[0] = (uint8_t)(k->signerlen >> 8);
		k->signer[1] = (uint8_t)k->signerlen;
		tb_get_bytes(&b, k->signer + 2, k->signerlen);
		k->signerlen += 2;
	}
	k->mode = KEYFILE_DIRECT;
	if (flags & XF_GCM) {
		k->mode = KEYFILE_GCM;
		tb_get_bytes(&b, k->iv, KEYFILE_IV);
		tb_get_bytes(&b, k->tag, KEYFILE_TAG);
		k->ctlen = tb_get_u32(&b);
		if (tb_err(&b) || k->ctlen > tb_left(&b) ||
		    k->ctlen > KEYFILE_DATA_MAX)
			return bad(e, "truncated encrypted data");
		if (!(k->ct = malloc(k->ctlen ? k->ctlen : 1)))
			return err_set(e, EX_FAIL, "blob: out of memory");
		tb_get_bytes(&b, k->ct, k->ctlen);
	}
	if (tb_err(&b))
		return bad(e, "truncated " PEM_EXTRA " block");
	if (tb_left(&b))
		return bad(e, "unexpected data at the end of the " PEM_EXTRA
			   " block");
	return 0;
}

/* Block 1's policy commands must be exactly what the extra block's policy
 * encodes to (PolicyPCR's selection and digest, PolicyOR's digests, the
 * signer's key). */
static int same_policy(const struct tpmkey *t, const struct keyfile *k,
		       struct tberr *e)
{
	struct tpmkey *w = malloc(sizeof(*w));
	int i, rc = 0;

	if (!w)
		return err_set(e, EX_FAIL, "blob: out of memory");
	if (to_tpmkey(k, w) || w->npolicy != t->npolicy)
		rc = -1;
	for (i = 0; !rc && i < t->npolicy; i++)
		if (w->policy[i].cc != t->policy[i].cc ||
		    w->policy[i].len != t->policy[i].len ||
		    memcmp(w->policy[i].body, t->policy[i].body,
			   t->policy[i].len))
			rc = -1;
	explicit_bzero(w, sizeof(*w));
	free(w);
	return rc ? bad(e, "the policies of the two blocks differ (PCR "
			"selection, values or signer)") : 0;
}

static int not_a_blob(struct tberr *e)
{
	err_hint(e, "a sealed blob from tpmbox seal holds a " PEM_KEY " and "
		 "a " PEM_EXTRA " PEM block");
	return e->code;
}

int keyfile_decode(const char *text, size_t n, struct keyfile *k,
		   struct tberr *e)
{
	uint8_t *der = NULL, *x = NULL;
	struct tpmkey *t = malloc(sizeof(*t));
	size_t dlen, xlen;
	uint32_t kind = 0;
	int rc;

	memset(k, 0, sizeof(*k));
	if (!t)
		return err_set(e, EX_FAIL, "blob: out of memory");
	if (pem_get(text, n, PEM_KEY, "blob", &der, &dlen, e)) {
		free(t);
		return not_a_blob(e);
	}
	rc = tpmkey_parse(der, dlen, t, "blob", e);
	explicit_bzero(der, dlen);
	free(der);
	if (!rc)
		rc = from_tpmkey(t, k, &kind, e);
	if (!rc && pem_get(text, n, PEM_EXTRA, "blob", &x, &xlen, e))
		rc = not_a_blob(e);
	if (!rc) {
		rc = decode_extra(x, xlen, k, kind, e);
		free(x);
	}
	if (!rc)
		rc = same_policy(t, k, e);
	if (!rc)
		rc = check_digest(k, e);
	explicit_bzero(t, sizeof(*t));
	free(t);
	if (rc)
		keyfile_free(k);
	return rc;
}

void keyfile_free(struct keyfile *k)
{
	if (k->ct) {
		explicit_bzero(k->ct, k->ctlen);
		free(k->ct);
	}
	k->ct = NULL;
	k->ctlen = 0;
}
