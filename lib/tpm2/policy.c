#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/policy.h"

size_t policy_pcr_digest(uint16_t halg, const struct pcr_vals *v,
			 uint8_t *out)
{
	struct hash_ctx *h = hash_new(halg);
	int i;

	if (!h)
		return 0;
	for (i = 0; i < v->n; i++)
		hash_update(h, v->v[i].d, v->v[i].len);
	hash_final(h, out);
	return hash_size(halg);
}

void policy_pcr_marshal(struct tb *b, const struct pcr_sel *sel,
			const uint8_t *pcrdigest, size_t n)
{
	tb_put_tpm2b(b, pcrdigest, n);
	pcr_sel_marshal(b, sel);
}

static void put_cc(struct hash_ctx *h, uint32_t cc)
{
	uint8_t b[4] = { (uint8_t)(cc >> 24), (uint8_t)(cc >> 16),
			 (uint8_t)(cc >> 8), (uint8_t)cc };

	hash_update(h, b, 4);
}

int policy_update_pcr(uint16_t halg, uint8_t *digest,
		      const struct pcr_sel *sel, const uint8_t *pcrdigest,
		      size_t n)
{
	uint8_t mem[4 + TPM2_MAX_BANKS * 7];
	struct hash_ctx *h = hash_new(halg);
	struct tb b;

	if (!h)
		return -1;
	tb_init(&b, mem, sizeof(mem));
	pcr_sel_marshal(&b, sel);
	hash_update(h, digest, hash_size(halg));
	put_cc(h, TPM2_CC_PolicyPCR);
	hash_update(h, b.p, b.len);
	hash_update(h, pcrdigest, n);
	hash_final(h, digest);
	return tb_err(&b) ? -1 : 0;
}

int policy_update_authvalue(uint16_t halg, uint8_t *digest)
{
	struct hash_ctx *h = hash_new(halg);

	if (!h)
		return -1;
	hash_update(h, digest, hash_size(halg));
	put_cc(h, TPM2_CC_PolicyAuthValue);
	hash_final(h, digest);
	return 0;
}

int policy_check_vals(const struct pcr_sel *sel, const struct pcr_vals *v,
		      struct tberr *e)
{
	int i, k = 0;
	unsigned idx;

	for (i = 0; i < sel->n; i++) {
		size_t sz = hash_size(sel->b[i].alg);

		for (idx = 0; idx < 32; idx++) {
			const struct pcr_val *p;

			if (!(sel->b[i].mask & (1u << idx)))
				continue;
			if (k >= v->n)
				return err_set(e, EX_USAGE, "no value for PCR "
					       "%s:%u", alg_name(sel->b[i].alg),
					       idx);
			p = &v->v[k++];
			if (p->alg != sel->b[i].alg || p->idx != idx)
				return err_set(e, EX_USAGE, "PCR values out of "
					       "order at %s:%u",
					       alg_name(sel->b[i].alg), idx);
			if (p->len != sz)
				return err_set(e, EX_USAGE, "the value for PCR "
					       "%s:%u has %u bytes, not %zu",
					       alg_name(p->alg), idx, p->len,
					       sz);
		}
	}
	if (k != v->n)
		return err_set(e, EX_USAGE, "%d PCR values for %d selected "
			       "PCRs", v->n, k);
	return 0;
}

int policy_update_or(uint16_t halg, uint8_t *digest, const uint8_t *d,
		     int n)
{
	size_t sz = hash_size(halg);
	struct hash_ctx *h;

	if (n < 2 || n > POLICY_BRANCHES || !(h = hash_new(halg)))
		return -1;
	memset(digest, 0, sz);
	hash_update(h, digest, sz);
	put_cc(h, TPM2_CC_PolicyOR);
	hash_update(h, d, sz * (size_t)n);
	hash_final(h, digest);
	return 0;
}

int policy_update_authorize(uint16_t halg, uint8_t *digest,
			    const uint8_t *name, size_t namelen,
			    const uint8_t *ref, size_t reflen)
{
	size_t sz = hash_size(halg);
	struct hash_ctx *h = hash_new(halg);

	if (!h)
		return -1;
	memset(digest, 0, sz);
	hash_update(h, digest, sz);
	put_cc(h, TPM2_CC_PolicyAuthorize);
	hash_update(h, name, namelen);
	hash_final(h, digest);
	if (!(h = hash_new(halg)))
		return -1;
	hash_update(h, digest, sz);
	hash_update(h, ref, reflen);
	hash_final(h, digest);
	return 0;
}

