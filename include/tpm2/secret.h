/* A secret only a TPM key can recover (Part 1, 11.4.10 and Annex B/C):
 * the one mechanism behind a session salt ("SECRET"), a duplication seed
 * ("DUPLICATE") and a credential seed ("IDENTITY").  For an RSA key the
 * secret is random and goes RSA-OAEP encrypted with the label; for an ECC
 * key it is KDFe(nameAlg, Z, label, Qe.x, Qk.x) of an ephemeral ECDH, and
 * the ephemeral point goes.  The secret is nameAlg's digest size. */
#ifndef TPMBOX_TPM2_SECRET_H
#define TPMBOX_TPM2_SECRET_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

struct tpm2_public;

#define TPM2_SECRET_MAX	64		/* a SHA-512 digest */
#define TPM2_ENC_SECRET_MAX (2 + 512)	/* TPM2B_ENCRYPTED_SECRET */

/* Make the secret for key k (a restricted decryption key, RSA or NIST
 * P-256) and append its TPM2B_ENCRYPTED_SECRET to enc.  label is "SECRET",
 * "DUPLICATE" or "IDENTITY"; what names the key in messages ("the salt
 * key").  0, or EX_FAIL with e set. */
int tpm2_secret_make(const struct tpm2_public *k, const char *label,
		     uint8_t *secret, size_t *secretlen, struct tb *enc,
		     const char *what, struct tberr *e);

#endif
