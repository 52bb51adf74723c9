/* TPM 1.2 PCRs: one SHA-1 bank. */
#ifndef TPMBOX_TPM12_PCR_H
#define TPMBOX_TPM12_PCR_H

#include <stdint.h>

struct tpm;

int tpm12_pcr_read(struct tpm *t, uint32_t pcr, uint8_t out[20]);
/* TPM_Extend; new gets the PCR's new value (NULL: not wanted). */
int tpm12_pcr_extend(struct tpm *t, uint32_t pcr, const uint8_t digest[20],
		     uint8_t new[20]);

#endif
