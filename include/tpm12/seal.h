/* Sealing on a TPM 1.2 (Main Specification Part 3, 10.1 TPM_Seal, 10.2
 * TPM_Unseal, 10.7 TPM_Sealx): data bound to a storage key, the PCR
 * state of a TPM_PCR_INFO(_LONG) and a data auth value. */
#ifndef TPMBOX_TPM12_SEAL_H
#define TPMBOX_TPM12_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "tpm12/structs.h"

struct tpm;

#define TPM12_ORD_Seal			0x00000017
#define TPM12_ORD_Unseal		0x00000018
#define TPM12_ORD_Sealx			0x0000003d
/* TPM_SEALED_DATA under an RSA-2048 key: OAEP leaves 214 bytes, the
 * structure's own fields take 65. */
#define TPM12_SEAL_DATA_MAX		149
/* TPM_STORED_DATA12's et after TPM_Sealx: TPM_ET_XOR | TPM_ET_KEY. */
#define TPM12_ET_XOR_KEY		0x0005

/* Seal data[0..n) under the loaded storage key `key` (TPM12_KH_SRK for
 * the SRK) with keyauth its usage value, over an OSAP session on it:
 * dataauth travels ADIP-encrypted.  mask: the PCRs (bit i = PCR i; 0
 * for none), vals their values in ascending order: digestAtRelease is
 * their composite.  check: those of them whose values were read from
 * the TPM (unauthenticated TPM_PcrRead): they become the creation
 * selection, and the digestAtCreation the TPM returns under the answer's
 * HMAC must be their composite (exit 3 otherwise).  TPM_PCR_INFO has one
 * selection for both: checked only when check is all of mask.
 *   sealx = 1: TPM_Sealx with a TPM_PCR_INFO_LONG, the data XOR-masked
 *   on the bus with MGF1(nonceEven || nonceOdd || "XOR" || OSAP secret),
 *   and TPM_Unseal masks its answer the same way (et XOR|KEY);
 *   sealx = 0: TPM_Seal as tpm_sealdata sends it (TPM_PCR_INFO below
 *   PCR 16, _LONG from 16 on), the data in clear on the bus.
 * The answer's HMAC is checked; out gets TPM_STORED_DATA(12). */
int tpm12_seal(struct tpm *t, uint32_t key, const uint8_t keyauth[20],
	       uint32_t mask, uint32_t check, const uint8_t (*vals)[20],
	       const uint8_t dataauth[20],
	       const uint8_t *data, size_t n, int sealx,
	       struct tpm12_stored *out);
/* TPM_Unseal of sd under `key`: the key over OSAP with keyauth, the data
 * over OIAP with dataauth; both answer HMACs checked, an XOR-masked
 * answer unmasked.  out holds TPM12_RSA_MAX bytes; *n gets the size.
 * Exit 4 for TPM_WRONGPCRVAL and TPM_AUTHFAIL/AUTH2FAIL (the message
 * says which). */
int tpm12_unseal(struct tpm *t, uint32_t key, const uint8_t keyauth[20],
		 const struct tpm12_stored *sd, const uint8_t dataauth[20],
		 uint8_t *out, size_t *n);

/* MGF1-SHA1(even || odd || "XOR" || secret) XORed into p[0..n): Sealx's
 * and Unseal's masking (for the unit tests too). */
void tpm12_xor_mask(const uint8_t secret[20], const uint8_t even[20],
		    const uint8_t odd[20], uint8_t *p, size_t n);

#endif
