/* lockdown's steps on either family (include/job/handoff.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/auth.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "job/handoff.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/owner.h"
#include "tpm2/cap.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/random.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

/* The PC Client's EV_SEPARATOR event data: what firmware extends into
 * PCRs 0-7 when it hands over to the boot loader. */
static const uint8_t separator[4] = { 0, 0, 0, 0 };
/* The empty auth value (tpm2_session_use: NULL is no value at all). */
static const uint8_t empty_value[1];

int lockdown_extend_opt(struct lockdown *l, const char *arg,
			struct tberr *e)
{
	const char *eq = strchr(arg, '=');
	char num[8];
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	uint64_t pcr;

	if (l->nx == LOCK_EXTENDS)
		return err_set(e, EX_USAGE, "--extend: at most %d PCRs",
			       LOCK_EXTENDS);
	if (n == 0 || n >= sizeof(num))
		return err_set(e, EX_USAGE, "--extend wants PCR or "
			       "PCR=STRING, not '%s'", arg);
	memcpy(num, arg, n);
	num[n] = '\0';
	if (parse_u64(num, &pcr) || pcr > 31)
		return err_set(e, EX_USAGE, "--extend: bad PCR index '%s'",
			       num);
	l->x[l->nx].pcr = (unsigned)pcr;
	l->x[l->nx].str = eq ? eq + 1 : NULL;
	l->nx++;
	return 0;
}

