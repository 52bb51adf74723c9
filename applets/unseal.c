/* unseal: recover a secret sealed by seal, on the TPM and in the state it
 * was sealed to. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "job/escrow.h"
#include "job/sealing.h"
#include "job/sealing12.h"
#include "job/tpm.h"

static const char usage[] =
	"usage: unseal [--signature SIG.json]... [--auth AUTH] "
	"[--owner-auth AUTH] [--srk-auth AUTH] [-f] [-o FILE] BLOB\n"
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
	"  On a TPM 1.2: BLOB is seal's 1.2 blob or a file tpm_sealdata\n"
	"             wrote (BEGIN TSS: its fixed values, no --auth)\n"
	"  --srk-auth AUTH  the 1.2 SRK's value (default: the well-known\n"
	"             one, as tpm_unsealdata -z)\n"
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
	{ "srk-auth", required_argument, NULL, 'K' },
	{ NULL, 0, NULL, 0 }
};

/* A TPM 1.2's blob (job/sealing12.h) on the TPM, the secret written. */
static int unseal12(struct ctx *c, const char *in, const uint8_t *text,
		    size_t tlen, const struct authval *auth,
		    const struct authval *srk, int twoonly, const char *out,
		    int force)
{
	uint8_t *secret = NULL;
	size_t slen = 0;
	struct tpm *t;
	int rc = 0;

	if (twoonly)
		return ctx_usage(c, "%s is a TPM 1.2 blob: --signature and "
				 "--owner-auth are for a TPM 2.0's", in);
	if (!(t = ctx_tpm(c)) ||
	    unseal12_run(t, in, (const char *)text, tlen, auth, srk, &secret,
			 &slen, &c->e) ||
	    file_write_atomic(out, secret, slen,
			      OUT_SECRET | (force ? OUT_FORCE : 0), &c->e))
		rc = ctx_fail(c);
	if (secret) {
		explicit_bzero(secret, slen);
		free(secret);
	}
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *authspec = NULL, *ownerspec = NULL, *out = "-", *in;
	const char *srkspec = NULL;
	const char *sigs[UNSEAL_SIG_FILES];
	int nsig = 0;
	struct authval auth = { .n = 0 }, owner = { .n = 0 }, srk = { .n = 0 };
	struct unseal_job *j = calloc(1, sizeof(*j));
	uint8_t *text = NULL, *secret = NULL;
	size_t tlen = 0, slen = 0;
	int o, force = 0, rc = 0, fam;
	struct tpm *t;

	if (!j) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'a': authspec = optarg; break;
		case 'O': ownerspec = optarg; break;
		case 'K': srkspec = optarg; break;
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
	    (ownerspec && auth_parse(ownerspec, &owner, &c->e)) ||
	    (srkspec && auth_parse(srkspec, &srk, &c->e)) ||
	    file_read(in, ESCROW_BLOB_MAX, &text, &tlen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* A 1.2 blob or tpm-tools' file: the 1.2 job. */
	if (unseal12_kind((const char *)text, tlen)) {
		rc = unseal12(c, in, text, tlen, authspec ? &auth : NULL,
			      srkspec ? &srk : NULL, nsig || ownerspec,
			      out, force);
		goto out;
	}
	if (srkspec) {
		rc = ctx_usage(c, "--srk-auth is for a TPM 1.2's blob");
		goto out;
	}

	/* The blob, checked before the TPM sees any of it; then unsealed
	 * under the SRK it names, and the secret written. */
	if (unseal_check(j, in, (const char *)text, tlen, authspec != NULL,
			 &c->e) ||
	    unseal_signatures(j, sigs, nsig, &c->e) ||
	    !(t = ctx_tpm(c))) {
		rc = ctx_fail(c);
		goto out;
	}
	fam = tpm_family_known(t);
	rc = unseal_run(t, j, &auth, &owner, &secret, &slen, &c->e);
	/* A 1.2's answer to a 2.0 blob's first command is asked again: two
	 * answers that differ are the bus's fault (exit 3). */
	if (tpm_answered_12(t, rc, fam) &&
	    tpm_family_confirm(t, TPM_FAMILY_20))
		err_set(&c->e, EX_FAIL, "%s was sealed on a TPM 2.0, and this "
			"TPM is a TPM 1.2", in);
	if (rc || file_write_atomic(out, secret, slen,
				    OUT_SECRET | (force ? OUT_FORCE : 0),
				    &c->e))
		rc = ctx_fail(c);
out:
	if (secret) {
		explicit_bzero(secret, slen);
		free(secret);
	}
	auth_wipe(&auth);
	auth_wipe(&owner);
	auth_wipe(&srk);
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
