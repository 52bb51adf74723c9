/* takeown: set the hierarchy auth values, persist the standard SRK at
 * 0x81000001, optionally set the dictionary-attack parameters.  Auth
 * values travel over a session salted to the SRK with the new value
 * encrypted (AES-128-CFB), so they never cross the bus in clear. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/auth.h"
#include "job/owner.h"
#include "job/tpm.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: takeown [--owner-auth AUTH] [--endorsement-auth AUTH]\n"
	"               [--lockout-auth AUTH] [--old-owner-auth AUTH]\n"
	"               [--old-endorsement-auth AUTH] [--old-lockout-auth "
	"AUTH]\n"
	"               [--srk-pub FILE] [--no-remember] [--rsa] [--force]\n"
	"               [--max-tries N] [--recovery-time S] "
	"[--lockout-recovery S]\n"
	"               [--banks LIST [--platform-auth AUTH]] "
	"[--ek[=rsa|ecc]]\n"
	"               [--ek-ca FILE|DIR] [--dry-run] [--json] [-v]\n"
	"Take ownership, one idempotent step after another: the TCG standard\n"
	"storage root key (SRK) at 0x81000001, the PCR banks, the hierarchy\n"
	"auth values, the EK, the dictionary-attack parameters.  Prints the\n"
	"SRK name.  Running it again with the same options changes nothing.\n"
	"  --owner-auth AUTH        new owner (storage) hierarchy auth value\n"
	"  --endorsement-auth AUTH  new endorsement hierarchy auth value\n"
	"  --lockout-auth AUTH      new lockout auth value\n"
	"  --old-owner-auth AUTH    current owner auth (when one is set)\n"
	"  --old-endorsement-auth AUTH  current endorsement auth\n"
	"  --old-lockout-auth AUTH  current lockout auth\n"
	"  --srk-pub FILE           write the SRK public key as PEM\n"
	"  --no-remember            do not write it to /etc/tpmbox/srk.pem\n"
	"                           (TPMBOX_SRK_FILE), which every later\n"
	"                           process pins to\n"
	"  --rsa                    RSA-2048 SRK (default: ECC NIST P-256)\n"
	"  --force                  replace a different object at 0x81000001\n"
	"                           or the EK handle, a different --srk-pub\n"
	"  --max-tries N            dictionary attack: failures before lockout\n"
	"  --recovery-time S        seconds to forget one failure\n"
	"  --lockout-recovery S     seconds before lockout auth may be retried\n"
	"  --banks LIST             make LIST (e.g. sha256) the active PCR\n"
	"                           banks (as pcrallocate; exit 7: at the next\n"
	"                           reboot)\n"
	"  --platform-auth AUTH     the platform value for --banks (empty)\n"
	"  --ek[=rsa|ecc]           persist the EK (TCG template) at\n"
	"                           0x81010001 (rsa, default) or 0x81010002\n"
	"  --ek-ca FILE|DIR         first contact you can trust: salt the "
	"session to\n"
	"                           the EK whose certificate in NV verifies "
	"to a CA\n"
	"                           here, so the values reach this TPM and "
	"the SRK\n"
	"                           name printed is its own, interposer or "
	"not\n"
	"  --dry-run                say what each step needs; change nothing\n"
	"                           (the lockout value is not tried)\n"
	"  --json                   a JSON report of the steps on stdout\n"
	"  -v                       say each step on stderr\n"
	"  --srk-auth AUTH          TPM 1.2: the SRK's value (default: the\n"
	"                           well-known secret, as tpm_takeownership -z)\n"
	"On a TPM 1.2: TPM_TakeOwnership with --owner-auth and --srk-auth\n"
	"(SHA-1 of each, as tpm-tools makes them from passwords; the well-known\n"
	"secret by default, as tpm_takeownership -y -z) encrypted to the EK;\n"
	"owned already: the owner value is confirmed, nothing changes.  Prints\n"
	"the SRK's SHA-1 (of its TPM_PUBKEY).  --srk-pub, --force, --dry-run,\n"
	"--json and -v work as on a TPM 2.0; the other options are TPM 2.0's.\n"
	"AUTH: str:TEXT hex:HEX file:PATH file:- env:VAR (see tpmbox(1)).\n";


struct opts {
	struct owner_job j;	/* the job */
	const char *srkpub;
	const char *ekca;	/* --ek-ca */
	struct ekcert_trusted ek;	/* what --ek-ca found */
	int verbose, json, no_remember;
};

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
	{"banks", required_argument, NULL, 'b'},
	{"platform-auth", required_argument, NULL, 'P'},
	{"ek", optional_argument, NULL, 'k'},
	{"dry-run", no_argument, NULL, 'n'},
	{"json", no_argument, NULL, 'j'},
	{"srk-auth", required_argument, NULL, 'S'},
	{"ek-ca", required_argument, NULL, 'C'},
	{"no-remember", no_argument, NULL, 'M'},
	{NULL, 0, NULL, 0}
};

