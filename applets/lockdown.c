/* lockdown: the last steps before the machine goes to the next stage:
 * separators into chosen PCRs, clearing disabled, the platform hierarchy
 * closed.  Each step reads the state first and changes nothing that is
 * so already (an extend: lib/job/handoff.c's kept values). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "job/handoff.h"
#include "job/tpm.h"

static const char usage[] =
	"usage: lockdown [--extend PCR[=STRING]]... [--disable-clear\n"
	"                [--lockout-auth AUTH]] [--platform[=random|disable]]\n"
	"                [--dry-run] [--json]\n"
	"Close what the next stage must not have, in this order:\n"
	"  --extend PCR[=STRING]  extend PCR in every allocated bank with the\n"
	"             separator (the digest of 4 zero bytes, the PC Client's\n"
	"             EV_SEPARATOR) or STRING's digest, so that nothing later\n"
	"             unseals what was sealed to this stage; repeatable; a PCR\n"
	"             holding what lockdown's extend of the same data left\n"
	"             (its value kept in /run/tpmbox) is not extended again\n"
	"  --disable-clear  TPM2_ClearControl(YES): TPM2_Clear refused until\n"
	"             platform authorization lifts it (it persists)\n"
	"  --lockout-auth AUTH  the lockout value for it (when one is set);\n"
	"             it keys a salted session and is never sent\n"
	"  --platform[=random]  a random platform auth value from the TPM,\n"
	"             never stored: no one can use the platform hierarchy until\n"
	"             the next TPM2_Startup\n"
	"  --platform=disable  TPM2_HierarchyControl: the platform hierarchy\n"
	"             disabled until the next TPM2_Startup(CLEAR)\n"
	"  --dry-run  read the state and say what each step would do; send\n"
	"             nothing that changes the TPM\n"
	"  --json     the steps and their outcome as JSON\n"
	"A step already so sends nothing that changes the TPM: a second run\n"
	"changes nothing.  On a TPM 1.2: --extend (sha1) and\n"
	"--disable-clear (TPM_DisableForceClear, until the next\n"
	"TPM_Startup(ST_CLEAR)); it has no platform hierarchy and no lockout\n"
	"value.  AUTH: str:TEXT hex:HEX file:PATH file:- env:VAR.\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{ "extend", required_argument, NULL, 'x' },
	{ "disable-clear", no_argument, NULL, 'c' },
	{ "lockout-auth", required_argument, NULL, 'l' },
	{ "platform", optional_argument, NULL, 'p' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

static int parse(struct ctx *c, int argc, char **argv, struct lockdown *l,
		 int *json)
{
	int o;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'x':
			if (lockdown_extend_opt(l, optarg, &c->e))
				return ctx_usage(c, "%s", c->e.msg);
			break;
		case 'c': l->disable_clear = 1; break;
		case 'l': l->lockspec = optarg; break;
		case 'p':
			if (!optarg || !strcmp(optarg, "random"))
				l->platform = LOCK_PLAT_RANDOM;
			else if (!strcmp(optarg, "disable"))
				l->platform = LOCK_PLAT_DISABLE;
			else
				return ctx_usage(c, "--platform takes random or "
						 "disable, not '%s'", optarg);
			break;
		case 'n': l->dry = 1; break;
		case 'j': *json = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (ctx_no_operands(c, argc, argv))
		return EX_USAGE;
	if (!l->nx && !l->disable_clear && !l->platform)
		return ctx_usage(c, "nothing to do: give --extend, "
				 "--disable-clear or --platform");
	if (l->lockspec && !l->disable_clear)
		return ctx_usage(c, "--lockout-auth is for --disable-clear");
	return 0;
}

/* The steps, as text or JSON. */
static void report(const struct lockdown *l, int fam, int json)
{
	const struct lock_step *s;
	int i;

	if (json) {
		printf("{\"family\":\"%s\",\"dry_run\":%s,\"steps\":[",
		       fam == TPM_FAMILY_12 ? "1.2" : "2.0",
		       l->dry ? "true" : "false");
		for (i = 0, s = l->st; i < l->nst; i++, s++) {
			printf("%s{\"step\":\"%s\",", i ? "," : "",
			       lock_step_name(s));
			if (s->step == LOCK_EXTEND)
				printf("\"pcr\":%u,", s->pcr);
			printf("\"result\":\"%s\",\"detail\":",
			       lock_result_json(s->result));
			ctx_json_str(s->detail);
			printf("}");
		}
		printf("]}\n");
		return;
	}
	for (i = 0, s = l->st; i < l->nst; i++, s++) {
		if (s->step == LOCK_EXTEND)
			printf("extend %u: ", s->pcr);
		else
			printf("%s: ", lock_step_name(s));
		printf("%s (%s)\n", lock_result_words(s->result), s->detail);
	}
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct lockdown l;
	struct tpm *t;
	int json = 0, fam, rc;

	memset(&l, 0, sizeof(l));
	if ((rc = parse(c, argc, argv, &l, &json)))
		return rc;
	/* Step 1: the family (with a pin the salted session's first answer
	 * tells it); what a TPM 1.2 lacks is refused before anything is
	 * sent. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    !(fam = tpm_family_confirm(t, l.platform || l.lockspec ?
				       TPM_FAMILY_20 : 0)))
		return ctx_fail(c);
	if (fam == TPM_FAMILY_12 && l.platform)
		return ctx_usage(c, "this TPM is a TPM 1.2: it has no platform "
				 "hierarchy (--platform)");
	if (fam == TPM_FAMILY_12 && l.lockspec)
		return ctx_usage(c, "this TPM is a TPM 1.2: it has no lockout "
				 "value (--lockout-auth); TPM_DisableForceClear "
				 "needs none");
	/* Step 2: the state, then each step that is not so already. */
	rc = lockdown_run(t, fam, &l);
	/* Step 3: what was done (also when a step failed). */
	report(&l, fam, json);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_lockdown = {
	"lockdown", "hand-off: PCR separators, clearing disabled, platform "
	"closed", APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
