/* Taking ownership on either family, as takeown does it
 * (include/job/owner.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/hex.h"
#include "crypto/pk.h"
#include "job/owner.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/da.h"
#include "tpm12/structs.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

#define OWNER_PERSISTENT_END 0x81800000u	/* platform range above */

const char *owner_step_name(const struct owner_step *s)
{
	static const char *const auth[TPM2_NHIER] = {
		"owner-auth", "endorsement-auth", "lockout-auth"
	};

	switch (s->step) {
	case TPM2_OWN_SRK: return "srk";
	case TPM2_OWN_BANKS: return "pcr-banks";
	case TPM2_OWN_AUTH: return auth[s->hier];
	case TPM2_OWN_EK: return "ek";
	case OWNER_OWNERSHIP: return "ownership";
	default: return "da-parameters";
	}
}

const char *owner_result_words(int r)
{
	static const char *const w[] = {
		"done", "already so", "done, in effect after the next reboot",
		"needed", ("not checked (a dry run does not try the lockout "
			   "value)")
	};
	return w[r];
}

const char *owner_result_json(int r)
{
	static const char *const w[] = {
		"done", "already", "reboot", "needed", "unchecked"
	};
	return w[r];
}

/* A step: said at once, kept for the report (the first OWNER_STEPS). */
static void step(struct owner_job *j, int st, int hier, int result,
		 const char *detail)
{
	struct owner_step s;

	s.step = st;
	s.hier = hier;
	s.result = result;
	snprintf(s.detail, sizeof(s.detail), "%s", detail);
	if (j->said)
		j->said(j->arg, &s);
	if (j->nst < OWNER_STEPS)
		j->st[j->nst++] = s;
}

/* tpm2_takeown's report of a step. */
static void done2(const struct tpm2_own *own, int st, int hier, int result,
		  const char *detail)
{
	step(own->arg, st, hier, result, detail);
}

int owner_da_opt(struct tpm2_own *own, int i, const char *s,
		 struct tberr *e)
{
	static const char *const opt[3] = {
		"--max-tries", "--recovery-time", "--lockout-recovery"
	};
	uint64_t x;

	if (parse_u64(s, &x) || x > 0xffffffffu)
		return err_set(e, EX_USAGE, "%s: bad number '%s'", opt[i], s);
	own->da[i] = (uint32_t)x;
	own->has_da[i] = 1;
	return 0;
}

int owner_ek_opt(struct tpm2_own *own, const char *arg, struct tberr *e)
{
	if (!arg || !strcmp(arg, "rsa"))
		own->ek = 1;
	else if (!strcmp(arg, "ecc"))
		own->ek = 2;
	else
		return err_set(e, EX_USAGE, "--ek=%s: give rsa or ecc", arg);
	return 0;
}

int owner_values(struct owner_job *j, struct tberr *e)
{
	struct tpm2_own *own = &j->own;
	int rc, i;

	if (j->platspec && (rc = auth_parse(j->platspec, &own->plat, e)))
		return rc;
	for (i = 0; i < TPM2_NHIER; i++) {
		struct tpm2_hier *h = &own->h[i];

		if (j->nwspec[i] && (rc = auth_parse(j->nwspec[i], &h->nw, e)))
			return rc;
		h->has_new = j->nwspec[i] != NULL;
		if (j->oldspec[i] &&
		    (rc = auth_parse(j->oldspec[i], &h->old, e)))
			return rc;
		h->has_old = j->oldspec[i] != NULL;
	}
	return 0;
}

int owner_first_contact(struct tpm *t, const char *ca,
			struct ekcert_trusted *ek)
{
	int fam = tpm_family(t);

	if (fam != TPM_FAMILY_20)
		return fam ? 0 : t->e->code;
	if (ekcert_trust(t, ca, ek))
		return t->e->code;
	return 0;
}

int owner_family(const struct owner_job *j, int fam, struct tberr *e)
{
	if (fam == TPM_FAMILY_12 && j->only20)
		return err_set(e, EX_USAGE, "this TPM is a TPM 1.2: "
			       "--owner-auth, --srk-auth, --srk-pub, --force, "
			       "--dry-run, --json and -v are its options; the "
			       "others are TPM 2.0's");
	if (fam != TPM_FAMILY_12 && j->srkspec)
		return err_set(e, EX_USAGE, "--srk-auth is for a TPM 1.2 (a "
			       "TPM 2.0's standard SRK has no value)");
	return 0;
}

