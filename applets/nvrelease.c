/* nvrelease: undefine an NV index. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "job/nv.h"
#include "job/tpm.h"
#include "tpm12/nv.h"
#include "tpm2/nv.h"

static const char usage[] =
	"usage: nvrelease INDEX [--owner-auth AUTH | --platform-auth AUTH]\n"
	"Undefine NV index INDEX (TPM2_NV_UndefineSpace); its data is gone.\n"
	NV_USAGE_HIER
	"On a TPM 1.2: TPM_NV_DefineSpace with size 0, owner-authorized over\n"
	"OSAP; --owner-auth is SHA-1 of AUTH's bytes, as tpm-tools makes it\n"
	"from a password (default: the well-known secret, 20 zero bytes).\n"
	"A TPM 1.2 has no platform hierarchy (--platform-auth).\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	NV_LONGOPT_OWNER,
	NV_LONGOPT_PLATFORM,
	{NULL, 0, NULL, 0}
};

/* TPM 1.2: the index's public part, then TPM_NV_DefineSpace with size
 * 0 and the owner value. */
static int release12(struct ctx *c, struct tpm *t, const struct nv_opts *n)
{
	struct tpm12_nv_public p;
	uint32_t index = n->index;
	uint8_t owner[20];
	int rc;

	if (index & TPM12_NV_INDEX_D)
		return ctx_usage(c, "NV index 0x%08x has the D bit (0x10000000)"
				 ": the TPM's maker defined it for good", index);
	if (tpm12_nv_public(t, index, &p) ||
	    tpm12_nv_auth_value(n->owner_s, owner, &c->e))
		return ctx_fail(c);
	rc = tpm12_nv_release(t, owner, &p);
	explicit_bzero(owner, sizeof(owner));
	rc = tpm12_nv_refused(&c->e, rc, TPM12_NV_OP_DEFINE,
			      TPM12_NV_BY_OWNER, n->owner_s != NULL, index);
	if (rc && c->e.rc == 0x3c)	/* TPM_AREA_LOCKED */
		err_set(&c->e, EX_FAIL, "NV index 0x%08x is locked until the "
			"next TPM startup (%s): it cannot be released before",
			index, (p.perm & TPM12_NV_PER_WRITE_STCLEAR) &&
			p.write_stclear ? "WRITE_STCLEAR" : "GLOBALLOCK");
	return rc ? ctx_fail(c) : 0;
}

/* TPM 2.0: TPM2_NV_UndefineSpace by the hierarchy that made the index. */
static int release20(struct ctx *c, struct tpm *t, const struct nv_opts *n)
{
	struct nv_public p;
	struct nv_auth na;
	const char *spec;
	uint32_t hier;
	int rc;

	if (nv2_public(t, n->index, -1, &p, NULL))
		return ctx_fail(c);
	if (p.attrs & TPMA_NV_POLICY_DELETE) {
		err_set(&c->e, EX_FAIL, "NV index 0x%08x has policydelete: "
			"only TPM2_NV_UndefineSpaceSpecial with its policy can "
			"remove it, and tpmbox does not send that", p.index);
		return ctx_fail(c);
	}
	if (nv2_hier(n, p.index, p.attrs, &hier, &spec, &c->e))
		return ctx_fail(c);
	rc = nv_hier_auth_begin(t, &na, hier, spec, 0);
	if (!rc)
		rc = tpm2_nv_undefine(t, hier, &na.a, &p);
	rc = nv_auth_end(t, &na, rc);
	return rc ? ctx_fail(c) : 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct nv_opts no;
	struct tpm *t;
	int o;

	memset(&no, 0, sizeof(no));
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1)
		if (!nv_opt(&no, o, optarg))
			return ctx_usage(c, "unknown option");
	/* The family decides the job (and how INDEX reads). */
	if (nv_operands(&no, argc, argv, NULL, 0, &c->e) ||
	    !(t = ctx_tpm(c)) || nv_open(&no, t))
		return ctx_fail(c);
	return no.family == TPM_FAMILY_12 ? release12(c, t, &no)
					  : release20(c, t, &no);
}

const struct applet applet_nvrelease = {
	"nvrelease", "undefine an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
