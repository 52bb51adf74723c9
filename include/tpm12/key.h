/* TPM 1.2 keys (Main Specification Part 3, TPM_CreateWrapKey,
 * TPM_LoadKey2 and TPM_FlushSpecific): a wrapped key (TPM_KEY /
 * TPM_KEY12) made under a loaded parent, loaded under it for one job,
 * flushed after it.  Slots are few (swtpm: 20;
 * chips fewer): every load is paired with a flush. */
#ifndef TPMBOX_TPM12_KEY_H
#define TPMBOX_TPM12_KEY_H

#include <stdint.h>

#include "tpm12/structs.h"

struct tpm;

#define TPM12_ORD_CreateWrapKey	0x0000001f
#define TPM12_ORD_LoadKey2	0x00000041

/* The OSAP entity type for a key handle: TPM_ET_SRK for the SRK,
 * TPM_ET_KEYHANDLE otherwise. */
uint16_t tpm12_key_entity(uint32_t handle);
/* TPM_CreateWrapKey under the loaded parent (OSAP with parentauth; the
 * new key's usage value ADIP-encrypted, its migration value too):
 * info is the template (a TPM_KEY or TPM_KEY12 with empty pubkey and
 * encData); out gets the wrapped key, its HMAC-checked answer. */
int tpm12_create_wrap_key(struct tpm *t, uint32_t parent,
			  const uint8_t parentauth[20],
			  const struct tpm12_key *info,
			  const uint8_t usageauth[20], struct tpm12_key *out);
/* TPM_LoadKey2 of k under parent (TPM12_KH_SRK for the SRK), authorized
 * by an OIAP session keyed with the parent's 20-byte usage value
 * (tpm12_auth_value), the answer's HMAC checked; *handle gets the
 * loaded key's handle.  A wrong parent value is exit 4. */
int tpm12_loadkey2(struct tpm *t, uint32_t parent, const uint8_t
		   parent_auth[20], const struct tpm12_key *k,
		   uint32_t *handle);
/* TPM_FlushSpecific(handle, TPM_RT_KEY).  Keeps an error already in
 * t->e when it fails itself (a cleanup step). */
int tpm12_flush_key(struct tpm *t, uint32_t handle);

#endif