/* A failure of tpm2_takeown in takeown's words: which option gives the
 * value that was wrong or missing. */
static int failed2(struct tberr *e, const struct tpm2_own *o, int rc)
{
	char why[sizeof(e->msg)];
	int i = o->refused;
	const char *n;

	if (o->unknown >= 0) {
		n = tpm2_hier_name[o->unknown];
		err_set(e, EX_AUTH, "the %s auth value is set and %s needs "
			"it; give it with --old-%s-auth or --%s-auth", n,
			o->unknown_for, n, n);
	} else if (o->blocked == TPM2_SRK_HANDLE) {
		err_hint(e, "--force evicts it and persists the standard SRK "
			 "(keys sealed under it are lost)");
	} else if (o->blocked) {
		err_hint(e, "--force evicts it and persists the EK");
	} else if (i >= 0 && rc == EX_AUTH) {
		n = tpm2_hier_name[i];
		memcpy(why, e->msg, sizeof(why));
		if (o->h[i].has_old)
			err_set(e, EX_AUTH, "the %s auth value given with "
				"--old-%s-auth is wrong (%s)", n, n, why);
		else
			err_set(e, EX_AUTH, "the %s auth value is already set "
				"and is not the one given; give its current "
				"value with --old-%s-auth (%s)", n, n, why);
		if (i == TPM2_HIER_LOCKOUT)
			err_hint(e, "a wrong lockout value blocks lockout "
				 "authorization for the lockout recovery "
				 "time");
	}
	return rc;
}

int owner_take2(struct tpm *t, struct owner_job *j)
{
	int rc;

	j->own.done = done2;
	j->own.arg = j;
	if ((rc = tpm2_takeown(t, &j->own)))
		return failed2(t->e, &j->own, rc);
	if (j->own.have_srk)
		hex_encode(j->own.srk.name, j->own.srk.namelen, j->srk);
	return 0;
}

int owner_take12(struct tpm *t, struct owner_job *j)
{
	const struct tpm2_hier *ho = &j->own.h[TPM2_HIER_OWNER];
	struct authval sv;
	int owned, rc;

	j->fam12 = 1;
	if (j->srkspec && (rc = auth_parse(j->srkspec, &sv, t->e)))
		return rc;
	tpm12_auth_value(ho->has_new ? &ho->nw : NULL, j->w.owner);
	tpm12_auth_value(j->srkspec ? &sv : NULL, j->w.srk);
	if (j->srkspec)
		auth_wipe(&sv);
	if (j->own.dry) {
		/* Nothing tried: a wrong owner value counts on a 1.2. */
		if (tpm12_owned(t, &owned))
			return EX_FAIL;
		step(j, OWNER_OWNERSHIP, 0, owned ? TPM2_OWN_UNCHECKED :
		     TPM2_OWN_NEEDED, owned ? "owned; the owner value is not "
		     "tried in a dry run" : "not owned");
		return 0;
	}
	if (tpm12_takeown(t, &j->w))
		return EX_FAIL;
	hex_encode(j->w.srkhash, 20, j->srk);
	step(j, OWNER_OWNERSHIP, 0, j->w.already ? TPM2_OWN_ALREADY :
	     TPM2_OWN_DONE, j->w.already ? "owned, the owner value "
	     "confirmed" : "TPM_TakeOwnership, RSA-2048 SRK");
	return 0;
}

int owner_srk_pub(const struct owner_job *j, const char *path,
		  struct tberr *e)
{
	const struct tpm12_pubkey *k = &j->w.srkpub;
	size_t len;
	char *pem;
	int rc;

	if (!j->fam12) {
		if ((rc = tpm2_srk_pem(&j->own.srk, &pem, &len, e)))
			return rc;
	} else if (pk_pem_rsa(k->pub, k->publen,
			      tpm12_rsa_exponent(&k->parms), &pem, &len)) {
		return err_set(e, EX_FAIL, "cannot encode the SRK public key "
			       "as PEM");
	}
	rc = file_write_same(path, pem, len, j->own.force ? OUT_FORCE : 0, e);
	free(pem);
	if (rc && !j->own.force)
		err_hint(e, "--force replaces it");
	return rc;
}

