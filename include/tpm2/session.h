/* TPM 2.0 authorization sessions (Part 1, 19): HMAC and policy sessions,
 * salted to a TPM key (ECDH on P-256 or RSA-OAEP), bound or unbound, with
 * SHA-256 as the session hash and AES-128-CFB parameter encryption.
 *
 * Use:
 *	struct tpm2_session *s;
 *	struct tpm2_auth a;
 *	tpm2_session_start(t, TPM2_SE_HMAC, srk, &srkpub, TPM2_RH_NULL,
 *			   NULL, 0, SESS_ENC_CMD | SESS_ENC_RSP, &s);
 *	tpm2_session_use(s, &a, authval, authlen);
 *	call.auth[0] = &a; call.na = 1;
 *	call.name[i] = names of object/NV handles (permanent handles: may be
 *			left empty, the handle itself is its name);
 *	tpm2_call(t, &call);	- HMACs computed and the response checked
 *	tpm2_session_flush(t, s);	- flushes and frees (also after errors)
 *
 * A response whose HMAC does not verify fails the call with EX_FAIL
 * ("...: response HMAC does not verify ...") before its parameters are
 * decrypted or returned.  Parameter encryption applies to the first
 * command parameter (SESS_ENC_CMD, the TPM "decrypt" attribute) and the
 * first response parameter (SESS_ENC_RSP, "encrypt"); the caller sets
 * them only on commands whose first parameter is a TPM2B.  Put the
 * encrypting session first in call.auth[]. */
#ifndef TPMBOX_TPM2_SESSION_H
#define TPMBOX_TPM2_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "tpm2/cmd.h"

struct tpm2_public;

#define TPM2_SE_HMAC	0x00
#define TPM2_SE_POLICY	0x01
#define TPM2_SE_TRIAL	0x03

/* TPMA_SESSION bits */
#define TPMA_SESSION_CONTINUESESSION	0x01
#define TPMA_SESSION_DECRYPT		0x20
#define TPMA_SESSION_ENCRYPT		0x40
#define TPMA_SESSION_AUDIT		0x80

/* flags for tpm2_session_start */
#define SESS_ENC_CMD	1	/* encrypt the first command parameter */
#define SESS_ENC_RSP	2	/* the TPM encrypts the first response one */

/* Policy-session authorization modes (tpm2_session_policy_auth). */
#define SESS_POLICY_NONE	0	/* HMAC keyed by the session key only */
#define SESS_POLICY_AUTHVALUE	1	/* after TPM2_PolicyAuthValue */
#define SESS_POLICY_PASSWORD	2	/* after TPM2_PolicyPassword */

struct tpm2_session;

/* TPM2_StartAuthSession.  type: TPM2_SE_HMAC, _POLICY or _TRIAL.
 * salt_handle/salt_pub: a loaded decrypt key (the SRK) and its public area
 * (ECC P-256: ECDH + KDFe; RSA: OAEP label "SECRET"); salt_pub NULL and
 * salt_handle TPM2_RH_NULL for an unsalted session.  bind: the entity
 * whose authValue (bind_auth) goes into the session key, or TPM2_RH_NULL.
 * flags: SESS_ENC_CMD | SESS_ENC_RSP (applied to every command the session
 * is used for; change with tpm2_session_set_flags).  On success *out is
 * allocated; free it with tpm2_session_flush or tpm2_session_free. */
int tpm2_session_start(struct tpm *t, int type, uint32_t salt_handle,
		       const struct tpm2_public *salt_pub, uint32_t bind,
		       const uint8_t *bind_auth, size_t bind_authlen,
		       int flags, struct tpm2_session **out);

/* Fill a (for one tpm2_call) so this session authorizes a handle whose
 * authValue is authval[0..n) (copied; trailing zero bytes are dropped as
 * the TPM does).  For a session that only encrypts (no handle to
 * authorize, placed after the handle authorizations) pass NULL, 0. */
void tpm2_session_use(struct tpm2_session *s, struct tpm2_auth *a,
		      const uint8_t *authval, size_t n);

/* Fill a (for one tpm2_call) so this session authorizes nothing but
 * makes the TPM HMAC the response: the audit attribute, keyed by the
 * session key alone (so it proves something only for a salted session).
 * enc_rsp: the TPM also encrypts the response's first parameter (a
 * TPM2B).  Put it after the handle authorizations.  The value given to
 * tpm2_session_use is kept for the session's next authorizing use. */
void tpm2_session_audit(struct tpm2_session *s, struct tpm2_auth *a,
			int enc_rsp);
/* Whether s is one of the call's authorizations. */
int tpm2_session_in_call(const struct tpm2_session *s,
			 const struct tpm2_call *c);

/* Change the encryption flags for the following commands. */
void tpm2_session_set_flags(struct tpm2_session *s, int flags);

/* For a policy session: how the authorized object's authValue is used,
 * after the matching TPM2_PolicyAuthValue / TPM2_PolicyPassword ran in
 * the session (SESS_POLICY_*).  The value itself comes from
 * tpm2_session_use. */
void tpm2_session_policy_auth(struct tpm2_session *s, int mode);

/* Whether the authorized entity's authValue goes into the parameter
 * encryption key (the TPM adds it when the value is "available" for the
 * command: for an object used in the USER role, only with userWithAuth).
 * Default: 1 for HMAC sessions, 0 for policy sessions; a policy session
 * authorizing an object with userWithAuth set (or an NV index with
 * AUTHREAD/AUTHWRITE) must set 1. */
void tpm2_session_enc_auth(struct tpm2_session *s, int yes);

/* For commands that change the authorized entity's authValue
 * (HierarchyChangeAuth, NV_ChangeAuth): the TPM computes the response
 * HMAC with the new value.  No effect on a password authorization. */
void tpm2_auth_rsp_value(struct tpm2_auth *a, const uint8_t *v, size_t n);

/* The session handle (for policy commands that name the session). */
uint32_t tpm2_session_handle(const struct tpm2_session *s);
/* The session's current nonceTPM (for TPM2_PolicySecret/Signed). */
size_t tpm2_session_nonce_tpm(const struct tpm2_session *s,
			      const uint8_t **p);

/* Flush the session from the TPM (ignoring a TPM that already forgot it)
 * and free s (wiping its keys).  s may be NULL.  Returns 0 or an exit
 * code; s is freed either way. */
int tpm2_session_flush(struct tpm *t, struct tpm2_session *s);
/* a (from tpm2_session_use or _audit) is its session's last use: the
 * command goes with continueSession clear, the TPM ends the session with
 * it, and tpm2_session_handle is 0 once the answer verified (a flush then
 * sends nothing).  A command that fails leaves the session open. */
void tpm2_auth_last(struct tpm2_auth *a);
/* Free without flushing (a session the TPM already closed). */
void tpm2_session_free(struct tpm2_session *s);

/* For tests: the HMAC key-derived state is checked on every response;
 * this exposes the cpHash/rpHash computations.  pHash = H(cc || names ||
 * params) for a command (rc not included), H(rc || cc || params) for a
 * response (names NULL).  Returns the digest size. */
size_t tpm2_phash(uint16_t alg, int response, uint32_t rc, uint32_t cc,
		  const struct tpm2_name *names, int nnames,
		  const uint8_t *params, size_t plen, uint8_t *out);

#endif
