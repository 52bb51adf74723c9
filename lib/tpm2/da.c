/* Dictionary-attack protection: see include/tpm2/da.h. */
#include <string.h>

#include "base/tpm2const.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/da.h"

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
