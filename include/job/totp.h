/* totp's jobs: a one-time-password secret made and sealed to the PCRs,
 * the codes computed from it, and what a blob holds (docs/blob-format.md,
 * "totp").  On a TPM 2.0 the secret is an HMAC key (keyedhash, sign,
 * scheme HMAC SHA-1) under the SRK behind the PCR policy, and the TPM
 * computes every code (TPM2_HMAC): the secret crosses the bus once, at
 * enrolment, encrypted in the salted session.  On a TPM 1.2 it is sealed
 * with TPM_Sealx and the code computed on the host after TPM_Unseal. */
#ifndef TPMBOX_JOB_TOTP_H
#define TPMBOX_JOB_TOTP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/otpauth.h"
#include "job/sealing.h"
#include "job/sealing12.h"

struct tpm;

/* The PCRs enroll seals to when no -p is given. */
#define TOTP_PCRS_20	"sha256:0,2,4,7"
#define TOTP_PCRS_12	"sha1:0,2,4,7"

/* Enroll on t (of family fam): a new 20-byte secret (TPM random XOR the
 * host's), sealed per s (parsed by seal_spec_parse) with o12 on a 1.2,
 * p's parameters (p->nv and name filled for HOTP by the caller's
 * counter).  *pem the blob's text, *uri its otpauth URI for counter
 * (both malloc'd; wipe *uri). */
int totp_enroll(struct tpm *t, int fam, struct seal_spec *s,
		const struct seal12_opts *o12, const struct otp_params *p,
		uint64_t counter, char **pem, size_t *pemlen, char **uri,
		struct tberr *e);

/* HOTP on a TPM 2.0: the counter is an NV counter index (TPM_NT_COUNTER,
 * authwrite and authread with an empty value, noDA), defined under the
 * owner hierarchy (owner: its AUTH, NULL empty), incremented once (a
 * counter has no value before) and read: *value, the index and its name
 * (which WRITTEN is now part of) in p.  Exit 2 when the index exists. */
int totp_counter_new(struct tpm *t, uint32_t index, const char *owner,
		     struct otp_params *p, uint64_t *value, struct tberr *e);
/* The next HOTP counter value: the index's public area checked against
 * the name p recorded (exit 1 for another index), incremented, read. */
int totp_counter_next(struct tpm *t, const struct otp_params *p,
		      uint64_t *value, struct tberr *e);

/* totp enroll --nv, TPM 2.0: the blob's text kept in a new ordinary NV
 * index (ownerwrite, ownerread, authread with an empty value, noDA: anyone
 * reads it, only the owner writes it), defined with owner's AUTH (NULL:
 * empty) and written.  Exit 2 when the index exists or the blob is larger
 * than TPM_PT_NV_INDEX_MAX. */
int totp_nv_store(struct tpm *t, uint32_t index, const char *owner,
		  const char *text, size_t n, struct tberr *e);
/* The blob's text from index: *text malloc'd (not NUL-terminated), *n.
 * Exit 6 when the index does not exist, 2 when it is no ordinary one. */
int totp_nv_load(struct tpm *t, uint32_t index, uint8_t **text, size_t *n,
		 struct tberr *e);

/* A blob read. */
struct totp_blob {
	const char *name;	/* for messages */
	const char *text;	/* the file, text[0..n) */
	size_t n;
	int family;		/* TPM_FAMILY_20 or TPM_FAMILY_12 */
	struct otp_params p;
	struct unseal_job *j;	/* 2.0 */
	struct seal12_blob b12;	/* 1.2 (pointers into der) */
	uint8_t *der;
};
/* Parse and check text[0..n) with no TPM: exit 1 "NAME: blob: why". */
int totp_blob_open(struct totp_blob *b, const char *name, const char *text,
		   size_t n, struct tberr *e);
void totp_blob_close(struct totp_blob *b);
/* The code at counter c (TOTP: the time step) into *code.  Exit 4 when
 * the PCRs moved, naming them; 1 for a blob of another TPM. */
int totp_code(struct tpm *t, struct totp_blob *b, uint64_t c, uint32_t *code,
	      struct tberr *e);

/* What status reports: the PCR states sealed to and whether the TPM's
 * PCRs are in one of them now. */
struct totp_state {
	int nstate;		/* PCR states sealed to (1..8) */
	int match;		/* the state they are in now (1-based), 0 */
	int closest;		/* else the closest one (1-based) */
	char sel[POLICY_BRANCHES][128];	/* each state's PCRs */
	char diff[512];		/* the closest one's PCRs that differ */
};
int totp_state(struct tpm *t, const struct totp_blob *b,
	       struct totp_state *st, struct tberr *e);

#endif
