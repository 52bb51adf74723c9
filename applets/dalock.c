/* dalock: the dictionary-attack lockout state, its reset and its
 * parameters, with the lockout auth value (never sent in clear). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/tpm2const.h"
#include "job/tpm.h"
#include "tpm12/da.h"
#include "tpm2/da.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: dalock [--json] [--reset] [--set MAX,RECOVERY,LOCKOUT_RECOVERY]"
	"\n              [--lockout-auth AUTH] [--owner-auth AUTH]\n"
	"Print the dictionary-attack state: failures counted, max tries, the\n"
	"recovery times, whether the TPM is in lockout, whether a wrong lockout\n"
	"value blocked the lockout auth (a probe that counts no failure).\n"
	"  --reset    TPM2_DictionaryAttackLockReset: forget every failure and\n"
	"             leave lockout now\n"
	"  --set MAX,RECOVERY,LOCKOUT_RECOVERY  TPM2_DictionaryAttackParameters:\n"
	"             failures before lockout, seconds per failure forgotten,\n"
	"             seconds a wrong lockout value blocks the lockout auth\n"
	"  --lockout-auth AUTH  the lockout auth value (when one is set); it\n"
	"             keys a salted session and is never sent\n"
	"  --json     the state as JSON\n"
	"  --owner-auth AUTH  TPM 1.2: the owner value for --reset (TPM_Reset-\n"
	"             LockValue); SHA-1 of AUTH, as tpm-tools makes it from a\n"
	"             password; without it the well-known secret (tpm-tools -z)\n"
	"A wrong lockout value blocks lockout authorization for LOCKOUT_RECOVERY\n"
	"seconds (until the next TPM reset when it is 0).  A TPM 1.2 has no\n"
	"lockout value and no command to set the parameters (--set).\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "reset", no_argument, NULL, 'r' },
	{ "set", required_argument, NULL, 's' },
	{ "lockout-auth", required_argument, NULL, 'l' },
	{ "owner-auth", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 }
};

static int parse_set(const char *s, uint32_t v[3])
{
	char *end;
	int i;

	for (i = 0; i < 3; i++) {
		unsigned long x;

		if (*s < '0' || *s > '9')
			return -1;
		x = strtoul(s, &end, 10);
		if (x > 0xffffffffUL || (i < 2 ? *end != ',' : *end != '\0'))
			return -1;
		v[i] = (uint32_t)x;
		s = end + 1;
	}
	return 0;
}

static void print_state(const struct da_state *s, int json)
{
	if (json) {
		printf("{\"failures\": %u, \"max_tries\": %u, "
		       "\"recovery_time\": %u, \"lockout_recovery\": %u, "
		       "\"in_lockout\": %s, \"lockout_auth_set\": %s, "
		       "\"lockout_auth_blocked\": %s",
		       s->failures, s->max_tries, s->recovery,
		       s->lockout_recovery, s->in_lockout ? "true" : "false",
		       s->lockout_auth_set ? "true" : "false",
		       s->lockout_blocked ? "true" : "false");
		/* at most this long (the TPM does not say how much is
		 * left); null: until the next TPM reset */
		if (s->lockout_blocked && s->lockout_recovery)
			printf(", \"lockout_auth_blocked_max_s\": %u",
			       s->lockout_recovery);
		else if (s->lockout_blocked)
			printf(", \"lockout_auth_blocked_max_s\": null");
		printf("}\n");
		return;
	}
	printf("failures: %u of %u\n", s->failures, s->max_tries);
	if (s->recovery)
		printf("recovery time: %u s (one failure forgotten every "
		       "%u s)\n", s->recovery, s->recovery);
	else
		printf("recovery time: 0 (failures are never forgotten: only "
		       "dalock --reset clears them)\n");
	printf("lockout recovery: %u s (a wrong lockout value blocks the "
	       "lockout auth %s)\n", s->lockout_recovery,
	       s->lockout_recovery ? "that long" : "until the next TPM reset");
	if (s->in_lockout && s->recovery)
		printf("in lockout: yes (a try is allowed again in at most "
		       "%u s, or now after dalock --reset)\n", s->recovery);
	else
		printf("in lockout: %s\n", s->in_lockout ? "yes (until dalock "
		       "--reset)" : "no");
	printf("lockout auth: %s\n", s->lockout_auth_set ? "set" : "not set");
	if (!s->lockout_blocked)
		printf("lockout auth blocked: no\n");
	else if (s->lockout_recovery)
		printf("lockout auth blocked: yes (after a wrong lockout "
		       "value; allowed again in at most %u s)\n",
		       s->lockout_recovery);
	else
		printf("lockout auth blocked: yes (after a wrong lockout "
		       "value; allowed again after the next TPM reset)\n");
}

