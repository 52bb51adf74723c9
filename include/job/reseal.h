/* Resealing (reseal's job; docs/blob-format.md, "Resealing"): from an
 * old blob to the secret again, never in a file: OLD read with its escrow
 * copies and what they are for, the secret unsealed on this TPM while OLD
 * still unseals, else recovered from its escrow copy with a key or the
 * recovery code; then NEW's escrow copies.  Sealing NEW is seal's
 * (job/sealing.h).  Nothing here prints: every refusal is an exit code
 * with e set. */
#ifndef TPMBOX_JOB_RESEAL_H
#define TPMBOX_JOB_RESEAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/auth.h"
#include "base/err.h"
#include "job/escrow.h"
#include "job/sealing.h"

struct tpm;

struct reseal {
	/* request */
	const char *in;		/* OLD's path, its name in messages */
	const char *keyfile;	/* -k: an escrow private key's file */
	int by_code;		/* --recovery-code: OLD's code given */
	const char *codespec;	/* its AUTH; NULL: asked on the terminal */
	const char *oldspec;	/* --old-auth (NULL: none) */
	struct authval oldauth;	/* its value (the caller parses it) */
	const char *sigs[UNSEAL_SIG_FILES];	/* OLD's --signature files */
	int nsig;
	int nescrow;		/* --escrow recipients given for NEW */
	int new_code;		/* a new recovery code asked for NEW */
	int drop;		/* --drop-escrow: every recipient and code */
	struct escrow *dropx;	/* --drop-escrow=RECIPIENT: those (the
				 * caller's; NULL or empty: none) */
	/* state */
	uint8_t *text;		/* OLD */
	size_t tlen;
	struct escrow_blk b;	/* its escrow copies (b.raw NULL: none) */
	struct unseal_job j;
	char code[AUTH_MAX + 1];	/* OLD's recovery code as typed */
	size_t clen;
	/* result: the secret (malloc'd; reseal_free wipes it) */
	uint8_t *secret;
	size_t slen;
	/* NEW's recipients from OLD's record (reseal_recipients) */
	int stored;		/* OLD has a recipients record used */
	size_t kept, dropped;	/* of its recipients */
};

/* OLD read (from r->in; or r->text, malloc'd, set by the caller), with
 * its escrow copies and recipients record (damaged ones
 * refused unless drop); NEW keeps them unless told otherwise.  OLD with a
 * record: its recipients are NEW's by default (reseal_recipients, once
 * the secret is known).  OLD without one (made before records, or its
 * secret shorter than ESCROW_RCPT_SECRET_MIN: the message says which):
 * refused when the recipients are not given again (esc: NEW's).  Either
 * way refused when OLD's code is neither kept nor replaced; then OLD's
 * code, from codespec or asked on the terminal.  All before the secret
 * is touched. */
int reseal_old(struct reseal *r, const struct escrow *esc, struct tberr *e);
/* Whether OLD is for this TPM to unseal (unseal_check, then its
 * signatures): 0, or the reason in e, which reseal_secret reads. */
int reseal_here(struct reseal *r, struct tberr *e);
/* The secret: unsealed on t (reseal_here said yes; NULL when it said no,
 * its reason still in e) with oldauth and owner (--owner-auth); else
 * from OLD's escrow copy with the key file or the code.  No fallback when
 * the reason is a usage or I/O error.  OLD's code kept for NEW must
 * open OLD's copy, and the copy hold what the TPM unsealed. */
int reseal_secret(struct tpm *t, struct reseal *r,
		  const struct authval *owner, struct tberr *e);
/* OLD's recipients record checked with the secret (exit 1, "OLD's
 * escrow recipients do not match its secret: altered blob?", before any
 * of them is used), then its recipients added to esc but for those dropx
 * names (each must be a stored one: exit 2).  Nothing to do without a
 * record or with drop. */
int reseal_recipients(struct reseal *r, struct escrow *esc,
		      struct tberr *e);
/* NEW's escrow copies of the secret, on the host (esc: NEW's recipients),
 * with OLD's code kept when it was given and no new one is asked for. */
int reseal_escrow(struct reseal *r, struct escrow *esc, struct tberr *e);
/* Wipe and free what r holds (not r). */
void reseal_free(struct reseal *r);

#endif
