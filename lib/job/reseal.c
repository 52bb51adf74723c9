/* Resealing: OLD's secret again, unsealed here or from its escrow copy
 * (include/job/reseal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "job/reseal.h"

/* Why OLD has no recipients record, as the end of a sentence. */
static void why_not_stored(const struct reseal *r, char *out, size_t cap)
{
	long n = escrow_secret_len(&r->b);

	if (n >= 0 && n < ESCROW_RCPT_SECRET_MIN)
		snprintf(out, cap, "its secret (%ld bytes) is too short to key "
			 "the recipients' authenticator (%d bytes at least), so "
			 "the blob does not hold their public keys", n,
			 ESCROW_RCPT_SECRET_MIN);
	else
		snprintf(out, cap, "the blob predates stored recipients: it "
			 "does not hold their public keys");
}

/* NEW keeps OLD's recipients and code unless told otherwise: refuse to
 * drop them silently.  With a recipients record they are kept once the
 * secret verifies it (reseal_recipients); without one, they must be
 * given again. */
static int check_keep(const struct reseal *r, const struct escrow *esc,
		      struct tberr *e)
{
	const struct escrow_blk *b = &r->b;
	struct escrow_counts n;
	char what[160], why[200];
	int some = r->dropx && escrow_wanted(r->dropx);

	if (!b->raw && some)
		return err_set(e, EX_USAGE, "--drop-escrow=RECIPIENT: %s has "
			       "no escrow copies", r->in);
	if (r->drop || !b->raw)
		return 0;
	escrow_count(b, &n);
	escrow_holds(b, what, sizeof(what));
	why_not_stored(r, why, sizeof(why));
	if (!b->rc.raw && some) {
		err_set(e, EX_USAGE, "--drop-escrow=RECIPIENT: %s has no stored "
			"recipients to drop one of (%s)", r->in, why);
		err_hint(e, "give the ones to keep with --escrow, and "
			 "--drop-escrow to reseal for them only");
		return EX_USAGE;
	}
	if (!b->rc.raw && (n.rsa || n.ec || n.age) && !r->nescrow) {
		err_set(e, EX_USAGE, "%s has escrow copies (%s), and %s", r->in,
			what, why);
		err_hint(e, "give them again with --escrow, or --drop-escrow "
			 "to reseal without them");
		return EX_USAGE;
	}
	if (!b->rc.raw && (n.rsa || n.ec || n.age) &&
	    escrow_covers(esc, b, e)) {
		err_prefix(e, "%s", r->in);
		err_hint(e, "%s (%s): give every recipient again, or "
			 "--drop-escrow to reseal for the ones given only",
			 r->in, why);
		return e->code;
	}
	if (n.code && !r->by_code && !r->new_code) {
		err_set(e, EX_USAGE, "%s has a recovery code: keep it "
			"(--recovery-code), make a new one "
			"(--recovery-code-out FILE or --new-recovery-code), or "
			"--drop-escrow", r->in);
		err_hint(e, "a new code replaces the written-down one for the "
			 "new blob");
		return EX_USAGE;
	}
	return 0;
}

int reseal_old(struct reseal *r, const struct escrow *esc, struct tberr *e)
{
	int rc;

	/* OLD read from r->in, unless the caller holds its text already
	 * (a LUKS2 token's blob) */
	if (!r->text &&
	    (rc = file_read(r->in, ESCROW_BLOB_MAX, &r->text, &r->tlen, e)))
		return rc;
	if ((rc = escrow_read((const char *)r->text, r->tlen, &r->b, e))) {
		if (e->code != EX_NOENT && !r->drop) {
			err_prefix(e, "%s", r->in);
			err_hint(e, "--drop-escrow reseals without OLD's "
				 "escrow copies");
			return rc;
		}
		err_clear(e);
	}
	/* the recipients record: parsed now, verified with the secret */
	if (r->b.raw && !r->drop &&
	    (rc = escrow_read_rcpts((const char *)r->text, r->tlen, &r->b,
				    e))) {
		err_prefix(e, "%s", r->in);
		err_hint(e, "--drop-escrow reseals without OLD's escrow "
			 "copies");
		return rc;
	}
	if ((rc = check_keep(r, esc, e)))
		return rc;
	if (r->by_code)
		return auth_text(r->codespec, "Recovery code of the old blob: ",
				 r->code, sizeof(r->code), &r->clen, e);
	return 0;
}

