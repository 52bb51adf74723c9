#ifndef TPMBOX_TPM2_RANDOM_H
#define TPMBOX_TPM2_RANDOM_H

#include <stddef.h>
#include <stdint.h>

struct tpm;

/* Exactly n bytes from TPM2_GetRandom, in as many calls as the TPM's
 * per-call limit needs.  A response with more bytes than asked is an
 * error. */
int tpm2_getrandom(struct tpm *t, uint8_t *out, size_t n);

#endif
