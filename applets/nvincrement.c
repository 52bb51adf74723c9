/* nvincrement: add one to an NV counter. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvincrement INDEX [--auth AUTH | --owner-auth AUTH]\n"
	"Add one to the counter index INDEX (TPM2_NV_Increment).  A new\n"
	"counter starts at the highest value any counter on this TPM has "
	"had.\n"
	"  --auth AUTH  authorize with the index's auth value (str:, hex:, "
	"file:, env:)\n"
	"  --owner-auth AUTH  authorize with the owner's auth value\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"auth", required_argument, NULL, 'A'},
	{"owner-auth", required_argument, NULL, 'O'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *auth_s = NULL, *owner_s = NULL;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	struct tpm *t;
	int o, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'A': auth_s = optarg; break;
		case 'O': owner_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one NV index");
	if (nv_index_parse(argv[optind], &p.index, &c->e))
		return ctx_usage(c, "%s", c->e.msg);
	if (auth_s && owner_s)
		return ctx_usage(c, "give --auth or --owner-auth, not both");
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p))
		return ctx_fail(c);
	if (nv_type(p.attrs) != TPM2_NT_COUNTER)
		return ctx_usage(c, "NV index 0x%08x is a %s index, not a "
				 "counter", p.index,
				 nv_type_name(nv_type(p.attrs)));
	memset(&x, 0, sizeof(x));
	x.p = &p;
	rc = nv_auth_begin(t, &x, &na, NV_OP_MODIFY, auth_s,
			   owner_s);
	if (!rc)
		rc = tpm2_nv_increment(t, &x);
	rc = nv_auth_end(t, &na, rc);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvincrement = {
	"nvincrement", "increment an NV counter", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
