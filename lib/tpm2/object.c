/* Objects: TPMT_PUBLIC, names, the standard SRK, and the object and
 * hierarchy commands (Part 3, 12, 24, 26, 28). */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/session.h"

#define ALG_RSAES	0x0015
#define ALG_ECDAA	0x001a

/* TPMT_SYM_DEF_OBJECT */
static void put_symdef(struct tb *b, const struct tpm2_public *p)
{
	tb_put_u16(b, p->sym_alg);
	if (p->sym_alg != TPM2_ALG_NULL) {
		tb_put_u16(b, p->sym_bits);
		tb_put_u16(b, p->sym_mode);
	}
}

static void get_symdef(struct tb *b, struct tpm2_public *p)
{
	p->sym_alg = tb_get_u16(b);
	if (p->sym_alg != TPM2_ALG_NULL) {
		p->sym_bits = tb_get_u16(b);
		p->sym_mode = tb_get_u16(b);
	}
}

/* RSA and ECC schemes: NULL and RSAES have no details, ECDAA has a count,
 * every other scheme a hash algorithm. */
static void put_scheme(struct tb *b, const struct tpm2_public *p)
{
	tb_put_u16(b, p->scheme);
	if (p->scheme == TPM2_ALG_NULL || p->scheme == ALG_RSAES)
		return;
	tb_put_u16(b, p->scheme_hash);
	if (p->scheme == ALG_ECDAA)
		tb_put_u16(b, p->scheme_count);
}

static void get_scheme(struct tb *b, struct tpm2_public *p)
{
	p->scheme = tb_get_u16(b);
	if (p->scheme == TPM2_ALG_NULL || p->scheme == ALG_RSAES)
		return;
	p->scheme_hash = tb_get_u16(b);
	if (p->scheme == ALG_ECDAA)
		p->scheme_count = tb_get_u16(b);
}

void tpm2_public_marshal(struct tb *b, const struct tpm2_public *p)
{
	tb_put_u16(b, p->type);
	tb_put_u16(b, p->name_alg);
	tb_put_u32(b, p->attrs);
	tb_put_tpm2b(b, p->policy, p->policylen);
	switch (p->type) {
	case TPM2_ALG_KEYEDHASH:
		tb_put_u16(b, p->scheme);
		if (p->scheme == TPM2_ALG_HMAC) {
			tb_put_u16(b, p->scheme_hash);
		} else if (p->scheme == TPM2_ALG_XOR) {
			tb_put_u16(b, p->scheme_hash);
			tb_put_u16(b, p->kdf);
		}
		tb_put_tpm2b(b, p->unique, p->uniquelen);
		break;
	case TPM2_ALG_SYMCIPHER:
		put_symdef(b, p);
		tb_put_tpm2b(b, p->unique, p->uniquelen);
		break;
	case TPM2_ALG_RSA:
		put_symdef(b, p);
		put_scheme(b, p);
		tb_put_u16(b, p->rsa_bits);
		tb_put_u32(b, p->rsa_exp);
		tb_put_tpm2b(b, p->rsa_n, p->rsa_nlen);
		break;
	case TPM2_ALG_ECC:
		put_symdef(b, p);
		put_scheme(b, p);
		tb_put_u16(b, p->curve);
		tb_put_u16(b, p->kdf);
		if (p->kdf != TPM2_ALG_NULL)
			tb_put_u16(b, p->kdf_hash);
		tb_put_tpm2b(b, p->ecc_x, p->ecc_xlen);
		tb_put_tpm2b(b, p->ecc_y, p->ecc_ylen);
		break;
	default:
		tb_fail(b);
	}
}

size_t tpm2_name_of(uint16_t name_alg, const uint8_t *raw, size_t n,
		    uint8_t *out)
{
	size_t d = hash_size(name_alg);

	if (!d || !hash_supported(name_alg))
		return 0;
	out[0] = (uint8_t)(name_alg >> 8);
	out[1] = (uint8_t)name_alg;
	hash_buf(name_alg, raw, n, out + 2);
	return 2 + d;
}

int tpm2_public_finish(struct tpm2_public *p)
{
	struct tb b;

	tb_init(&b, p->raw, sizeof(p->raw));
	tpm2_public_marshal(&b, p);
	if (tb_err(&b))
		return -1;
	p->rawlen = b.len;
	p->namelen = tpm2_name_of(p->name_alg, p->raw, p->rawlen, p->name);
	return p->namelen ? 0 : -1;
}

