/* takeown: set the hierarchy auth values, persist the standard SRK at
 * 0x81000001, optionally set the dictionary-attack parameters.  Auth
 * values travel over a session salted to the SRK with the new value
 * encrypted (AES-128-CFB), so they never cross the bus in clear. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "auth.h"
#include "file.h"
#include "hex.h"
#include "tpm2/owner.h"

static const char usage[] =
	"usage: takeown [--owner-auth AUTH] [--endorsement-auth AUTH]\n"
	"               [--lockout-auth AUTH] [--old-owner-auth AUTH]\n"
	"               [--old-endorsement-auth AUTH] [--old-lockout-auth "
	"AUTH]\n"
	"               [--srk-pub FILE] [--rsa] [--force] [--max-tries N]\n"
	"               [--recovery-time S] [--lockout-recovery S] [-v]\n"
	"Take ownership: persist the TCG standard storage root key (SRK) at\n"
	"0x81000001, set the hierarchy auth values given, print the SRK name.\n"
	"Running it again with the same values changes nothing.\n"
	"  --owner-auth AUTH        new owner (storage) hierarchy auth value\n"
	"  --endorsement-auth AUTH  new endorsement hierarchy auth value\n"
	"  --lockout-auth AUTH      new lockout auth value\n"
	"  --old-owner-auth AUTH    current owner auth (when one is set)\n"
	"  --old-endorsement-auth AUTH  current endorsement auth\n"
	"  --old-lockout-auth AUTH  current lockout auth\n"
	"  --srk-pub FILE           write the SRK public key as PEM\n"
	"  --rsa                    RSA-2048 SRK (default: ECC NIST P-256)\n"
	"  --force                  replace a different object at 0x81000001\n"
	"                           and a different --srk-pub file\n"
	"  --max-tries N            dictionary attack: failures before lockout\n"
	"  --recovery-time S        seconds to forget one failure\n"
	"  --lockout-recovery S     seconds before lockout auth may be retried\n"
	"  -v                       say what was done on stderr\n"
	"AUTH: str:TEXT hex:HEX file:PATH file:- env:VAR (see tpmbox(1)).\n";

struct opts {
	struct tpm2_own own;	/* the job */
	const char *newspec[TPM2_NHIER], *oldspec[TPM2_NHIER];
	const char *srkpub;
	int verbose;
};

static int parse_u32(struct ctx *c, const char *opt, const char *s,
		     uint32_t *v)
{
	uint64_t x;

	if (parse_u64(s, &x) || x > 0xffffffffu)
		return ctx_usage(c, "%s: bad number '%s'", opt, s);
	*v = (uint32_t)x;
	return 0;
}

static const char shortopts[] = "v";
static const struct option longopts[] = {
	{"owner-auth", required_argument, NULL, 'o'},
	{"endorsement-auth", required_argument, NULL, 'e'},
	{"lockout-auth", required_argument, NULL, 'l'},
	{"old-owner-auth", required_argument, NULL, 'O'},
	{"old-endorsement-auth", required_argument, NULL, 'E'},
	{"old-lockout-auth", required_argument, NULL, 'L'},
	{"srk-pub", required_argument, NULL, 'p'},
	{"rsa", no_argument, NULL, 'r'},
	{"force", no_argument, NULL, 'f'},
	{"max-tries", required_argument, NULL, 'm'},
	{"recovery-time", required_argument, NULL, 't'},
	{"lockout-recovery", required_argument, NULL, 'R'},
	{NULL, 0, NULL, 0}
};

static int parse_opts(struct ctx *c, int argc, char **argv, struct opts *o)
{
	int ch, i;

	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'o': o->newspec[TPM2_HIER_OWNER] = optarg; break;
		case 'e': o->newspec[TPM2_HIER_ENDORSEMENT] = optarg; break;
		case 'l': o->newspec[TPM2_HIER_LOCKOUT] = optarg; break;
		case 'O': o->oldspec[TPM2_HIER_OWNER] = optarg; break;
		case 'E': o->oldspec[TPM2_HIER_ENDORSEMENT] = optarg; break;
		case 'L': o->oldspec[TPM2_HIER_LOCKOUT] = optarg; break;
		case 'p': o->srkpub = optarg; break;
		case 'r': o->own.rsa = 1; break;
		case 'f': o->own.force = 1; break;
		case 'v': o->verbose = 1; break;
		case 'm':
			if (parse_u32(c, "--max-tries", optarg,
				      &o->own.da[0]))
				return EX_USAGE;
			o->own.has_da[0] = 1;
			break;
		case 't':
			if (parse_u32(c, "--recovery-time", optarg,
				      &o->own.da[1]))
				return EX_USAGE;
			o->own.has_da[1] = 1;
			break;
		case 'R':
			if (parse_u32(c, "--lockout-recovery", optarg,
				      &o->own.da[2]))
				return EX_USAGE;
			o->own.has_da[2] = 1;
			break;
		default:
			return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	for (i = 0; i < TPM2_NHIER; i++) {
		struct tpm2_hier *h = &o->own.h[i];

		if (o->newspec[i]) {
			if (auth_parse(o->newspec[i], &h->nw, &c->e))
				return ctx_fail(c);
			h->has_new = 1;
		}
		if (o->oldspec[i]) {
			if (auth_parse(o->oldspec[i], &h->old, &c->e))
				return ctx_fail(c);
			h->has_old = 1;
		}
	}
	return 0;
}

