/* Taking ownership of a TPM 2.0: the SRK at 0x81000001, the hierarchy
 * auth values, the dictionary-attack parameters (tpm2/owner.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/pk.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/da.h"
#include "tpm2/ek.h"
#include "tpm2/object.h"
#include "tpm2/owner.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
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

static void step(struct tpm2_own *o, int st, int i, int result,
		 const char *detail)
{
	if (o->done)
		o->done(o, st, i, result, detail);
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

/* Authorize a hierarchy whose value is v (what: "the owner auth value")
 * for one call in the process session, salted to the SRK: the value keys
 * the HMAC and never crosses the bus, and the answer comes back HMACed.
 * Before there is an SRK to salt to, the empty value goes as the empty
 * password; another value needs a session salted to a NULL-hierarchy key
 * (refused with a pin unless --allow-unsalted). */
static int vauth(struct tpm *t, const struct authval *v, const char *what,
		 struct tpm2_auth *a)
{
	struct tpm2_session *s = tpm2_trust_session(t);
	int rc;

	if (!s && v->n == 0) {
		tpm2_auth_pw(a, NULL, 0);
		return 0;
	}
	if (!s && (rc = tpm2_trust_null(t, what)))
		return rc;
	s = tpm2_trust_session(t);
	tpm2_session_set_flags(s, 0);
	tpm2_session_use(s, a, v->v, v->n);
	return 0;
}

static int hauth(struct tpm *t, struct tpm2_own *o, int i,
		 struct tpm2_auth *a)
{
	char why[64];

	snprintf(why, sizeof(why), "the %s auth value", tpm2_hier_name[i]);
	return vauth(t, &o->h[i].cur, why, a);
}

/* The SRK at 0x81000001: kept when it matches the requested template
 * (and the pin), created and persisted when absent, replaced only with
 * force.  From here on the process session is salted to it. */
