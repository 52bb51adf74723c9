/* recover: open an escrow copy of a sealed secret without any TPM, with
 * the escrow private key, an age identity or the recovery code
 * (docs/blob-format.md, "Escrow copies"). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "job/escrow.h"

static const char usage[] =
	"usage: recover [-k KEYFILE | --recovery-code [AUTH]] [-o FILE] [-f] "
	"BLOB\n"
	"Open an escrow copy that seal --escrow or --recovery-code* put in\n"
	"BLOB, with no TPM at all (the TPM is never opened), and write the\n"
	"secret.  Exit 4 when the key or code does not open it, 1 when the\n"
	"copy is damaged or altered; nothing is written then.\n"
	"  -k KEYFILE  a PEM private key (RSA or EC: PKCS#8, PKCS#1 or SEC 1,\n"
	"             not encrypted) for the CMS copy, or an age identity\n"
	"             file (AGE-SECRET-KEY-1...) for the age copy; - is stdin\n"
	"  --recovery-code [AUTH]  the recovery code, as AUTH (file:PATH,\n"
	"             env:VAR, file:-; the word before BLOB, or =AUTH);\n"
	"             without AUTH it is asked on the terminal without echo\n"
	"  -o FILE    write the secret here (atomic, mode 0600; default\n"
	"             stdout)\n"
	"  -f         replace an existing FILE\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

static const char shortopts[] = "k:o:f";
static const struct option longopts[] = {
	{ "recovery-code", optional_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 }
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyfile = NULL, *codespec = NULL, *out = "-", *in;
	struct escrow_blk b = { 0 };
	uint8_t *text = NULL, *secret = NULL;
	size_t tlen = 0, slen = 0, clen = 0;
	char code[AUTH_MAX + 1];
	int o, force = 0, by_code = 0, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': keyfile = optarg; break;
		case 'R': by_code = 1; codespec = optarg; break;
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	/* "--recovery-code AUTH BLOB": the first of two words is AUTH */
	if (by_code && !codespec && argc - optind == 2)
		codespec = argv[optind++];
	if (argc - optind != 1)
		return ctx_usage(c, "one BLOB is required");
	in = argv[optind];
	if (!keyfile == !by_code)
		return ctx_usage(c, "give -k KEYFILE or --recovery-code (one "
				 "of them)");
	if (keyfile && strcmp(keyfile, "-") == 0 && strcmp(in, "-") == 0)
		return ctx_usage(c, "the key and the blob cannot both be "
				 "stdin");

	/* The blob's escrow copies. */
	if (file_read(in, ESCROW_BLOB_MAX, &text, &tlen, &c->e) ||
	    escrow_read((const char *)text, tlen, &b, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	free(text);
	text = NULL;

	/* Open one with the key, or with the code. */
	if (keyfile) {
		rc = escrow_open_keyfile(&b, keyfile, &secret, &slen, &c->e);
	} else {
		rc = auth_text(codespec, "Recovery code: ", code,
			       sizeof(code), &clen, &c->e);
		if (!rc)
			rc = escrow_open_code(&b, code, clen, &secret, &slen,
					      &c->e);
	}
	if (rc) {
		rc = ctx_fail(c);
		goto out;
	}

	/* The secret. */
	if (file_write_atomic(out, secret, slen,
			      OUT_SECRET | (force ? OUT_FORCE : 0), &c->e))
		rc = ctx_fail(c);
out:
	if (secret) {
		explicit_bzero(secret, slen);
		free(secret);
	}
	explicit_bzero(code, sizeof(code));
	free(text);
	escrow_blk_free(&b);
	return rc;
}

const struct applet applet_recover = {
	"recover", "open an escrow copy of a sealed blob without the TPM",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
