/* A key made elsewhere (an RSA or ECC private key) taken into a TPM:
 * TPM2_Import under the SRK (Part 3, 13.3), the duplicate made on the host
 * (tpm2/dup.h: outer wrapper to the SRK, and the inner wrapper whose key
 * goes to the TPM encrypted by the session salted to that SRK; a file
 * made with --to for another TPM has the outer wrapper only).
 *
 * The object: nameAlg SHA-256, userWithAuth, sign or decrypt, NULL
 * scheme (the scheme is chosen per use), NULL symmetric; fixedTPM,
 * fixedParent and sensitiveDataOrigin clear (the TPM did not make it and
 * the duplicate exists); authValue the key's --auth.  The sensitive part:
 * an RSA key's first prime, an ECC key's scalar; empty seedValue.
 *
 * The wrapped key's only protection is the SRK's public key it is
 * wrapped to: pinned (the trust session of the process, or the file given
 * with --to), so an interposer cannot substitute its own. */
#ifndef TPMBOX_JOB_KEYIMPORT_H
#define TPMBOX_JOB_KEYIMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/x509.h"
#include "tpm2/dup.h"
#include "tpm2/object.h"

struct tpm;

enum { KEY_USE_SIGN = 1, KEY_USE_DECRYPT = 2 };

/* --usage's word: KEY_USE_SIGN for "sign", KEY_USE_DECRYPT for
 * "decrypt", 0 for anything else. */
int key_usage_parse(const char *s);

/* The object for k (RSA 2048 or 3072, ECC P-256 or P-384): pub finished
 * (raw, name), sens the marshalled TPMT_SENSITIVE (TPM2_SENSITIVE_MAX;
 * the caller wipes it).  Exit 2 for a key of another size or curve, or
 * decrypt asked of an ECC key. */
int key_object_make(const struct privkey *k, int usage, const uint8_t *auth,
		    size_t authlen, struct tpm2_public *pub, uint8_t *sens,
		    size_t *senslen, struct tberr *e);

/* TPM2_Import under this TPM's ECC SRK (found or made as seal and akcreate
 * do, checked against the pin; owner keys its creation) in the process's
 * session salted to it, so the answer carries the TPM's HMAC.  The
 * duplicate is dup (wrapped to that SRK by the caller: key_wrap_srk) or,
 * for a key made with --to elsewhere, the importable file's.  priv gets
 * the private area to load under the SRK.  A duplicate wrapped to another
 * TPM's SRK fails the TPM's integrity check: exit 1 saying so. */
int key_import(struct tpm *t, const struct tpm2_public *obj,
	       const uint8_t *sens, size_t senslen,
	       const struct tpm2_dup *dup, const uint8_t *owner,
	       size_t ownerlen, struct tpm2_private *priv);

/* The key file (a TSS2 PRIVATE KEY, parent 0x40000001): loadable with
 * priv, the private area TPM2_Import returned (dup NULL), or importable
 * with dup, the duplicate and its encrypted seed for another TPM (OID
 * 2.23.133.10.1.4).  PEM text malloc'd as tpmkey_encode. */
int key_file_encode(const struct tpm2_public *pub,
		    const struct tpm2_private *priv, const struct tpm2_dup *dup,
		    int empty_auth, char **pem, size_t *n, struct tberr *e);
/* An importable key file (keyimport --to): its public area, duplicate
 * and emptyAuth.  Exit 2 for another key type or parent, 1 when
 * malformed. */
int key_importable_decode(const uint8_t *text, size_t n,
			  struct tpm2_public *pub, struct tpm2_dup *dup,
			  int *empty_auth, struct tberr *e);

#endif