int tpm2_public_parse(const uint8_t *raw, size_t n, struct tpm2_public *o,
		      struct tberr *e)
{
	struct tb b;

	memset(o, 0, sizeof(*o));
	if (n > sizeof(o->raw))
		return err_set(e, EX_FAIL, "public area: %zu bytes is too "
			       "large", n);
	tb_init_read(&b, raw, n);
	o->type = tb_get_u16(&b);
	o->name_alg = tb_get_u16(&b);
	o->attrs = tb_get_u32(&b);
	o->policylen = tb_get_tpm2b(&b, o->policy, sizeof(o->policy));
	o->sym_alg = o->scheme = o->kdf = TPM2_ALG_NULL;
	switch (o->type) {
	case TPM2_ALG_KEYEDHASH:
		o->scheme = tb_get_u16(&b);
		if (o->scheme == TPM2_ALG_HMAC) {
			o->scheme_hash = tb_get_u16(&b);
		} else if (o->scheme == TPM2_ALG_XOR) {
			o->scheme_hash = tb_get_u16(&b);
			o->kdf = tb_get_u16(&b);
		} else if (o->scheme != TPM2_ALG_NULL) {
			tb_fail(&b);
		}
		o->uniquelen = tb_get_tpm2b(&b, o->unique, sizeof(o->unique));
		break;
	case TPM2_ALG_SYMCIPHER:
		get_symdef(&b, o);
		o->uniquelen = tb_get_tpm2b(&b, o->unique, sizeof(o->unique));
		break;
	case TPM2_ALG_RSA:
		get_symdef(&b, o);
		get_scheme(&b, o);
		o->rsa_bits = tb_get_u16(&b);
		o->rsa_exp = tb_get_u32(&b);
		o->rsa_nlen = tb_get_tpm2b(&b, o->rsa_n, sizeof(o->rsa_n));
		break;
	case TPM2_ALG_ECC:
		get_symdef(&b, o);
		get_scheme(&b, o);
		o->curve = tb_get_u16(&b);
		o->kdf = tb_get_u16(&b);
		if (o->kdf != TPM2_ALG_NULL)
			o->kdf_hash = tb_get_u16(&b);
		o->ecc_xlen = tb_get_tpm2b(&b, o->ecc_x, sizeof(o->ecc_x));
		o->ecc_ylen = tb_get_tpm2b(&b, o->ecc_y, sizeof(o->ecc_y));
		break;
	default:
		return err_set(e, EX_FAIL, "public area: unknown object type "
			       "0x%04x", o->type);
	}
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "public area: malformed");
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "public area: %zu bytes after its "
			       "end", tb_left(&b));
	memcpy(o->raw, raw, n);
	o->rawlen = n;
	o->namelen = tpm2_name_of(o->name_alg, o->raw, n, o->name);
	if (!o->namelen)
		return err_set(e, EX_FAIL, "public area: unsupported name "
			       "algorithm 0x%04x", o->name_alg);
	return 0;
}

int tpm2_public_get2b(struct tb *b, struct tpm2_public *o, struct tberr *e)
{
	const uint8_t *p;
	size_t n = tb_get_tpm2b_ref(b, &p);

	if (tb_err(b) || n == 0)
		return err_set(e, EX_FAIL, "public area: truncated or empty");
	return tpm2_public_parse(p, n, o, e);
}

void tpm2_srk_template(struct tpm2_public *p, int rsa)
{
	tpm2_srk_template_zeros(p, rsa);
	p->rsa_nlen = p->ecc_xlen = p->ecc_ylen = 0;
	tpm2_public_finish(p);
}

void tpm2_srk_template_zeros(struct tpm2_public *p, int rsa)
{
	memset(p, 0, sizeof(*p));
	p->type = rsa ? TPM2_ALG_RSA : TPM2_ALG_ECC;
	p->name_alg = TPM2_ALG_SHA256;
	p->attrs = TPM2_SRK_ATTRS;
	p->sym_alg = TPM2_ALG_AES;
	p->sym_bits = 128;
	p->sym_mode = TPM2_ALG_CFB;
	p->scheme = TPM2_ALG_NULL;
	p->kdf = TPM2_ALG_NULL;
	if (rsa) {
		p->rsa_bits = 2048;
		p->rsa_exp = 0;
		p->rsa_nlen = 256;	/* zeros */
	} else {
		p->curve = TPM2_ECC_NIST_P256;
		p->ecc_xlen = p->ecc_ylen = 32;	/* zeros */
	}
	tpm2_public_finish(p);
}

