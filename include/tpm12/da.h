/* TPM 1.2 dictionary-attack state and reset (Main Specification Part 2,
 * 21.7-21.10 TPM_DA_INFO; Part 3, TPM_ResetLockValue). */
#ifndef TPMBOX_TPM12_DA_H
#define TPMBOX_TPM12_DA_H

#include <stdint.h>

struct tpm;
struct authval;

#define TPM12_CAP_DA_LOGIC	0x19
#define TPM12_ORD_ResetLockValue	0x00000040
/* TPM_DA_ACTION_TYPE actions */
#define TPM12_DA_ACTION_TIMEOUT		0x01
#define TPM12_DA_ACTION_DISABLE		0x02
#define TPM12_DA_ACTION_DEACTIVATE	0x04
#define TPM12_DA_ACTION_FAILURE_MODE	0x08

struct tpm12_da {
	int limited;		/* TPM_DA_INFO_LIMITED: no counts given */
	int active;		/* TPM_DA_STATE_ACTIVE: defending now */
	uint16_t count;		/* currentCount */
	uint16_t threshold;	/* thresholdCount */
	uint32_t actions;	/* actionAtThreshold.actions */
	uint32_t depend;	/* actionDependValue (timeout: seconds) */
};

/* TPM_GetCapability(TPM_CAP_DA_LOGIC) for owner authorization. */
int tpm12_da_state(struct tpm *t, struct tpm12_da *d);
/* Parse a TPM_DA_INFO or TPM_DA_INFO_LIMITED (p[0..n), all of it);
 * 0 or -1.  For tpm12_da_state and the fuzz target. */
int tpm12_da_parse(const uint8_t *p, size_t n, struct tpm12_da *d);
/* TPM_ResetLockValue authorized by the owner (OIAP keyed with owner, 20
 * bytes; the answer's HMAC checked). */
int tpm12_da_reset(struct tpm *t, const uint8_t owner[20]);

/* An AUTH value as a TPM 1.2 auth: SHA-1 of its bytes, as TrouSerS makes
 * one from a password; NULL: the well-known secret (20 zero bytes, the
 * value tpm-tools' -z uses). */
void tpm12_auth_value(const struct authval *v, uint8_t out[20]);

#endif