size_t policy_branch_digest(uint16_t halg, const struct policy_branch *b,
			    uint8_t *out)
{
	uint8_t pd[TPM2_MAX_DIGEST];
	size_t n = hash_size(halg), pn;
	struct tberr e;

	if (!n || !hash_supported(halg))
		return 0;
	memset(out, 0, n);
	if (policy_check_vals(&b->sel, &b->vals, &e))
		return 0;
	pn = policy_pcr_digest(halg, &b->vals, pd);
	if (!pn || policy_update_pcr(halg, out, &b->sel, pd, pn))
		return 0;
	return n;
}

size_t policy_compute(const struct policy_spec *p, uint8_t *out)
{
	uint8_t ds[POLICY_BRANCHES * TPM2_MAX_DIGEST];
	size_t n = hash_size(p->halg);
	int i;

	if (!n || !hash_supported(p->halg) || p->nbranch < 0 ||
	    p->nbranch > POLICY_BRANCHES || (p->authorize && p->nbranch))
		return 0;
	memset(out, 0, n);
	if (p->authorize) {
		if (policy_update_authorize(p->halg, out, p->signer,
					    p->signerlen, NULL, 0))
			return 0;
	} else if (p->nbranch == 1) {
		if (!policy_branch_digest(p->halg, &p->br[0], out))
			return 0;
	} else if (p->nbranch > 1) {
		for (i = 0; i < p->nbranch; i++)
			if (!policy_branch_digest(p->halg, &p->br[i],
						  ds + (size_t)i * n))
				return 0;
		if (policy_update_or(p->halg, out, ds, p->nbranch))
			return 0;
	}
	if (p->auth && policy_update_authvalue(p->halg, out))
		return 0;
	return n;
}

static int policy_cmd(struct tpm *t, uint32_t cc, uint32_t session,
		      uint8_t *params, size_t plen)
{
	struct tpm2_call c;

	memset(&c, 0, sizeof(c));
	c.cc = cc;
	c.nh = 1;
	c.h[0] = session;
	c.params = params;
	c.plen = plen;
	return tpm2_call(t, &c);
}

int tpm2_policy_pcr(struct tpm *t, uint32_t session,
		    const uint8_t *pcrdigest, size_t n,
		    const struct pcr_sel *sel)
{
	uint8_t pb[2 + TPM2_MAX_DIGEST + 4 + TPM2_MAX_BANKS * 7];
	struct tb b;

	tb_init(&b, pb, sizeof(pb));
	policy_pcr_marshal(&b, sel, pcrdigest, n);
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "TPM2_PolicyPCR: bad "
			       "parameters");
	return policy_cmd(t, TPM2_CC_PolicyPCR, session, b.p, b.len);
}

int tpm2_policy_secret(struct tpm *t, uint32_t auth_handle,
		       struct tpm2_auth *a, uint32_t session)
{
	/* nonceTPM, cpHashA, policyRef empty; expiration 0 */
	static uint8_t params[2 + 2 + 2 + 4];
	struct tpm2_call c;
	struct tb r;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cc = TPM2_CC_PolicySecret;
	c.nh = 2;
	c.h[0] = auth_handle;
	c.h[1] = session;
	c.na = 1;
	c.auth[0] = a;
	c.params = params;
	c.plen = sizeof(params);
	if ((rc = tpm2_call(t, &c)))
		return rc;
	/* timeout (TPM2B), policyTicket (tag, hierarchy, digest) */
	tb_init_read(&r, c.rparams, c.rplen);
	tb_skip(&r, tb_get_u16(&r));
	tb_get_u16(&r);
	tb_get_u32(&r);
	tb_skip(&r, tb_get_u16(&r));
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_PolicySecret: malformed "
			       "response");
	return 0;
}

int tpm2_policy_or(struct tpm *t, uint32_t session, const uint8_t *d, int n,
		   size_t dsize)
{
	uint8_t pb[4 + POLICY_BRANCHES * (2 + TPM2_MAX_DIGEST)];
	struct tb b;
	int i;

	tb_init(&b, pb, sizeof(pb));
	tb_put_u32(&b, (uint32_t)n);
	for (i = 0; i < n && i < POLICY_BRANCHES; i++)
		tb_put_tpm2b(&b, d + (size_t)i * dsize, dsize);
	if (tb_err(&b) || n > POLICY_BRANCHES)
		return err_set(t->e, EX_FAIL, "TPM2_PolicyOR: bad "
			       "parameters");
	return policy_cmd(t, TPM2_CC_PolicyOR, session, b.p, b.len);
}