__attribute__((format(printf, 4, 5)))
static void step(struct lockdown *l, int st, int result, const char *fmt,
		 ...)
{
	struct lock_step *s = &l->st[l->nst < LOCK_STEPS ? l->nst++ :
				     LOCK_STEPS - 1];
	va_list ap;

	s->step = st;
	s->result = result;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

/* Each --extend: every allocated bank in one command per PCR. */
static int extends(struct tpm *t, struct lockdown *l)
{
	uint8_t d[TPM2_MAX_BANKS][64];
	uint16_t algs[TPM2_MAX_BANKS];
	struct pcr_sel alloc;
	char banks[64] = "";
	unsigned npcrs;
	int i, k, n = 0, rc;

	if (!l->nx)
		return 0;
	if ((rc = tpm_pcr_banks(t, &alloc, &npcrs)))
		return rc;
	for (i = 0; i < alloc.n; i++) {
		if (!hash_supported(alloc.b[i].alg))
			return err_set(t->e, EX_FAIL, "tpmbox cannot compute "
				       "%s, an allocated bank",
				       alg_name(alloc.b[i].alg));
		algs[n++] = alloc.b[i].alg;
		snprintf(banks + strlen(banks), sizeof(banks) - strlen(banks),
			 "%s%s", i ? "," : "", alg_name(alloc.b[i].alg));
	}
	for (k = 0; k < l->nx; k++)
		if (l->x[k].pcr >= npcrs)
			return err_set(t->e, EX_USAGE, "--extend: PCR %u is out "
				       "of range: this TPM has PCRs 0-%u",
				       l->x[k].pcr, npcrs - 1);
	for (k = 0; k < l->nx; k++) {
		const char *s = l->x[k].str;

		for (i = 0; i < n; i++)
			hash_buf(algs[i], s ? (const void *)s : separator,
				 s ? strlen(s) : sizeof(separator), d[i]);
		if (!l->dry && (rc = tpm_pcr_extend(t, l->x[k].pcr, n, algs,
						    (const uint8_t (*)[64])d))) {
			/* TPM_RC_LOCALITY: PCRs 17-22 are the DRTM's */
			if (rc_base(t->e->rc) == 0x907)
				err_hint(t->e, "PCR %u can be extended only "
					 "from a higher locality (a DRTM PCR)",
					 l->x[k].pcr);
			return rc;
		}
		l->st[l->nst].pcr = l->x[k].pcr;
		step(l, LOCK_EXTEND, l->dry ? LOCK_WOULD : LOCK_DONE,
		     "%s in %s", s ? "the string's digest" : "the separator "
		     "(4 zero bytes)", banks);
	}
	return 0;
}

/* TPM 2.0: TPM2_ClearControl(YES) with the lockout value. */
static int clear2(struct tpm *t, struct lockdown *l, uint32_t perm)
{
	int set = !!(perm & TPMA_PERMANENT_LOCKOUTAUTHSET);
	struct nv_auth na;
	int rc;

	if (perm & TPMA_PERMANENT_DISABLECLEAR) {
		step(l, LOCK_CLEAR, LOCK_ALREADY, "disableClear is set");
		return 0;
	}
	if (set && !l->lockspec)
		return err_set(t->e, EX_AUTH, "the lockout auth value is set; "
			       "give it with --lockout-auth");
	if (l->dry) {
		step(l, LOCK_CLEAR, LOCK_WOULD, "TPM2_ClearControl with the "
		     "lockout value (%s; not tried)", set ? "set" : "empty");
		return 0;
	}
	/* A value given while none is set is not tried: a wrong lockout
	 * value would block lockout authorization. */
	if ((rc = nv_hier_auth_begin(t, &na, TPM2_RH_LOCKOUT,
				     set ? l->lockspec : NULL, 0)))
		return rc;
	rc = tpm2_clear_control(t, TPM2_RH_LOCKOUT, &na.a, 1);
	auth_wipe(&na.v);
	if (rc == EX_AUTH)
		err_hint(t->e, "a wrong lockout value blocks lockout "
			 "authorization for the lockout recovery time (dalock "
			 "shows it)");
	if (rc)
		return rc;
	step(l, LOCK_CLEAR, LOCK_DONE, "disableClear set with the lockout "
	     "value");
	return 0;
}

/* Whether the platform hierarchy's value is empty: TPM2_PolicySecret on a
 * trial session changes nothing, and no platform authorization counts a
 * dictionary-attack failure. */
static int platform_empty(struct tpm *t, int *empty)
{
	struct tpm2_session *s;
	struct tpm2_auth a;
	int rc, frc;

	if ((rc = tpm2_session_start(t, TPM2_SE_TRIAL, TPM2_RH_NULL, NULL,
				     TPM2_RH_NULL, NULL, 0, 0, &s)))
		return rc;
	tpm2_auth_pw(&a, NULL, 0);
	rc = tpm2_policy_secret(t, TPM2_RH_PLATFORM, &a,
				tpm2_session_handle(s));
	*empty = rc == 0;
	if (rc == EX_AUTH)
		rc = 0;
	frc = tpm2_session_flush(t, s);
	return rc ? rc : frc;
}

/* TPM 2.0: a random platform value never stored, or the hierarchy
 * disabled; nothing sent that changes it when it is closed already. */
static int platform2(struct tpm *t, struct lockdown *l, uint32_t startup)
{
	struct tpm2_session *s;
	struct tpm2_auth a;
	uint8_t v[32];
	int empty, rc;

	if (!(startup & TPMA_STARTUP_CLEAR_PHENABLE)) {
		step(l, LOCK_PLATFORM, LOCK_ALREADY, "the platform hierarchy "
		     "is disabled (phEnable clear)");
		return 0;
	}
	if ((rc = platform_empty(t, &empty)))
		return rc;
	if (!empty && l->platform == LOCK_PLAT_RANDOM) {
		step(l, LOCK_PLATFORM, LOCK_ALREADY, "a platform value is set "
		     "(the empty value is refused)");
		return 0;
	}
	if (!empty)
		return err_set(t->e, EX_AUTH, "the platform hierarchy cannot "
			       "be disabled: its auth value is set and not "
			       "known here (a reboot makes it empty)");
	if (l->dry) {
		step(l, LOCK_PLATFORM, LOCK_WOULD, l->platform ==
		     LOCK_PLAT_RANDOM ? "a random value set (the value is "
		     "empty now)" : "TPM2_HierarchyControl(PLATFORM, NO)");
		return 0;
	}
	if (l->platform == LOCK_PLAT_DISABLE) {
		tpm2_auth_pw(&a, NULL, 0);
		if ((s = tpm2_trust_session(t)))
			tpm2_session_use(s, &a, empty_value, 0);
		if ((rc = tpm2_hierarchy_control(t, TPM2_RH_PLATFORM, &a,
						 TPM2_RH_PLATFORM, 0)))
			return rc;
		step(l, LOCK_PLATFORM, LOCK_DONE, "the platform hierarchy is "
		     "disabled until the next TPM2_Startup(CLEAR)");
		return 0;
	}
	/* 32 bytes from the TPM (the answer encrypted in the salted
	 * session), sent encrypted, then wiped: nobody knows the value. */
	if ((rc = tpm2_trust_need(t, &s)) ||
	    (rc = tpm2_getrandom(t, v, sizeof(v))))
		goto out;
	tpm2_session_set_flags(s, SESS_ENC_CMD);
	tpm2_session_use(s, &a, empty_value, 0);
	tpm2_trust_last_for(t, &a);
	rc = tpm2_hierarchy_change_auth(t, TPM2_RH_PLATFORM, &a, v,
					sizeof(v));
	if (!rc)
		step(l, LOCK_PLATFORM, LOCK_DONE, "a random value, never "
		     "stored, until the next TPM2_Startup");
out:
	explicit_bzero(v, sizeof(v));
	return rc;
}

static int clear12(struct tpm *t, struct lockdown *l)
{
	int disabled, rc;

	if ((rc = tpm12_force_clear_disabled(t, &disabled)))
		return rc;
	if (disabled) {
		step(l, LOCK_CLEAR, LOCK_ALREADY, "disableForceClear is set");
		return 0;
	}
	if (l->dry) {
		step(l, LOCK_CLEAR, LOCK_WOULD, "TPM_DisableForceClear");
		return 0;
	}
	if ((rc = tpm12_disable_force_clear(t)))
		return rc;
	step(l, LOCK_CLEAR, LOCK_DONE, "TPM_ForceClear disabled until the "
	     "next TPM_Startup(ST_CLEAR)");
	return 0;
}

int lockdown_run(struct tpm *t, int fam, struct lockdown *l)
{
	struct tpm2_prop p[4];
	uint32_t perm = 0, startup = 0;
	size_t n;
	int rc;

	l->nst = 0;
	if (fam == TPM_FAMILY_12) {
		if ((rc = extends(t, l)))
			return rc;
		return l->disable_clear ? clear12(t, l) : 0;
	}
	/* The state first: TPM_PT_PERMANENT and TPM_PT_STARTUP_CLEAR. */
	if ((l->disable_clear || l->platform) &&
	    (rc = tpm2_getprops(t, TPM2_PT_PERMANENT, 2, p, 4, &n)))
		return rc;
	if ((l->disable_clear || l->platform) &&
	    (!tpm2_prop_find(p, n, TPM2_PT_PERMANENT, &perm) ||
	     !tpm2_prop_find(p, n, TPM2_PT_STARTUP_CLEAR, &startup)))
		return err_set(t->e, EX_IO, "TPM2_GetCapability: the TPM does "
			       "not report TPM_PT_PERMANENT and "
			       "TPM_PT_STARTUP_CLEAR");
	if ((rc = extends(t, l)) ||
	    (l->disable_clear && (rc = clear2(t, l, perm))) ||
	    (l->platform && (rc = platform2(t, l, startup))))
		return rc;
	return 0;
}

const char *lock_step_name(const struct lock_step *s)
{
	return s->step == LOCK_EXTEND ? "extend" : s->step == LOCK_CLEAR ?
	       "disable-clear" : "platform";
}

const char *lock_result_words(int result)
{
	return result == LOCK_DONE ? "done" : result == LOCK_ALREADY ?
	       "already so" : "needed";
}

const char *lock_result_json(int result)
{
	return result == LOCK_DONE ? "done" : result == LOCK_ALREADY ?
	       "already" : "needed";
}
