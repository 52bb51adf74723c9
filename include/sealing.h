/* Sealing to this TPM and unsealing from it, as the steps seal, unseal
 * and reseal share (docs/blob-format.md).  Nothing here prints: every
 * refusal is returned as an exit code with e set ("what: why" + hint).
 *
 * Sealing runs in two parts so that everything that needs no TPM is
 * checked first: seal_spec_parse (the -p/-P/--auth/--owner-auth options),
 * then seal_blob (the SRK, the PCR values, TPM2_Create, the blob text).
 * Unsealing likewise: unseal_check (the blob, before the TPM sees any of
 * it), then unseal_run. */
#ifndef TPMBOX_SEALING_H
#define TPMBOX_SEALING_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "err.h"
#include "keyfile.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"

struct tpm;

/* What a new blob is sealed to. */
struct seal_spec {
	struct policy_spec ps;	/* selection; values filled by seal_blob */
	struct pcr_val given[TPM2_MAX_BANKS * 32];	/* -p SEL=VALUES */
	int ngiven;
	struct pcr_vals file;	/* -P PCRFILE */
	int have_file;
	struct authval auth;	/* --auth: the new blob's password */
	struct authval owner;	/* --owner-auth */
};

/* Fill s from seal's options (each may be NULL): -p SELECTION[=VALUES],
 * -P PCRFILE, --auth AUTH, --owner-auth AUTH.  Exit 2 naming the option,
 * 3/6 for an unreadable PCRFILE. */
int seal_spec_parse(struct seal_spec *s, const char *pcrarg,
		    const char *pcrfile, const char *authspec,
		    const char *ownerspec, struct tberr *e);
/* Wipe the passwords. */
void seal_spec_wipe(struct seal_spec *s);
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

/* A blob read for unsealing. */
struct unseal_job {
	const char *name;	/* for messages */
	struct keyfile k;
	struct tpm2_public pub;
	struct tpm2_private priv;
};

/* Decode and check the blob text[0..n) (name for messages), and that a
 * password is given (have_auth) exactly when it was sealed with one: a
 * wrong guess would count toward lockout.  Exit 1 for a bad blob, 4 when
 * the password is missing, 2 when one is given for none. */
int unseal_check(struct unseal_job *j, const char *name, const char *text,
		 size_t n, int have_auth, struct tberr *e);
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