static int parse_opts(struct ctx *c, int argc, char **argv, struct opts *o)
{
	struct tpm2_own *own = &o->j.own;
	int ch;

	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		switch (ch) {
		/* the hierarchies' values, in TPM2_HIER_* order */
		case 'o': case 'e': case 'l':
			o->j.nwspec[strchr("oel", ch) - "oel"] = optarg;
			break;
		case 'O': case 'E': case 'L':
			o->j.oldspec[strchr("OEL", ch) - "OEL"] = optarg;
			break;
		case 'P': o->j.platspec = optarg; break;
		case 'S': o->j.srkspec = optarg; break;
		case 'p': o->srkpub = optarg; break;
		case 'C': o->ekca = optarg; break;
		case 'M': o->no_remember = 1; break;
		case 'r': own->rsa = 1; break;
		case 'f': own->force = 1; break;
		case 'v': o->verbose = 1; break;
		case 'n': own->dry = 1; break;
		case 'j': o->json = 1; break;
		case 'b':
			if (pcr_banks_parse(optarg, own->banks, &own->nbanks,
					    &c->e))
				return ctx_fail(c);
			break;
		case 'k':
			if (owner_ek_opt(own, optarg, &c->e))
				return ctx_fail(c);
			break;
		case 'm': case 't': case 'R':
			if (owner_da_opt(own, strchr("mtR", ch) - "mtR",
					 optarg, &c->e))
				return ctx_fail(c);
			break;
		default:
			return ctx_usage(c, "unknown option");
		}
		if (strchr("elOELrPbkmtRCM", ch))
			o->j.only20 = 1;
	}
	if (ctx_no_operands(c, argc, argv))
		return EX_USAGE;
	if (o->j.platspec && !own->nbanks)
		return ctx_usage(c, "--platform-auth is for --banks");
	return owner_values(&o->j, &c->e) ? ctx_fail(c) : 0;
}

/* -v: each step said at once on stderr. */
static void said(void *arg, const struct owner_step *s)
{
	fprintf(stderr, "takeown: %s: %s (%s)\n", owner_step_name(s),
		owner_result_words(s->result), s->detail);
	(void)arg;
}

/* The report: the SRK name (2.0) or SHA-1 (1.2), or in a dry run the
 * steps, as text; or the steps and all that as JSON. */
static void report(const struct opts *o)
{
	const struct owner_job *j = &o->j;
	const struct owner_step *s;
	int i;

	if (o->json) {
		printf("{%s\"dry_run\":%s,\"steps\":[", j->fam12 ?
		       "\"family\":\"1.2\"," : "", j->own.dry ? "true" :
		       "false");
		for (i = 0, s = j->st; i < j->nst; i++, s++)
			printf("%s{\"step\":\"%s\",\"result\":\"%s\","
			       "\"detail\":\"%s\"}", i ? "," : "",
			       owner_step_name(s),
			       owner_result_json(s->result), s->detail);
		printf("],\"%s\":", j->fam12 ? "srk_hash" : "srk_name");
		printf(*j->srk ? "\"%s\"" : "null", j->srk);
		if (o->ek.slot) {
			printf(",\"salted_to\":{\"ek\":\"%s\",\"ca\":",
			       o->ek.slot);
			ctx_json_str(o->ek.anchor);
			printf("}");
		}
		printf(",\"reboot\":%s}\n", j->own.reboot ? "true" : "false");
	} else if (j->own.dry) {
		for (i = 0, s = j->st; i < j->nst; i++, s++)
			printf("%s: %s (%s)\n", owner_step_name(s),
			       owner_result_words(s->result), s->detail);
	} else {
		printf("%s\n", j->srk);
	}
}

