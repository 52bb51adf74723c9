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
};

/* One GetCapability of the variable properties. */
int tpm2_da_state(struct tpm *t, struct da_state *s);
/* TPM2_DictionaryAttackLockReset, authorized by the lockout hierarchy. */
int tpm2_da_reset(struct tpm *t, struct tpm2_auth *lockout);

#endif
