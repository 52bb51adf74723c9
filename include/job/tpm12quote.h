/* TPM 1.2 attestation (Main Specification Part 3): TPM_MakeIdentity
 * makes an AIK (no Privacy CA needed for local quoting), TPM_Quote and
 * TPM_Quote2 sign PCR values with it (fmt/quote12.h checks them). */
#ifndef TPMBOX_JOB_TPM12QUOTE_H
#define TPMBOX_JOB_TPM12QUOTE_H

#include <stddef.h>
#include <stdint.h>

#include "fmt/quote12.h"
#include "tpm12/structs.h"

struct tpm;

#define TPM12_ORD_Quote		0x00000016
#define TPM12_ORD_Quote2	0x0000003e
#define TPM12_ORD_MakeIdentity	0x00000079

/* The AIK blob: a TPM_KEY, as tpm_mkaik writes it. */
#define TPM12_KEYBLOB_MAX	(2 * TPM12_RSA_MAX + 256)

struct tpm12_aik {
	uint8_t blob[TPM12_KEYBLOB_MAX];	/* the TPM_KEY as returned */
	size_t bloblen;
	struct tpm12_key key;
	struct tpm12_pubkey pub;
};

/* TPM_MakeIdentity: an RSA-2048 identity key (PKCS#1 v1.5 SHA-1,
 * authDataUsage TPM_AUTH_NEVER as tpm_mkaik makes it) wrapped by the
 * SRK.  srk and owner are 20-byte values (tpm12_auth_value): the SRK's
 * over OIAP, the owner's over OSAP (whose shared secret ADIP-encrypts
 * the new key's usage value, the well-known secret); both answers'
 * HMACs checked.  A wrong owner value is exit 4 (TPM_AUTH2FAIL), a
 * wrong SRK value too (TPM_AUTHFAIL). */
int tpm12_make_identity(struct tpm *t, const uint8_t srk[20],
			const uint8_t owner[20], struct tpm12_aik *out);

/* Check a TPM_KEY read from a file as an AIK to quote with (usage
 * TPM_KEY_IDENTITY, RSA, PKCS#1 v1.5 SHA-1): 0 or EX_FAIL with "WHAT:
 * why". */
int tpm12_aik_check(const struct tpm12_key *k, const char *what,
		    struct tberr *e);

/* One quote with the loaded AIK (handle) of key k: TPM_Quote2 (quote2,
 * no version info) or TPM_Quote over the PCRs in mask (at most 24) with
 * nonce as externalData.  Usage authorization with the well-known secret
 * over OIAP unless k's authDataUsage is TPM_AUTH_NEVER.  The answer is
 * checked before it is used: TPM_Quote's composite must be the PCRs
 * asked for; TPM_Quote2 returns no values, so they are read after it
 * (TPM_PcrRead) and must hash to the quoted digest (a PCR extended in
 * between: the quote is taken again, up to 3 times); the signature must
 * verify with k's public key (exit 3 otherwise: the answer was not the
 * TPM's).  q gets the signed bytes, the signature and the values. */
int tpm12_quote(struct tpm *t, uint32_t handle, const struct tpm12_key *k,
		const uint8_t nonce[TPM12_SHA1], uint32_t mask, int quote2,
		struct quote12 *q);

/* quote's job on a TPM 1.2: the AIK's TPM_KEY (key, from keyf: parsed,
 * checked with tpm12_aik_check) loaded under the SRK, tpm12_quote over
 * the PCRs of sel (NULL: sha1:all; a bare list is sha1's), flushed. */
struct tpm12_quote_req {
	const uint8_t *key;
	size_t keylen;
	const char *keyf;
	const char *sel;
	const uint8_t *nonce;	/* 1..64 bytes (quote12_nonce); NULL: 0s */
	size_t nonce_len;
	const char *srk_auth;	/* AUTH; NULL: the well-known secret */
	int quote1;		/* TPM_Quote, not TPM_Quote2 */
};
int tpm12_aik_quote(struct tpm *t, const struct tpm12_quote_req *r,
		    struct quote12 *q);
/* The output files (NULL: not written; flags as file_write_atomic's):
 * out tpmbox's 1.2 QUOTE file, msgf the signed TPM_QUOTE_INFO(2), sigf
 * the bare signature and pcrsf the N=HEX lines (tpm_getquote's two). */
int tpm12_quote_write(const struct quote12 *q, const char *out,
		      const char *msgf, const char *sigf, const char *pcrsf,
		      int flags, struct tberr *e);

#endif
