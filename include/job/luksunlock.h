/* Unlocking a LUKS2 volume's TPM token: the volume's passphrase out of a
 * systemd-tpm2 token (systemd 252 to 258) or a clevis one (tpm2 and sss
 * pins; a plain JWE as `clevis decrypt` reads it), with the facts of
 * ../shared/ORACLES.md "LUKS2 tokens".
 *
 * Each token is checked by luks_unlock_check before anything is sent to
 * the TPM (pcrlock, JWE alg/enc, the sealed object's policy against the
 * token's digest, thresholds tpm2 pins alone cannot meet, the signer key
 * and its signatures).  Then, on the TPM: the PCRs the policy names read
 * once and the policy digest computed on the host and compared with the
 * token's (systemd compares TPM2_PolicyGetDigest's answer before Unseal:
 * the same check one command cheaper, and a mismatch loads nothing); the
 * parent (the persistent SRK the token names, checked by name, or the
 * legacy primary made with CreatePrimary and flushed after); Load; a
 * policy session salted to that parent with the response encrypted; the
 * policy in systemd's order (PolicyAuthorize with a signed policy,
 * PolicyPCR with the values read, PolicyAuthValue with the PIN's auth
 * value); Unseal.
 *
 * systemd's passphrase: standard base64 (padded) of the secret (257+:
 * of every part's secret joined).  PIN: 252: authValue = SHA-256(PIN);
 * 253+ with tpm2_salt: SHA-256(base64(PBKDF2-HMAC-SHA256(PIN, salt,
 * 10000, 32))); trailing zero bytes are dropped (254+; the TPM does so
 * for every auth value anyway).
 *
 * clevis: a tpm2 pin unseals a JWK whose key opens the pin's JWE (AES-
 * 256-GCM, the protected header's base64url text the AAD); an sss pin
 * opens t of its nested pins, combines their points (crypto/sss.h) into
 * the key of its own JWE.  Other pins (tang) are named and skipped. */
#ifndef TPMBOX_JOB_LUKSUNLOCK_H
#define TPMBOX_JOB_LUKSUNLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "job/luks.h"

struct tpm;

struct luks_unlock_in {
	const char *pin;		/* the PIN's text, or NULL */
	size_t pinlen;
	const char *const *sigpaths;	/* --signature files */
	int nsig;
};

/* Whether token tk can be tried (no TPM): exit 1 for one that is
 * malformed for unlocking or needs what is not here (pcrlock, tang
 * alone), 2 for a signed policy without --signature, 3/1 for an
 * unreadable or malformed signature file, 4 when no signature is by the
 * token's key.  *need_pin: the token needs a PIN. */
int luks_unlock_check(const struct luks_tok *tk, const char *what,
		      const struct luks_unlock_in *in, int *need_pin,
		      struct tberr *e);
/* The same for a plain clevis JWE. */
int luks_unlock_check_clevis(const struct clevis *c, const char *what,
			     struct tberr *e);
/* Unlock tk on t: *pass (malloc'd, wipe it) gets the volume's
 * passphrase.  Exit 4 when the PCRs do not match (naming the PCRs) or
 * the PIN is wrong, 5 in lockout, 1 for a token not for this TPM
 * (another SRK, a PCR bank it lacks) or damaged. */
int luks_unlock_token(struct tpm *t, const struct luks_tok *tk,
		      const char *what, const struct luks_unlock_in *in,
		      uint8_t **pass, size_t *passlen, struct tberr *e);
/* A plain clevis JWE's plaintext. */
int luks_unlock_clevis(struct tpm *t, const struct clevis *c,
		       const char *what, uint8_t **pass, size_t *passlen,
		       struct tberr *e);

#endif