int tpm2_policy_authorize(struct tpm *t, uint32_t session,
			  const uint8_t *approved, size_t alen,
			  const uint8_t *name, size_t namelen,
			  const struct tpm2_ticket *tk)
{
	uint8_t pb[2 + TPM2_MAX_DIGEST + 2 + 2 + TPM2_NAME_MAX + 8 +
		   TPM2_MAX_DIGEST];
	struct tb b;

	tb_init(&b, pb, sizeof(pb));
	tb_put_tpm2b(&b, approved, alen);
	tb_put_u16(&b, 0);		/* policyRef */
	tb_put_tpm2b(&b, name, namelen);
	tb_put_u16(&b, tk->tag);
	tb_put_u32(&b, tk->hierarchy);
	tb_put_tpm2b(&b, tk->digest, tk->len);
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "TPM2_PolicyAuthorize: bad "
			       "parameters");
	return policy_cmd(t, TPM2_CC_PolicyAuthorize, session, b.p, b.len);
}

int tpm2_policy_restart(struct tpm *t, uint32_t session)
{
	return policy_cmd(t, TPM2_CC_PolicyRestart, session, NULL, 0);
}

int tpm2_policy_authvalue(struct tpm *t, uint32_t session)
{
	return policy_cmd(t, TPM2_CC_PolicyAuthValue, session, NULL, 0);
}

int tpm2_policy_commandcode(struct tpm *t, uint32_t session, uint32_t cc)
{
	uint8_t pb[4];
	struct tb b;

	tb_init(&b, pb, sizeof(pb));
	tb_put_u32(&b, cc);
	return policy_cmd(t, TPM2_CC_PolicyCommandCode, session, pb, 4);
}

int tpm2_policy_password(struct tpm *t, uint32_t session)
{
	return policy_cmd(t, TPM2_CC_PolicyPassword, session, NULL, 0);
}

int tpm2_policy_getdigest(struct tpm *t, uint32_t session, uint8_t *out,
			  size_t cap, size_t *n)
{
	struct tb r;
	int rc;
	struct tpm2_call c;

	memset(&c, 0, sizeof(c));
	c.cc = TPM2_CC_PolicyGetDigest;
	c.nh = 1;
	c.h[0] = session;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	*n = tb_get_tpm2b(&r, out, cap);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_PolicyGetDigest: malformed "
			       "response");
	return 0;
}

int tpm2_unseal(struct tpm *t, uint32_t h, const uint8_t *name,
		size_t namelen, struct tpm2_auth *auth, uint8_t *out,
		size_t cap, size_t *n)
{
	struct tpm2_call c;
	struct tb r;
	int rc;

	memset(&c, 0, sizeof(c));
	c.cc = TPM2_CC_Unseal;
	c.nh = 1;
	c.h[0] = h;
	c.name[0].p = name;
	c.name[0].n = namelen;
	c.na = 1;
	c.auth[0] = auth;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	*n = tb_get_tpm2b(&r, out, cap);
	rc = 0;
	if (tb_err(&r) || tb_left(&r)) {
		explicit_bzero(out, cap);
		*n = 0;
		rc = err_set(t->e, EX_IO, "TPM2_Unseal: malformed response");
	}
	tpm_wipe(t);
	return rc;
}

int tpm2_hmac(struct tpm *t, uint32_t h, const uint8_t *name,
	      size_t namelen, struct tpm2_auth *auth, const uint8_t *data,
	      size_t len, uint8_t *out, size_t cap, size_t *n)
{
	uint8_t pb[2 + 1024 + 2];
	struct tpm2_call c;
	struct tb b, r;
	int rc;

	if (len > 1024)
		return err_set(t->e, EX_FAIL, "TPM2_HMAC: too much data");
	tb_init(&b, pb, sizeof(pb));
	tb_put_tpm2b(&b, data, len);	/* buffer */
	tb_put_u16(&b, TPM2_ALG_NULL);	/* hashAlg: the key's scheme */
	memset(&c, 0, sizeof(c));
	c.cc = TPM2_CC_HMAC;
	c.nh = 1;
	c.h[0] = h;
	c.name[0].p = name;
	c.name[0].n = namelen;
	c.na = 1;
	c.auth[0] = auth;
	c.params = b.p;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	*n = tb_get_tpm2b(&r, out, cap);
	if (tb_err(&r) || tb_left(&r)) {
		*n = 0;
		return err_set(t->e, EX_IO, "TPM2_HMAC: malformed response");
	}
	return 0;
}
