/* Duplication done on the host (Part 1, 23.3): an object made here,
 * wrapped so that only a given parent key can take it in with
 * TPM2_Import.  The outer wrapper (tpm2/wrap.h, label "DUPLICATE") always;
 * the inner wrapper (AES-128-CFB under a fresh key that goes to TPM2_Import
 * as its encryptionKey) when the TPM is here to be sent that key in an
 * encrypted parameter (keyimport), not for a file another TPM takes in
 * (seal --to, keyimport --to: the file would have to carry the key).  The
 * object must not ask for encryptedDuplication. */
#ifndef TPMBOX_TPM2_DUP_H
#define TPMBOX_TPM2_DUP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm2/object.h"
#include "tpm2/secret.h"

/* TPMT_SENSITIVE of a sealed data object: type, auth, seed, data. */
#define TPM2_SENSITIVE_MAX (2 + 2 + 64 + 2 + 64 + 2 + 128)

/* What TPM2_Import takes besides the public area. */
struct tpm2_dup {
	struct tpm2_private priv;	/* duplicate: TPM2B_PRIVATE contents */
	/* inSymSeed: the marshalled TPM2B_ENCRYPTED_SECRET, size included */
	uint8_t seed[TPM2_ENC_SECRET_MAX];
	size_t seedlen;
	/* encryptionKey: the inner wrapper's AES-128 key, or none (0) */
	uint8_t inner[16];
	size_t innerlen;
};

/* A sealed data object made on the host: pub comes with its template
 * (type keyedhash, nameAlg, attributes, authPolicy, NULL scheme); a
 * random obfuscation value (seedValue) is drawn, pub's unique becomes
 * H_nameAlg(seedValue || data) as a TPM computes it for a keyed-hash
 * object (TPM2_Import checks it), and pub is finished (raw, name).  sens gets the marshalled
 * TPMT_SENSITIVE (no size prefix).  data is 1 to 128 bytes. */
int tpm2_sealed_make(struct tpm2_public *pub, const uint8_t *auth,
		     size_t authlen, const uint8_t *data, size_t n,
		     uint8_t *sens, size_t *senslen, struct tberr *e);

/* Wrap sens (a TPMT_SENSITIVE for the finished public area obj) for
 * TPM2_Import under parent (a restricted decryption key with AES-CFB),
 * with the inner wrapper too when inner is nonzero (out->inner gets its
 * key).  obj must have fixedTPM, fixedParent and encryptedDuplication
 * clear. */
int tpm2_dup_wrap(const struct tpm2_public *parent,
		  const struct tpm2_public *obj, const uint8_t *sens,
		  size_t senslen, int inner, struct tpm2_dup *out,
		  struct tberr *e);

struct tpm;
struct tpm2_auth;

/* TPM2_Import under parent (pa authorizes it; parent_name for sessions)
 * of obj (finished) with dup's duplicate and seed, and the inner
 * wrapper's key (innerlen 0: none; else pa must be a session that
 * encrypts the first parameter, which is that key).  priv gets the
 * object's new private area, loadable under parent. */
int tpm2_import(struct tpm *t, uint32_t parent, const uint8_t *parent_name,
		size_t parent_namelen, struct tpm2_auth *pa,
		const struct tpm2_public *obj, const struct tpm2_private *dup,
		const uint8_t *seed, size_t seedlen, const uint8_t *inner,
		size_t innerlen, struct tpm2_private *priv);

#endif