int tpm2_srk_matches(const struct tpm2_public *p, int *rsa)
{
	int ok = p->name_alg == TPM2_ALG_SHA256 && p->attrs == TPM2_SRK_ATTRS &&
		 p->policylen == 0 && p->sym_alg == TPM2_ALG_AES &&
		 p->sym_bits == 128 && p->sym_mode == TPM2_ALG_CFB &&
		 p->scheme == TPM2_ALG_NULL;

	if (ok && p->type == TPM2_ALG_ECC)
		ok = p->curve == TPM2_ECC_NIST_P256 && p->kdf == TPM2_ALG_NULL;
	else if (ok && p->type == TPM2_ALG_RSA)
		ok = p->rsa_bits == 2048 &&
		     (p->rsa_exp == 0 || p->rsa_exp == 65537);
	else
		ok = 0;
	if (ok && rsa)
		*rsa = p->type == TPM2_ALG_RSA;
	return ok;
}

/* p's wire form with the unique field left empty. */
static size_t marshal_no_unique(const struct tpm2_public *p, uint8_t *buf,
				size_t cap)
{
	struct tpm2_public *q = malloc(sizeof(*q));
	struct tb b;

	if (!q)
		return 0;
	*q = *p;
	q->ecc_xlen = q->ecc_ylen = q->rsa_nlen = q->uniquelen = 0;
	tb_init(&b, buf, cap);
	tpm2_public_marshal(&b, q);
	free(q);
	return tb_err(&b) ? 0 : b.len;
}

int tpm2_public_same_template(const struct tpm2_public *p,
			      const struct tpm2_public *t)
{
	uint8_t a[TPM2_PUBLIC_MAX], b[TPM2_PUBLIC_MAX];
	size_t an = marshal_no_unique(p, a, sizeof(a));
	size_t bn = marshal_no_unique(t, b, sizeof(b));

	if (!an || an != bn || memcmp(a, b, an))
		return 0;
	/* The unique field must be what the type makes. */
	if (p->type == TPM2_ALG_RSA)
		return p->rsa_nlen == (size_t)t->rsa_bits / 8;
	if (p->type == TPM2_ALG_ECC)
		return (p->curve == TPM2_ECC_NIST_P256 && p->ecc_xlen == 32 &&
			p->ecc_ylen == 32) ||
		       (p->curve == TPM2_ECC_NIST_P384 && p->ecc_xlen == 48 &&
			p->ecc_ylen == 48) ||
		       (p->curve == TPM2_ECC_NIST_P521 && p->ecc_xlen == 66 &&
			p->ecc_ylen == 66);
	return 1;
}

/* The empty-password authorization used when a caller passes NULL. */
static struct tpm2_auth *auth_or_empty(struct tpm2_auth *a,
				       struct tpm2_auth *tmp)
{
	if (a)
		return a;
	tpm2_auth_pw(tmp, NULL, 0);
	return tmp;
}

/* The one authorized handle of Create and Load: the parent, its name
 * (when known) and its authorization (tmp: room for an empty one). */
static void call_parent(struct tpm2_call *c, uint32_t parent,
			const uint8_t *name, size_t namelen,
			struct tpm2_auth *pa, struct tpm2_auth *tmp)
{
	c->nh = 1;
	c->h[0] = parent;
	c->name[0].p = name;
	c->name[0].n = name ? namelen : 0;
	c->na = 1;
	c->auth[0] = auth_or_empty(pa, tmp);
}

/* TPM2B_SENSITIVE_CREATE, TPM2B_PUBLIC, empty outsideInfo, no PCRs. */
static void put_create_params(struct tb *b, const struct tpm2_public *tmpl,
			      const uint8_t *auth, size_t authlen,
			      const uint8_t *data, size_t datalen)
{
	size_t at = tb_reserve16(b);

	tb_put_tpm2b(b, auth, authlen);
	tb_put_tpm2b(b, data, datalen);
	tb_patch16(b, at);
	tb_put_tpm2b(b, tmpl->raw, tmpl->rawlen);
	tb_put_u16(b, 0);	/* outsideInfo */
	tb_put_u32(b, 0);	/* creationPCR: count 0 */
}

