/* The sealed blob: DER for the TPM 2.0 key file, a tb record for the
 * tpmbox extra block, PEM around both.  See docs/blob-format.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto/hash.h"
#include "keyfile.h"
#include "pem.h"
#include "tpm2/constants.h"
#include "tpm2/policy.h"
#include "tpmkey.h"

#define PEM_KEY		TPMKEY_LABEL
#define PEM_EXTRA	"TPMBOX SEALED EXTRA"
#define EXTRA_MAGIC	"TBSX"

/* extra block flags */
#define XF_PCR		1u
#define XF_AUTH		2u
#define XF_RSA		4u
#define XF_GCM		8u
#define XF_ALL		(XF_PCR | XF_AUTH | XF_RSA | XF_GCM)

/* The TPMKey half: sealed data under the SRK, the policy as the commands
 * it runs (PolicyPCR, then PolicyAuthValue). */
static int to_tpmkey(const struct keyfile *k, struct tpmkey *t)
{
	struct tb pb;

	memset(t, 0, sizeof(*t));
	t->type = k->seedlen ? TPMKEY_IMPORTABLE : TPMKEY_SEALED;
	t->empty_auth = k->empty_auth;
	t->rsa_parent = k->rsa_parent;
	t->parent = k->parent;
	if (k->publen > sizeof(t->pub) || k->privlen > sizeof(t->priv) ||
	    (k->has_pcr && k->pcrdigestlen > sizeof(k->pcrdigest)))
		return -1;
	memcpy(t->pub, k->pub, k->publen);
	t->publen = k->publen;
	memcpy(t->priv, k->priv, k->privlen);
	t->privlen = k->privlen;
	if (k->seedlen > sizeof(t->secret))
		return -1;
	memcpy(t->secret, k->seed, k->seedlen);
	t->secretlen = k->seedlen;
	if (k->has_pcr) {
		tb_init(&pb, t->policy[0].body, sizeof(t->policy[0].body));
		policy_pcr_marshal(&pb, &k->sel, k->pcrdigest,
				   k->pcrdigestlen);
		if (tb_err(&pb))
			return -1;
		t->policy[0].cc = TPM2_CC_PolicyPCR;
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
	return 64 + KEYFILE_NAME_MAX + 64 + 8 + TPM2_MAX_BANKS * 7 +
	       (size_t)k->vals.n * (5 + TPM2_MAX_DIGEST) + KEYFILE_IV +
	       KEYFILE_TAG + k->ctlen;
}

static void encode_extra(const struct keyfile *k, struct tb *b)
{
	uint16_t flags = 0;
	int i;

	if (k->has_pcr)
		flags |= XF_PCR;
	if (k->auth)
		flags |= XF_AUTH;
	if (k->rsa_parent)
		flags |= XF_RSA;
	if (k->mode == KEYFILE_GCM)
		flags |= XF_GCM;
	tb_put_bytes(b, EXTRA_MAGIC, 4);
	tb_put_u16(b, KEYFILE_VERSION);
	tb_put_u16(b, flags);
	tb_put_u32(b, k->parent);
	tb_put_tpm2b(b, k->parent_name, k->parent_namelen);
	tb_put_u16(b, k->policy_alg);
	tb_put_tpm2b(b, k->policy, k->policylen);
	if (k->has_pcr) {
		pcr_sel_marshal(b, &k->sel);
		tb_put_u32(b, (uint32_t)k->vals.n);
		for (i = 0; i < k->vals.n; i++) {
			tb_put_u16(b, k->vals.v[i].alg);
			tb_put_u8(b, k->vals.v[i].idx);
			tb_put_tpm2b(b, k->vals.v[i].d, k->vals.v[i].len);
		}
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

static int sel_equal(const struct pcr_sel *a, const struct pcr_sel *b)
{
	int i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->b[i].alg != b->b[i].alg || a->b[i].mask != b->b[i].mask)
			return 0;
	return 1;
}

static int bad(struct tberr *e, const char *why)
{
	return err_set(e, EX_FAIL, "blob: %s", why);
}

/* The TPMKey half: sealed data, the policy tpmbox writes, the SRK. */
static int from_tpmkey(const struct tpmkey *t, struct keyfile *k,
		       struct tberr *e)
{
	int i;

	if (t->type != TPMKEY_SEALED && t->type != TPMKEY_IMPORTABLE)
		return bad(e, "not sealed data (the key type OID is not "
			   "2.23.133.10.1.5, nor .4 for one sealed with "
			   "--to)");
	k->empty_auth = t->empty_auth;
	k->rsa_parent = t->rsa_parent;
	k->parent = t->parent;
	memcpy(k->pub, t->pub, t->publen);
	k->publen = t->publen;
	memcpy(k->priv, t->priv, t->privlen);
	k->privlen = t->privlen;
	memcpy(k->seed, t->secret, t->secretlen);
	k->seedlen = t->secretlen;
	for (i = 0; i < t->npolicy; i++) {
		uint32_t cc = t->policy[i].cc;
		struct tb v;

		tb_init_read(&v, t->policy[i].body, t->policy[i].len);
		if (cc == TPM2_CC_PolicyPCR && !k->has_pcr && !k->auth) {
			k->pcrdigestlen = tb_get_tpm2b(&v, k->pcrdigest,
						       sizeof(k->pcrdigest));
			if (get_sel(&v, &k->sel) || tb_left(&v))
				return bad(e, "malformed PolicyPCR");
			k->has_pcr = 1;
		} else if (cc == TPM2_CC_PolicyAuthValue && !k->auth &&
			   t->policy[i].len == 0) {
			k->auth = 1;
		} else {
			return err_set(e, EX_FAIL, "blob: policy command 0x%x "
				       "is not supported here (tpmbox seals "
				       "with PolicyPCR then PolicyAuthValue)",
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

static int decode_extra(const uint8_t *d, size_t n, struct keyfile *k,
			struct tberr *e)
{
	struct keyfile x;
	struct pcr_sel sel;
	struct policy_spec ps;
	uint8_t pd[64], pol[64];
	struct tb b;
	uint16_t flags;
	uint32_t cnt, i;
	size_t plen;

	tb_init_read(&b, d, n);
	if (n < 6 || memcmp(d, EXTRA_MAGIC, 4))
		return bad(e, "the " PEM_EXTRA " block has no TBSX magic");
	tb_skip(&b, 4);
	k->version = tb_get_u16(&b);
	if (k->version != KEYFILE_VERSION)
		return err_set(e, EX_FAIL, "blob: format version %u is not "
			       "supported (this tpmbox reads version %d)",
			       k->version, KEYFILE_VERSION);
	flags = tb_get_u16(&b);
	memset(&x, 0, sizeof(x));
	x.parent = tb_get_u32(&b);
	k->parent_namelen = tb_get_tpm2b(&b, k->parent_name,
					 sizeof(k->parent_name));
	k->policy_alg = tb_get_u16(&b);
	k->policylen = tb_get_tpm2b(&b, k->policy, sizeof(k->policy));
	if (tb_err(&b) || (flags & ~XF_ALL))
		return bad(e, "malformed " PEM_EXTRA " header");
	if (!!(flags & XF_PCR) != k->has_pcr ||
	    !!(flags & XF_AUTH) != k->auth ||
	    !!(flags & XF_RSA) != k->rsa_parent || x.parent != k->parent)
		return bad(e, "the two blocks disagree (policy or parent)");
	if (k->empty_auth == k->auth)
		return bad(e, "emptyAuth disagrees with the policy");
	if (k->parent_namelen < 2 || k->policy_alg != TPM2_ALG_SHA256 ||
	    k->policylen != ((k->has_pcr || k->auth) ?
			     hash_size(k->policy_alg) : 0))
		return bad(e, "bad parent name or policy digest");
	if (k->has_pcr) {
		if (get_sel(&b, &sel) || !sel_equal(&sel, &k->sel))
			return bad(e, "the PCR selections of the two blocks "
				   "differ");
		cnt = tb_get_u32(&b);
		if (tb_err(&b) || cnt > sizeof(k->vals.v) / sizeof(k->vals.v[0]))
			return bad(e, "malformed PCR values");
		for (i = 0; i < cnt; i++) {
			struct pcr_val *v = &k->vals.v[i];

			v->alg = tb_get_u16(&b);
			v->idx = tb_get_u8(&b);
			v->len = (uint8_t)tb_get_tpm2b(&b, v->d, sizeof(v->d));
		}
		k->vals.n = (int)cnt;
		if (tb_err(&b) || policy_check_vals(&k->sel, &k->vals, e))
			return bad(e, "malformed PCR values");
		plen = policy_pcr_digest(k->policy_alg, &k->vals, pd);
		if (plen != k->pcrdigestlen || memcmp(pd, k->pcrdigest, plen))
			return bad(e, "the PCR values do not match PolicyPCR's "
				   "digest");
	}
	/* The recorded digest must be what the policy computes to (no
	 * policy at all: an empty authPolicy, checked above). */
	memset(&ps, 0, sizeof(ps));
	ps.halg = k->policy_alg;
	ps.has_pcr = k->has_pcr;
	ps.sel = k->sel;
	ps.vals = k->vals;
	ps.auth = k->auth;
	if (k->policylen && (policy_compute(&ps, pol) != k->policylen ||
			     memcmp(pol, k->policy, k->policylen)))
		return bad(e, "the policy digest does not match the policy");
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
	struct tpmkey t;
	size_t dlen, xlen;
	int rc;

	memset(k, 0, sizeof(*k));
	if (pem_get(text, n, PEM_KEY, "blob", &der, &dlen, e))
		return not_a_blob(e);
	rc = tpmkey_parse(der, dlen, &t, "blob", e);
	explicit_bzero(der, dlen);
	free(der);
	if (!rc)
		rc = from_tpmkey(&t, k, e);
	explicit_bzero(&t, sizeof(t));
	if (rc)
		return rc;
	if (pem_get(text, n, PEM_EXTRA, "blob", &x, &xlen, e))
		return not_a_blob(e);
	rc = decode_extra(x, xlen, k, e);
	free(x);
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