/* Explain a refusal of the lockout authorization. */
static int lockout_refused(struct ctx *c, const struct da_state *s, int rc)
{
	if (rc == EX_AUTH) {
		err_set(&c->e, EX_AUTH, "the lockout auth value is wrong: "
			"lockout authorization is now blocked %s",
			s->lockout_recovery ? "for the lockout recovery time" :
			"until the next TPM reset");
		if (s->lockout_recovery)
			err_hint(&c->e, "try again in %u s with the right value",
				 s->lockout_recovery);
	} else if (rc == EX_LOCKOUT) {
		err_set(&c->e, EX_LOCKOUT, "lockout authorization is blocked "
			"after a wrong lockout value");
		err_hint(&c->e, "%s", s->lockout_recovery ?
			 "it is allowed again within the lockout recovery "
			 "time (dalock shows it)" : "it is allowed again after "
			 "the next TPM reset (reboot)");
	}
	return ctx_fail(c);
}

/* TPM 1.2: the state from TPM_DA_INFO, in words or JSON. */
static void print_state12(const struct tpm12_da *d, int json)
{
	static const struct { uint32_t bit; const char *name, *words; } act[] = {
		{ TPM12_DA_ACTION_TIMEOUT, "timeout", "a timeout" },
		{ TPM12_DA_ACTION_DISABLE, "disable", "the TPM disabled" },
		{ TPM12_DA_ACTION_DEACTIVATE, "deactivate",
		  "the TPM deactivated" },
		{ TPM12_DA_ACTION_FAILURE_MODE, "failure-mode",
		  "failure mode" },
	};
	unsigned i, k = 0;

	if (json) {
		printf("{\"family\": \"1.2\", ");
		if (d->limited)
			printf("\"failures\": null, \"max_tries\": null, ");
		else
			printf("\"failures\": %u, \"max_tries\": %u, ",
			       d->count, d->threshold);
		printf("\"in_lockout\": %s, \"actions\": [",
		       d->active ? "true" : "false");
		for (i = 0; i < sizeof(act) / sizeof(act[0]); i++)
			if (d->actions & act[i].bit)
				printf("%s\"%s\"", k++ ? ", " : "", act[i].name);
		printf("]");
		if (!d->limited && d->active &&
		    (d->actions & TPM12_DA_ACTION_TIMEOUT))
			printf(", \"seconds_left\": %u", d->depend);
		printf("}\n");
		return;
	}
	if (d->limited)
		printf("failures: not reported (the TPM gives only "
		       "TPM_DA_INFO_LIMITED)\n");
	else
		printf("failures: %u of %u\n", d->count, d->threshold);
	printf("at the threshold:");
	for (i = 0; i < sizeof(act) / sizeof(act[0]); i++)
		if (d->actions & act[i].bit)
			printf("%s %s", k++ ? "," : "", act[i].words);
	printf("%s\n", k ? "" : " nothing reported");
	if (d->active && !d->limited &&
	    (d->actions & TPM12_DA_ACTION_TIMEOUT))
		printf("in lockout: yes (for %u s more, or now after dalock "
		       "--reset with the owner value)\n", d->depend);
	else
		printf("in lockout: %s\n", d->active ? "yes (until dalock "
		       "--reset with the owner value)" : "no");
}

