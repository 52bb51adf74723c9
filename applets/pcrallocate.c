/* pcrallocate: choose the active PCR banks (TPM2_PCR_Allocate with the
 * platform hierarchy); the change takes effect at the next TPM reset. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "base/tpm2const.h"
#include "tpm2/nv.h"
#include "tpm2/pcr.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: pcrallocate [--platform-auth AUTH] BANKS\n"
	"Make BANKS (e.g. sha256, or sha1,sha256) the active PCR banks, every\n"
	"PCR in each, and no other bank, from the next TPM reset (reboot) on:\n"
	"TPM2_PCR_Allocate with the platform hierarchy.  Prints the banks\n"
	"active now and after the reset; exit 7 when the change is made and\n"
	"waits for the reset, 0 when BANKS are already the active banks.\n"
	"  --platform-auth AUTH  the platform hierarchy's auth value (empty\n"
	"             by default); it keys a salted session and is never sent\n"
	"Most firmware disables the platform hierarchy before the OS boots:\n"
	"then ask the firmware (its setup menu, or the physical presence\n"
	"interface, PPI operation 23, under /sys/class/tpm/tpm0/ppi).\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{ "platform-auth", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 }
};

static void print_banks(const char *what, const struct pcr_sel *sel)
{
	char names[128];

	pcr_bank_names(sel, 0, names, sizeof(names));
	printf("%s: %s\n", what, names);
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *platspec = NULL;
	uint16_t want[TPM2_MAX_BANKS];
	struct pcr_sel now, next;
	struct nv_auth na;
	int o, nwant = 0, rc;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'p': platspec = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one BANKS list (e.g. sha256)");
	if (pcr_banks_parse(argv[optind], want, &nwant, &c->e))
		return ctx_fail(c);

	/* Step 1: the banks active now and the allocation asked for, read
	 * in the process session. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t))
		return ctx_fail(c);
	rc = tpm2_pcr_plan(t, want, nwant, &now, &next);
	if (rc && rc != TPM2_PCR_CHANGE)
		return ctx_fail(c);
	print_banks("active now", &now);
	if (!rc) {
		printf("nothing to change\n");
		return 0;
	}
	/* Step 2: the request, the platform value keying a salted
	 * session (the empty one by default). */
	if (nv_hier_auth_begin(t, &na, TPM2_RH_PLATFORM, platspec, 0))
		return ctx_fail(c);
	rc = tpm2_pcr_allocate_auth(t, &na.a, &next);
	auth_wipe(&na.v);
	if (rc)
		return ctx_fail(c);
	print_banks("after the next TPM reset", &next);
	err_set(&c->e, EX_REBOOT, "done: the banks change at the next "
		"reboot or TPM reset (exit 7)");
	return ctx_fail(c);
}

const struct applet applet_pcrallocate = {
	"pcrallocate", "choose the active PCR banks (after the next reset)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
