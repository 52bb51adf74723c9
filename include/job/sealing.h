/* Sealing to this TPM and unsealing from it, as the steps seal, unseal
 * and reseal share (docs/blob-format.md).  Nothing here prints: every
 * refusal is returned as an exit code with e set ("what: why" + hint).
 *
 * Sealing runs in two parts so that everything that needs no TPM is
 * checked first: seal_spec_parse (the -p/-P/--auth/--owner-auth options),
 * then seal_blob (the SRK, the PCR values, TPM2_Create, the blob text).
 * Unsealing likewise: unseal_check (the blob, before the TPM sees any of
 * it), then unseal_run. */
#ifndef TPMBOX_JOB_SEALING_H
#define TPMBOX_JOB_SEALING_H

#include <stddef.h>
#include <stdint.h>

#include "base/auth.h"
#include "base/err.h"
#include "fmt/keyfile.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"

struct tpm;
struct tpm2_auth;

/* Seal's policy options as given: each -p and -P (in order), or
 * --authorized-by; --auth; --owner-auth. */
struct seal_opts {
	const char *pcr[POLICY_BRANCHES];	/* -p SELECTION[=VALUES] */
	int npcr;
	const char *file[POLICY_BRANCHES];	/* -P PCRFILE */
	int nfile;
	const char *signer;	/* --authorized-by PUBKEY */
	const char *bank;	/* --bank (with --authorized-by) */
	const char *authspec;	/* --auth */
	const char *ownerspec;	/* --owner-auth */
};
/* Record one -p (opt 'p') or -P ('P'): exit 2 past 8 of them. */
int seal_opts_add(struct seal_opts *o, int opt, const char *arg,
		  struct tberr *e);

/* What a new blob is sealed to. */
struct seal_spec {
	struct policy_spec ps;	/* selections; values filled by seal_blob */
	struct seal_branch {
		struct pcr_val given[TPM2_MAX_BANKS * 32]; /* SEL=VALUES */
		int ngiven;
		struct pcr_vals file;	/* -P PCRFILE */
		int have_file;
	} in[POLICY_BRANCHES];
	struct tpm2_public signer;	/* --authorized-by */
	uint16_t signer_bank;
	struct authval auth;	/* --auth: the new blob's password */
	struct authval owner;	/* --owner-auth */
	/* totp: the object is an HMAC key with this hash (sign, scheme
	 * HMAC) holding the data as its key, not sealed data; 0 for seal */
	uint16_t hmac_hash;
};

/* Fill s from seal's options.  The branches: with several -p, each -p is
 * one (no -P then); else each -P is one, over the one -p's selection
 * (and its given values) when there is one, over the file's own
 * selection when not; a -p alone is one.  Two or more branches make a
 * PolicyOR.  Exit 2 naming the option, 3/6 for an unreadable file. */
int seal_spec_parse(struct seal_spec *s, const struct seal_opts *o,
		    struct tberr *e);
/* Wipe the passwords. */
void seal_spec_wipe(struct seal_spec *s);
/* Fill each branch's values: SEL=VALUES first, then the PCRFILE, then
 * the PCRs read with rd (tpm2_pcr_read, or tpm_pcr_read on a 1.2); t
 * NULL: every value must be given (exit 2 otherwise). */
typedef int (*seal_pcr_reader)(struct tpm *t, const struct pcr_sel *sel,
			       struct pcr_vals *out);
int seal_spec_values(struct tpm *t, struct seal_spec *s, seal_pcr_reader rd,
		     struct tberr *e);
/* One PCR state given in full, with no TPM (policysign): a -p
 * SEL=VALUES or a -P PCRFILE (one of them NULL), parsed as seal parses
 * them; its selection and values (in selection order).  Exit 2 naming
 * the option, when a PCR has no value too; 3/6 for an unreadable file. */
int seal_state_given(const char *pcrarg, const char *pcrfile,
		     struct pcr_sel *sel, struct pcr_vals *vals,
		     struct tberr *e);
/* Seal data[0..len) (1 byte to KEYFILE_DATA_MAX) on t under the SRK
 * (persisted at 0x81000001 and checked against the pin, or made from
 * the standard template), in one salted session: the blob's text in
 * *pem (malloc'd, NUL-terminated).  The caller appends escrow copies
 * and writes it. */
int seal_blob(struct tpm *t, struct seal_spec *s, const uint8_t *data,
	      size_t len, char **pem, size_t *pemlen, struct tberr *e);

/* Seal for a TPM that is not here (seal --to), with no TPM at all:
 * parent is that TPM's SRK public (srk_pub_read); every PCR of the
 * policy must come with its value.  The object is made and wrapped on
 * the host for TPM2_Import (tpm2/dup.h) and the blob is an importable key
 * file, which unseal_run imports on the target before loading it. */