/* TPM 1.2: the state, and TPM_ResetLockValue with the owner value. */
static int run12(struct ctx *c, struct tpm *t, int json, int reset,
		 const char *ownerspec)
{
	struct authval v;
	struct tpm12_da d;
	uint8_t owner[20];
	int rc;

	if (reset) {
		if (ownerspec && auth_parse(ownerspec, &v, &c->e))
			return ctx_fail(c);
		tpm12_auth_value(ownerspec ? &v : NULL, owner);
		if (ownerspec)
			auth_wipe(&v);
		rc = tpm12_da_reset(t, owner);
		explicit_bzero(owner, sizeof(owner));
		if (rc == EX_AUTH) {
			err_set(&c->e, EX_AUTH, "the owner value is wrong%s "
				"(the failure counts toward the lockout)",
				ownerspec ? "" : ": the well-known secret was "
				"tried");
			err_hint(&c->e, "give it with --owner-auth (SHA-1 of "
				 "the value is the auth, as tpm-tools makes "
				 "it from a password); after a wrong one the "
				 "TPM refuses even the right value for a while");
		}
		if (rc)
			return ctx_fail(c);
	}
	if (tpm12_da_state(t, &d))
		return ctx_fail(c);
	print_state12(&d, json);
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *lockspec = NULL, *ownerspec = NULL;
	int o, json = 0, reset = 0, set = 0, rc;
	uint32_t params[3];
	struct da_state st;
	struct nv_auth na;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		case 'r': reset = 1; break;
		case 's':
			if (parse_set(optarg, params))
				return ctx_usage(c, "--set wants three numbers "
						 "MAX,RECOVERY,LOCKOUT_RECOVERY,"
						 " not '%s'", optarg);
			set = 1;
			break;
		case 'l': lockspec = optarg; break;
		case 'o': ownerspec = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc)
		return ctx_usage(c, "no operands expected");
	if (lockspec && !reset && !set)
		return ctx_usage(c, "--lockout-auth is for --reset and --set");

	if (ownerspec && !reset)
		return ctx_usage(c, "--owner-auth is for --reset");

	/* The family decides the job (a TPM 1.2's DA logic differs); with
	 * an SRK pin the salted session's first answer tells it (no
	 * unauthenticated probe), and a 1.2 is a usage error; a family the
	 * options contradict is asked again. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    !(rc = tpm_family_confirm(t, ownerspec ? TPM_FAMILY_12 :
				      (set || lockspec) ? TPM_FAMILY_20 : 0)))
		return ctx_fail(c);
	if (rc == TPM_FAMILY_12) {
		if (set || lockspec)
			return ctx_usage(c, "this TPM is a TPM 1.2: it has no "
					 "%s", set ? "command to set the "
					 "dictionary-attack parameters (the "
					 "chip's maker fixes them)" :
					 "lockout value (--reset takes the "
					 "owner value, --owner-auth)");
		return run12(c, t, json, reset, ownerspec);
	}
	if (ownerspec)
		return ctx_usage(c, "--owner-auth is for a TPM 1.2; a TPM 2.0 "
				 "resets with the lockout value "
				 "(--lockout-auth)");
	/* Step 1: the state, HMACed in the process session. */
	if (tpm2_trust_begin(t) || tpm2_da_state(t, &st))
		return ctx_fail(c);
	/* Step 2: the changes, with the lockout value keying a salted
	 * session (or the empty password when none is set). */
	if (reset || set) {
		if (st.lockout_auth_set && !lockspec) {
			err_set(&c->e, EX_AUTH, "the lockout auth value is set; "
				"give it with --lockout-auth");
			return ctx_fail(c);
		}
		if (reset) {
			if (nv_hier_auth_begin(t, &na, TPM2_RH_LOCKOUT,
					       lockspec, 0))
				return ctx_fail(c);
			rc = tpm2_da_reset(t, &na.a);
			auth_wipe(&na.v);
			if (rc)
				return lockout_refused(c, &st, rc);
		}
		if (set) {
			if (nv_hier_auth_begin(t, &na, TPM2_RH_LOCKOUT,
					       lockspec, 0))
				return ctx_fail(c);
			rc = tpm2_da_parameters(t, &na.a, params[0], params[1],
						params[2]);
			auth_wipe(&na.v);
			if (rc)
				return lockout_refused(c, &st, rc);
		}
		if (tpm2_da_state(t, &st))
			return ctx_fail(c);
	}
	/* Step 3: whether the lockout auth itself is blocked (a probe that
	 * counts no failure), and print it all. */
	if (tpm2_da_lockout_blocked(t, &st.lockout_blocked))
		return ctx_fail(c);
	print_state(&st, json);
	return 0;
}

const struct applet applet_dalock = {
	"dalock", "dictionary-attack lockout: state, reset, parameters",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
