/* Taking ownership of a TPM 2.0 (the job of takeown): persist the TCG
 * standard SRK at 0x81000001, set the hierarchy auth values, set the
 * dictionary-attack parameters.  Auth values travel over the process
 * session salted to the SRK (tpm2/srk.h), the new value encrypted
 * (AES-128-CFB), so they never cross the bus in clear.
 *
 * The caller fills the request part of struct tpm2_own and calls
 * tpm2_takeown; each thing done is reported as it happens through
 * o->done (the caller says it, lib/ never prints), and on a failure
 * o->refused / o->unknown / o->blocked tell which value or object was
 * the cause, so that the caller can name its own options in the
 * message. */
#ifndef TPMBOX_TPM2_OWNER_H
#define TPMBOX_TPM2_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "err.h"
#include "tpm2/object.h"

struct tpm;

enum { TPM2_HIER_OWNER, TPM2_HIER_ENDORSEMENT, TPM2_HIER_LOCKOUT,
       TPM2_NHIER };

/* "owner", "endorsement", "lockout" */
extern const char *const tpm2_hier_name[TPM2_NHIER];

struct tpm2_hier {
	struct authval nw, old;	/* request: the new and the current value */
	int has_new, has_old;
	/* state: */
	struct authval cur;	/* the value to authorize with now */
	int cur_known;		/* cur holds it */
	int set;		/* the TPM says a value is set */
};

/* What tpm2_takeown did (o->done's ev). */
enum {
	TPM2_OWN_SRK_KEPT,
	TPM2_OWN_SRK_EVICTED,	/* another object at 0x81000001 (--force) */
	TPM2_OWN_SRK_MADE,	/* created and persisted */
	TPM2_OWN_AUTH_SET,	/* hierarchy hier: value set */
	TPM2_OWN_AUTH_CONFIRMED,	/* value confirmed or changed */
	TPM2_OWN_DA_SAME,	/* DA parameters unchanged */
	TPM2_OWN_DA_SET,
};
struct tpm2_own {
	/* request */
	struct tpm2_hier h[TPM2_NHIER];
	int rsa;		/* RSA-2048 SRK (else ECC P-256) */
	int force;		/* replace another object at 0x81000001 */
	int has_da[3];		/* max tries, recovery time, lockout */
	uint32_t da[3];		/* recovery: the values asked for */
	/* called after each step done (may be NULL); hier: the hierarchy
	 * for TPM2_OWN_AUTH_*, else 0 */
	void (*done)(const struct tpm2_own *o, int ev, int hier);
	void *arg;		/* for done */
	/* result */
	struct tpm2_public srk;	/* the SRK (with its name) */
	/* on failure: the hierarchy whose value the TPM refused (the error
	 * is the TPM's, exit 4 for a wrong value), the one whose value is
	 * set but not known (exit 4) and what needed it, or 1 in blocked
	 * when 0x81000001 holds another object and force is not set (exit
	 * 1); -1 / NULL / 0 otherwise. */
	int refused, unknown;
	const char *unknown_for;	/* "creating the SRK" ... */
	int blocked;
};

/* Take ownership: read the hierarchy state (with a pin, over the process
 * session started first), choose what to authorize each hierarchy with
 * (the old value when given; the empty value when none is set; else the
 * new value, for a re-run with the same values), make sure the standard
 * SRK is at 0x81000001 (kept when it matches o->rsa and the pin, made and
 * persisted when absent, another object replaced only with o->force), set
 * the new auth values, then the DA parameters asked for (only when they
 * differ).  Running it again with the same values changes nothing.
 * Errors are in t->e, as for every TPM command. */
int tpm2_takeown(struct tpm *t, struct tpm2_own *o);
/* Wipe every auth value in o. */
void tpm2_own_wipe(struct tpm2_own *o);

/* The SRK's public key as PEM (SubjectPublicKeyInfo), malloc'd. */
int tpm2_srk_pem(const struct tpm2_public *srk, char **pem, size_t *len,
		 struct tberr *e);

#endif