int owner_srk_remember(const struct owner_job *j, const char *path,
		       struct tberr *e)
{
	size_t len;
	char *pem;
	int rc;

	if (j->fam12 || j->own.dry)
		return 0;
	/* /etc/tpmbox made on first use; another path's folder is the
	 * caller's to have. */
	if (strcmp(path, SRK_REMEMBERED_PATH) == 0 &&
	    mkdir("/etc/tpmbox", 0755) != 0 && errno != EEXIST)
		return err_set(e, EX_IO, "remembering the SRK: cannot make "
			       "/etc/tpmbox: %s", strerror(errno));
	if ((rc = tpm2_srk_pem(&j->own.srk, &pem, &len, e)))
		return rc;
	rc = file_write_same(path, pem, len, OUT_FORCE | OUT_PUBLIC, e);
	free(pem);
	if (rc)
		err_prefix(e, "the SRK is persisted, but remembering it");
	return rc;
}

int owner_srk_forget(const char *path, int *removed, struct tberr *e)
{
	struct stat st;

	*removed = 0;
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return 0;
	if (unlink(path) != 0)
		return err_set(e, EX_IO, "the TPM is cleared, but the "
			       "remembered SRK %s it made stale stays: %s",
			       path, strerror(errno));
	*removed = 1;
	return 0;
}

void owner_wipe(struct owner_job *j)
{
	tpm2_own_wipe(&j->own);
	explicit_bzero(&j->w, sizeof(j->w));
}

int owner_clear_list(struct tpm *t, struct owner_clear *l)
{
	uint32_t perm, nvh[TPM2_HANDLES_MAX];
	size_t np, nn, i;
	int rc;

	l->npers = l->nnv = 0;
	l->disabled = 0;
	if ((rc = tpm2_trust_begin(t)) ||
	    (rc = tpm2_getprop(t, TPM2_PT_PERMANENT, &perm)) ||
	    (rc = tpm2_gethandles(t, 0x81000000u, l->pers, TPM2_HANDLES_MAX,
				  &np)) ||
	    (rc = tpm2_gethandles(t, 0x01000000u, nvh, TPM2_HANDLES_MAX,
				  &nn)))
		return rc;
	l->disabled = !!(perm & TPMA_PERMANENT_DISABLECLEAR);
	for (i = 0; i < np; i++)
		if (l->pers[i] < OWNER_PERSISTENT_END)
			l->pers[l->npers++] = l->pers[i];
	for (i = 0; i < nn; i++) {
		struct nv_public p;

		if ((rc = tpm2_nv_readpublic(t, nvh[i], &p)))
			return rc;
		if (!(p.attrs & TPMA_NV_PLATFORMCREATE))	/* survives */
			l->nv[l->nnv++] = nvh[i];
	}
	return 0;
}

int owner_clear_check(const struct owner_clear *l, struct tberr *e)
{
	if (!l->disabled)
		return 0;
	err_set(e, EX_FAIL, "TPM2_Clear is disabled on this TPM "
		"(disableClear is set)");
	err_hint(e, "only platform authorization lifts it: "
		 "TPM2_ClearControl(TPM_RH_PLATFORM, NO), e.g. the firmware's "
		 "\"clear TPM\" option, or `tpm2_clearcontrol -C p c` while "
		 "the platform hierarchy is open");
	return EX_FAIL;
}

int owner_clear2(struct tpm *t, const struct authval *lockout, int platform)
{
	struct tpm2_session *s = NULL;
	struct tpm2_auth a;
	int rc;

	tpm2_auth_pw(&a, NULL, 0);
	if (lockout->n && (rc = tpm2_trust_need(t, &s)))
		return rc;
	if ((s = tpm2_trust_session(t))) {
		tpm2_session_set_flags(s, 0);
		tpm2_session_use(s, &a, lockout->v, lockout->n);
	}
	rc = tpm2_clear(t, platform ? TPM2_RH_PLATFORM : TPM2_RH_LOCKOUT, &a);
	if (rc && rc_base(t->e->rc) == 0x120)
		err_hint(t->e, "disableClear is set; only platform "
			 "authorization lifts it (TPM2_ClearControl)");
	else if (rc == EX_AUTH && !platform)
		err_hint(t->e, "give the lockout value with --lockout-auth; a "
			 "wrong value blocks lockout authorization for the "
			 "lockout recovery time");
	return rc;
}
