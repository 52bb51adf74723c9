/* The outer wrapper (Part 1, "Symmetric Encryption" and "Protected Storage
 * / Credential Protection"): the one mechanism behind a duplication blob
 * (TPM2_Import's duplicate, label "DUPLICATE") and a credential
 * (TPM2_ActivateCredential's credentialBlob, label "IDENTITY").
 *
 * A seed goes to the key k (tpm2/secret.h, with the label); then
 *   symKey  = KDFa(k nameAlg, seed, "STORAGE", name, -, k's AES bits)
 *   HMACkey = KDFa(k nameAlg, seed, "INTEGRITY", -, -, digest bits)
 *   out     = TPM2B_DIGEST(HMAC(HMACkey, enc || name)) || enc
 * where enc is in (a marshalled TPM2B) encrypted with AES-CFB, IV zero,
 * and name the wrapped object's (the AK's) name. */
#ifndef TPMBOX_TPM2_WRAP_H
#define TPMBOX_TPM2_WRAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct tpm2_public;

/* out gets the wrapped bytes (without a size of their own; at most cap),
 * seed the marshalled TPM2B_ENCRYPTED_SECRET (TPM2_ENC_SECRET_MAX).
 * k must be a restricted decryption key with AES-CFB.  what names k in
 * messages. */
int tpm2_wrap_outer(const struct tpm2_public *k, const char *label,
		    const uint8_t *name, size_t namelen, const uint8_t *in,
		    size_t inlen, uint8_t *out, size_t cap, size_t *outlen,
		    uint8_t *seed, size_t *seedlen, const char *what,
		    struct tberr *e);

#endif