static int too_large(struct tpm *t, uint32_t cc)
{
	return err_set(t->e, EX_USAGE, "%s: parameters too large",
		       tpm2_cc_name(cc));
}

static int bad_response(struct tpm *t, uint32_t cc, const char *what)
{
	return err_set(t->e, EX_IO, "%s: malformed response (%s)",
		       tpm2_cc_name(cc), what);
}

/* creationData, creationHash, creationTicket: skipped. */
static void skip_creation(struct tb *r)
{
	tb_skip(r, tb_get_u16(r));	/* TPM2B_CREATION_DATA */
	tb_skip(r, tb_get_u16(r));	/* creationHash */
	tb_skip(r, 2 + 4);		/* ticket tag, hierarchy */
	tb_skip(r, tb_get_u16(r));	/* ticket digest */
}

int tpm2_create_primary(struct tpm *t, uint32_t hier, struct tpm2_auth *ha,
			const struct tpm2_public *tmpl, const uint8_t *auth,
			size_t authlen, uint32_t *handle,
			struct tpm2_public *out)
{
	uint8_t pbuf[TPM2_PUBLIC_MAX + 256], name[TPM2_NAME_MAX];
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	struct tpm2_public pub;
	struct tb b, r;
	size_t nn;
	int rc;

	tb_init(&b, pbuf, sizeof(pbuf));
	put_create_params(&b, tmpl, auth, authlen, NULL, 0);
	if (tb_err(&b))
		return too_large(t, TPM2_CC_CreatePrimary);
	c.cc = TPM2_CC_CreatePrimary;
	c.nh = 1;
	c.h[0] = hier;
	c.na = 1;
	c.auth[0] = auth_or_empty(ha, &tmp);
	c.params = pbuf;
	c.plen = b.len;
	c.nrh = 1;
	rc = tpm2_call(t, &c);
	explicit_bzero(pbuf, sizeof(pbuf));
	if (rc)
		return rc;
	*handle = c.rh;
	tb_init_read(&r, c.rparams, c.rplen);
	if ((rc = tpm2_public_get2b(&r, &pub, t->e)))
		goto fail;
	skip_creation(&r);
	nn = tb_get_tpm2b(&r, name, sizeof(name));
	if (tb_err(&r) || tb_left(&r)) {
		rc = bad_response(t, c.cc, "after outPublic");
		goto fail;
	}
	if (nn != pub.namelen || memcmp(name, pub.name, nn)) {
		rc = err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the name the "
			     "TPM returned does not match its public area");
		goto fail;
	}
	if (out)
		*out = pub;
	return 0;
fail:
	tpm2_flush(t, *handle);
	*handle = 0;
	return rc;
}

int tpm2_create(struct tpm *t, uint32_t parent, const uint8_t *parent_name,
		size_t parent_namelen, struct tpm2_auth *pa,
		const struct tpm2_public *tmpl, const uint8_t *auth,
		size_t authlen, const uint8_t *data, size_t datalen,
		struct tpm2_private *priv, struct tpm2_public *pub)
{
	uint8_t pbuf[TPM2_PUBLIC_MAX + 512];
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	struct tb b, r;
	int rc;

	tb_init(&b, pbuf, sizeof(pbuf));
	put_create_params(&b, tmpl, auth, authlen, data, datalen);
	if (tb_err(&b)) {
		explicit_bzero(pbuf, sizeof(pbuf));
		return too_large(t, TPM2_CC_Create);
	}
	c.cc = TPM2_CC_Create;
	call_parent(&c, parent, parent_name, parent_namelen, pa, &tmp);
	c.params = pbuf;
	c.plen = b.len;
	rc = tpm2_call(t, &c);
	explicit_bzero(pbuf, sizeof(pbuf));
	if (rc)
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	priv->n = tb_get_tpm2b(&r, priv->b, sizeof(priv->b));
	if (tb_err(&r))
		return bad_response(t, c.cc, "outPrivate");
	if (tpm2_public_get2b(&r, pub, t->e))
		return err_prefix(t->e, "TPM2_Create");
	skip_creation(&r);
	if (tb_err(&r) || tb_left(&r))
		return bad_response(t, c.cc, "after outPublic");
	return 0;
}

/* The answer of Load or LoadExternal: the handle, and the object's name,
 * which must be pub's (else the object is flushed). */
