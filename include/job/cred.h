/* Credential activation (Part 1, "Credential Protection"): a verifier
 * wraps a secret for the TPM whose EK it knows, bound to the name of the
 * key it wants to be in the same TPM (the AK); only that TPM, with that
 * key loaded, gets the secret back with TPM2_ActivateCredential. */
#ifndef TPMBOX_JOB_CRED_H
#define TPMBOX_JOB_CRED_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/credfile.h"

struct tpm;
struct tpm2_public;
struct ak_blob;

#define TPM2_CRED_MAX	64	/* a TPM2B_DIGEST */

/* TPM2_MakeCredential on the host: secret[0..n) (1 to 64 bytes) for the
 * EK ek (a restricted decryption key with AES-CFB), bound to the name
 * akname: the outer wrapper with the label "IDENTITY" (tpm2/wrap.h). */
int tpm2_make_credential(const struct tpm2_public *ek, const uint8_t *akname,
			 size_t aknamelen, const uint8_t *secret, size_t n,
			 struct credfile *out, struct tberr *e);

/* Read PATH (at most CREDFILE_MAX bytes) and decode it as
 * credfile_decode does. */
int cred_file_read(const char *path, struct credfile *cf, struct tberr *e);

/* An object's name given as HEX ("000b" + 64 digits, as akcreate prints
 * it) or as a FILE holding it (binary, as akcreate --name and
 * tpm2_readpublic -n write it, or hex text).  Exit 2 otherwise (6/3 for
 * an unreadable file); opt names the option in messages. */
int tpm2_name_arg(const char *arg, uint8_t *name, size_t *n,
		  const char *opt, struct tberr *e);

/* The whole activation on t: the AK of blob loaded under its SRK, the EK
 * (persisted or made; RSA or ECC as the credential's seed says), a policy
 * session with PolicySecret(endorsement) for the EK, a session salted to
 * the EK that encrypts the answer, TPM2_ActivateCredential.  out gets the
 * secret (TPM2_CRED_MAX bytes).  Exit 4 when the credential is not for
 * this AK and EK (the TPM's integrity check). */
int tpm2_activate(struct tpm *t, const struct ak_blob *blob,
		  const struct credfile *cf, uint8_t *out, size_t *n);

#endif
