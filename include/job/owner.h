/* Taking ownership on either family (takeown's job): the first contact
 * salted to a certified EK, TPM 2.0's steps (tpm2/owner.h) with a failure
 * said in terms of the values given, TPM 1.2's TPM_TakeOwnership
 * (tpm12/owner.h), the steps kept for a report, and the SRK's public key
 * written as PEM.  And giving it up on a TPM 2.0 (clearall's job): what
 * TPM2_Clear destroys, then the clear.  Nothing here prints: the caller
 * says the steps. */
#ifndef TPMBOX_JOB_OWNER_H
#define TPMBOX_JOB_OWNER_H

#include "base/auth.h"
#include "base/err.h"
#include "job/ekcert.h"
#include "tpm12/owner.h"
#include "tpm2/cap.h"
#include "tpm2/owner.h"

struct tpm;

/* TPM 1.2's one step, after TPM 2.0's (TPM2_OWN_*). */
enum { OWNER_OWNERSHIP = TPM2_OWN_DA + 1 };

/* One step as it ran. */
struct owner_step {
	int step;		/* TPM2_OWN_* or OWNER_OWNERSHIP */
	int hier;		/* a TPM2_OWN_AUTH step's hierarchy */
	int result;		/* TPM2_OWN_DONE ... TPM2_OWN_UNCHECKED */
	char detail[160];	/* what was found or done, in words */
};

#define OWNER_STEPS 8

struct owner_job {
	/* request: TPM 2.0's in full (its values filled by owner_values); a
	 * TPM 1.2 takes the owner's new value, dry and force from it */
	struct tpm2_own own;
	/* the values as given, AUTH (base/auth.h), NULL when not given:
	 * --owner-auth ... (by TPM2_HIER_*), --old-owner-auth ...,
	 * --platform-auth, and TPM 1.2's --srk-auth */
	const char *nwspec[TPM2_NHIER], *oldspec[TPM2_NHIER];
	const char *platspec, *srkspec;
	int only20;		/* an option only a TPM 2.0 takes is given */
	/* called after each step (may be NULL) */
	void (*said)(void *arg, const struct owner_step *s);
	void *arg;
	/* result: the first OWNER_STEPS steps; the SRK's name (2.0) or
	 * SHA-1 of its TPM_PUBKEY (1.2) in hex, "" when there is none */
	struct owner_step st[OWNER_STEPS];
	int nst;
	char srk[2 * TPM2_NAME_MAX + 1];
	int fam12;		/* the job ran on a TPM 1.2 */
	struct tpm12_own w;	/* TPM 1.2's values and SRK */
};

/* --max-tries (i 0), --recovery-time (1) or --lockout-recovery (2) into
 * own->da[i]: exit 2 for a bad number. */
int owner_da_opt(struct tpm2_own *own, int i, const char *s,
		 struct tberr *e);
/* --ek[=rsa|ecc] (arg NULL: rsa) into own->ek: exit 2 for another. */
int owner_ek_opt(struct tpm2_own *own, const char *arg, struct tberr *e);
/* The auth values given (nwspec, oldspec, platspec) into own: exit 2
 * for a bad AUTH (3/6 for its file). */
int owner_values(struct owner_job *j, struct tberr *e);

/* --ek-ca: on a TPM 2.0, the process session salted to the EK whose
 * certificate in NV verifies to a CA in ca (ekcert_trust), before
 * anything else is sent.  A TPM 1.2 is left alone (ek->slot stays NULL)
 * for the caller's own refusal.  Errors in t->e. */
int owner_first_contact(struct tpm *t, const char *ca,
			struct ekcert_trusted *ek);

/* Whether the request suits the family fam (TPM_FAMILY_*): exit 2
 * naming the options that are the other family's. */
int owner_family(const struct owner_job *j, int fam, struct tberr *e);
/* TPM 2.0: tpm2_takeown, each step kept and said; a failure said in the
 * options' words: the value that was wrong or missing names
 * --old-X-auth / --X-auth, an object in the way of the SRK or the EK
 * hints at --force.  Errors in t->e. */
int owner_take2(struct tpm *t, struct owner_job *j);
/* TPM 1.2: the owner and SRK values made from the owner's new value and
 * srkspec (NULL: the well-known secret), then TPM_TakeOwnership, or its
 * confirmation of the owner value when owned already (tpm12_takeown):
 * one step, OWNER_OWNERSHIP.  A dry run only asks whether it is owned:
 * the owner value is not tried (a wrong one counts toward lockout on a
 * 1.2).  Errors in t->e. */
int owner_take12(struct tpm *t, struct owner_job *j);
/* Remember the SRK (TPM 2.0, not a dry run): its public key as PEM at
 * path, mode 0644 whatever the umask, written only when it differs
 * (/etc/tpmbox made for the default path).  Every later process pins to
 * it (applet.c's ctx_tpm). */
int owner_srk_remember(const struct owner_job *j, const char *path,
		       struct tberr *e);
/* After a TPM2_Clear: remove the remembered SRK at path, which names a
 * key the clear destroyed (*removed 0 when there was none). */
int owner_srk_forget(const char *path, int *removed, struct tberr *e);
/* The SRK's public key as PEM in path: left alone when the file holds it
 * already, another file replaced only with own.force. */
int owner_srk_pub(const struct owner_job *j, const char *path,
		  struct tberr *e);
/* Wipe the values in j. */
void owner_wipe(struct owner_job *j);

/* A step's name ("srk", "owner-auth", ..., "ownership"), and a result in
 * words and as a JSON report names it. */
const char *owner_step_name(const struct owner_step *s);
const char *owner_result_words(int result);
const char *owner_result_json(int result);

/* What TPM2_Clear destroys on a TPM 2.0. */
struct owner_clear {
	uint32_t pers[TPM2_HANDLES_MAX];	/* owner persistent objects */
	uint32_t nv[TPM2_HANDLES_MAX];	/* NV indices (not the platform's) */
	size_t npers, nnv;
	int disabled;		/* disableClear is set */
};
/* Fill l (over the SRK pin's session when there is one).  On a failure
 * l holds what was found before it.  Errors in t->e. */
int owner_clear_list(struct tpm *t, struct owner_clear *l);
/* Exit 1 when l->disabled, saying what lifts it; else 0. */
int owner_clear_check(const struct owner_clear *l, struct tberr *e);
/* TPM2_Clear with the lockout value (n 0: the empty value), or with
 * platform the platform hierarchy's empty value.  A lockout value keys
 * the HMAC of a session salted to the SRK (pinned when a pin is set),
 * never the bus.  A refusal hints at what lifts it.  Errors in t->e. */
int owner_clear2(struct tpm *t, const struct authval *lockout, int platform);

#endif