static int loaded_name(struct tpm *t, struct tpm2_call *c,
		       const struct tpm2_public *pub, uint32_t *handle)
{
	uint8_t name[TPM2_NAME_MAX];
	struct tb r;
	size_t nn;
	int rc;

	*handle = c->rh;
	tb_init_read(&r, c->rparams, c->rplen);
	nn = tb_get_tpm2b(&r, name, sizeof(name));
	if (tb_err(&r) || tb_left(&r)) {
		rc = bad_response(t, c->cc, "name");
	} else if (nn != pub->namelen || memcmp(name, pub->name, nn)) {
		rc = err_set(t->e, EX_FAIL, "%s: the name the TPM returned "
			     "does not match the public area",
			     c->cc == TPM2_CC_Load ? "TPM2_Load" :
			     "TPM2_LoadExternal");
	} else {
		return 0;
	}
	tpm2_flush(t, *handle);
	*handle = 0;
	return rc;
}

int tpm2_load_external(struct tpm *t, const struct tpm2_public *pub,
		       uint32_t hier, uint32_t *handle)
{
	uint8_t pbuf[TPM2_PUBLIC_MAX + 16];
	struct tpm2_call c = {0};
	struct tb b;
	int rc;

	tb_init(&b, pbuf, sizeof(pbuf));
	tb_put_u16(&b, 0);		/* inPrivate: none */
	tb_put_tpm2b(&b, pub->raw, pub->rawlen);
	tb_put_u32(&b, hier);
	if (tb_err(&b))
		return too_large(t, TPM2_CC_LoadExternal);
	c.cc = TPM2_CC_LoadExternal;
	c.params = pbuf;
	c.plen = b.len;
	c.nrh = 1;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	return loaded_name(t, &c, pub, handle);
}

int tpm2_load(struct tpm *t, uint32_t parent, const uint8_t *parent_name,
	      size_t parent_namelen, struct tpm2_auth *pa,
	      const struct tpm2_private *priv, const struct tpm2_public *pub,
	      uint32_t *handle)
{
	uint8_t pbuf[TPM2_PUBLIC_MAX + TPM2_PRIVATE_MAX + 8];
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	struct tb b;
	int rc;

	tb_init(&b, pbuf, sizeof(pbuf));
	tb_put_tpm2b(&b, priv->b, priv->n);
	tb_put_tpm2b(&b, pub->raw, pub->rawlen);
	if (tb_err(&b))
		return too_large(t, TPM2_CC_Load);
	c.cc = TPM2_CC_Load;
	call_parent(&c, parent, parent_name, parent_namelen, pa, &tmp);
	c.params = pbuf;
	c.plen = b.len;
	c.nrh = 1;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	return loaded_name(t, &c, pub, handle);
}

int tpm2_readpublic(struct tpm *t, uint32_t h, struct tpm2_public *pub)
{
	uint8_t name[TPM2_NAME_MAX];
	struct tpm2_call c = {0};
	struct tb r;
	size_t nn;
	int rc;

	c.cc = TPM2_CC_ReadPublic;
	c.nh = 1;
	c.h[0] = h;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	if (tpm2_public_get2b(&r, pub, t->e))
		return err_prefix(t->e, "TPM2_ReadPublic");
	nn = tb_get_tpm2b(&r, name, sizeof(name));
	tb_skip(&r, tb_get_u16(&r));	/* qualifiedName */
	if (tb_err(&r) || tb_left(&r))
		return bad_response(t, c.cc, "name");
	if (nn != pub->namelen || memcmp(name, pub->name, nn))
		return err_set(t->e, EX_FAIL, "TPM2_ReadPublic: the name the "
			       "TPM returned for 0x%08x does not match its "
			       "public area", h);
	return 0;
}

int tpm2_flush(struct tpm *t, uint32_t h)
{
	struct tpm2_call c = {0};
	uint8_t p[4];
	struct tb b;

	if (!h)
		return 0;
	tb_init(&b, p, sizeof(p));
	tb_put_u32(&b, h);
	c.cc = TPM2_CC_FlushContext;
	c.params = p;
	c.plen = b.len;
	return tpm2_call(t, &c);
}

