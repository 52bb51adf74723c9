/* nvrelease: undefine an NV index. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "job/tpm.h"
#include "tpm12/da.h"
#include "tpm12/nv.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvrelease INDEX [--owner-auth AUTH | --platform-auth AUTH]\n"
	"Undefine NV index INDEX (TPM2_NV_UndefineSpace); its data is gone.\n"
	"  --owner-auth AUTH  the owner hierarchy's auth value (default "
	"empty)\n"
	"  --platform-auth AUTH  the platform's, for platformcreate "
	"indices\n"
	"On a TPM 1.2: TPM_NV_DefineSpace with size 0, owner-authorized over\n"
	"OSAP; --owner-auth is SHA-1 of AUTH's bytes, as tpm-tools makes it\n"
	"from a password (default: the well-known secret, 20 zero bytes).\n"
	"A TPM 1.2 has no platform hierarchy (--platform-auth).\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"owner-auth", required_argument, NULL, 'O'},
	{"platform-auth", required_argument, NULL, 'P'},
	{NULL, 0, NULL, 0}
};

/* TPM 1.2: the index's public part, then TPM_NV_DefineSpace with size
 * 0 and the owner value. */
static int release12(struct ctx *c, struct tpm *t, const char *index_s,
		     const char *owner_s)
{
	struct tpm12_nv_public p;
	uint8_t owner[20];
	struct authval v;
	uint32_t index;
	int rc;

	if (tpm12_nv_index_parse(index_s, &index, &c->e))
		return ctx_fail(c);
	if (index & TPM12_NV_INDEX_D)
		return ctx_usage(c, "NV index 0x%08x has the D bit (0x10000000)"
				 ": the TPM's maker defined it for good", index);
	if (tpm12_nv_public(t, index, &p)) {
		if (c->e.code == EX_NOENT)
			err_set(&c->e, EX_NOENT, "NV index 0x%08x is not "
				"defined", index);
		return ctx_fail(c);
	}
	if (owner_s && auth_parse(owner_s, &v, &c->e))
		return ctx_fail(c);
	tpm12_auth_value(owner_s ? &v : NULL, owner);
	if (owner_s)
		auth_wipe(&v);
	rc = tpm12_nv_release(t, owner, &p);
	explicit_bzero(owner, sizeof(owner));
	if (rc == EX_AUTH) {
		err_set(&c->e, EX_AUTH, "the owner value is wrong%s (the "
			"failure counts toward the lockout)", owner_s ? "" :
			": the well-known secret was tried");
		err_hint(&c->e, "give it with --owner-auth (SHA-1 of the value "
			 "is the auth, as tpm-tools makes it from a password)");
	} else if (rc && c->e.rc == 0x3c) {	/* TPM_AREA_LOCKED */
		err_set(&c->e, EX_FAIL, "NV index 0x%08x is locked until the "
			"next TPM startup (%s): it cannot be released before",
			index, (p.perm & TPM12_NV_PER_WRITE_STCLEAR) &&
			p.write_stclear ? "WRITE_STCLEAR" : "GLOBALLOCK");
	}
	return rc ? ctx_fail(c) : 0;
}

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
	/* The family decides the job; with an SRK pin the salted session's
	 * first answer tells it, and a 1.2 is a usage error. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) || !(o = tpm_family(t)))
		return ctx_fail(c);
	if (o == TPM_FAMILY_12) {
		if (plat_s)
			return ctx_usage(c, "this TPM is a TPM 1.2: it has no "
					 "platform hierarchy (--platform-auth)");
		return release12(c, t, argv[optind], owner_s);
	}
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
