/* nvlist: the NV indices defined on this TPM. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/hex.h"
#include "job/nv.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/nv.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: nvlist [--json]\n"
	"List the NV indices: one line each with the index, its type, size,\n"
	"whether it was written, its attributes (tpm2-tools' syntax), name\n"
	"algorithm and name:\n"
	"  0x01000001 type=ordinary size=32 written=yes "
	"attrs=ownerwrite|... hash=sha256 name=000b...\n"
	"  --json     a JSON array of objects with the same fields\n"
	"On a TPM 1.2 (what tpm_nvinfo lists): the index, size, permissions\n"
	"(tpm-tools' names, as tpm_nvdefine -p takes them), the PCRs that\n"
	"bind reading and writing, and the bReadSTClear, bWriteSTClear and\n"
	"bWriteDefine flags:\n"
	"  0x00011101 size=32 attrs=OWNERREAD|OWNERWRITE read_pcrs=none "
	"write_pcrs=none\n"
	"             read_stclear=no write_stclear=no write_define=no\n";

#define MAXNV TPM2_HANDLES_MAX

static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{NULL, 0, NULL, 0}
};

/* "0,7,16" for a TPM 1.2 PCR selection, "none" when empty. */
static void pcrs12(const struct tpm12_pcr_info *i, char *out, size_t cap)
{
	size_t len = 0;
	unsigned b;

	snprintf(out, cap, "none");
	for (b = 0; b < 32; b++) {
		if (!(i->release.mask >> b & 1))
			continue;
		snprintf(out + len, cap - len, "%s%u", len ? "," : "", b);
		len = strlen(out);
	}
}

/* TPM 1.2: TPM_CAP_NV_LIST, then TPM_CAP_NV_INDEX for each. */
static int list12(struct ctx *c, struct tpm *t, int json)
{
	uint32_t nv[TPM12_NV_MAX];
	size_t n, i;
	int rc = 0;

	if (tpm12_nv_list(t, nv, &n))
		return ctx_fail(c);
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		struct tpm12_nv_public p;
		char perm[256], rp[128], wp[128];

		if (tpm12_nv_public(t, nv[i], &p)) {
			rc = ctx_fail(c);
			break;
		}
		tpm12_nv_perm_format(p.perm, perm, sizeof(perm));
		pcrs12(&p.read, rp, sizeof(rp));
		pcrs12(&p.write, wp, sizeof(wp));
		if (json)
			printf("%s\n  {\"index\": \"0x%08x\", \"size\": %u, "
			       "\"attributes\": \"%s\", \"attributes_value\": "
			       "\"0x%08x\", \"read_pcrs\": \"%s\", "
			       "\"write_pcrs\": \"%s\", \"read_stclear\": %s, "
			       "\"write_stclear\": %s, \"write_define\": %s}",
			       i ? "," : "", p.index, p.size, perm, p.perm, rp,
			       wp, p.read_stclear ? "true" : "false",
			       p.write_stclear ? "true" : "false",
			       p.write_define ? "true" : "false");
		else
			printf("0x%08x size=%u attrs=%s read_pcrs=%s "
			       "write_pcrs=%s read_stclear=%s write_stclear=%s "
			       "write_define=%s\n", p.index, p.size, perm, rp,
			       wp, p.read_stclear ? "yes" : "no",
			       p.write_stclear ? "yes" : "no",
			       p.write_define ? "yes" : "no");
	}
	if (json && !rc)
		printf("%s]\n", n ? "\n" : "");
	return rc;
}

/* TPM 2.0: the NV handles, then TPM2_NV_ReadPublic for each. */
static int list20(struct ctx *c, struct tpm *t, int json)
{
	uint32_t h[MAXNV];
	size_t n, i;

	if (tpm2_gethandles(t, NV_INDEX_FIRST, h, MAXNV, &n))
		return ctx_fail(c);
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		char attrs[512], name[2 * (2 + TPM2_MAX_DIGEST) + 1];
		struct nv_public p;

		if (tpm2_nv_readpublic(t, h[i], &p))
			return ctx_fail(c);
		nv_attr_format(p.attrs, attrs, sizeof(attrs));
		hex_encode(p.name, p.name_len, name);
		if (json)
			printf("%s\n  {\"index\": \"0x%08x\", \"type\": "
			       "\"%s\", \"size\": %u, \"written\": %s, "
			       "\"attributes\": \"%s\", \"attributes_value\": "
			       "\"0x%08x\", \"hash\": \"%s\", \"name\": "
			       "\"%s\"}", i ? "," : "", p.index,
			       nv_type_name(nv_type(p.attrs)), p.size,
			       p.attrs & TPMA_NV_WRITTEN ? "true" : "false",
			       attrs, p.attrs, alg_name(p.name_alg), name);
		else
			printf("0x%08x type=%s size=%u written=%s attrs=%s "
			       "hash=%s name=%s\n", p.index,
			       nv_type_name(nv_type(p.attrs)), p.size,
			       p.attrs & TPMA_NV_WRITTEN ? "yes" : "no",
			       attrs, alg_name(p.name_alg), name);
	}
	if (json)
		printf("%s]\n", n ? "\n" : "");
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	int json, o, rc;
	struct tpm *t;

	if ((rc = ctx_json_only(c, argc, argv, longopts, &json)))
		return rc;
	/* The family decides the job. */
	if (!(t = ctx_tpm(c)) || !(o = nv_family(t)))
		return ctx_fail(c);
	return o == TPM_FAMILY_12 ? list12(c, t, json) : list20(c, t, json);
}

const struct applet applet_nvlist = {
	"nvlist", "list NV indices with type, size and attributes",
	APPLET_USAGE(usage), run, "", longopts, 0
};
