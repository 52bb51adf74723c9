/* nvlist: the NV indices defined on this TPM. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "hex.h"
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
	"  --json     a JSON array of objects with the same fields\n";

#define MAXNV TPM2_HANDLES_MAX

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	uint32_t h[MAXNV];
	size_t n, i;
	int json = 0, o;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (o != 'j')
			return ctx_usage(c, "unknown option");
		json = 1;
	}
	if (optind != argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	if (!(t = ctx_tpm(c)) ||
	    tpm2_gethandles(t, NV_INDEX_FIRST, h, MAXNV, &n))
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

const struct applet applet_nvlist = {
	"nvlist", "list NV indices with type, size and attributes",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
