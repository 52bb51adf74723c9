/* The sealed blob written by seal and read by unseal (docs/blob-format.md).
 *
 * Two PEM blocks in one text file:
 *  1. "TSS2 PRIVATE KEY": the TPM 2.0 key file ASN.1 format (fmt/tpmkey.h:
 *     TPMKey with
 *     the sealed-data OID 2.23.133.10.1.5, emptyAuth, the policy as
 *     TPMPolicy commands, rsaParent, parent handle, TPM2B_PUBLIC,
 *     TPM2B_PRIVATE), so tools that read that format can load and unseal
 *     it;
 *  2. "TPMBOX SEALED EXTRA": a versioned binary record of what that format
 *     cannot carry: the parent's name at seal time, the policy digest and
 *     PCR values, and, for secrets larger than a sealed object holds, the
 *     AES-256-GCM ciphertext whose 32-byte key is the sealed data.
 * The decoder treats the file as untrusted input: every length is checked,
 * the two blocks are cross-checked, and anything unexpected is an error. */
#ifndef TPMBOX_FMT_KEYFILE_H
#define TPMBOX_FMT_KEYFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/tpmkey.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"

#define KEYFILE_VERSION		1
/* written for PolicyOR and PolicyAuthorize blobs, which version 1 readers
 * cannot run; version 1 stays for the others */
#define KEYFILE_VERSION2	2
#define KEYFILE_PUB_MAX		TPMKEY_PUB_MAX	/* TPM2B_PUBLIC */
#define KEYFILE_PRIV_MAX	TPMKEY_PRIV_MAX	/* TPM2B_PRIVATE */
#define KEYFILE_NAME_MAX	(2 + 64)
#define KEYFILE_IV		12
#define KEYFILE_TAG		16
#define KEYFILE_SEALED_MAX	128	/* MAX_SYM_DATA: data sealed as is */
#define KEYFILE_DATA_MAX	(64u << 20)	/* bulk data limit */

/* Handles a key file may name as parent: a persistent SRK, or the owner
 * hierarchy meaning "the primary made from the standard template". */
#define KEYFILE_PARENT_SRK	0x81000001u
#define KEYFILE_PARENT_OWNER	0x40000001u
/* seal --to-ek: the endorsement hierarchy, meaning the EK of the
 * standard template (persisted at 0x81010001/2 or made); importable
 * blobs only */
#define KEYFILE_PARENT_EK	0x4000000bu

enum { KEYFILE_DIRECT = 0, KEYFILE_GCM = 1 };

/* One PolicyPCR of the policy: selection, values (selection order) and
 * pcrDigest. */
struct keyfile_branch {
	struct pcr_sel sel;
	struct pcr_vals vals;
	uint8_t pcrdigest[64];	/* PolicyPCR's pcrDigest (policy hash) */
	size_t pcrdigestlen;
};

struct keyfile {
	/* TSS2 PRIVATE KEY */
	int empty_auth;		/* no authValue (no PolicyAuthValue) */
	int rsa_parent;		/* the parent SRK is RSA-2048 (else P-256) */
	int loadable;		/* an HMAC key (totp), 2.23.133.10.1.3,
				 * not sealed data */
	uint32_t parent;	/* KEYFILE_PARENT_SRK or _OWNER */
	uint8_t pub[KEYFILE_PUB_MAX];	/* TPM2B_PUBLIC, size prefix included */
	size_t publen;
	uint8_t priv[KEYFILE_PRIV_MAX];	/* TPM2B_PRIVATE, likewise */
	size_t privlen;
	/* seal --to: the object is wrapped for TPM2_Import (an importable
	 * key, 2.23.133.10.1.4): priv is the duplicate and this the seed */
	uint8_t seed[TPMKEY_SECRET_MAX];	/* TPM2B_ENCRYPTED_SECRET */
	size_t seedlen;
	/* the policy, in the order it runs: PolicyPCR (nbranch 1), PolicyOR
	 * of PolicyPCR branches (nbranch 2..8) or PolicyAuthorize
	 * (authorized), then PolicyAuthValue (auth).  Block 1 carries the
	 * PolicyPCR parameters, the PolicyOR digests or the signer's key;
	 * the extra block the values of every branch. */
	int nbranch;
	struct keyfile_branch br[POLICY_BRANCHES];
	int authorized;
	uint8_t signer[KEYFILE_PUB_MAX];	/* its TPM2B_PUBLIC */
	size_t signerlen;
	uint16_t signer_bank;	/* signatures count for this PCR bank */
	int auth;		/* PolicyAuthValue */

	/* TPMBOX SEALED EXTRA */
	unsigned version;
	uint8_t parent_name[KEYFILE_NAME_MAX];
	size_t parent_namelen;
	uint16_t policy_alg;	/* TPM2_ALG_SHA256 */
	uint8_t policy[64];	/* the sealed object's authPolicy */
	size_t policylen;
	int mode;		/* KEYFILE_DIRECT or KEYFILE_GCM */
	uint8_t iv[KEYFILE_IV];
	uint8_t tag[KEYFILE_TAG];
	uint8_t *ct;		/* malloc'd ciphertext (GCM) */
	size_t ctlen;
};

/* PEM text of both blocks (malloc'd, NUL-terminated; *n excludes the
 * NUL).  Exit 1 with e set when a field is out of range. */
int keyfile_encode(const struct keyfile *k, char **pem, size_t *n,
		   struct tberr *e);
/* Parse text[0..n).  Exit 1 with "blob: why" on anything malformed,
 * inconsistent or of another version.  k->ct is malloc'd (free with
 * keyfile_free). */
int keyfile_decode(const char *text, size_t n, struct keyfile *k,
		   struct tberr *e);
void keyfile_free(struct keyfile *k);

#endif
