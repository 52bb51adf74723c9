/* The hand-off (issue 29): leaving the TPM safe when the boot moves on.
 * lockdown's steps on either family: separators extended into chosen
 * PCRs, clearing disabled, the platform hierarchy closed (a random value
 * never stored, or disabled).  Each step reads the state first and sends
 * nothing that changes it when it is already so (an extend: a PCR holding
 * the value lockdown's extend of the same data left, kept in
 * TPMBOX_RUN_DIR or /run/tpmbox).  Nothing here prints: the
 * caller says the steps.  (shutdown's job is job/tpm.h's tpm_shutdown.) */
#ifndef TPMBOX_JOB_HANDOFF_H
#define TPMBOX_JOB_HANDOFF_H

#include <stdint.h>

#include "base/err.h"

struct tpm;

/* The steps, in the order they run. */
enum { LOCK_EXTEND, LOCK_CLEAR, LOCK_PLATFORM };
/* What a step came to. */
enum { LOCK_DONE, LOCK_ALREADY, LOCK_WOULD };
/* --platform's kinds */
enum { LOCK_PLAT_NONE, LOCK_PLAT_RANDOM, LOCK_PLAT_DISABLE };

#define LOCK_EXTENDS	24
#define LOCK_STEPS	(LOCK_EXTENDS + 2)

struct lock_step {
	int step;		/* LOCK_* */
	int result;		/* LOCK_DONE ... */
	unsigned pcr;		/* a LOCK_EXTEND step's PCR */
	char detail[512];	/* what was found or done, in words */
};

struct lockdown {
	/* request */
	int platform;		/* LOCK_PLAT_* */
	int disable_clear;
	const char *lockspec;	/* --lockout-auth AUTH (NULL: not given) */
	int nx;
	struct { unsigned pcr; const char *str; } x[LOCK_EXTENDS];
	int dry;		/* send nothing that changes the TPM */
	/* result */
	struct lock_step st[LOCK_STEPS];
	int nst;
};

/* --extend PCR[=STRING] into l: exit 2 for a bad PCR or too many. */
int lockdown_extend_opt(struct lockdown *l, const char *arg,
			struct tberr *e);
/* The steps on a TPM of family fam (TPM_FAMILY_*; the caller refused
 * what that family lacks): the state read first (TPM 2.0: one
 * GetCapability of TPM_PT_PERMANENT and TPM_PT_STARTUP_CLEAR; TPM 1.2:
 * TPM_STCLEAR_FLAGS), the PCRs named read, then each extend not already
 * so (every allocated bank in one command; the separator: the digest of the 4 zero bytes of the PC
 * Client's EV_SEPARATOR; STRING: its digest), clearing disabled (2.0:
 * TPM2_ClearControl(YES) with the lockout value; 1.2:
 * TPM_DisableForceClear), the platform hierarchy (2.0 only): its empty
 * value probed with TPM2_PolicySecret on a trial session (platform
 * authorizations count no DA failure), then 32 bytes from the TPM set
 * as its value in the salted session (encrypted) and wiped, or
 * TPM2_HierarchyControl(PLATFORM, NO).  Errors in t->e. */
int lockdown_run(struct tpm *t, int fam, struct lockdown *l);
/* A step's name ("extend", "disable-clear", "platform"), a result in
 * words and as a JSON report names it. */
const char *lock_step_name(const struct lock_step *s);
const char *lock_result_words(int result);
const char *lock_result_json(int result);

#endif