int tpm2_evict(struct tpm *t, struct tpm2_auth *owner, uint32_t obj,
	       const uint8_t *obj_name, size_t obj_namelen,
	       uint32_t persistent)
{
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	uint8_t p[4];
	struct tb b;

	tb_init(&b, p, sizeof(p));
	tb_put_u32(&b, persistent);
	c.cc = TPM2_CC_EvictControl;
	c.nh = 2;
	c.h[0] = TPM2_RH_OWNER;
	c.h[1] = obj;
	c.name[1].p = obj_name;
	c.name[1].n = obj_name ? obj_namelen : 0;
	c.na = 1;
	c.auth[0] = auth_or_empty(owner, &tmp);
	c.params = p;
	c.plen = b.len;
	return tpm2_call(t, &c);
}

int tpm2_hierarchy_change_auth(struct tpm *t, uint32_t hier,
			       struct tpm2_auth *ha, const uint8_t *newauth,
			       size_t n)
{
	uint8_t p[2 + 64];
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	struct tb b;
	int rc;

	tb_init(&b, p, sizeof(p));
	tb_put_tpm2b(&b, newauth, n);
	if (tb_err(&b))
		return err_set(t->e, EX_USAGE, "TPM2_HierarchyChangeAuth: the "
			       "new auth value is longer than 64 bytes");
	c.cc = TPM2_CC_HierarchyChangeAuth;
	c.nh = 1;
	c.h[0] = hier;
	c.na = 1;
	c.auth[0] = auth_or_empty(ha, &tmp);
	c.params = p;
	c.plen = b.len;
	/* The TPM answers with an HMAC keyed by the new value. */
	tpm2_auth_rsp_value(c.auth[0], newauth, n);
	rc = tpm2_call(t, &c);
	explicit_bzero(p, sizeof(p));
	return rc;
}

int tpm2_da_parameters(struct tpm *t, struct tpm2_auth *lockout,
		       uint32_t max_tries, uint32_t recovery_s,
		       uint32_t lockout_recovery_s)
{
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	uint8_t p[12];
	struct tb b;

	tb_init(&b, p, sizeof(p));
	tb_put_u32(&b, max_tries);
	tb_put_u32(&b, recovery_s);
	tb_put_u32(&b, lockout_recovery_s);
	c.cc = TPM2_CC_DictionaryAttackParameters;
	c.nh = 1;
	c.h[0] = TPM2_RH_LOCKOUT;
	c.na = 1;
	c.auth[0] = auth_or_empty(lockout, &tmp);
	c.params = p;
	c.plen = b.len;
	return tpm2_call(t, &c);
}

int tpm2_clear(struct tpm *t, uint32_t auth_handle, struct tpm2_auth *a)
{
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;

	c.cc = TPM2_CC_Clear;
	c.nh = 1;
	c.h[0] = auth_handle;
	c.na = 1;
	c.auth[0] = auth_or_empty(a, &tmp);
	/* Clear resets lockoutAuth before the response HMAC is made. */
	if (auth_handle == TPM2_RH_LOCKOUT)
		tpm2_auth_rsp_value(c.auth[0], NULL, 0);
	return tpm2_call(t, &c);
}

int tpm2_clear_control(struct tpm *t, uint32_t auth_handle,
		       struct tpm2_auth *a, int disable)
{
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	uint8_t p[1] = { disable ? 1 : 0 };

	c.cc = TPM2_CC_ClearControl;
	c.nh = 1;
	c.h[0] = auth_handle;
	c.na = 1;
	c.auth[0] = auth_or_empty(a, &tmp);
	c.params = p;
	c.plen = sizeof(p);
	return tpm2_call(t, &c);
}

int tpm2_hierarchy_control(struct tpm *t, uint32_t auth_handle,
			   struct tpm2_auth *a, uint32_t enable, int state)
{
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	uint8_t p[5];
	struct tb b;

	tb_init(&b, p, sizeof(p));
	tb_put_u32(&b, enable);
	tb_put_u8(&b, state ? 1 : 0);
	c.cc = TPM2_CC_HierarchyControl;
	c.nh = 1;
	c.h[0] = auth_handle;
	c.na = 1;
	c.auth[0] = auth_or_empty(a, &tmp);
	c.params = p;
	c.plen = b.len;
	return tpm2_call(t, &c);
}

int tpm2_shutdown(struct tpm *t, uint16_t type)
{
	struct tpm2_call c = {0};
	uint8_t p[2];
	struct tb b;

	tb_init(&b, p, sizeof(p));
	tb_put_u16(&b, type);
	c.cc = TPM2_CC_Shutdown;
	c.params = p;
	c.plen = b.len;
	return tpm2_call(t, &c);
}
