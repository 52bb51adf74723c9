/* nvrelease: undefine an NV index. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvrelease INDEX [--owner-auth AUTH | --platform-auth AUTH]\n"
	"Undefine NV index INDEX (TPM2_NV_UndefineSpace); its data is gone.\n"
	"  --owner-auth AUTH  the owner hierarchy's auth value (default "
	"empty)\n"
	"  --platform-auth AUTH  the platform's, for platformcreate "
	"indices\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"owner-auth", required_argument, NULL, 'O'},
	{"platform-auth", required_argument, NULL, 'P'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *owner_s = NULL, *plat_s = NULL;
	struct nv_public p;
	struct nv_auth na;
	uint32_t hier;
	struct tpm *t;
	int o, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'O': owner_s = optarg; break;
		case 'P': plat_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one NV index");
	if (nv_index_parse(argv[optind], &p.index, &c->e))
		return ctx_usage(c, "%s", c->e.msg);
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p))
		return ctx_fail(c);
	if (p.attrs & TPMA_NV_POLICY_DELETE) {
		err_set(&c->e, EX_FAIL, "NV index 0x%08x has policydelete: "
			"only TPM2_NV_UndefineSpaceSpecial with its policy can "
			"remove it, and tpmbox does not send that", p.index);
		return ctx_fail(c);
	}
	hier = (p.attrs & TPMA_NV_PLATFORMCREATE) ? TPM2_RH_PLATFORM
						   : TPM2_RH_OWNER;
	if (hier == TPM2_RH_OWNER && plat_s)
		return ctx_usage(c, "NV index 0x%08x belongs to the owner: "
				 "use --owner-auth", p.index);
	if (hier == TPM2_RH_PLATFORM && owner_s)
		return ctx_usage(c, "NV index 0x%08x was created by the "
				 "platform: use --platform-auth", p.index);
	rc = nv_hier_auth_begin(t, &na, hier, owner_s ? owner_s : plat_s, 0);
	if (!rc)
		rc = tpm2_nv_undefine(t, hier, &na.a, &p);
	rc = nv_auth_end(t, &na, rc);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvrelease = {
	"nvrelease", "undefine an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
