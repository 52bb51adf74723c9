/* nvwrite: write data into an ordinary NV index. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "file.h"
#include "hex.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvwrite INDEX [-i FILE] [--offset N] [--auth AUTH | "
	"--owner-auth AUTH]\n"
	"Write FILE's bytes into NV index INDEX at offset N, in as many\n"
	"TPM2_NV_Write commands as TPM_PT_NV_BUFFER_MAX needs.\n"
	"  -i FILE    the data (default: standard input)\n"
	"  --offset N  first byte to write (default 0)\n"
	"  --auth AUTH  authorize with the index's auth value (str:, hex:, "
	"file:, env:)\n"
	"  --owner-auth AUTH  authorize with the owner's auth value\n"
	"Without --auth or --owner-auth the index's own (empty) auth value "
	"is\nused when authwrite is set, else the owner's.\n";

static const char shortopts[] = "i:";
static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	{"offset", required_argument, NULL, 'F'},
	{"auth", required_argument, NULL, 'A'},
	{"owner-auth", required_argument, NULL, 'O'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *in = "-", *auth_s = NULL, *owner_s = NULL;
	uint32_t index_max, buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint64_t offset = 0;
	uint8_t *data;
	size_t n;
	struct tpm *t;
	int o, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'i': in = optarg; break;
		case 'F':
			if (parse_u64(optarg, &offset) || offset > 0xffff)
				return ctx_usage(c, "bad offset '%s'", optarg);
			break;
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

	/* Step 1: what the index is. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p) ||
	    tpm2_nv_limits(t, &index_max, &buffer_max))
		return ctx_fail(c);
	if (nv_type(p.attrs) != TPM2_NT_ORDINARY)
		return ctx_usage(c, "NV index 0x%08x is a %s index: use %s",
				 p.index, nv_type_name(nv_type(p.attrs)),
				 nv_type(p.attrs) == TPM2_NT_COUNTER ?
				 "nvincrement" : nv_type(p.attrs) ==
				 TPM2_NT_EXTEND ? "nvextend" : nv_type(p.attrs)
				 == TPM2_NT_BITS ? "nvsetbits" : "another tool");
	if (offset >= p.size)
		return ctx_usage(c, "offset %llu is past the end of NV index "
				 "0x%08x (%u bytes)",
				 (unsigned long long)offset, p.index, p.size);

	/* Step 2: the data, which must fit from the offset on. */
	if (file_read(in, p.size - offset, &data, &n, &c->e)) {
		if (c->e.code == EX_USAGE)
			return ctx_usage(c, "the data does not fit: NV index "
					 "0x%08x holds %u bytes and the write "
					 "starts at offset %llu", p.index,
					 p.size, (unsigned long long)offset);
		return ctx_fail(c);
	}
	if (n == 0) {
		free(data);
		return ctx_usage(c, "no data to write");
	}
	if ((p.attrs & TPMA_NV_WRITEALL) && (offset != 0 || n != p.size)) {
		explicit_bzero(data, n);
		free(data);
		return ctx_usage(c, "NV index 0x%08x has writeall: write all "
				 "%u bytes at offset 0", p.index, p.size);
	}

	/* Step 3: write it in chunks. */
	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.chunk = buffer_max;
	rc = nv_auth_begin(t, &x, &na, NV_OP_WRITE, auth_s,
			   owner_s);
	if (!rc)
		rc = tpm2_nv_write(t, &x, data, n, (size_t)offset);
	rc = nv_auth_end(t, &na, rc);
	explicit_bzero(data, n);
	free(data);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvwrite = {
	"nvwrite", "write data into an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