/* -v: say what was done, as it is done. */
static void done(const struct tpm2_own *own, int ev, int i)
{
	const struct opts *o = own->arg;
	const char *type = own->rsa ? "RSA-2048" : "ECC P-256";

	if (!o->verbose)
		return;
	switch (ev) {
	case TPM2_OWN_SRK_KEPT:
		fprintf(stderr, "takeown: %s SRK at 0x81000001 kept\n", type);
		break;
	case TPM2_OWN_SRK_EVICTED:
		fprintf(stderr, "takeown: evicted the object at "
			"0x81000001\n");
		break;
	case TPM2_OWN_SRK_MADE:
		fprintf(stderr, "takeown: %s SRK created and persisted at "
			"0x81000001\n", type);
		break;
	case TPM2_OWN_AUTH_SET:
	case TPM2_OWN_AUTH_CONFIRMED:
		fprintf(stderr, "takeown: %s auth value %s\n",
			tpm2_hier_name[i], ev == TPM2_OWN_AUTH_SET ? "set" :
			"confirmed or changed");
		break;
	case TPM2_OWN_DA_SAME:
		fprintf(stderr, "takeown: dictionary-attack parameters "
			"unchanged\n");
		break;
	case TPM2_OWN_DA_SET:
		fprintf(stderr, "takeown: dictionary-attack parameters "
			"set\n");
		break;
	}
}

/* Report a failure of tpm2_takeown in takeown's own words: which option
 * gives the value that was wrong or missing. */
static int failed(struct ctx *c, const struct opts *o, int rc)
{
	const struct tpm2_own *own = &o->own;
	char why[sizeof(c->e.msg)];
	int i = own->refused;
	const char *n;

	if (own->unknown >= 0) {
		n = tpm2_hier_name[own->unknown];
		err_set(&c->e, EX_AUTH, "the %s auth value is set and %s "
			"needs it; give it with --old-%s-auth or --%s-auth",
			n, own->unknown_for, n, n);
	} else if (own->blocked) {
		err_hint(&c->e, "--force evicts it and persists the standard "
			 "SRK (keys sealed under it are lost)");
	} else if (i >= 0 && rc == EX_AUTH) {
		n = tpm2_hier_name[i];
		memcpy(why, c->e.msg, sizeof(why));
		if (o->oldspec[i])
			err_set(&c->e, EX_AUTH, "the %s auth value given with "
				"--old-%s-auth is wrong (%s)", n, n, why);
		else
			err_set(&c->e, EX_AUTH, "the %s auth value is already "
				"set and is not the one given; give its current "
				"value with --old-%s-auth (%s)", n, n, why);
		if (i == TPM2_HIER_LOCKOUT)
			err_hint(&c->e, "a wrong lockout value blocks lockout "
				 "authorization for the lockout recovery "
				 "time");
	}
	return ctx_fail(c);
}

/* --srk-pub: the SRK's public key as PEM (unchanged when the file holds
 * it already). */
static int write_srk_pub(struct ctx *c, const struct opts *o)
{
	size_t len;
	char *pem;
	int rc;

	if ((rc = tpm2_srk_pem(&o->own.srk, &pem, &len, &c->e)))
		return rc;
	rc = file_write_same(o->srkpub, pem, len,
			     o->own.force ? OUT_FORCE : 0, &c->e);
	free(pem);
	if (rc && !o->own.force)
		err_hint(&c->e, "--force replaces it");
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct opts o;
	char hexname[2 * TPM2_NAME_MAX + 1];
	struct tpm *t;
	int rc;

	memset(&o, 0, sizeof(o));
	o.own.done = done;
	o.own.arg = &o;
	if ((rc = parse_opts(c, argc, argv, &o)))
		goto out;
	if (!(t = ctx_tpm(c))) {
		rc = ctx_fail(c);
		goto out;
	}
	if ((rc = tpm2_takeown(t, &o.own))) {
		rc = failed(c, &o, rc);
		goto out;
	}
	if (o.srkpub && write_srk_pub(c, &o)) {
		rc = ctx_fail(c);
		goto out;
	}
	hex_encode(o.own.srk.name, o.own.srk.namelen, hexname);
	printf("%s\n", hexname);
	rc = 0;
out:
	tpm2_own_wipe(&o.own);
	return rc;
}

const struct applet applet_takeown = {
	"takeown", "set hierarchy auth values and persist the SRK", usage, run,
	shortopts, longopts, APPLET_PIN_NAME
};
