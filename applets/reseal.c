/* reseal: from an old blob to a new one in one step, the secret never in
 * a file: unsealed on this TPM while it still can be, else recovered from
 * the old blob's escrow copy; then sealed again (docs/blob-format.md,
 * "Resealing"). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/tty.h"
#include "fmt/keyfile.h"
#include "job/escrow.h"
#include "job/sealing.h"

static const char usage[] =
	"usage: reseal [-k KEYFILE | --recovery-code [AUTH]] [--old-auth AUTH] "
	"[--signature SIG.json]... [-p SELECTION[=VALUES]]... [-P PCRFILE]... "
	"[--authorized-by PUBKEY [--bank BANK]] [--auth AUTH] "
	"[--owner-auth AUTH] [--escrow RECIPIENT]... [--escrow-out PREFIX] "
	"[--recovery-code-out FILE] [--new-recovery-code] [--drop-escrow] "
	"[-f] -o NEW OLD\n"
	"Seal OLD's secret again on this TPM, to new PCRs, values or password,\n"
	"into NEW; the secret is never written to a file.  OLD is unsealed\n"
	"here when it still can be; else (PCRs moved, another TPM) its escrow\n"
	"copy is opened with -k or --recovery-code, as recover does.\n"
	"  -k KEYFILE  the escrow private key (PEM RSA/EC) or age identity\n"
	"             file, used when OLD does not unseal here\n"
	"  --recovery-code [AUTH]  OLD's recovery code (AUTH, the word before\n"
	"             OLD or =AUTH; asked on the terminal without one): opens\n"
	"             OLD when it does not unseal, and is kept for NEW\n"
	"  --old-auth AUTH  OLD's password (seal --auth)\n"
	"  --signature SIG.json  OLD's signed policies (unseal --signature)\n"
	"  -p SELECTION[=VALUES]  NEW's PCRs, as for seal (repeatable: one\n"
	"             state each)\n"
	"  -P PCRFILE  NEW's PCR values, as for seal (repeatable)\n"
	"  --authorized-by PUBKEY  NEW unseals with policies PUBKEY signs,\n"
	"             as for seal (--bank: their PCR bank)\n"
	"  --auth AUTH  NEW's password (seal --auth)\n"
	"  --owner-auth AUTH  owner password, when no SRK is persisted\n"
	"  --escrow RECIPIENT  NEW's escrow recipients, as for seal.  OLD\n"
	"             does not carry its recipients' public keys: give every\n"
	"             one again (more may be added), or --drop-escrow\n"
	"  --escrow-out PREFIX  also write NEW's copies as PREFIX.cms/.age\n"
	"  --recovery-code-out FILE  a new recovery code for NEW, to FILE\n"
	"             (OLD's code does not open NEW then)\n"
	"  --new-recovery-code  the same, shown once on the terminal\n"
	"  --drop-escrow  NEW need not have OLD's escrow recipients or code\n"
	"  -o NEW     the new blob (PEM, mode 0600, atomic)\n"
	"  -f         replace an existing NEW (or code and escrow files)\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n"
	"Exit 4: OLD does not unseal here and no key or code opens it, or\n"
	"the key or code is wrong; nothing is written then.\n";

static const char shortopts[] = "k:p:P:o:f";
static const struct option longopts[] = {
	{ "recovery-code", optional_argument, NULL, 'R' },
	{ "old-auth", required_argument, NULL, 'A' },
	{ "signature", required_argument, NULL, 'S' },
	{ "authorized-by", required_argument, NULL, 'Z' },
	{ "bank", required_argument, NULL, 'B' },
	{ "auth", required_argument, NULL, 'a' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ "escrow", required_argument, NULL, 'E' },
	{ "escrow-out", required_argument, NULL, 'X' },
	{ "recovery-code-out", required_argument, NULL, 'K' },
	{ "new-recovery-code", no_argument, NULL, 'C' },
	{ "drop-escrow", no_argument, NULL, 'D' },
	{ NULL, 0, NULL, 0 }
};

/* What reseal was asked. */
struct req {
	const char *keyfile, *codespec, *oldauth, *in, *out;
	struct seal_opts so;	/* NEW's -p/-P/--authorized-by/--auth */
	const char *sigs[UNSEAL_SIG_FILES];	/* OLD's --signature files */
	int nsig;
	const char *escrow_out, *code_out;
	int by_code, show_code, drop, force, nescrow;
};

/* NEW keeps OLD's recipients and code unless told otherwise: refuse to
 * drop them silently (their public keys are not in OLD: docs). */
