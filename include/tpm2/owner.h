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

#include "base/auth.h"
#include "base/err.h"
#include "base/tpm2const.h"
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

/* The steps of tpm2_takeown, in the order they run (o->done's step). */
enum {
	TPM2_OWN_SRK,		/* the standard SRK at 0x81000001 */
	TPM2_OWN_BANKS,		/* the active PCR banks (o->banks) */
	TPM2_OWN_AUTH,		/* a hierarchy's auth value (hier) */
	TPM2_OWN_EK,		/* the EK persisted (o->ek) */
	TPM2_OWN_DA,		/* the dictionary-attack parameters */
};
/* What a step came to (o->done's result). */
enum {
	TPM2_OWN_DONE,		/* changed now */
	TPM2_OWN_ALREADY,	/* already so: nothing sent that changes it */
	TPM2_OWN_REBOOT,	/* changed; in effect after the next TPM reset */
	TPM2_OWN_NEEDED,	/* dry run: would be changed */
	TPM2_OWN_UNCHECKED,	/* dry run: a lockout value left untried */
};
struct tpm2_session;
struct tpm2_own {
	/* request */
	struct tpm2_hier h[TPM2_NHIER];
	int rsa;		/* RSA-2048 SRK (else ECC P-256) */
	int force;		/* replace another object at the SRK's or
				   the EK's handle */
	int has_da[3];		/* max tries, recovery time, lockout */
	uint32_t da[3];		/* recovery: the values asked for */
	int nbanks;		/* PCR banks to make the active ones */
	uint16_t banks[TPM2_MAX_BANKS];
	struct authval plat;	/* the platform value (for the banks) */
	int ek;			/* persist the EK: 1 RSA, 2 ECC */
	int dry;		/* change nothing: say what each step needs */
	/* called after each step (may be NULL): hier is the hierarchy of
	 * a TPM2_OWN_AUTH step, detail says what was found or done */
	void (*done)(const struct tpm2_own *o, int step, int hier,
		     int result, const char *detail);
	void *arg;		/* for done */
	/* result */
	struct tpm2_public srk;	/* the SRK (with its name) */
	int have_srk;		/* srk is filled (not in a dry run without
				   one) */
	int reboot;		/* a change waits for the next TPM reset */
	/* on failure: the hierarchy whose value the TPM refused (the error
	 * is the TPM's, exit 4 for a wrong value), the one whose value is
	 * set but not known (exit 4) and what needed it, or in blocked the
	 * handle that holds another object when force is not set (exit
	 * 1); -1 / NULL / 0 otherwise. */
	int refused, unknown;
	const char *unknown_for;	/* "creating the SRK" ... */
	uint32_t blocked;
	struct tpm2_session *trial;	/* for confirming values */
};

/* Take ownership, one idempotent step after another: read the hierarchy
 * state (with a pin, over the process session started first) and choose
 * what to authorize each hierarchy with (the old value when given; the
 * empty value when none is set; else the new value, for a re-run with the
 * same values); make sure the standard SRK is at 0x81000001 (kept when it
 * matches o->rsa and the pin, made and persisted when absent, another
 * object replaced only with o->force) - the session is salted to it from
 * then on; ask for the PCR banks (TPM2_PCR_Allocate, o->reboot set); set
 * the new auth values (a value already so is confirmed with
 * TPM2_PolicySecret on a trial session, which changes nothing); persist
 * the EK (one already there from the TCG template is kept); set the DA
 * parameters asked for (only when they differ).  Running it again with
 * the same request sends no command that changes the TPM (the banks
 * excepted before the TPM reset: the pending allocation cannot be read).
 * With o->dry nothing that changes the TPM is sent, and the lockout
 * value is not tried (a wrong one would block it).  Errors are in t->e,
 * as for every TPM command. */
int tpm2_takeown(struct tpm *t, struct tpm2_own *o);
/* Wipe every auth value in o. */
void tpm2_own_wipe(struct tpm2_own *o);

/* The SRK's public key as PEM (SubjectPublicKeyInfo), malloc'd. */
int tpm2_srk_pem(const struct tpm2_public *srk, char **pem, size_t *len,
		 struct tberr *e);

#endif