int reseal_here(struct reseal *r, struct tberr *e)
{
	int rc;

	if ((rc = unseal_check(&r->j, r->in, (const char *)r->text, r->tlen,
			       r->oldspec != NULL, e)))
		return rc;
	return unseal_signatures(&r->j, r->sigs, r->nsig, e);
}

/* The secret from OLD's escrow copy, with the key or the code. */
static int open_escrow(const struct reseal *r, uint8_t **out, size_t *outlen,
		       struct tberr *e)
{
	if (r->keyfile)
		return escrow_open_keyfile(&r->b, r->keyfile, out, outlen, e);
	return escrow_open_code(&r->b, r->code, r->clen, out, outlen, e);
}

/* OLD did not unseal here (why: the reason's code, in e): from its escrow
 * copy, when a key or the code is given and the reason allows it. */
static int from_escrow(struct reseal *r, struct tberr *e)
{
	int why = e->code;

	if ((!r->keyfile && !r->by_code) || why == EX_USAGE || why == EX_IO) {
		if (why == EX_USAGE && r->oldspec && !r->j.k.auth)
			err_set(e, EX_USAGE, "%s was sealed without a "
				"password; drop --old-auth", r->in);
		else if (why == EX_AUTH && r->oldspec == NULL && r->j.k.auth)
			err_hint(e, "OLD's password is --old-auth");
		else if (r->b.raw && why != EX_USAGE && why != EX_IO)
			err_hint(e, "give -k KEYFILE or --recovery-code to "
				 "reseal from OLD's escrow copy");
		return e->code ? e->code : EX_FAIL;
	}
	err_clear(e);
	if (!r->b.raw)
		return err_set(e, EX_NOENT, "%s does not unseal here and has "
			       "no escrow copies", r->in);
	if (open_escrow(r, &r->secret, &r->slen, e))
		return err_prefix(e, "%s does not unseal here; its escrow "
				  "copy", r->in);
	return 0;
}

/* The code is kept: check that it is OLD's, and that OLD's copy holds
 * what the TPM unsealed. */
static int check_code(const struct reseal *r, struct tberr *e)
{
	uint8_t *copy = NULL;
	size_t cplen = 0;
	int rc = 0;

	if (open_escrow(r, &copy, &cplen, e))
		return err_prefix(e, "--recovery-code");
	if (!copy || cplen != r->slen || memcmp(copy, r->secret, r->slen))
		rc = err_set(e, EX_FAIL, "%s: the recovery code's escrow copy "
			     "does not hold the sealed secret (altered "
			     "blob?)", r->in);
	if (copy) {
		explicit_bzero(copy, cplen);
		free(copy);
	}
	return rc;
}

int reseal_secret(struct tpm *t, struct reseal *r,
		  const struct authval *owner, struct tberr *e)
{
	if (t)
		unseal_run(t, &r->j, &r->oldauth, owner, &r->secret, &r->slen,
			   e);
	if (!r->secret)
		return from_escrow(r, e);
	return r->by_code ? check_code(r, e) : 0;
}

int reseal_recipients(struct reseal *r, struct escrow *esc,
		      struct tberr *e)
{
	if (r->drop || !r->b.rc.raw)
		return 0;
	if (escrow_rcpts_verify(&r->b, r->secret, r->slen, e))
		return err_set(e, EX_FAIL, "%s's escrow recipients do not "
			       "match its secret: altered blob?", r->in);
	if (escrow_keep_stored(esc, &r->b, r->dropx, &r->kept, &r->dropped,
			       e))
		return e->code;
	r->stored = 1;
	return 0;
}

int reseal_escrow(struct reseal *r, struct escrow *esc, struct tberr *e)
{
	int rc;

	if (r->by_code && !r->new_code && !r->drop &&
	    (rc = escrow_keep_code(esc, r->code, r->clen, e)))
		return rc;
	if (escrow_wanted(esc))
		return escrow_make(esc, r->secret, r->slen, e);
	return 0;
}

void reseal_free(struct reseal *r)
{
	if (r->secret) {
		explicit_bzero(r->secret, r->slen);
		free(r->secret);
	}
	explicit_bzero(r->code, sizeof(r->code));
	auth_wipe(&r->oldauth);
	unseal_job_free(&r->j);
	escrow_blk_free(&r->b);
	free(r->text);
	r->secret = NULL;
	r->text = NULL;
}
