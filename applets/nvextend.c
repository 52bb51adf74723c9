/* nvextend: extend an NV extend index with data. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvextend INDEX (-i FILE | -d HEX) [--auth AUTH | "
	"--owner-auth AUTH]\n"
	"Extend the extend index INDEX with the data itself "
	"(TPM2_NV_Extend):\nthe index becomes H(old || data), H its name "
	"algorithm; an unwritten\nindex starts as zeros.  The data must fit "
	"one command\n(TPM_PT_NV_BUFFER_MAX bytes).\n"
	"  -i FILE    the data (- for standard input)\n"
	"  -d HEX     the data in hex\n"
	"  --auth AUTH  authorize with the index's auth value (str:, hex:, "
	"file:, env:)\n"
	"  --owner-auth AUTH  authorize with the owner's auth value\n";

static const char shortopts[] = "i:d:";
static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	{"auth", required_argument, NULL, 'A'},
	{"owner-auth", required_argument, NULL, 'O'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *in = NULL, *hex = NULL, *auth_s = NULL, *owner_s = NULL;
	uint32_t index_max, buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint8_t *data = NULL;
	size_t n = 0;
	struct tpm *t;
	int o, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'i': in = optarg; break;
		case 'd': hex = optarg; break;
		case 'A': auth_s = optarg; break;
		case 'O': owner_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one NV index");
	if (nv_index_parse(argv[optind], &p.index, &c->e))
		return ctx_usage(c, "%s", c->e.msg);
	if (!in == !hex)
		return ctx_usage(c, "give exactly one of -i FILE and -d HEX");
	if (auth_s && owner_s)
		return ctx_usage(c, "give --auth or --owner-auth, not both");
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p) ||
	    tpm2_nv_limits(t, &index_max, &buffer_max))
		return ctx_fail(c);
	if (nv_type(p.attrs) != TPM2_NT_EXTEND)
		return ctx_usage(c, "NV index 0x%08x is a %s index, not an "
				 "extend index", p.index,
				 nv_type_name(nv_type(p.attrs)));

	/* The data, at most one NV buffer. */
	if (hex) {
		long k;

		if (!(data = malloc(strlen(hex) / 2 + 1)))
			return ctx_usage(c, "out of memory");
		k = hex_decode(hex, data, strlen(hex) / 2 + 1);
		if (k < 0) {
			free(data);
			return ctx_usage(c, "bad hex data '%.40s'", hex);
		}
		n = (size_t)k;
		if (n > buffer_max) {
			free(data);
			return ctx_usage(c, "%zu bytes of data: one "
					 "TPM2_NV_Extend takes at most %u "
					 "(TPM_PT_NV_BUFFER_MAX)", n,
					 buffer_max);
		}
	} else if (file_read(in, buffer_max, &data, &n, &c->e)) {
		if (c->e.code == EX_USAGE)
			return ctx_usage(c, "%s: one TPM2_NV_Extend takes at "
					 "most %u bytes (TPM_PT_NV_BUFFER_MAX)",
					 in, buffer_max);
		return ctx_fail(c);
	}

	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.chunk = buffer_max;
	rc = nv_auth_begin(t, &x, &na, NV_OP_WRITE, auth_s,
			   owner_s);
	if (!rc)
		rc = tpm2_nv_extend(t, &x, data, n);
	rc = nv_auth_end(t, &na, rc);
	explicit_bzero(data, n);
	free(data);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvextend = {
	"nvextend", "extend an NV extend index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
