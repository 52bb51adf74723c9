/* reseal: from an old blob to a new one in one step, the secret never in
 * a file: unsealed on this TPM while it still can be, else recovered from
 * the old blob's escrow copy; then sealed again (docs/blob-format.md,
 * "Resealing"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/tty.h"
#include "job/escrow.h"
#include "job/reseal.h"
#include "job/sealing.h"

static const char usage[] =
	"usage: reseal [-k KEYFILE | --recovery-code [AUTH]] [--old-auth AUTH] "
	"[--signature SIG.json]... [-p SELECTION[=VALUES]]... [-P PCRFILE]... "
	"[--authorized-by PUBKEY [--bank BANK]] [--auth AUTH] "
	"[--owner-auth AUTH] [--escrow RECIPIENT]... [--escrow-out PREFIX] "
	"[--recovery-code-out FILE] [--new-recovery-code] "
	"[--drop-escrow[=RECIPIENT]]... [-f] -o NEW OLD\n"
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
	"  --escrow RECIPIENT  one more escrow recipient for NEW, as for\n"
	"             seal.  NEW's copies are for OLD's recipients (stored\n"
	"             in OLD, checked with the secret) and these; OLD made\n"
	"             before they were stored, or with a secret under 16\n"
	"             bytes, does not hold them: give every one again\n"
	"  --escrow-out PREFIX  also write NEW's copies as PREFIX.cms/.age\n"
	"  --recovery-code-out FILE  a new recovery code for NEW, to FILE\n"
	"             (OLD's code does not open NEW then)\n"
	"  --new-recovery-code  the same, shown once on the terminal\n"
	"  --drop-escrow[=RECIPIENT]  alone: NEW need not have OLD's escrow\n"
	"             recipients or code; =RECIPIENT (a file or age1..., as\n"
	"             for --escrow; repeatable): NEW's copies are not for\n"
	"             this one of OLD's stored recipients\n"
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
	{ "drop-escrow", optional_argument, NULL, 'D' },
	{ NULL, 0, NULL, 0 }
};

/* What reseal was asked: OLD's side in the job (job/reseal.h), NEW's
 * here. */
struct req {
	struct reseal *rs;
	struct seal_opts so;	/* NEW's -p/-P/--authorized-by/--auth */
	const char *out, *escrow_out, *code_out;
	int show_code, force;
};

static int parse(struct ctx *c, struct req *r, struct escrow *esc, int argc,
		 char **argv)
{
	struct reseal *rs = r->rs;
	int o;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': rs->keyfile = optarg; break;
		case 'R': rs->by_code = 1; rs->codespec = optarg; break;
		case 'A': rs->oldspec = optarg; break;
		case 'p':
		case 'P':
			if (seal_opts_add(&r->so, o, optarg, &c->e))
				return ctx_fail(c);
			break;
		case 'Z': r->so.signer = optarg; break;
		case 'B': r->so.bank = optarg; break;
		case 'S':
			if (rs->nsig == UNSEAL_SIG_FILES)
				return ctx_usage(c, "--signature: at most %d "
						 "files", UNSEAL_SIG_FILES);
			rs->sigs[rs->nsig++] = optarg;
			break;
		case 'a': r->so.authspec = optarg; break;
		case 'O': r->so.ownerspec = optarg; break;
		case 'o': r->out = optarg; break;
		case 'f': r->force = 1; break;
		case 'E':
			if (escrow_add(esc, optarg, &c->e))
				return ctx_fail(c);
			rs->nescrow++;
			break;
		case 'X': r->escrow_out = optarg; break;
		case 'K': r->code_out = optarg; break;
		case 'C': r->show_code = 1; break;
		case 'D':
			if (!optarg)
				rs->drop = 1;
			else if (escrow_add(rs->dropx, optarg, &c->e))
				return ctx_fail(c);
			break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	/* "--recovery-code AUTH OLD": the first of two words is AUTH */
	if (rs->by_code && !rs->codespec && argc - optind == 2)
		rs->codespec = argv[optind++];
	if (argc - optind != 1)
		return ctx_usage(c, "one OLD blob is required");
	rs->in = argv[optind];
	if (rs->keyfile && rs->by_code)
		return ctx_usage(c, "give -k KEYFILE or --recovery-code, not "
				 "both");
	if (!r->out)
		return ctx_usage(c, "-o NEW is required");
	if (strcmp(r->out, "-") == 0)
		return ctx_usage(c, "-o needs a file name (the blob is written "
				 "atomically with mode 0600)");
	if (rs->keyfile && strcmp(rs->keyfile, "-") == 0 &&
	    strcmp(rs->in, "-") == 0)
		return ctx_usage(c, "the key and the old blob cannot both be "
				 "stdin");
	rs->new_code = r->code_out || r->show_code;
	if (rs->new_code)
		escrow_want_code(esc);
	if (rs->drop && escrow_wanted(rs->dropx))
		return ctx_usage(c, "--drop-escrow drops every recipient; "
				 "--drop-escrow=RECIPIENT one of them: give "
				 "one or the other");
	if (r->escrow_out && rs->drop && !escrow_wanted(esc))
		return ctx_usage(c, "--escrow-out needs --escrow (with "
				 "--drop-escrow, NEW has no other recipient)");
	if (r->show_code && tty_check("--new-recovery-code", &c->e)) {
		err_hint(&c->e, "write it to a file with --recovery-code-out");
		return ctx_fail(c);
	}
	return 0;
}