int seal_blob_to(const struct tpm2_public *parent, struct seal_spec *s,
		 const uint8_t *data, size_t len, char **pem, size_t *pemlen,
		 struct tberr *e);

struct escrow;
/* The blob's output: the escrow block (when esc made copies) appended to
 * *pem, PREFIX.cms/.age (escrow_out), the recovery code to code_out, the
 * blob to out (atomic, 0600; force: replace), and last the code shown on
 * the terminal (show_code). */
int seal_write(struct escrow *esc, char **pem, size_t *pemlen,
	       const char *out, const char *escrow_out, const char *code_out,
	       int show_code, int force, struct tberr *e);

/* The PCRs of branch b whose values in cur differ, as "sha256:7,
 * sha256:11" into list[0..cap) (cap >= 64); how many differ (a PCR cur
 * lacks counts). */
int seal_branch_diff(const struct keyfile_branch *b,
		     const struct pcr_vals *cur, char *list, size_t cap);

struct polsig;
struct polsig_entry;
struct tpm2_ticket;
#define UNSEAL_SIG_FILES 8	/* --signature files */
/* A blob read for unsealing. */
struct unseal_job {
	const char *name;	/* for messages */
	struct keyfile k;
	struct tpm2_public pub;
	struct tpm2_private priv;
	/* a blob sealed with --authorized-by: the signer and the signed
	 * policies by it for its bank (unseal_signatures) */
	struct tpm2_public signer;
	struct polsig *sigs;
	/* totp show: a blob holding an HMAC key (k.loadable) is run with
	 * use (tpm2_hmac) over use_in[0..use_inlen) in place of
	 * TPM2_Unseal; unseal_run's *out is then the digest.  A pointer,
	 * so that a build without totp does not link TPM2_HMAC. */
	int (*use)(struct tpm *t, uint32_t h, const uint8_t *name,
		   size_t namelen, struct tpm2_auth *auth,
		   const uint8_t *data, size_t len, uint8_t *out,
		   size_t cap, size_t *n);
	const uint8_t *use_in;
	size_t use_inlen;
};

/* Decode and check the blob text[0..n) (name for messages), and that a
 * password is given (have_auth) exactly when it was sealed with one: a
 * wrong guess would count toward lockout.  Exit 1 for a bad blob, 4 when
 * the password is missing, 2 when one is given for none. */
int unseal_check(struct unseal_job *j, const char *name, const char *text,
		 size_t n, int have_auth, struct tberr *e);
/* For a blob sealed with --authorized-by: read the signature files
 * paths[0..n) (systemd's JSON, fmt/polsig.h) and keep the entries by the
 * blob's signer for its bank.  Exit 2 when the blob takes none or no file
 * is given, 3 for an unreadable file, 1 for a malformed one, 4 when no
 * entry is by that signer for that bank. */
int unseal_signatures(struct unseal_job *j, const char *const *paths, int n,
		      struct tberr *e);
/* The signed-policy steps unseal and luks unlock share.  Read the
 * signature files paths[0..n) (systemd's JSON, fmt/polsig.h) and keep in
 * out the entries by signer for bank (name for messages).  Exit 3 for an
 * unreadable file, 1 for a malformed one, 4 when no entry is by that
 * signer for that bank. */
int signed_policies_read(const char *const *paths, int n,
			 const struct tpm2_public *signer, uint16_t bank,
			 const char *name, struct polsig *out,
			 struct tberr *e);
/* The entry of sigs whose PCR values are the TPM's now (one PCR_Read):
 * its PolicyPCR branch (selection and values) in *br, the entry in *x.
 * Exit 4 naming the signed PCR sets when none matches. */
int signed_policy_pick(struct tpm *t, const struct polsig *sigs,
		       uint16_t bank, const char *name,
		       struct policy_branch *br,
		       const struct polsig_entry **x, struct tberr *e);
/* The TPM's check of x's signature: signer loaded in the owner hierarchy,
 * TPM2_VerifySignature over SHA-256(pol || empty policyRef) into *tk,
 * the key flushed.  Exit 4 when the signature does not verify. */
int signed_policy_ticket(struct tpm *t, const struct tpm2_public *signer,
			 const struct polsig_entry *x, const char *name,
			 struct tpm2_ticket *tk, struct tberr *e);
/* Unseal on t: the SRK the blob names (and the pin), a session salted to
 * it with the response encrypted, the policy (run again on
 * TPM_RC_PCR_CHANGED), TPM2_Unseal, and the bulk data's decryption.
 * *out malloc'd (wipe it).  Exit 4 for changed PCRs (naming them) or a
 * wrong password, 5 in lockout, 1 for another SRK or a damaged blob. */
int unseal_run(struct tpm *t, struct unseal_job *j,
	       const struct authval *auth, const struct authval *owner,
	       uint8_t **out, size_t *outlen, struct tberr *e);
void unseal_job_free(struct unseal_job *j);

#endif
