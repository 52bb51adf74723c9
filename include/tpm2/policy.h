/* Policies for sealed objects: the host-side digest computation (what a
 * trial session would give) and the TPM policy commands on a policy
 * session.  Only the two assertions seal uses are supported: PolicyPCR
 * and PolicyAuthValue (PolicyPassword extends the digest the same way). */
#ifndef TPMBOX_TPM2_POLICY_H
#define TPMBOX_TPM2_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"
#include "tpm2/pcr.h"

struct tpm;
struct tpm2_auth;

/* A seal policy: PolicyPCR over sel with the given values (when
 * has_pcr), then PolicyAuthValue (when auth).  vals are in selection
 * order: banks as in sel, indices ascending, exactly one per PCR. */
struct policy_spec {
	uint16_t halg;		/* policy (session) hash, TPM2_ALG_SHA256 */
	int has_pcr;
	struct pcr_sel sel;
	struct pcr_vals vals;
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
/* TPM2_PolicySecret: auth_handle (a hierarchy, say) authorized by a
 * vouches for the policy session; no nonce, cpHash, reference or
 * expiration. */
int tpm2_policy_secret(struct tpm *t, uint32_t auth_handle,
		       struct tpm2_auth *a, uint32_t session);
/* TPM2_PolicyRestart: the session's digest back to zeros (to run the
 * policy again after TPM_RC_PCR_CHANGED). */
int tpm2_policy_restart(struct tpm *t, uint32_t session);
int tpm2_policy_password(struct tpm *t, uint32_t session);
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

#endif