/* Remember the SRK where every later process looks (applet.c's
 * ctx_srk_file): /etc/tpmbox/srk.pem only as root. */
static int remember(const struct opts *o, struct tpm *t, struct tberr *e)
{
	const char *path = ctx_srk_file(t);
	int rc;

	if (!path || o->j.fam12 || o->j.own.dry)
		return 0;
	if (!getenv("TPMBOX_SRK_FILE") && geteuid() != 0) {
		if (o->verbose)
			fprintf(stderr, "takeown: the SRK is not remembered "
				"in %s: not root\n", path);
		return 0;
	}
	if ((rc = owner_srk_remember(&o->j, path, e)))
		return rc;
	if (o->verbose)
		fprintf(stderr, "takeown: the SRK is remembered in %s: every "
			"later process pins to it\n", path);
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct opts *o = calloc(1, sizeof(*o));
	struct tpm *t;
	int rc, fam;

	if (!o)
		return ctx_usage(c, "out of memory");
	if ((rc = parse_opts(c, argc, argv, o)))
		goto out;
	if (o->verbose)
		o->j.said = said;
	/* --force re-pins: a TPM cleared or replaced does not match the
	 * SRK remembered before (an explicit pin still applies). */
	c->no_remembered = o->j.own.force;
	/* The TPM; with --ek-ca the session salted to the certified EK
	 * before anything else is sent. */
	if (!(t = ctx_tpm(c)) ||
	    (o->ekca && owner_first_contact(t, o->ekca, &o->ek)))
		goto fail;
	if (o->ek.slot && o->verbose)
		fprintf(stderr, "takeown: the session is salted to the EK of "
			"the %s certificate (%s), which verifies to %s\n",
			o->ek.slot, o->ek.subject, o->ek.anchor);
	/* The family (with an SRK pin the salted session's first answer
	 * tells it: no unauthenticated probe; a 1.2 is a usage error; one
	 * the options contradict is asked again), the options it takes,
	 * then its steps. */
	if (tpm_trust_begin(t) ||
	    !(fam = tpm_family_confirm(t, o->j.only20 ? TPM_FAMILY_20 :
					  o->j.srkspec ? TPM_FAMILY_12 : 0)) ||
	    owner_family(&o->j, fam, &c->e) ||
	    (fam == TPM_FAMILY_12 ? owner_take12(t, &o->j) :
	     owner_take2(t, &o->j)))
		goto fail;
	/* The SRK's public key, remembered for every later process (TPM
	 * 2.0: the machine's device as root, or TPMBOX_SRK_FILE), the
	 * report. */
	if (o->srkpub && !o->j.own.dry &&
	    owner_srk_pub(&o->j, o->srkpub, &c->e))
		goto fail;
	if (!o->no_remember && remember(o, t, &c->e))
		goto fail;
	report(o);
	rc = 0;
	if (o->j.own.reboot) {
		err_set(&c->e, EX_REBOOT, "done: the PCR banks change at the "
			"next reboot or TPM reset (exit 7)");
		goto fail;
	}
	goto out;
fail:
	rc = ctx_fail(c);
out:
	owner_wipe(&o->j);
	free(o);
	return rc;
}

const struct applet applet_takeown = {
	"takeown", "provision: the SRK, PCR banks, auth values, the EK, DA",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN_NAME
};
