/* shutdown: TPM2_Shutdown(STATE) (or CLEAR) right before a reboot or
 * kexec, so that the next start is orderly: the TPM counts no
 * dictionary-attack failure for it.  TPM 1.2: TPM_SaveState. */
#include <getopt.h>
#include <stdio.h>

#include "applet.h"
#include "job/tpm.h"

static const char usage[] =
	"usage: shutdown [--clear]\n"
	"Prepare the TPM for the power cycle that follows (a reboot, a\n"
	"kexec): TPM2_Shutdown(TPM_SU_STATE), so that the next start is\n"
	"orderly and the TPM counts no dictionary-attack failure for it.\n"
	"The TPM still answers afterwards, but a command that changes what\n"
	"was saved undoes the shutdown: run it last.\n"
	"  --clear  TPM2_Shutdown(TPM_SU_CLEAR): orderly too, but nothing is\n"
	"           kept for a TPM2_Startup(STATE) (what Linux sends at its\n"
	"           own reboot); the only kind while a PCR allocation waits\n"
	"On a TPM 1.2: TPM_SaveState (it has no --clear).\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{ "clear", no_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 }
};

static int run(struct ctx *c, int argc, char **argv)
{
	struct tpm *t;
	int o, clear = 0, fam;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'c': clear = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (ctx_no_operands(c, argc, argv))
		return EX_USAGE;
	/* Step 1: the family (with a pin the salted session's first answer
	 * tells it); a TPM 1.2 has one kind of shutdown. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    !(fam = tpm_family_confirm(t, clear ? TPM_FAMILY_20 : 0)))
		return ctx_fail(c);
	if (fam == TPM_FAMILY_12 && clear)
		return ctx_usage(c, "this TPM is a TPM 1.2: its one shutdown "
				 "is TPM_SaveState (without it the next "
				 "TPM_Startup(ST_CLEAR) is a clear start "
				 "anyway)");
	/* Step 2: the shutdown, the session's last use. */
	tpm_last(t);
	if (tpm_shutdown(t, clear))
		return ctx_fail(c);
	return 0;
}

const struct applet applet_shutdown = {
	"shutdown", "prepare the TPM for a reboot (TPM2_Shutdown, SaveState)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