static int check_keep(struct ctx *c, const struct req *r,
		      const struct escrow *esc, const struct escrow_blk *b)
{
	struct escrow_counts n;
	char what[160];

	if (r->drop || !b->raw)
		return 0;
	escrow_count(b, &n);
	escrow_holds(b, what, sizeof(what));
	if ((n.rsa || n.ec || n.age) && !r->nescrow) {
		err_set(&c->e, EX_USAGE, "%s has escrow copies (%s), and the "
			"blob does not hold its recipients' public keys",
			r->in, what);
		err_hint(&c->e, "give them again with --escrow, or "
			 "--drop-escrow to reseal without them");
		return ctx_fail(c);
	}
	if ((n.rsa || n.ec || n.age) && escrow_covers(esc, b, &c->e)) {
		err_prefix(&c->e, "%s", r->in);
		err_hint(&c->e, "give every recipient again, or --drop-escrow "
			 "to reseal for the ones given only");
		return ctx_fail(c);
	}
	if (n.code && !r->by_code && !r->code_out && !r->show_code) {
		err_set(&c->e, EX_USAGE, "%s has a recovery code: keep it "
			"(--recovery-code), make a new one (--recovery-code-out "
			"FILE or --new-recovery-code), or --drop-escrow",
			r->in);
		err_hint(&c->e, "a new code replaces the written-down one for "
			 "the new blob");
		return ctx_fail(c);
	}
	return 0;
}

/* The secret from OLD's escrow copy, with the key or the code. */
static int open_escrow(struct ctx *c, const struct req *r,
		       const struct escrow_blk *b, const char *code,
		       size_t clen, uint8_t **out, size_t *outlen)
{
	uint8_t *key = NULL;
	size_t klen = 0;
	int rc;

	if (r->keyfile) {
		if (file_read(r->keyfile, 1 << 20, &key, &klen, &c->e))
			return err_prefix(&c->e, "key file");
		rc = escrow_open_key(b, (const char *)key, klen, out, outlen,
				     &c->e);
		explicit_bzero(key, klen);
		free(key);
		return rc;
	}
	return escrow_open_code(b, code, clen, out, outlen, &c->e);
}

