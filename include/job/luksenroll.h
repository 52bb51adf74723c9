/* Enrolling a LUKS2 volume to this TPM, and taking a TPM token off it:
 * a keyslot with a new random passphrase (cryptsetup luksAddKey) and a
 * token naming it (cryptsetup token import), in three forms:
 *
 * systemd-tpm2, as systemd 252 writes it and every later version reads
 *   it: the 32-byte secret sealed under the legacy ECC primary (made
 *   with CreatePrimary each time, no persistent SRK: 254's tpm2_srk is
 *   not read by 252-253), a keyedhash object fixedTPM|fixedParent, noDA
 *   without a PIN (as 256+ makes it; 252 does not look), policy
 *   PolicyPCR then PolicyAuthValue with a PIN whose auth value is
 *   SHA-256(PIN) (252's form: 253+'s tpm2_salt would make 252's plugin
 *   derive another value); the passphrase is the secret's standard
 *   base64.
 * clevis (19+): a JWE (alg dir, enc A256GCM, the protected header the
 *   AAD) of the passphrase, its key a JWK sealed as clevis' tpm2 pin
 *   seals it: under tpm2_createprimary's default ECC primary, the object
 *   fixedtpm|fixedparent|noda|adminwithpolicy (userwithauth only
 *   without PCRs), clevis.tpm2 {hash, key, jwk_pub, jwk_priv, pcr_bank,
 *   pcr_ids}.
 * tpmbox: {"type":"tpmbox","keyslots":["N"],"tpmbox-version":1,
 *   "tpmbox-blob":BASE64} where the blob is seal's (job/sealing.h) of
 *   the passphrase, escrow copies included; made by the caller with
 *   seal_blob.
 *
 * The passphrase: 32 bytes of the TPM's RNG (GetRandom in the salted
 * session: its answer encrypted) XORed with 32 of the host's (a TPM
 * session that is not up, as for --as tpmbox without a pin, leaves the
 * answer in clear: the host's half keeps the result secret), standard
 * base64: 44 characters.  The keyslot gets PBKDF2
 * (SHA-512, 1000 rounds) as systemd-cryptenroll gives a key of full
 * entropy.  Both passphrases reach cryptsetup through pipes (the
 * existing one its stdin, the new one /dev/fd/3), never argv, the
 * environment or a file. */
#ifndef TPMBOX_JOB_LUKSENROLL_H
#define TPMBOX_JOB_LUKSENROLL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "job/luks.h"
#include "tpm2/pcr.h"

struct tpm;

#define LUKS_PASS_LEN	44	/* base64 of 32 bytes */
#define LUKS_OLD_MAX	8192	/* an existing passphrase read */

/* The lowest free keyslot and token id of v: exit 1 when either is
 * full (32 of them), nothing changed. */
int luks_enroll_free(const struct luks_vol *v, const char *dev, int *slot,
		     int *token, struct tberr *e);
/* The new passphrase (pass: LUKS_PASS_LEN + 1 bytes, NUL-terminated),
 * its 32 raw bytes in secret. */
int luks_enroll_pass(struct tpm *t, uint8_t secret[32], char *pass,
		     struct tberr *e);
/* The systemd-tpm2 token for keyslot slot: a new passphrase (pass, as
 * luks_enroll_pass) whose secret is sealed to sel (one bank; n 0: no
 * PCRs) and, with pin, the PIN.  *json malloc'd.  TPM commands: the
 * primary, the session salted to it (unless a pin's is up), GetRandom,
 * PCR_Read, Create ending the session, the primary flushed. */
int luks_token_systemd(struct tpm *t, int slot, const struct pcr_sel *sel,
		       const uint8_t *pin, size_t pinlen, char *pass,
		       char **json, struct tberr *e);
/* The clevis token for keyslot slot: a new passphrase (pass) in a JWE
 * whose key is sealed to sel (n 0: no PCRs); the same commands. */
int luks_token_clevis(struct tpm *t, int slot, const struct pcr_sel *sel,
		      char *pass, char **json, struct tberr *e);
/* The tpmbox token for keyslot slot around seal's blob pem[0..n). */
int luks_token_tpmbox(int slot, const char *pem, size_t n, char **json,
		      struct tberr *e);

/* cryptsetup's steps (each exit 1 naming the step when cryptsetup
 * fails, 6 when it is not installed). */
/* luksAddKey of pass into keyslot slot, authorized by old. */
int luks_cs_addkey(const char *dev, int slot, const uint8_t *old,
		   size_t oldlen, const char *pass, size_t passlen,
		   struct tberr *e);
/* token import of json as token id (replace: in the place of the token
 * there, in one header write: --token-replace). */
int luks_cs_import(const char *dev, int id, int replace, const char *json,
		   struct tberr *e);
/* token remove of token id. */
int luks_cs_token_remove(const char *dev, int id, struct tberr *e);
/* luksKillSlot in batch mode: keyslot slot wiped without another's
 * passphrase. */
int luks_cs_killslot(const char *dev, int slot, struct tberr *e);

/* After a change: the header read again, its keyslots those of before
 * plus the add mask minus drop, its tokens those of before plus tadd
 * minus tdrop (bit i: id i); exit 1 saying which differs. */
int luks_cs_verify(const char *dev, const struct luks_vol *before,
		   uint32_t add, uint32_t drop, uint32_t tadd, uint32_t tdrop,
		   struct tberr *e);

#endif
