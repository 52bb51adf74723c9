/* Taking ownership of a TPM 2.0: the SRK at 0x81000001, the hierarchy
 * auth values, the dictionary-attack parameters (tpm2/owner.h). */
#include <stdio.h>
#include <string.h>

#include "crypto/pk.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/constants.h"
#include "tpm2/object.h"
#include "tpm2/owner.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

const char *const tpm2_hier_name[TPM2_NHIER] = {
	"owner", "endorsement", "lockout"
};

static const struct {
	uint32_t handle;
	uint32_t setbit;	/* TPMA_PERMANENT */
} hier[TPM2_NHIER] = {
	{TPM2_RH_OWNER, TPMA_PERMANENT_OWNERAUTHSET},
	{TPM2_RH_ENDORSEMENT, TPMA_PERMANENT_ENDORSEMENTAUTHSET},
	{TPM2_RH_LOCKOUT, TPMA_PERMANENT_LOCKOUTAUTHSET},
};

static void event(struct tpm2_own *o, int ev, int i)
{
	if (o->done)
		o->done(o, ev, i);
}

/* What to authorize each hierarchy with now: the old value when given;
 * the empty value when none is set; when one is set but no old value was
 * given, the new value (a re-run with the same values) - the TPM decides,
 * and a refusal is reported as "already set". */
static void choose_current(struct tpm2_own *o, uint32_t perm)
{
	int i;

	for (i = 0; i < TPM2_NHIER; i++) {
		struct tpm2_hier *h = &o->h[i];

		h->set = (perm & hier[i].setbit) != 0;
		h->cur_known = 1;
		if (h->has_old)
			h->cur = h->old;
		else if (!h->set)
			memset(&h->cur, 0, sizeof(h->cur));
		else if (h->has_new)
			h->cur = h->nw;
		else
			h->cur_known = 0;
	}
}

/* An authorization refused for hierarchy i: the caller explains it. */
static int refused(struct tpm2_own *o, int i, int rc)
{
	o->refused = i;
	return rc;
}

static int need_known(struct tpm *t, struct tpm2_own *o, int i,
		      const char *why)
{
	if (o->h[i].cur_known)
		return 0;
	o->unknown = i;
	o->unknown_for = why;
	return err_set(t->e, EX_AUTH, "the %s auth value is set and %s "
		       "needs it", tpm2_hier_name[i], why);
}

/* Authorize hierarchy i for one call in the process session, salted to
 * the SRK: the value keys the HMAC and never crosses the bus, and the
 * answer comes back HMACed.  Before there is an SRK to salt to, the
 * empty value goes as the empty password; another value needs a session
 * salted to a NULL-hierarchy key (refused with a pin unless
 * --allow-unsalted). */
static int hauth(struct tpm *t, struct tpm2_own *o, int i,
		 struct tpm2_auth *a)
{
	const struct authval *v = &o->h[i].cur;
	struct tpm2_session *s = tpm2_trust_session(t);
	char why[64];
	int rc;

	if (!s && v->n == 0) {
		tpm2_auth_pw(a, NULL, 0);
		return 0;
	}
	snprintf(why, sizeof(why), "the %s auth value", tpm2_hier_name[i]);
	if (!s && (rc = tpm2_trust_null(t, why)))
		return rc;
	s = tpm2_trust_session(t);
	tpm2_session_set_flags(s, 0);
	tpm2_session_use(s, a, v->v, v->n);
	return 0;
}

/* The SRK at 0x81000001: kept when it matches the requested template
 * (and the pin), created and persisted when absent, replaced only with
 * force.  From here on the process session is salted to it. */
static int ensure_srk(struct tpm *t, struct tpm2_own *o)
{
	struct tpm2_public tmpl, *srk = &o->srk;
	struct tpm2_auth a;
	uint32_t h = 0;
	int rc, rsa = -1;

	rc = tpm2_readpublic(t, TPM2_SRK_HANDLE, srk);
	if (rc == 0 && tpm2_srk_matches(srk, &rsa) && rsa == o->rsa) {
		if ((rc = tpm2_srk_check(t, srk, "the key at 0x81000001")) ||
		    (rc = tpm2_trust_start(t, TPM2_SRK_HANDLE, srk)))
			return rc;
		event(o, TPM2_OWN_SRK_KEPT, 0);
		return 0;
	}
	if (rc && rc != EX_NOENT)
		return rc;
	if (need_known(t, o, TPM2_HIER_OWNER, "creating the SRK"))
		return t->e->code;
	if (rc == 0) {
		if (!o->force) {
			o->blocked = 1;
			return err_set(t->e, EX_FAIL, "0x81000001 holds %s, "
				       "not the standard %s SRK; not "
				       "replacing it",
				       rsa >= 0 ? (rsa ? "the RSA SRK" :
						   "the ECC SRK")
				       : "another object",
				       o->rsa ? "RSA-2048" : "ECC P-256");
		}
		if ((rc = hauth(t, o, TPM2_HIER_OWNER, &a)))
			return rc;
		if ((rc = tpm2_evict(t, &a, TPM2_SRK_HANDLE, srk->name,
				     srk->namelen, TPM2_SRK_HANDLE)))
			return refused(o, TPM2_HIER_OWNER, rc);
		event(o, TPM2_OWN_SRK_EVICTED, 0);
	}
	err_clear(t->e);
	tpm2_srk_template(&tmpl, o->rsa);
	if ((rc = hauth(t, o, TPM2_HIER_OWNER, &a)))
		return rc;
	rc = tpm2_create_primary(t, TPM2_RH_OWNER, &a, &tmpl, NULL, 0, &h,
				 srk);
	if (rc)
		return refused(o, TPM2_HIER_OWNER, rc);
	if (!tpm2_srk_matches(srk, &rsa) || rsa != o->rsa) {
		rc = err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key made "
			     "is not the SRK its template asks for");
		goto out;
	}
	/* The new SRK must be the pinned one before any value goes to it. */
	if ((rc = tpm2_srk_check(t, srk, "the SRK made with "
				 "TPM2_CreatePrimary")) ||
	    (rc = tpm2_trust_start(t, h, srk)))
		goto out;
	if ((rc = hauth(t, o, TPM2_HIER_OWNER, &a)))
		goto out;
	rc = tpm2_evict(t, &a, h, srk->name, srk->namelen, TPM2_SRK_HANDLE);
	if (rc)
		goto out;
	event(o, TPM2_OWN_SRK_MADE, 0);
