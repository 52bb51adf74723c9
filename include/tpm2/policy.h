/* Policies for sealed objects: the host-side digest computation (what a
 * trial session would give) and the TPM policy commands on a policy
 * session.  The assertions seal uses: PolicyPCR, PolicyOR over several
 * PolicyPCR branches, PolicyAuthorize (a signer's key) and
 * PolicyAuthValue (PolicyPassword extends the digest the same way). */
#ifndef TPMBOX_TPM2_POLICY_H
#define TPMBOX_TPM2_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "tpm2/pcr.h"

struct tpm;
struct tpm2_auth;

#define POLICY_BRANCHES	8	/* PolicyOR takes at most 8 digests */

/* One PolicyPCR: the selection and its values, in selection order (banks
 * as in sel, indices ascending, exactly one per PCR). */
struct policy_branch {
	struct pcr_sel sel;
	struct pcr_vals vals;
};

/* A seal policy, in the order it runs: PolicyPCR over br[0] (nbranch 1),
 * or PolicyOR of the PolicyPCR digests of br[0..nbranch) (2 to 8), or
 * PolicyAuthorize(signer, empty policyRef) (authorize; no branches: the
 * PCR policy comes with a signature at unseal); then PolicyAuthValue
 * (auth). */
struct policy_spec {
	uint16_t halg;		/* policy (session) hash, TPM2_ALG_SHA256 */
	int nbranch;
	struct policy_branch br[POLICY_BRANCHES];
	int authorize;
	uint8_t signer[2 + 64];	/* the signing key's name */
	size_t signerlen;
	int auth;
};

/* H(value || value || ...) of vals in order with halg: PolicyPCR's
 * pcrDigest.  Returns the size, 0 if halg is unsupported. */
size_t policy_pcr_digest(uint16_t halg, const struct pcr_vals *v,
			 uint8_t *out);
/* policyDigest := H(policyDigest || TPM_CC_PolicyPCR || pcrs ||
 * pcrDigest).  digest holds hash_size(halg) bytes, updated in place. */
int policy_update_pcr(uint16_t halg, uint8_t *digest,
		      const struct pcr_sel *sel, const uint8_t *pcrdigest,
		      size_t n);
/* policyDigest := H(policyDigest || TPM_CC_PolicyAuthValue). */
int policy_update_authvalue(uint16_t halg, uint8_t *digest);
/* policyDigest := H(0...0 || TPM_CC_PolicyOR || d[0] || ... || d[n-1]),
 * the n digests (2 to 8) of hash_size(halg) bytes each, back to back. */
int policy_update_or(uint16_t halg, uint8_t *digest, const uint8_t *d,
		     int n);
/* policyDigest := H(H(0...0 || TPM_CC_PolicyAuthorize || keyName) ||
 * policyRef). */
int policy_update_authorize(uint16_t halg, uint8_t *digest,
			    const uint8_t *name, size_t namelen,
			    const uint8_t *ref, size_t reflen);
/* The PolicyPCR digest of branch b from an all-zero start (what one
 * PolicyOR branch contributes, and what a signed policy signs).  Returns
 * the size, 0 on error. */
size_t policy_branch_digest(uint16_t halg, const struct policy_branch *b,
			    uint8_t *out);
/* The whole policy from an all-zero start; returns the size, 0 on error
 * (unsupported hash, values not matching the selection). */
size_t policy_compute(const struct policy_spec *p, uint8_t *out);
/* Check that vals has exactly one value, of the bank's size, for every
 * selected PCR, in selection order.  Exit 2 naming what is wrong. */
int policy_check_vals(const struct pcr_sel *sel, const struct pcr_vals *v,
		      struct tberr *e);

/* The command parameters of PolicyPCR (TPM2B pcrDigest, TPML pcrs): the
 * form the TPM 2.0 key file stores in TPMPolicy.commandPolicy. */
void policy_pcr_marshal(struct tb *b, const struct pcr_sel *sel,
			const uint8_t *pcrdigest, size_t n);

/* TPM commands on a policy session (no authorization area).  A PolicyPCR
 * given a non-empty pcrDigest fails with TPM_RC_VALUE when the TPM's
 * current values differ: that is how unseal tells "PCRs changed" apart
 * from "wrong password". */
int tpm2_policy_pcr(struct tpm *t, uint32_t session,
		    const uint8_t *pcrdigest, size_t n,
		    const struct pcr_sel *sel);
int tpm2_policy_authvalue(struct tpm *t, uint32_t session);
/* TPM2_PolicyOR with the n branch digests d (dsize bytes each). */
int tpm2_policy_or(struct tpm *t, uint32_t session, const uint8_t *d, int n,
		   size_t dsize);
/* A TPMT_TK_VERIFIED from TPM2_VerifySignature, as the TPM sent it. */
struct tpm2_ticket {
	uint16_t tag;
	uint32_t hierarchy;
	uint8_t digest[64];
	size_t len;
};
/* TPM2_PolicyAuthorize: approved (the signed policy digest) with an empty
 * policyRef, signed by the key named name, as ticket proves. */
int tpm2_policy_authorize(struct tpm *t, uint32_t session,
			  const uint8_t *approved, size_t alen,
			  const uint8_t *name, size_t namelen,
			  const struct tpm2_ticket *ticket);
/* TPM2_PolicySecret: auth_handle (a hierarchy, say) authorized by a
 * vouches for the policy session; no nonce, cpHash, reference or
 * expiration. */
int tpm2_policy_secret(struct tpm *t, uint32_t auth_handle,
		       struct tpm2_auth *a, uint32_t session);
/* TPM2_PolicyRestart: the session's digest back to zeros (to run the
 * policy again after TPM_RC_PCR_CHANGED). */
int tpm2_policy_restart(struct tpm *t, uint32_t session);
int tpm2_policy_password(struct tpm *t, uint32_t session);
/* TPM2_PolicyCommandCode: the session authorizes only command cc. */
int tpm2_policy_commandcode(struct tpm *t, uint32_t session, uint32_t cc);
/* *n gets the digest size (at most cap). */
int tpm2_policy_getdigest(struct tpm *t, uint32_t session, uint8_t *out,
			  size_t cap, size_t *n);

/* TPM2_Unseal of the loaded object h (name for the session HMAC), with
 * auth from a policy or HMAC session.  out gets outData (at most cap
 * bytes: a larger answer is an error); *n its size.  Used by unseal: the
 * policy above is what gates it. */
int tpm2_unseal(struct tpm *t, uint32_t h, const uint8_t *name,
		size_t namelen, struct tpm2_auth *auth, uint8_t *out,
		size_t cap, size_t *n);
/* TPM2_HMAC with the loaded HMAC key h (name for the session HMAC) over
 * data[0..len) (at most 1024 bytes), in the key's scheme (hashAlg
 * NULL), with auth from a policy or HMAC session: out gets the digest
 * (at most cap bytes), *n its size.  Used by totp show: the key never
 * leaves the TPM. */
int tpm2_hmac(struct tpm *t, uint32_t h, const uint8_t *name,
	      size_t namelen, struct tpm2_auth *auth, const uint8_t *data,
	      size_t len, uint8_t *out, size_t cap, size_t *n);

#endif
