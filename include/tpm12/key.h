/* TPM 1.2 keys (Main Specification Part 3, 10.4 TPM_CreateWrapKey, 10.5
 * TPM_LoadKey2, 22.1 TPM_FlushSpecific): a wrapped key made under a
 * loaded parent, loaded for use and flushed after. */
#ifndef TPMBOX_TPM12_KEY_H
#define TPMBOX_TPM12_KEY_H

#include <stdint.h>

#include "tpm12/structs.h"

struct tpm;

#define TPM12_ORD_CreateWrapKey		0x0000001f
#define TPM12_ORD_LoadKey2		0x00000041
#define TPM12_RT_KEY			0x00000001

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
/* TPM_LoadKey2 of k under parent (OIAP with parentauth): *handle. */
int tpm12_loadkey2(struct tpm *t, uint32_t parent,
		   const uint8_t parentauth[20], const struct tpm12_key *k,
		   uint32_t *handle);
/* TPM_FlushSpecific(handle, TPM_RT_KEY). */
int tpm12_flush_key(struct tpm *t, uint32_t handle);

#endif
