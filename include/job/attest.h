/* Attestation keys and TPM2_Quote.
 *
 * An AK is a restricted signing key under the standard ECC P-256 SRK
 * (TCG provisioning guidance template; found at 0x81000001 or created
 * transient): ECC NIST P-256 with ECDSA-SHA256, or RSA-2048 with
 * RSASSA-SHA256, nameAlg SHA-256, fixedTPM, fixedParent,
 * sensitiveDataOrigin, userWithAuth, restricted, sign; empty authValue.
 * AKBLOB is a "TSS2 PRIVATE KEY" PEM (the TPM 2.0 key file ASN.1 format)
 * with the loadable-key OID 2.23.133.10.1.3, emptyAuth, parent 0x81000001
 * where the SRK is persisted there, else 0x40000001 (the owner
 * hierarchy's standard primary), TPM2B_PUBLIC, TPM2B_PRIVATE. */
#ifndef TPMBOX_JOB_ATTEST_H
#define TPMBOX_JOB_ATTEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/quote.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"

struct tpm;

/* A key's policy as its file states it (keycreate -p; TSS2 key file
 * TPMPolicy entries): PolicyPCR over sel with pcrDigest digest, then
 * PolicyAuthValue when the key has a value.  pcr 0: none. */
struct key_policy {
	int pcr;
	struct pcr_sel sel;
	uint8_t digest[64];
	size_t dlen;
	int authvalue;
};

struct ak_blob {
	uint32_t parent;	/* 0x40000001, or a persistent 0x81xxxxxx */
	int empty_auth;
	struct key_policy pol;
	uint8_t pub[2 + TPM2_PUBLIC_MAX];	/* TPM2B_PUBLIC with size */
	size_t publen;
	uint8_t priv[2 + TPM2_PRIVATE_MAX];	/* TPM2B_PRIVATE with size */
	size_t privlen;
};

/* The AK template (finished: raw bytes and name). */
void ak_template(struct tpm2_public *p, int rsa);
/* Whether pub is an attestation key: fixedTPM, fixedParent,
 * sensitiveDataOrigin, restricted, sign, not decrypt, ECDSA or RSASSA
 * with a hash.  Exit 1 naming what is wrong. */
int ak_check_public(const struct tpm2_public *pub, struct tberr *e);

/* AKBLOB PEM text (malloc'd, NUL-terminated, *n without the NUL). */
int ak_blob_encode(const struct ak_blob *b, char **pem, size_t *n,
		   struct tberr *e);
/* Parse AKBLOB; exit 1 "AKBLOB: why" on anything malformed or another
 * key type (a sealed blob, a key with a policy). */
int ak_blob_decode(const uint8_t *text, size_t n, struct ak_blob *b,
		   struct tberr *e);
/* Read PATH (at most KEY_FILE_MAX bytes) and decode it as
 * ak_blob_decode does; the text is wiped. */
int ak_blob_read(const char *path, struct ak_blob *b, struct tberr *e);
/* The AK's public key as a SubjectPublicKeyInfo PEM. */
int ak_pub_pem(const struct tpm2_public *pub, char **pem, size_t *n,
	       struct tberr *e);

/* Create an AK under the ECC SRK (checked against the pin; owner_auth
 * keys the salted session for CreatePrimary when no persistent SRK
 * exists; NULL: empty).  TPM2_Create runs in the process's session
 * salted to that SRK, so its answer is the TPM's; the key made is
 * compared with the template.  Fills b and pub. */
int ak_create(struct tpm *t, int rsa, const uint8_t *owner_auth,
	      size_t owner_authlen, struct ak_blob *b,
	      struct tpm2_public *pub);
/* Load an AK; *handle is transient (flush it).  pub gets its public
 * area. */
int ak_load(struct tpm *t, const struct ak_blob *b, const uint8_t *owner_auth,
	    size_t owner_authlen, uint32_t *handle, struct tpm2_public *pub);

/* An AK's public area for a verifier, from an AK blob or a TPM2B_PUBLIC
 * (tpm2_create -u, akcreate --tpm-public), checked with ak_check_public.
 * Returns AK_PUB_BLOB or AK_PUB_TPM2B, AK_PUB_NONE when data is neither
 * (a bare PEM or DER key, say), or an exit code (1: not an AK). */
enum { AK_PUB_NONE = -1, AK_PUB_BLOB = -2, AK_PUB_TPM2B = -3 };
int ak_pub_load(const uint8_t *data, size_t n, struct tpm2_public *pub,
		struct tberr *e);
/* The qualified name of the SRK (a primary key of the owner hierarchy)
 * with name srkname: what an AK's qualifiedSigner is computed from
 * (Part 1, 16).  Returns its size (out holds TPM2_NAME_MAX), 0 for an
 * unsupported name algorithm. */
size_t ak_srk_qn(const uint8_t *srkname, size_t n, uint8_t *out);

/* TPM2_Quote with the key's own scheme (inScheme NULL) and its empty
 * authValue.  attest gets TPMS_ATTEST (without the TPM2B size), sig the
 * marshalled TPMT_SIGNATURE. */
int tpm2_quote(struct tpm *t, uint32_t key, const uint8_t *nonce,
	       size_t nlen, const struct pcr_sel *sel, uint8_t *attest,
	       size_t *alen, uint8_t *sig, size_t *slen);
/* Read the selected PCRs and quote them, again until the values read
 * hash to the quoted digest (a PCR may change between the two).  The
 * quote is checked with pub (the AK blob's public area, which the loaded
 * key key has by TPM2_Load's name check) as a verifier will.  q gets
 * everything a QUOTE file holds. */
int ak_quote(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
	     const uint8_t *nonce, size_t nlen, const struct pcr_sel *sel,
	     struct quote *q);

/* quote's steps on a TPM 2.0. */
/* The usage error (exit 2) of a key of the other family: keyf is a TPM
 * 1.2 AIK (is12) on a TPM 2.0, or a TPM 2.0 AK on a TPM 1.2. */
int ak_wrong_family(const char *keyf, int is12, struct tberr *e);
/* quote's -k, read before the TPM is touched: an AK blob (decoded into
 * b), or a TPM 1.2 AIK's TPM_KEY (*is12 set; checked once the family is
 * known).  *data (malloc'd) holds the file: wipe and free it. */
int ak_quote_key_read(const char *path, uint8_t **data, size_t *n,
		      struct ak_blob *b, int *is12, struct tberr *e);
/* The selection against the TPM's banks (sel resolved in place), the AK
 * loaded (owner_auth: for an SRK made again), ak_quote, the AK flushed.
 * fam is what tpm_family_known said: a TPM 1.2 that refuses the first
 * command is ak_wrong_family's error.  Errors in t->e. */
int ak_quote_blob(struct tpm *t, const struct ak_blob *b, const char *keyf,
		  const uint8_t *owner_auth, size_t owner_authlen, int fam,
		  const uint8_t *nonce, size_t nlen, struct pcr_sel *sel,
		  struct quote *q);
/* The output files (NULL: not written; flags as file_write_atomic's):
 * out the QUOTE file, msgf, sigf and pcrsf tpm2_quote's -m, -s and -o. */
int ak_quote_write(const struct quote *q, const char *out, const char *msgf,
		   const char *sigf, const char *pcrsf, int flags,
		   struct tberr *e);

#endif
