/* Dictionary-attack protection: see include/tpm2/da.h. */
#include <string.h>

#include "base/tpm2const.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/da.h"
#include "tpm2/policy.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"

int tpm2_da_state(struct tpm *t, struct da_state *s)
{
	struct tpm2_prop p[64];
	uint32_t perm = 0;
	size_t n;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = tpm2_getprops(t, TPM2_PT_PERMANENT, 32, p, 64, &n)))
		return rc;
	if (!tpm2_prop_find(p, n, TPM2_PT_PERMANENT, &perm) ||
	    !tpm2_prop_find(p, n, TPM2_PT_LOCKOUT_COUNTER, &s->failures) ||
	    !tpm2_prop_find(p, n, TPM2_PT_MAX_AUTH_FAIL, &s->max_tries) ||
	    !tpm2_prop_find(p, n, TPM2_PT_LOCKOUT_INTERVAL, &s->recovery) ||
	    !tpm2_prop_find(p, n, TPM2_PT_LOCKOUT_RECOVERY,
			    &s->lockout_recovery))
		return err_set(t->e, EX_FAIL, "TPM2_GetCapability: the "
			       "dictionary-attack properties are missing");
	s->permanent = perm;
	s->in_lockout = (perm & TPMA_PERMANENT_INLOCKOUT) != 0;
	s->lockout_auth_set = (perm & TPMA_PERMANENT_LOCKOUTAUTHSET) != 0;
	return 0;
}

int tpm2_da_reset(struct tpm *t, struct tpm2_auth *lockout)
{
	struct tpm2_call c = {0};

	c.cc = TPM2_CC_DictionaryAttackLockReset;
	c.nh = 1;
	c.h[0] = TPM2_RH_LOCKOUT;
	c.na = 1;
	c.auth[0] = lockout;
	return tpm2_call(t, &c);
}

int tpm2_da_lockout_blocked(struct tpm *t, int *blocked)
{
	struct tpm2_session *s = NULL;
	struct tpm2_auth a;
	struct tpm2_call c = {0};
	uint32_t h, base;
	int rc;

	*blocked = 0;
	if ((rc = tpm2_session_start(t, TPM2_SE_POLICY, TPM2_RH_NULL, NULL,
				     TPM2_RH_NULL, NULL, 0, 0, &s)))
		return rc;
	h = tpm2_session_handle(s);
	if ((rc = tpm2_policy_commandcode(t, h,
					  TPM2_CC_DictionaryAttackParameters)) ||
	    (rc = tpm2_policy_authvalue(t, h)))
		goto out;
	tpm2_session_policy_auth(s, SESS_POLICY_AUTHVALUE);
	tpm2_session_use(s, &a, NULL, 0);
	c.cc = TPM2_CC_DictionaryAttackLockReset;
	c.nh = 1;
	c.h[0] = TPM2_RH_LOCKOUT;
	c.na = 1;
	c.auth[0] = &a;
	rc = tpm2_call(t, &c);
	if (!rc) {
		/* The TPM ran a command its policy did not allow. */
		rc = err_set(t->e, EX_FAIL, "TPM2_DictionaryAttackLockReset: "
			     "the lockout probe was accepted; this TPM does "
			     "not check PolicyCommandCode");
		goto out;
	}
	base = rc_base(c.rc);
	if (c.rc == TPM2_RC_LOCKOUT) {
		*blocked = 1;
	} else if (base != TPM2_RC_AUTH_UNAVAILABLE &&
		   base != TPM2_RC_POLICY_FAIL && base != TPM2_RC_POLICY_CC) {
		err_prefix(t->e, "the lockout probe");
		goto out;
	}
	err_clear(t->e);
	rc = 0;
out:
	if (tpm2_session_flush(t, s) && !rc)
		rc = t->e->code ? t->e->code : EX_FAIL;
	return rc;
}
