/* nvincrement: add one to an NV counter. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "job/nv.h"
#include "tpm2/nv.h"

static const char usage[] =
	"usage: nvincrement INDEX [--auth AUTH | --owner-auth AUTH]\n"
	"Add one to the counter index INDEX (TPM2_NV_Increment).  A new\n"
	"counter starts at the highest value any counter on this TPM has "
	"had.\n"
	NV_USAGE_AUTH;

static int run(struct ctx *c, int argc, char **argv)
{
	struct nv_opts no;
	struct tpm *t;

	if (nv_args_auth(&no, argc, argv, NULL, &c->e) || !(t = ctx_tpm(c)) ||
	    nv2_modify(t, &no, TPM2_NT_COUNTER, 0))
		return ctx_fail(c);
	return 0;
}

const struct applet applet_nvincrement = {
	"nvincrement", "increment an NV counter", APPLET_USAGE(usage), run,
	"", nv_auth_longopts, APPLET_PIN
};