/* One line: which recipients NEW's copies are for. */
static void say_recipients(const struct req *r, const struct escrow *esc)
{
	const struct reseal *rs = r->rs;
	size_t rsa, ec, age, given;
	int code;
	char from[96] = "";

	escrow_recipients(esc, &rsa, &ec, &age, &code);
	if (!escrow_wanted(esc)) {
		if (rs->b.raw)
			fprintf(stderr, "tpmbox reseal: %s has no escrow "
				"copies\n", r->out);
		return;
	}
	given = rsa + ec + age;
	if (rs->stored)
		snprintf(from, sizeof(from), " (%zu kept from %s, %zu added, "
			 "%zu dropped)", rs->kept, rs->in, given - rs->kept,
			 rs->dropped);
	fprintf(stderr, "tpmbox reseal: %s's escrow copies are for %zu RSA "
		"key(s), %zu EC key(s), %zu age recipient(s)%s%s\n", r->out,
		rsa, ec, age, code ? " and a recovery code" : "", from);
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct req r = { .rs = calloc(1, sizeof(*r.rs)) };
	struct reseal *rs = r.rs;
	struct escrow *esc = escrow_new(), *drop = escrow_new();
	struct seal_spec *spec = calloc(1, sizeof(*spec));
	char *pem = NULL;
	size_t pemlen = 0;
	struct tpm *t = NULL;
	int rc;

	if (!esc || !drop || !spec || !rs) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	rs->dropx = drop;
	if ((rc = parse(c, &r, esc, argc, argv)))
		goto out;
	if (seal_spec_parse(spec, &r.so, &c->e) ||
	    (rs->oldspec && auth_parse(rs->oldspec, &rs->oldauth, &c->e)))
		goto fail;
	/* OLD, and what its escrow copies are for: NEW keeps them unless
	 * told otherwise, checked before the secret is touched. */
	if (reseal_old(rs, esc, &c->e))
		goto fail;
	if (r.escrow_out && !escrow_wanted(esc) && !rs->b.rc.raw) {
		rc = ctx_usage(c, "--escrow-out needs --escrow (%s holds no "
			       "stored recipients)", rs->in);
		goto out;
	}
	/* The secret: unsealed here while OLD still unseals, else from its
	 * escrow copy.  No fallback when the TPM cannot be reached: NEW
	 * could not be sealed either. */
	if ((reseal_here(rs, &c->e) == 0 && !(t = ctx_tpm(c))) ||
	    reseal_secret(t, rs, &spec->owner, &c->e))
		goto fail;
	/* NEW's recipients: OLD's stored ones, checked with the secret,
	 * and those given now; NEW's escrow copies for them, on the host;
	 * sealed again on this TPM, and written as seal writes. */
	if (reseal_recipients(rs, esc, &c->e))
		goto fail;
	if (r.escrow_out && !escrow_wanted(esc)) {
		rc = ctx_usage(c, "--escrow-out: NEW has no escrow copies (every "
			       "recipient dropped)");
		goto out;
	}
	if (reseal_escrow(rs, esc, &c->e) ||
	    (!t && !(t = ctx_tpm(c))) ||
	    seal_blob(t, spec, rs->secret, rs->slen, &pem, &pemlen, &c->e) ||
	    seal_write(esc, &pem, &pemlen, r.out, r.escrow_out, r.code_out,
		       r.show_code, r.force, &c->e))
		goto fail;
	say_recipients(&r, esc);
	goto out;
fail:
	rc = ctx_fail(c);
out:
	if (rs)
		reseal_free(rs);
	free(rs);
	if (spec)
		seal_spec_wipe(spec);
	free(spec);
	escrow_free(esc);
	escrow_free(drop);
	free(pem);
	return rc;
}

const struct applet applet_reseal = {
	"reseal", "seal a blob's secret again (new PCRs, password, TPM)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
