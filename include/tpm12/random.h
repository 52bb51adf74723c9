#ifndef TPMBOX_TPM12_RANDOM_H
#define TPMBOX_TPM12_RANDOM_H

#include <stddef.h>
#include <stdint.h>

struct tpm;

/* Exactly n bytes from TPM_GetRandom, looping: a 1.2 TPM may return fewer
 * bytes than asked (measured: 4082 of 4096); more than asked is an
 * error. */
int tpm12_getrandom(struct tpm *t, uint8_t *out, size_t n);

#endif
