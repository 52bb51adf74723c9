/* Taking ownership of a TPM 1.2 (Main Specification Part 3,
 * TPM_TakeOwnership; shared/TPM12.md): the owner and SRK values
 * RSA-OAEP-encrypted to the EK, the SRK made by the TPM. */
#ifndef TPMBOX_TPM12_OWNER_H
#define TPMBOX_TPM12_OWNER_H

#include <stdint.h>

#include "tpm12/structs.h"

struct tpm;

#define TPM12_ORD_TakeOwnership		0x0000000d
#define TPM12_ORD_ReadPubek		0x0000007c
#define TPM12_ORD_OwnerReadInternalPub	0x00000081
#define TPM12_PID_OWNER			0x0005

struct tpm12_own {
	/* request: the 20-byte values (tpm12_auth_value) */
	uint8_t owner[20], srk[20];
	/* result */
	int already;			/* owned before: owner value confirmed */
	struct tpm12_pubkey srkpub;	/* the SRK's public key */
	uint8_t srkhash[20];		/* SHA-1 of srkpub as a TPM_PUBKEY */
};

/* Not owned: TPM_ReadPubek (its checksum checked), both values encrypted
 * to the EK with RSA-OAEP (SHA-1, label "TCPA"), TPM_TakeOwnership over
 * OIAP keyed with the new owner value (the answer, the SRK's TPM_KEY,
 * HMAC-checked with it).  Owned: TPM_OwnerReadInternalPub(SRK) over OIAP
 * with the owner value given: the value is confirmed (a wrong one is
 * exit 4) and nothing changes.  No EK: exit 1 naming
 * TPM_CreateEndorsementKeyPair. */
int tpm12_takeown(struct tpm *t, struct tpm12_own *o);

#define TPM12_ORD_OwnerClear		0x0000005b
#define TPM12_ORD_ForceClear		0x0000005d
#define TPM12_ORD_PhysicalEnable	0x0000006f
#define TPM12_ORD_PhysicalSetDeactivated	0x00000072
#define TPM12_ORD_TSC_PhysicalPresence	0x4000000a
#define TPM12_PP_PRESENT		0x0008
#define TPM12_ORD_DisableForceClear	0x0000005e
#define TPM12_ORD_SaveState		0x00000098

/* TPM_OwnerClear over OIAP with the owner value (20 bytes; the answer's
 * HMAC checked). */
int tpm12_owner_clear(struct tpm *t, const uint8_t owner[20]);
/* Physical presence asserted by software (TSC_PhysicalPresence(PRESENT),
 * which the platform may forbid: exit 1 saying so), then TPM_ForceClear. */
int tpm12_force_clear(struct tpm *t);
/* Physical presence, then TPM_PhysicalEnable and
 * TPM_PhysicalSetDeactivated(FALSE): in effect after the next TPM_Startup
 * (a reboot). */
int tpm12_reenable(struct tpm *t);
/* TPM_SaveState: the state kept for a TPM_Startup(ST_STATE) after the
 * power cycle that should follow. */
int tpm12_save_state(struct tpm *t);
/* TPM_DisableForceClear: TPM_ForceClear refused until the next
 * TPM_Startup(ST_CLEAR) (TPM_STCLEAR_FLAGS.disableForceClear). */
int tpm12_disable_force_clear(struct tpm *t);

#endif