static int ensure_srk(struct tpm *t, struct tpm2_own *o)
{
	struct tpm2_public tmpl, *srk = &o->srk;
	const char *type = o->rsa ? "RSA-2048" : "ECC P-256";
	char detail[96];
	struct tpm2_auth a;
	uint32_t h = 0;
	int rc, rsa = -1, replace;

	rc = tpm2_readpublic(t, TPM2_SRK_HANDLE, srk);
	if (rc == 0 && tpm2_srk_matches(srk, &rsa) && rsa == o->rsa) {
		if ((rc = tpm2_srk_check(t, srk, "the key at 0x81000001")) ||
		    (rc = tpm2_trust_start(t, TPM2_SRK_HANDLE, srk)))
			return rc;
		o->have_srk = 1;
		snprintf(detail, sizeof(detail), "%s SRK at 0x81000001", type);
		step(o, TPM2_OWN_SRK, 0, TPM2_OWN_ALREADY, detail);
		return 0;
	}
	if (rc && rc != EX_NOENT)
		return rc;
	replace = rc == 0;
	if (replace && !o->force) {
		o->blocked = TPM2_SRK_HANDLE;
		return err_set(t->e, EX_FAIL, "0x81000001 holds %s, not the "
			       "standard %s SRK; not replacing it",
			       rsa >= 0 ? (rsa ? "the RSA SRK" : "the ECC SRK")
			       : "another object", type);
	}
	snprintf(detail, sizeof(detail), "%s SRK at 0x81000001%s", type,
		 replace ? ", replacing the object there" : "");
	if (need_known(t, o, TPM2_HIER_OWNER, "creating the SRK"))
		return t->e->code;
	if (o->dry) {
		err_clear(t->e);
		step(o, TPM2_OWN_SRK, 0, TPM2_OWN_NEEDED, detail);
		return 0;
	}
	if (replace) {
		if ((rc = hauth(t, o, TPM2_HIER_OWNER, &a)))
			return rc;
		if ((rc = tpm2_evict(t, &a, TPM2_SRK_HANDLE, srk->name,
				     srk->namelen, TPM2_SRK_HANDLE)))
			return refused(o, TPM2_HIER_OWNER, rc);
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
	o->have_srk = 1;
	step(o, TPM2_OWN_SRK, 0, TPM2_OWN_DONE, detail);
out:
	if (h) {
		struct tberr keep = *t->e;

		tpm2_flush(t, h);
		*t->e = keep;
	}
	return rc;
}

/* The PCR banks: TPM2_PCR_Allocate when the active ones differ, with the
 * platform value (the change waits for the next TPM reset). */
static int banks(struct tpm *t, struct tpm2_own *o)
{
	struct pcr_sel now, next;
	char was[64], will[64], detail[160];
	struct tpm2_auth a;
	int rc;

	if (!o->nbanks)
		return 0;
	rc = tpm2_pcr_plan(t, o->banks, o->nbanks, &now, &next);
	if (rc && rc != TPM2_PCR_CHANGE)
		return rc;
	pcr_bank_names(&now, 0, was, sizeof(was));
	pcr_bank_names(&next, 0, will, sizeof(will));
	if (!rc) {
		snprintf(detail, sizeof(detail), "%s", was);
		step(o, TPM2_OWN_BANKS, 0, TPM2_OWN_ALREADY, detail);
		return 0;
	}
	snprintf(detail, sizeof(detail), "%s (active now: %s)", will, was);
	if (o->dry) {
		step(o, TPM2_OWN_BANKS, 0, TPM2_OWN_NEEDED, detail);
		return 0;
	}
	if ((rc = vauth(t, &o->plat, "the platform auth value", &a)) ||
	    (rc = tpm2_pcr_allocate_auth(t, &a, &next)))
		return rc;
	o->reboot = 1;
	step(o, TPM2_OWN_BANKS, 0, TPM2_OWN_REBOOT, detail);
	return 0;
}

/* Confirm hierarchy i's value without changing anything: TPM2_PolicySecret
 * on a trial session (one per run), authorized as any use of the value
 * is.  Hierarchy values other than lockout's are not DA-protected. */
static int confirm(struct tpm *t, struct tpm2_own *o, int i)
{
	struct tpm2_auth a;
	int rc;

	if (!o->trial && (rc = tpm2_session_start(t, TPM2_SE_TRIAL,
						  TPM2_RH_NULL, NULL,
						  TPM2_RH_NULL, NULL, 0, 0,
						  &o->trial)))
		return rc;
	if ((rc = hauth(t, o, i, &a)))
		return rc;
	if ((rc = tpm2_policy_secret(t, hier[i].handle, &a,
				     tpm2_session_handle(o->trial))))
		return refused(o, i, rc);
	return 0;
}

/* Set the new auth values in the process session, salted to the SRK,
 * the new value encrypted.  The TPM's answer is HMACed with the new
 * value, so a dropped change cannot pass for a done one.  A value that
 * is already the new one is confirmed, not set again. */
static int change_auths(struct tpm *t, struct tpm2_own *o)
{
	struct tpm2_session *s;
	struct tpm2_auth a;
	int i, rc;

	for (i = 0; i < TPM2_NHIER; i++) {
		struct tpm2_hier *h = &o->h[i];
		int same = h->cur.n == h->nw.n &&
			   !memcmp(h->cur.v, h->nw.v, h->nw.n);
		const char *how = !h->set ? "none set" : h->has_old ?
				  "the old value given" : "set";

		if (!h->has_new)
			continue;
		if (same && !h->set) {	/* the empty value, asked for */
			step(o, TPM2_OWN_AUTH, i, TPM2_OWN_ALREADY, "empty");
			continue;
		}
		if (o->dry && i == TPM2_HIER_LOCKOUT) {
			step(o, TPM2_OWN_AUTH, i, same ? TPM2_OWN_UNCHECKED :
			     TPM2_OWN_NEEDED, how);
			continue;
		}
		if (same || o->dry) {
			if (h->set && (rc = confirm(t, o, i)))
				return rc;
			step(o, TPM2_OWN_AUTH, i, same ? TPM2_OWN_ALREADY :
			     TPM2_OWN_NEEDED, how);
			continue;
		}
		if (!(s = tpm2_trust_session(t)))
			return err_set(t->e, EX_FAIL, "no session to set the "
				       "%s auth value in", tpm2_hier_name[i]);
		tpm2_session_set_flags(s, SESS_ENC_CMD);
		tpm2_session_use(s, &a, h->cur.v, h->cur.n);
		rc = tpm2_hierarchy_change_auth(t, hier[i].handle, &a,
						h->nw.v, h->nw.n);
		if (rc)
			return refused(o, i, rc);
		h->cur = h->nw;
		h->cur_known = 1;
		step(o, TPM2_OWN_AUTH, i, TPM2_OWN_DONE, how);
	}
	return 0;
}

/* The EK from the TCG template at 0x81010001 (RSA) or 0x81010002 (ECC):
 * one already there with the template's public area is kept (no
 * CreatePrimary on a re-run); else made with the endorsement value and
 * persisted with the owner value. */
static int ensure_ek(struct tpm *t, struct tpm2_own *o)
{
	int want_rsa = o->ek == 1, rsa = -1, rc, replace;
	uint32_t handle = want_rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE;
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct tpm2_public tmpl;
	struct tpm2_auth a;
	char detail[96];
	uint32_t h = 0;

	if (!pub)
		return err_set(t->e, EX_FAIL, "out of memory");
	snprintf(detail, sizeof(detail), "%s EK at 0x%08x",
		 want_rsa ? "RSA-2048" : "ECC P-256", handle);
	rc = tpm2_readpublic(t, handle, pub);
	if (rc == 0 && tpm2_ek_matches(pub, &rsa) && rsa == want_rsa) {
		step(o, TPM2_OWN_EK, 0, TPM2_OWN_ALREADY, detail);
		goto out;
	}
	if (rc && rc != EX_NOENT)
		goto out;
	replace = rc == 0;
	err_clear(t->e);
	if (replace && !o->force) {
		o->blocked = handle;
		rc = err_set(t->e, EX_FAIL, "0x%08x holds another object, not "
			     "the %s; not replacing it", handle, detail);
		goto out;
	}
	if (replace)
		snprintf(detail + strlen(detail), sizeof(detail) -
			 strlen(detail), ", replacing the object there");
	if ((rc = need_known(t, o, TPM2_HIER_OWNER, "persisting the EK")) ||
	    (rc = need_known(t, o, TPM2_HIER_ENDORSEMENT, "creating the EK")))
		goto out;
	if (o->dry) {
		step(o, TPM2_OWN_EK, 0, TPM2_OWN_NEEDED, detail);
		goto out;
	}
	if (replace) {
		if ((rc = hauth(t, o, TPM2_HIER_OWNER, &a)))
			goto out;
		if ((rc = tpm2_evict(t, &a, handle, pub->name, pub->namelen,
				     handle))) {
			rc = refused(o, TPM2_HIER_OWNER, rc);
			goto out;
		}
	}
	tpm2_ek_template(&tmpl, want_rsa);
	if ((rc = hauth(t, o, TPM2_HIER_ENDORSEMENT, &a)))
		goto out;
	if ((rc = tpm2_create_primary(t, TPM2_RH_ENDORSEMENT, &a, &tmpl, NULL,
				      0, &h, pub))) {
		rc = refused(o, TPM2_HIER_ENDORSEMENT, rc);
		goto out;
	}
	if (!tpm2_public_same_template(pub, &tmpl)) {
		rc = err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key made "
			     "is not the EK its template asks for");
		goto out;
	}
	if ((rc = hauth(t, o, TPM2_HIER_OWNER, &a)))
		goto out;
	if ((rc = tpm2_evict(t, &a, h, pub->name, pub->namelen, handle))) {
		rc = refused(o, TPM2_HIER_OWNER, rc);
		goto out;
	}
	step(o, TPM2_OWN_EK, 0, TPM2_OWN_DONE, detail);
out:
	if (h) {
		struct tberr keep = *t->e;

		tpm2_flush(t, h);
		*t->e = keep;
	}
	free(pub);
	return rc;
}