static int parse(struct ctx *c, struct req *r, struct escrow *esc, int argc,
		 char **argv)
{
	int o;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': r->keyfile = optarg; break;
		case 'R': r->by_code = 1; r->codespec = optarg; break;
		case 'A': r->oldauth = optarg; break;
		case 'p':
		case 'P':
			if (seal_opts_add(&r->so, o, optarg, &c->e))
				return ctx_fail(c);
			break;
		case 'Z': r->so.signer = optarg; break;
		case 'B': r->so.bank = optarg; break;
		case 'S':
			if (r->nsig == UNSEAL_SIG_FILES)
				return ctx_usage(c, "--signature: at most %d "
						 "files", UNSEAL_SIG_FILES);
			r->sigs[r->nsig++] = optarg;
			break;
		case 'a': r->so.authspec = optarg; break;
		case 'O': r->so.ownerspec = optarg; break;
		case 'o': r->out = optarg; break;
		case 'f': r->force = 1; break;
		case 'E':
			if (escrow_add(esc, optarg, &c->e))
				return ctx_fail(c);
			r->nescrow++;
			break;
		case 'X': r->escrow_out = optarg; break;
		case 'K': r->code_out = optarg; break;
		case 'C': r->show_code = 1; break;
		case 'D': r->drop = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	/* "--recovery-code AUTH OLD": the first of two words is AUTH */
	if (r->by_code && !r->codespec && argc - optind == 2)
		r->codespec = argv[optind++];
	if (argc - optind != 1)
		return ctx_usage(c, "one OLD blob is required");
	r->in = argv[optind];
	if (r->keyfile && r->by_code)
		return ctx_usage(c, "give -k KEYFILE or --recovery-code, not "
				 "both");
	if (!r->out)
		return ctx_usage(c, "-o NEW is required");
	if (strcmp(r->out, "-") == 0)
		return ctx_usage(c, "-o needs a file name (the blob is written "
				 "atomically with mode 0600)");
	if (r->keyfile && strcmp(r->keyfile, "-") == 0 &&
	    strcmp(r->in, "-") == 0)
		return ctx_usage(c, "the key and the old blob cannot both be "
				 "stdin");
	if (r->code_out || r->show_code)
		escrow_want_code(esc);
	if (r->escrow_out && !escrow_wanted(esc))
		return ctx_usage(c, "--escrow-out needs --escrow");
	if (r->show_code && tty_check("--new-recovery-code", &c->e)) {
		err_hint(&c->e, "write it to a file with --recovery-code-out");
		return ctx_fail(c);
	}
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct req r;
	struct escrow *esc = escrow_new();
	struct seal_spec *spec = calloc(1, sizeof(*spec));
	struct unseal_job *j = calloc(1, sizeof(*j));
	struct escrow_blk b = { 0 };
	struct authval oldauth = { .n = 0 };
	uint8_t *text = NULL, *secret = NULL, *copy = NULL;
	size_t tlen = 0, slen = 0, clen = 0, cplen = 0;
	char code[AUTH_MAX + 1], *pem = NULL;
	size_t pemlen = 0;
	int rc, keep;
	struct tpm *t = NULL;

	memset(&r, 0, sizeof(r));
	code[0] = '\0';
	if (!esc || !spec || !j) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	if ((rc = parse(c, &r, esc, argc, argv)))
		goto out;
	if (seal_spec_parse(spec, &r.so, &c->e) ||
	    (r.oldauth && auth_parse(r.oldauth, &oldauth, &c->e))) {
		rc = ctx_fail(c);
		goto out;
	}

	/* OLD, and what its escrow copies are for: NEW keeps them unless
	 * told otherwise, checked before the secret is touched. */
	if (file_read(r.in, ESCROW_BLOB_MAX, &text, &tlen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (escrow_read((const char *)text, tlen, &b, &c->e)) {
		if (c->e.code != EX_NOENT && !r.drop) {
			err_prefix(&c->e, "%s", r.in);
			err_hint(&c->e, "--drop-escrow reseals without OLD's "
				 "escrow copies");
			rc = ctx_fail(c);
			goto out;
		}
		err_clear(&c->e);
	}
	if ((rc = check_keep(c, &r, esc, &b)))
		goto out;
	if (r.by_code &&
	    (rc = auth_text(r.codespec, "Recovery code of the old blob: ",
			    code, sizeof(code), &clen, &c->e))) {
		rc = ctx_fail(c);
		goto out;
	}

	/* The secret: unsealed here while OLD still unseals, else from its
	 * escrow copy.  No fallback when the TPM cannot be reached: NEW
	 * could not be sealed either. */
	if (unseal_check(j, r.in, (const char *)text, tlen, r.oldauth != NULL,
			 &c->e) == 0 &&
	    unseal_signatures(j, r.sigs, r.nsig, &c->e) == 0) {
		if (!(t = ctx_tpm(c))) {
			rc = ctx_fail(c);
			goto out;
		}
		unseal_run(t, j, &oldauth, &spec->owner, &secret, &slen,
			   &c->e);
	}
	if (!secret) {
		int why = c->e.code;

		if ((!r.keyfile && !r.by_code) || why == EX_USAGE ||
		    why == EX_IO) {
			if (why == EX_USAGE && r.oldauth && !j->k.auth)
				err_set(&c->e, EX_USAGE, "%s was sealed "
					"without a password; drop --old-auth",
					r.in);
			else if (why == EX_AUTH && r.oldauth == NULL && j->k.auth)
				err_hint(&c->e, "OLD's password is "
					 "--old-auth");
			else if (b.raw && why != EX_USAGE && why != EX_IO)
				err_hint(&c->e, "give -k KEYFILE or "
					 "--recovery-code to reseal from OLD's "
					 "escrow copy");
			rc = ctx_fail(c);
			goto out;
		}
		err_clear(&c->e);
		if (!b.raw) {
			err_set(&c->e, EX_NOENT, "%s does not unseal here and "
				"has no escrow copies", r.in);
			rc = ctx_fail(c);
			goto out;
		}
		if (open_escrow(c, &r, &b, code, clen, &secret, &slen)) {
			err_prefix(&c->e, "%s does not unseal here; its "
				   "escrow copy", r.in);
			rc = ctx_fail(c);
			goto out;
		}
	} else if (r.by_code) {
		/* The code is kept: check that it is OLD's, and that OLD's
		 * copy holds what the TPM unsealed. */
		if (open_escrow(c, &r, &b, code, clen, &copy, &cplen)) {
			err_prefix(&c->e, "--recovery-code");
			rc = ctx_fail(c);
			goto out;
		}
		if (!secret || !copy || cplen != slen ||
		    memcmp(copy, secret, slen)) {
			err_set(&c->e, EX_FAIL, "%s: the recovery code's escrow "
				"copy does not hold the sealed secret (altered "
				"blob?)", r.in);
			rc = ctx_fail(c);
			goto out;
		}
	}

	/* NEW's escrow copies, on the host; OLD's code kept when it was
	 * given and no new one is asked for. */
	keep = r.by_code && !r.code_out && !r.show_code && !r.drop;
	if (keep && escrow_keep_code(esc, code, clen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (escrow_wanted(esc) && escrow_make(esc, secret, slen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* Sealed again on this TPM, and written as seal writes. */
	if ((!t && !(t = ctx_tpm(c))) ||
	    seal_blob(t, spec, secret, slen, &pem, &pemlen, &c->e) ||
	    seal_write(esc, &pem, &pemlen, r.out, r.escrow_out, r.code_out,
		       r.show_code, r.force, &c->e))
		rc = ctx_fail(c);
out:
	if (secret) {
		explicit_bzero(secret, slen);
		free(secret);
	}
	if (copy) {
		explicit_bzero(copy, cplen);
		free(copy);
	}
	explicit_bzero(code, sizeof(code));
	auth_wipe(&oldauth);
	if (spec)
		seal_spec_wipe(spec);
	free(spec);
	if (j)
		unseal_job_free(j);
	free(j);
	escrow_blk_free(&b);
	escrow_free(esc);
	free(text);
	free(pem);
	return rc;
}

const struct applet applet_reseal = {
	"reseal", "seal a blob's secret again (new PCRs, password, TPM)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
