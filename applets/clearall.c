/* clearall: TPM2_Clear, after listing what it destroys. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/auth.h"
#include "job/owner.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/da.h"
#include "tpm12/owner.h"

static const char usage[] =
	"usage: clearall [--lockout-auth AUTH | --platform] [--yes] "
	"[--dry-run]\n"
	"       clearall --ppi [--yes]\n"
	"Clear the TPM (TPM2_Clear): every owner persistent key and owner NV\n"
	"index is destroyed, the owner, endorsement and lockout auth values\n"
	"are reset and the storage and endorsement seeds change.  What will\n"
	"be destroyed is listed first.\n"
	"  --lockout-auth AUTH  authorize with the lockout hierarchy (default:\n"
	"                       the lockout hierarchy with an empty value)\n"
	"  --platform           authorize with the platform hierarchy (empty\n"
	"                       value, as firmware leaves it on some systems)\n"
	"  --yes                do not ask (required when stdin is not a "
	"terminal)\n"
	"  --dry-run            only list what would be destroyed\n"
	"  --ppi                ask the firmware to clear the TPM at the next\n"
	"                       boot instead (the same as `ppi clear`)\n"
	"On a TPM 1.2: clearall [--owner-auth AUTH | --physical-presence]\n"
	"[--yes] [--dry-run] runs TPM_OwnerClear with the owner value (SHA-1\n"
	"of AUTH; default the well-known secret) or, with software physical\n"
	"presence, TPM_ForceClear; the TPM is then disabled and deactivated:\n"
	"clearall --reenable (physical presence: TPM_PhysicalEnable,\n"
	"TPM_PhysicalSetDeactivated) brings it back after a reboot (exit 7).\n"
	"  --owner-auth AUTH    TPM 1.2: the owner value\n"
	"  --physical-presence  TPM 1.2: TPM_ForceClear (where allowed)\n"
	"  --reenable           TPM 1.2: enable and activate (at next boot)\n";

/* Weak: a build without the ppi applet (OMIT_APPLETS) still links, and
 * clearall --ppi says so. */
extern const struct applet applet_ppi __attribute__((weak));

static int confirm(void)
{
	char line[32];

	fputs("Clear the TPM? This cannot be undone. Type 'yes': ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return strcmp(line, "yes\n") == 0 || strcmp(line, "yes") == 0;
}

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"lockout-auth", required_argument, NULL, 'l'},
	{"platform", no_argument, NULL, 'p'},
	{"yes", no_argument, NULL, 'y'},
	{"dry-run", no_argument, NULL, 'n'},
	{"ppi", no_argument, NULL, 'P'},
	{"owner-auth", required_argument, NULL, 'o'},
	{"physical-presence", no_argument, NULL, 'x'},
	{"reenable", no_argument, NULL, 'r'},
	{NULL, 0, NULL, 0}
};

/* The consent every clear needs: --yes, or "yes" typed at a terminal. */
static int consent(struct ctx *c, int yes)
{
	if (yes)
		return 0;
	if (!isatty(0))
		return ctx_usage(c, "refusing to clear the TPM without --yes: "
				 "standard input is not a terminal");
	if (!confirm()) {
		err_set(&c->e, EX_FAIL, "not cleared: not confirmed");
		return ctx_fail(c);
	}
	return 0;
}

/* TPM 1.2: TPM_OwnerClear (owner value) or TPM_ForceClear (physical
 * presence), after saying what goes; or --reenable. */
