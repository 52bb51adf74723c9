/* takeown: set the hierarchy auth values, persist the standard SRK at
 * 0x81000001, optionally set the dictionary-attack parameters.  Auth
 * values travel over a session salted to the SRK with the new value
 * encrypted (AES-128-CFB), so they never cross the bus in clear. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/pk.h"
#include "job/ekcert.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/da.h"
#include "tpm12/owner.h"
#include "tpm2/owner.h"
#include "tpm2/pcr.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: takeown [--owner-auth AUTH] [--endorsement-auth AUTH]\n"
	"               [--lockout-auth AUTH] [--old-owner-auth AUTH]\n"
	"               [--old-endorsement-auth AUTH] [--old-lockout-auth "
	"AUTH]\n"
	"               [--srk-pub FILE] [--rsa] [--force] [--max-tries N]\n"
	"               [--recovery-time S] [--lockout-recovery S]\n"
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

#define MAX_STEPS 8

struct opts {
	struct tpm2_own own;	/* the job */
	const char *newspec[TPM2_NHIER], *oldspec[TPM2_NHIER];
	const char *platspec;
	const char *srkpub;
	const char *srkspec;	/* --srk-auth (TPM 1.2) */
	const char *ekca;	/* --ek-ca */
	struct ekcert_trusted ek;	/* what --ek-ca found */
	int n20;		/* options only a TPM 2.0 has, given */
	int verbose, json;
	struct {		/* the steps, as tpm2_takeown reports them */
		int step, hier, result;
		char detail[160];
	} st[MAX_STEPS];
	int nst;
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
	{"banks", required_argument, NULL, 'b'},
	{"platform-auth", required_argument, NULL, 'P'},
	{"ek", optional_argument, NULL, 'k'},
	{"dry-run", no_argument, NULL, 'n'},
	{"json", no_argument, NULL, 'j'},
	{"srk-auth", required_argument, NULL, 'S'},
	{"ek-ca", required_argument, NULL, 'C'},
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
		case 'S': o->srkspec = optarg; break;
		case 'C': o->ekca = optarg; break;
		case 'r': o->own.rsa = 1; break;
		case 'f': o->own.force = 1; break;
		case 'v': o->verbose = 1; break;
		case 'n': o->own.dry = 1; break;
		case 'j': o->json = 1; break;
		case 'P': o->platspec = optarg; break;
		case 'b':
			if (pcr_banks_parse(optarg, o->own.banks,
					    &o->own.nbanks, &c->e))
				return ctx_fail(c);
			break;
		case 'k':
			if (!optarg || !strcmp(optarg, "rsa"))
				o->own.ek = 1;
			else if (!strcmp(optarg, "ecc"))
				o->own.ek = 2;
			else
				return ctx_usage(c, "--ek=%s: give rsa or ecc",
						 optarg);
			break;
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
		if (strchr("elOELrPbkmtRC", ch))
			o->n20 = 1;
	}
	if (optind != argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	if (o->platspec && !o->own.nbanks)
		return ctx_usage(c, "--platform-auth is for --banks");
	if (o->platspec && auth_parse(o->platspec, &o->own.plat, &c->e))
		return ctx_fail(c);
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

static const char *step_name(int step, int hier)
{
	static const char *const auth[TPM2_NHIER] = {
		"owner-auth", "endorsement-auth", "lockout-auth"
	};

	switch (step) {
	case TPM2_OWN_SRK: return "srk";
	case TPM2_OWN_BANKS: return "pcr-banks";
	case TPM2_OWN_AUTH: return auth[hier];
	case TPM2_OWN_EK: return "ek";
	default: return "da-parameters";
	}
}

/* The result in words, and as the JSON report names it. */
static const char *result_words(int r)
{
	static const char *const w[] = {
		"done", "already so", "done, in effect after the next reboot",
		"needed", ("not checked (a dry run does not try the lockout "
			   "value)")
	};
	return w[r];
}

static const char *result_json(int r)
{
	static const char *const w[] = {
		"done", "already", "reboot", "needed", "unchecked"
	};
	return w[r];
}

/* Each step as tpm2_takeown reports it: kept for the report, said at
 * once with -v. */
static void done(const struct tpm2_own *own, int step, int hier,
		 int result, const char *detail)
{
	struct opts *o = own->arg;

	if (o->verbose)
		fprintf(stderr, "takeown: %s: %s (%s)\n",
			step_name(step, hier), result_words(result), detail);
	if (o->nst == MAX_STEPS)
		return;
	o->st[o->nst].step = step;
	o->st[o->nst].hier = hier;
	o->st[o->nst].result = result;
	snprintf(o->st[o->nst].detail, sizeof(o->st[0].detail), "%s",
		 detail);
	o->nst++;
}

/* The report: the SRK name (a dry run: the steps) as text, or JSON. */
static void report(const struct opts *o)
{
	char hexname[2 * TPM2_NAME_MAX + 1] = "";
	int i;

	if (o->own.have_srk)
		hex_encode(o->own.srk.name, o->own.srk.namelen, hexname);
	if (o->json) {
		printf("{\"dry_run\":%s,\"steps\":[", o->own.dry ? "true" :
		       "false");
		for (i = 0; i < o->nst; i++)
			printf("%s{\"step\":\"%s\",\"result\":\"%s\","
			       "\"detail\":\"%s\"}", i ? "," : "",
			       step_name(o->st[i].step, o->st[i].hier),
			       result_json(o->st[i].result), o->st[i].detail);
		printf("],\"srk_name\":");
		printf(*hexname ? "\"%s\"" : "null", hexname);
		if (o->ek.slot) {
			printf(",\"salted_to\":{\"ek\":\"%s\",\"ca\":",
			       o->ek.slot);
			ctx_json_str(o->ek.anchor);
			printf("}");
		}
		printf(",\"reboot\":%s}\n", o->own.reboot ? "true" : "false");
		return;
	}
	if (o->own.dry) {
		for (i = 0; i < o->nst; i++)
			printf("%s: %s (%s)\n", step_name(o->st[i].step,
			       o->st[i].hier), result_words(o->st[i].result),
			       o->st[i].detail);
		return;
	}
	printf("%s\n", hexname);
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
	} else if (own->blocked == TPM2_SRK_HANDLE) {
		err_hint(&c->e, "--force evicts it and persists the standard "
			 "SRK (keys sealed under it are lost)");
	} else if (own->blocked) {
		err_hint(&c->e, "--force evicts it and persists the EK");
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

/* TPM 1.2: ownership (tpm12/owner.h), the SRK's public key, the report:
 * one step, "ownership". */
static int takeown12(struct ctx *c, struct tpm *t, struct opts *o)
{
	const struct authval *ov = o->own.h[TPM2_HIER_OWNER].has_new ?
				   &o->own.h[TPM2_HIER_OWNER].nw : NULL;
	struct tpm12_own *w = calloc(1, sizeof(*w));
	char hex[41], detail[96];
	struct authval sv;
	int owned;
	int rc, result;

	if (!w)
		return ctx_usage(c, "out of memory");
	if (o->n20) {
		rc = ctx_usage(c, "this TPM is a TPM 1.2: --owner-auth, "
			       "--srk-auth, --srk-pub, --force, --dry-run, "
			       "--json and -v are its options; the others "
			       "are TPM 2.0's");
		goto out;
	}
	if (o->srkspec && auth_parse(o->srkspec, &sv, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	tpm12_auth_value(ov, w->owner);
	tpm12_auth_value(o->srkspec ? &sv : NULL, w->srk);
	if (o->srkspec)
		auth_wipe(&sv);
	if (o->own.dry) {
		/* Nothing tried: a wrong owner value counts on a 1.2. */
		if (tpm12_owned(t, &owned)) {
			rc = ctx_fail(c);
			goto out;
		}
		result = owned ? TPM2_OWN_UNCHECKED : TPM2_OWN_NEEDED;
		snprintf(detail, sizeof(detail), "%s", owned ? "owned; the "
			 "owner value is not tried in a dry run" : "not owned");
	} else {
		if (tpm12_takeown(t, w)) {
			rc = ctx_fail(c);
			goto out;
		}
		result = w->already ? TPM2_OWN_ALREADY : TPM2_OWN_DONE;
		snprintf(detail, sizeof(detail), "%s", w->already ? "owned, "
			 "the owner value confirmed" : "TPM_TakeOwnership, "
			 "RSA-2048 SRK");
		hex_encode(w->srkhash, 20, hex);
	}
	if (o->verbose)
		fprintf(stderr, "takeown: ownership: %s (%s)\n",
			result_words(result), detail);
	if (o->srkpub && !o->own.dry) {
		char *pem;
		size_t len;

		if (pk_pem_rsa(w->srkpub.pub, w->srkpub.publen,
			       tpm12_rsa_exponent(&w->srkpub.parms), &pem,
			       &len)) {
			err_set(&c->e, EX_FAIL, "cannot encode the SRK public "
				"key as PEM");
			rc = ctx_fail(c);
			goto out;
		}
		rc = file_write_same(o->srkpub, pem, len, o->own.force ?
				     OUT_FORCE : 0, &c->e);
		free(pem);
		if (rc) {
			if (!o->own.force)
				err_hint(&c->e, "--force replaces it");
			rc = ctx_fail(c);
			goto out;
		}
	}
	if (o->json)
		printf("{\"family\":\"1.2\",\"dry_run\":%s,\"steps\":[{"
		       "\"step\":\"ownership\",\"result\":\"%s\",\"detail\":"
		       "\"%s\"}],\"srk_hash\":%s%s%s,\"reboot\":false}\n",
		       o->own.dry ? "true" : "false", result_json(result),
		       detail, o->own.dry ? "" : "\"", o->own.dry ? "null" :
		       hex, o->own.dry ? "" : "\"");
	else if (o->own.dry)
		printf("ownership: %s (%s)\n", result_words(result), detail);
	else
		printf("%s\n", hex);
	rc = 0;
out:
	explicit_bzero(w, sizeof(*w));
	free(w);
	return rc;
}

/* --ek-ca: the process session salted to the certified EK before
 * anything else is sent (a TPM 1.2 is left to takeown12's refusal). */
static int first_contact(struct tpm *t, struct opts *o)
{
	int fam = tpm_family(t);

	if (fam != TPM_FAMILY_20)
		return fam ? 0 : t->e->code;
	if (ekcert_trust(t, o->ekca, &o->ek))
		return t->e->code;
	if (o->verbose)
		fprintf(stderr, "takeown: the session is salted to the EK of "
			"the %s certificate (%s), which verifies to %s\n",
			o->ek.slot, o->ek.subject, o->ek.anchor);
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct opts *o = calloc(1, sizeof(*o));
	struct tpm *t;
	int rc;

	if (!o)
		return ctx_usage(c, "out of memory");
	o->own.done = done;
	o->own.arg = o;
	if ((rc = parse_opts(c, argc, argv, o)))
		goto out;
	/* The family (with an SRK pin the salted session's first answer
	 * tells it: no unauthenticated probe; a 1.2 is a usage error), the
	 * steps (tpm2/owner.h), the SRK's public key, the report. */
	if (!(t = ctx_tpm(c)) || (o->ekca && first_contact(t, o)) ||
	    tpm_trust_begin(t) || !(rc = tpm_family(t))) {
		rc = ctx_fail(c);
		goto out;
	}
	if (rc == TPM_FAMILY_12) {
		rc = takeown12(c, t, o);
		goto out;
	}
	if (o->srkspec) {
		rc = ctx_usage(c, "--srk-auth is for a TPM 1.2 (a TPM 2.0's "
			       "standard SRK has no value)");
		goto out;
	}
	if ((rc = tpm2_takeown(t, &o->own))) {
		rc = failed(c, o, rc);
		goto out;
	}
	if (o->srkpub && !o->own.dry && write_srk_pub(c, o)) {
		rc = ctx_fail(c);
		goto out;
	}
	report(o);
	rc = 0;
	if (o->own.reboot) {
		err_set(&c->e, EX_REBOOT, "done: the PCR banks change at the "
			"next reboot or TPM reset (exit 7)");
		rc = ctx_fail(c);
	}
out:
	tpm2_own_wipe(&o->own);
	free(o);
	return rc;
}

const struct applet applet_takeown = {
	"takeown", "provision: the SRK, PCR banks, auth values, the EK, DA",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN_NAME
};
