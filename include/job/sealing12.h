/* seal and unseal on a TPM 1.2 (docs/blob-format.md, "TPM 1.2"):
 *   tpmbox's own blob: one TPMBOX TPM12 SEALED block; a 32-byte data key
 *   sealed with TPM_Sealx under the SRK (no key generation, the key
 *   XOR-masked on the bus), the data AES-256-GCM-encrypted with it;
 *   tpm-tools' file (fmt/tssfile.h): a storage key made by TPM_CreateWrapKey,
 *   an AES key TPM_Seal'd under it, the data AES-256-CBC-encrypted, as
 *   tpm_sealdata writes and tpm_unsealdata reads it. */
#ifndef TPMBOX_JOB_SEALING12_H
#define TPMBOX_JOB_SEALING12_H

#include <stddef.h>
#include <stdint.h>

#include "base/auth.h"
#include "base/err.h"
#include "tpm12/structs.h"

struct tpm;
struct seal_spec;

#define SEAL12_LABEL	"TPMBOX TPM12 SEALED"

/* seal's options on a 1.2 beyond the spec. */
struct seal12_opts {
	const struct authval *srk;	/* --srk-auth; NULL: well-known */
	int tpmtools;			/* --format tpm-tools */
};

/* Whether a 1.2 can take what spec asks (one PCR state, sha1 PCRs 0-23,
 * no signed policy): 0 or exit 2 saying what a 1.2 lacks. */
int seal12_spec_check(const struct seal_spec *s, struct tberr *e);
/* Seal data[0..len) on the 1.2 t: the blob's text in *pem (malloc'd). */
int seal12_blob(struct tpm *t, struct seal_spec *s,
		const struct seal12_opts *o, const uint8_t *data, size_t len,
		char **pem, size_t *pemlen, struct tberr *e);

/* Which 1.2 format text[0..n) is: 1 tpmbox's, 2 tpm-tools', 0 neither. */
int unseal12_kind(const char *text, size_t n);
/* Unseal a 1.2 blob or tpm-tools file (text[0..n)) on t; auth: the data
 * password (tpmbox's blob: --auth; tpm-tools' file: NULL, its fixed
 * value), srk: NULL for the well-known value.  *out malloc'd. */
int unseal12_run(struct tpm *t, const char *name, const char *text,
		 size_t n, const struct authval *auth,
		 const struct authval *srk, uint8_t **out, size_t *outlen,
		 struct tberr *e);

/* The blob's binary form (big-endian):
 *	"TB12" | u16 version 1 | u16 flags (1 PCRs, 2 password)
 *	| u32 n | TPM_STORED_DATA12 (n bytes, from TPM_Sealx: the data key)
 *	| u8 count | count x (u8 PCR index, 20-byte value)  (flag 1 only)
 *	| 12-byte IV | 16-byte tag | AES-256-GCM of the data
 * the GCM's additional data is every byte before the IV. */
#define SEAL12_MAGIC	"TB12"
#define SEAL12_VERSION	1
#define SEAL12_PCRS	1
#define SEAL12_AUTH	2
#define SEAL12_PCR_MAX	24	/* a PC Client 1.2 has PCRs 0-23 */
struct seal12_blob {
	uint16_t flags;
	struct tpm12_stored sd;
	int npcr;
	uint8_t idx[SEAL12_PCR_MAX];		/* ascending */
	uint8_t val[SEAL12_PCR_MAX][20];
	size_t aadlen;				/* bytes before the IV */
	const uint8_t *iv, *tag, *ct;		/* inside the parsed bytes */
	size_t ctlen;
};
/* Parse b[0..n) strictly (every length checked, nothing left over, the
 * recorded values' composite equal to the sealed digestAtRelease):
 * 0 or exit 1 "blob: why". */
int seal12_parse(const uint8_t *b, size_t n, struct seal12_blob *out,
		 struct tberr *e);

#endif
