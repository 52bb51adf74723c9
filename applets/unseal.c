/* unseal: recover a secret sealed by seal, on the TPM and in the state it
 * was sealed to. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "auth.h"
#include "escrow.h"
#include "file.h"
#include "sealing.h"

static const char usage[] =
	"usage: unseal [--signature SIG.json]... [--auth AUTH] "
	"[--owner-auth AUTH] [-f] [-o FILE] BLOB\n"
	"Unseal BLOB (made by seal) and write the secret to stdout or FILE.\n"
	"The SRK must be the key the blob was sealed under (its name is\n"
	"checked), the PCRs must have the sealed values, and the password\n"
	"must match.  The secret crosses the bus encrypted (salted session).\n"
	"  --signature SIG.json  signed PCR policies for a blob sealed with\n"
	"             --authorized-by (systemd-measure sign's JSON, or\n"
	"             tpmbox policysign's; repeatable): the one signed for\n"
	"             the PCRs now is used\n"
	"  --auth AUTH  the password given to seal --auth\n"
	"  --owner-auth AUTH  owner password, to recreate the SRK when none\n"
	"             is persisted\n"
	"  -o FILE    write the secret to FILE (mode 0600, atomic)\n"
	"  -f         replace an existing FILE\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n"
	"Exit 4: PCRs changed, no signed policy matches them, or wrong\n"
	"password (the message says which);\n"
	"exit 5: the TPM is in dictionary-attack lockout.\n";

static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{ "auth", required_argument, NULL, 'a' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ "signature", required_argument, NULL, 'S' },
	{ NULL, 0, NULL, 0 }
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *authspec = NULL, *ownerspec = NULL, *out = "-", *in;
	const char *sigs[UNSEAL_SIG_FILES];
	int nsig = 0;
	struct authval auth = { .n = 0 }, owner = { .n = 0 };
	struct unseal_job *j = calloc(1, sizeof(*j));
	uint8_t *text = NULL, *secret = NULL;
	size_t tlen = 0, slen = 0;
	int o, force = 0, rc = 0;
	struct tpm *t;

	if (!j) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'a': authspec = optarg; break;
		case 'O': ownerspec = optarg; break;
		case 'S':
			if (nsig == UNSEAL_SIG_FILES) {
				rc = ctx_usage(c, "--signature: at most %d "
					       "files", UNSEAL_SIG_FILES);
				goto out;
			}
			sigs[nsig++] = optarg;
			break;
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		default: rc = ctx_usage(c, "unknown option"); goto out;
		}
	}
	if (optind != argc - 1) {
		rc = ctx_usage(c, "expected one BLOB");
		goto out;
	}
	in = argv[optind];
	if ((authspec && auth_parse(authspec, &auth, &c->e)) ||
	    (ownerspec && auth_parse(ownerspec, &owner, &c->e))) {
		rc = ctx_fail(c);
		goto out;
	}

	/* The blob, checked before the TPM sees any of it; then unsealed
	 * under the SRK it names, and the secret written. */
	if (file_read(in, ESCROW_BLOB_MAX, &text, &tlen, &c->e) ||
	    unseal_check(j, in, (const char *)text, tlen, authspec != NULL,
			 &c->e) ||
	    unseal_signatures(j, sigs, nsig, &c->e) ||
	    !(t = ctx_tpm(c)) ||
	    unseal_run(t, j, &auth, &owner, &secret, &slen, &c->e) ||
	    file_write_atomic(out, secret, slen,
			      OUT_SECRET | (force ? OUT_FORCE : 0), &c->e))
		rc = ctx_fail(c);
out:
	if (secret) {
		explicit_bzero(secret, slen);
		free(secret);
	}
	auth_wipe(&auth);
	auth_wipe(&owner);
	if (j)
		unseal_job_free(j);
	free(j);
	free(text);
	return rc;
}

const struct applet applet_unseal = {
	"unseal", "unseal a secret sealed by seal", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
