/* Dictionary-attack protection (Part 1, "Dictionary Attack Protection"):
 * its state, TPM2_DictionaryAttackLockReset, and the parameters
 * (TPM2_DictionaryAttackParameters is in tpm2/object.h). */
#ifndef TPMBOX_TPM2_DA_H
#define TPMBOX_TPM2_DA_H

#include <stdint.h>

struct tpm;
struct tpm2_auth;

struct da_state {
	uint32_t failures;		/* TPM_PT_LOCKOUT_COUNTER */
	uint32_t max_tries;		/* TPM_PT_MAX_AUTH_FAIL */
	uint32_t recovery;		/* TPM_PT_LOCKOUT_INTERVAL, s */
	uint32_t lockout_recovery;	/* TPM_PT_LOCKOUT_RECOVERY, s */
	int in_lockout;			/* TPMA_PERMANENT inLockout */
	int lockout_auth_set;		/* TPMA_PERMANENT lockoutAuthSet */
	uint32_t permanent;		/* TPM_PT_PERMANENT, all of it */
	int lockout_blocked;		/* tpm2_da_lockout_blocked */
};

/* One GetCapability of the variable properties. */
int tpm2_da_state(struct tpm *t, struct da_state *s);
/* Whether lockout authorization is blocked (a wrong lockout value was
 * given; no property reports it).  The probe counts no failure and can
 * change nothing: an unsalted policy session that asserts another
 * command (PolicyCommandCode: DictionaryAttackParameters) and
 * PolicyAuthValue authorizes DictionaryAttackLockReset, which the TPM
 * refuses with TPM_RC_LOCKOUT while the block lasts and otherwise with a
 * policy or AUTH_UNAVAILABLE error before any HMAC is checked.  The
 * answer is an error code, which no session authenticates: an
 * interposer can forge it (it only informs).  *blocked 1 or 0; any
 * other answer is an error (exit code, t->e set). */
int tpm2_da_lockout_blocked(struct tpm *t, int *blocked);
/* TPM2_DictionaryAttackLockReset, authorized by the lockout hierarchy. */
int tpm2_da_reset(struct tpm *t, struct tpm2_auth *lockout);

#endif