static int clear12(struct ctx *c, struct tpm *t, const char *ownerspec,
		   int pp, int reenable, int yes, int dry)
{
	struct authval v;
	uint8_t owner[20];
	int owned, again, rc;

	if (reenable) {
		if (tpm12_reenable(t))
			return ctx_fail(c);
		printf("enabled and activated from the next boot\n");
		err_set(&c->e, EX_REBOOT, "done: the TPM is active after the "
			"next reboot or TPM_Startup (exit 7)");
		return ctx_fail(c);
	}
	/* Step 1: what goes.  "No owner" ends the job with exit 0, and no
	 * 1.2 answer about the owner is authenticated: it is asked twice,
	 * so that one damaged answer cannot end it. */
	if (tpm12_owned(t, &owned) ||
	    (!owned && tpm12_owned(t, &again)))
		return ctx_fail(c);
	if (!owned && again) {
		err_set(&c->e, EX_IO, "the TPM answered twice whether it has "
			"an owner, and the answers differ (a damaged answer)");
		return ctx_fail(c);
	}
	if (!owned) {
		printf("%s: no owner; nothing to clear\n", dry ? "would clear" :
		       "to clear");
		return 0;
	}
	printf("%s: the owner value, the SRK and every key under it, the "
	       "owner's NV areas; the TPM is left disabled and deactivated "
	       "(clearall --reenable)\n", dry ? "would clear" : "to clear");
	fflush(stdout);
	if (dry)
		return 0;
	/* Step 2: consent; step 3: the clear. */
	if ((rc = consent(c, yes)))
		return rc;
	if (pp) {
		rc = tpm12_force_clear(t);
	} else {
		if (ownerspec && auth_parse(ownerspec, &v, &c->e))
			return ctx_fail(c);
		tpm12_auth_value(ownerspec ? &v : NULL, owner);
		if (ownerspec)
			auth_wipe(&v);
		rc = tpm12_owner_clear(t, owner);
		explicit_bzero(owner, sizeof(owner));
		if (rc == EX_AUTH)
			err_hint(&c->e, "give the owner value with --owner-auth "
				 "(or --physical-presence where the platform "
				 "allows it); a wrong value counts toward the "
				 "lockout");
	}
	if (rc)
		return ctx_fail(c);
	printf("cleared\n");
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct owner_clear *l = NULL;
	size_t i;
	const char *lockspec = NULL, *ownerspec = NULL, *path;
	int platform = 0, yes = 0, dry = 0, ppi = 0, pp = 0, reenable = 0;
	int o, rc, removed = 0;
	struct authval av;
	struct tpm *t;

	memset(&av, 0, sizeof(av));
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'l': lockspec = optarg; break;
		case 'p': platform = 1; break;
		case 'y': yes = 1; break;
		case 'n': dry = 1; break;
		case 'P': ppi = 1; break;
		case 'o': ownerspec = optarg; break;
		case 'x': pp = 1; break;
		case 'r': reenable = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (ctx_no_operands(c, argc, argv))
		return EX_USAGE;
	if (lockspec && platform)
		return ctx_usage(c, "give --lockout-auth or --platform, not "
				 "both");
	if (ppi) {
		/* The firmware's clear: ppi clear, with the same consent. */
		char *pargv[] = { "ppi", "clear", yes ? "--yes" : NULL, NULL };

		if (lockspec || platform || dry)
			return ctx_usage(c, "--ppi takes only --yes");
		if (!&applet_ppi) {
			err_set(&c->e, EX_USAGE, "this build has no ppi applet");
			return ctx_fail(c);
		}
		optind = 0;
		return applet_ppi.main(c, yes ? 3 : 2, pargv);
	}
	if (ownerspec && pp)
		return ctx_usage(c, "give --owner-auth or --physical-presence, "
				 "not both");
	if (reenable && (ownerspec || pp || dry || lockspec || platform))
		return ctx_usage(c, "--reenable takes no other option");
	/* The family decides the job (a TPM 1.2 clears differently); with
	 * an SRK pin the salted session's first answer tells it (no
	 * unauthenticated probe), and a 1.2 is a usage error.  A family the
	 * options contradict is asked again (tpm_family_confirm). */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    !(rc = tpm_family_confirm(t, (ownerspec || pp || reenable) ?
				      TPM_FAMILY_12 : (lockspec || platform) ?
				      TPM_FAMILY_20 : 0)))
		return ctx_fail(c);
	if (rc == TPM_FAMILY_12) {
		if (lockspec || platform)
			return ctx_usage(c, "this TPM is a TPM 1.2: it clears "
					 "with the owner value (--owner-auth) "
					 "or physical presence "
					 "(--physical-presence)");
		return clear12(c, t, ownerspec, pp, reenable, yes, dry);
	}
	if (ownerspec || pp || reenable)
		return ctx_usage(c, "--owner-auth, --physical-presence and "
				 "--reenable are for a TPM 1.2");
	if (lockspec && auth_parse(lockspec, &av, &c->e))
		return ctx_fail(c);

	/* Step 1: what will be destroyed (as far as the TPM told it). */
	if (!(l = malloc(sizeof(*l)))) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	rc = owner_clear_list(t, l);
	for (i = 0; i < l->npers; i++)
		printf("persistent 0x%08x\n", l->pers[i]);
	for (i = 0; i < l->nnv; i++)
		printf("nv 0x%08x\n", l->nv[i]);
	if (rc)
		goto fail;
	printf("%s: %zu persistent object%s, %zu NV ind%s; owner, "
	       "endorsement and lockout auth values reset\n",
	       dry ? "would clear" : "to clear", l->npers,
	       l->npers == 1 ? "" : "s", l->nnv, l->nnv == 1 ? "ex" : "ices");
	fflush(stdout);
	if (owner_clear_check(l, &c->e))
		goto fail;
	if (dry)
		goto out;

	/* Step 2: confirmation. */
	if ((rc = consent(c, yes)))
		goto out;

	/* Step 3: TPM2_Clear (job/owner.h), and the remembered SRK it made
	 * stale removed (takeown remembers the new one). */
	if (owner_clear2(t, &av, platform))
		goto fail;
	printf("cleared\n");
	fflush(stdout);
	if ((path = ctx_srk_file(t)) &&
	    owner_srk_forget(path, &removed, &c->e))
		goto fail;
	if (removed)
		fprintf(stderr, "clearall: removed the remembered SRK %s (the "
			"cleared TPM makes a new one; takeown remembers it)\n",
			path);
	goto out;
fail:
	rc = ctx_fail(c);
out:
	auth_wipe(&av);
	free(l);
	return rc;
}

const struct applet applet_clearall = {
	"clearall", "clear the TPM (owner keys, NV, auth values)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