out:
	if (h) {
		struct tberr keep = *t->e;

		tpm2_flush(t, h);
		*t->e = keep;
	}
	return rc;
}

/* Set the new auth values in the process session, salted to the SRK,
 * the new value encrypted.  The TPM's answer is HMACed with the new
 * value, so a dropped change cannot pass for a done one. */
static int change_auths(struct tpm *t, struct tpm2_own *o)
{
	struct tpm2_session *s = tpm2_trust_session(t);
	struct tpm2_auth a;
	int i, rc;

	for (i = 0; i < TPM2_NHIER; i++) {
		struct tpm2_hier *h = &o->h[i];

		if (!h->has_new)
			continue;
		tpm2_session_set_flags(s, SESS_ENC_CMD);
		tpm2_session_use(s, &a, h->cur.v, h->cur.n);
		rc = tpm2_hierarchy_change_auth(t, hier[i].handle, &a,
						h->nw.v, h->nw.n);
		if (rc)
			return refused(o, i, rc);
		h->cur = h->nw;
		h->cur_known = 1;
		event(o, h->set ? TPM2_OWN_AUTH_CONFIRMED : TPM2_OWN_AUTH_SET,
		      i);
	}
	return 0;
}

static int set_da(struct tpm *t, struct tpm2_own *o)
{
	static const uint32_t props[3] = {
		TPM2_PT_MAX_AUTH_FAIL, TPM2_PT_LOCKOUT_INTERVAL,
		TPM2_PT_LOCKOUT_RECOVERY
	};
	uint32_t cur[3];
	struct tpm2_auth a;
	int i, same = 1, rc;

	if (!o->has_da[0] && !o->has_da[1] && !o->has_da[2])
		return 0;
	for (i = 0; i < 3; i++) {
		if ((rc = tpm2_getprop(t, props[i], &cur[i])))
			return rc;
		if (!o->has_da[i])
			o->da[i] = cur[i];
		if (o->da[i] != cur[i])
			same = 0;
	}
	if (same) {
		event(o, TPM2_OWN_DA_SAME, 0);
		return 0;
	}
	if ((rc = need_known(t, o, TPM2_HIER_LOCKOUT, "setting the "
			     "dictionary-attack parameters")))
		return rc;
	if ((rc = hauth(t, o, TPM2_HIER_LOCKOUT, &a)))
		return rc;
	rc = tpm2_da_parameters(t, &a, o->da[0], o->da[1], o->da[2]);
	if (rc)
		return refused(o, TPM2_HIER_LOCKOUT, rc);
	event(o, TPM2_OWN_DA_SET, 0);
	return 0;
}

int tpm2_takeown(struct tpm *t, struct tpm2_own *o)
{
	uint32_t perm;
	int rc;

	o->refused = o->unknown = -1;
	o->unknown_for = NULL;
	o->blocked = 0;
	/* With a pin the session comes first: the hierarchy state read
	 * next decides which values are sent. */
	if ((rc = tpm2_trust_begin(t)) ||
	    (rc = tpm2_getprop(t, TPM2_PT_PERMANENT, &perm)))
		return rc;
	choose_current(o, perm);
	if ((rc = ensure_srk(t, o)) || (rc = change_auths(t, o)))
		return rc;
	return set_da(t, o);
}

void tpm2_own_wipe(struct tpm2_own *o)
{
	int i;

	for (i = 0; i < TPM2_NHIER; i++) {
		auth_wipe(&o->h[i].nw);
		auth_wipe(&o->h[i].old);
		auth_wipe(&o->h[i].cur);
	}
}

int tpm2_srk_pem(const struct tpm2_public *srk, char **pem, size_t *len,
		 struct tberr *e)
{
	int rc;

	*pem = NULL;
	rc = srk->type == TPM2_ALG_RSA ?
	     pk_pem_rsa(srk->rsa_n, srk->rsa_nlen, srk->rsa_exp, pem, len) :
	     pk_pem_p256(srk->ecc_x, srk->ecc_xlen, srk->ecc_y, srk->ecc_ylen,
			 pem, len);
	if (rc)
		return err_set(e, EX_FAIL, "cannot encode the SRK public "
			       "key as PEM");
	return 0;
}
