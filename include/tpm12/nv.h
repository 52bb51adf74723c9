/* TPM 1.2 NV storage (Main Specification Part 2, 19: TPM_NV_DATA_PUBLIC,
 * TPM_NV_ATTRIBUTES). */
#ifndef TPMBOX_TPM12_NV_H
#define TPMBOX_TPM12_NV_H

#include <stddef.h>
#include <stdint.h>

#include "tpm12/structs.h"

struct tpm;

#define TPM12_CAP_NV_INDEX	0x11

struct tpm12_nv_public {
	uint32_t index;
	struct tpm12_pcr_info read, write;	/* TPM_PCR_INFO_SHORT each */
	uint32_t perm;		/* TPM_NV_ATTRIBUTES.attributes */
	int read_stclear, write_stclear, write_define;
	uint32_t size;
};

/* Parse a TPM_NV_DATA_PUBLIC, all of p[0..n): 0 or -1. */
int tpm12_nv_public_parse(const uint8_t *p, size_t n,
			  struct tpm12_nv_public *out);
/* TPM_GetCapability(TPM_CAP_NV_INDEX, index). */
int tpm12_nv_public(struct tpm *t, uint32_t index,
		    struct tpm12_nv_public *out);
/* "OWNERWRITE|PPREAD": the permission bits by tpm-tools' names (what
 * tpm_nvdefine -p takes), "0" for none, unknown bits in hex. */
void tpm12_nv_perm_format(uint32_t perm, char *out, size_t cap);

#endif
