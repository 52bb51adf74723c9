/* The signer of a signed policy (seal --authorized-by, unseal
 * --signature): its public key as the TPM loads it, and the TPM's check of
 * a signature over a policy digest (TPM2_VerifySignature), whose ticket
 * TPM2_PolicyAuthorize takes (tpm2/policy.h). */
#ifndef TPMBOX_TPM2_AUTHORIZE_H
#define TPMBOX_TPM2_AUTHORIZE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm2/object.h"
#include "tpm2/policy.h"

struct tpm;

/* The public area of a signing key loaded with TPM2_LoadExternal, as
 * tpm2_loadexternal writes it for a PEM key (measured with tpm2-tools
 * 5.4): nameAlg SHA-256, userWithAuth | decrypt | sign, no policy,
 * symmetric and scheme NULL; RSA with its bit size and exponent, or ECC
 * NIST P-256 with kdf NULL.  Its name is what PolicyAuthorize binds. */

/* Read a public key file (PEM or DER SubjectPublicKeyInfo, "RSA PUBLIC
 * KEY"): RSA-2048/3072 or EC P-256.  Exit 2 naming from and path
 * otherwise, 3 when unreadable. */
int signer_pub_read(const char *path, struct tpm2_public *k,
		    const char *from, struct tberr *e);
/* The same from data[0..n) (path: how messages name it, after from). */
int signer_pub_parse(const uint8_t *data, size_t n, struct tpm2_public *k,
		     const char *from, const char *path, struct tberr *e);
/* Whether k (say, from a blob) is a signer public area of the form above. */
int signer_pub_valid(const struct tpm2_public *k);
/* systemd's pkfp of k (pk_fingerprint).  -1 on failure. */
int signer_fingerprint(const struct tpm2_public *k, uint8_t out[32]);

/* TPM2_VerifySignature with the loaded key h (name): sig over digest
 * (SHA-256), RSASSA-PKCS1-v1_5 for an RSA key, ECDSA (sig DER
 * ECDSA-Sig-Value) for an ECC one.  The TPM's ticket in *tk.  Exit 4 when
 * the TPM says the signature does not verify. */
int tpm2_verify_signature(struct tpm *t, uint32_t h, const uint8_t *name,
			  size_t namelen, const struct tpm2_public *k,
			  const uint8_t *digest, size_t dlen,
			  const uint8_t *sig, size_t siglen,
			  struct tpm2_ticket *tk);

#endif