/* The DA parameters asked for, against the values st read at the start
 * (nothing since changes them). */
static int set_da(struct tpm *t, struct tpm2_own *o,
		  const struct da_state *st)
{
	const uint32_t cur[3] = {
		st->max_tries, st->recovery, st->lockout_recovery
	};
	char detail[96];
	struct tpm2_auth a;
	int i, same = 1, rc;

	if (!o->has_da[0] && !o->has_da[1] && !o->has_da[2])
		return 0;
	for (i = 0; i < 3; i++) {
		if (!o->has_da[i])
			o->da[i] = cur[i];
		if (o->da[i] != cur[i])
			same = 0;
	}
	snprintf(detail, sizeof(detail), "max tries %u, recovery time %u s, "
		 "lockout recovery %u s", o->da[0], o->da[1], o->da[2]);
	if (!same && (rc = need_known(t, o, TPM2_HIER_LOCKOUT, "setting the "
				      "dictionary-attack parameters")))
		return rc;
	if (same || o->dry) {
		step(o, TPM2_OWN_DA, 0, same ? TPM2_OWN_ALREADY :
		     TPM2_OWN_NEEDED, detail);
		return 0;
	}
	if ((rc = hauth(t, o, TPM2_HIER_LOCKOUT, &a)))
		return rc;
	rc = tpm2_da_parameters(t, &a, o->da[0], o->da[1], o->da[2]);
	if (rc)
		return refused(o, TPM2_HIER_LOCKOUT, rc);
	step(o, TPM2_OWN_DA, 0, TPM2_OWN_DONE, detail);
	return 0;
}

int tpm2_takeown(struct tpm *t, struct tpm2_own *o)
{
	struct da_state st;
	int rc;

	o->refused = o->unknown = -1;
	o->unknown_for = NULL;
	o->blocked = 0;
	o->have_srk = o->reboot = 0;
	/* With a pin the session comes first: the hierarchy state read
	 * next decides which values are sent. */
	if ((rc = tpm2_trust_begin(t)) || (rc = tpm2_da_state(t, &st)))
		return rc;
	choose_current(o, st.permanent);
	rc = ensure_srk(t, o);
	if (!rc)
		rc = banks(t, o);
	if (!rc)
		rc = change_auths(t, o);
	if (!rc && o->ek)
		rc = ensure_ek(t, o);
	if (!rc)
		rc = set_da(t, o, &st);
	if (o->trial) {
		struct tberr keep = *t->e;

		tpm2_session_flush(t, o->trial);
		o->trial = NULL;
		*t->e = keep;
	}
	return rc;
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
