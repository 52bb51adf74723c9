/* nvextend: extend an NV extend index with data. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "job/nv.h"
#include "tpm2/nv.h"

static const char usage[] =
	"usage: nvextend INDEX (-i FILE | -d HEX) [--auth AUTH | "
	"--owner-auth AUTH]\n"
	"Extend the extend index INDEX with the data itself "
	"(TPM2_NV_Extend):\nthe index becomes H(old || data), H its name "
	"algorithm; an unwritten\nindex starts as zeros.  The data must fit "
	"one command\n(TPM_PT_NV_BUFFER_MAX bytes).\n"
	"  -i FILE    the data (- for standard input)\n"
	"  -d HEX     the data in hex\n"
	NV_USAGE_AUTH;

static const char shortopts[] = "i:d:";
static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	NV_LONGOPT_AUTH,
	NV_LONGOPT_OWNER,
	{NULL, 0, NULL, 0}
};

/* The data, at most one NV buffer (max bytes): -d's hex or -i's file.
 * 0 with *data malloc'd, or the exit code with e set. */
static int data_get(struct tberr *e, const char *hex, const char *in,
		    uint32_t max, uint8_t **data, size_t *n)
{
	size_t cap;
	long k;
	int rc;

	*data = NULL;
	*n = 0;
	if (!hex) {
		if ((rc = file_read(in, max, data, n, e)) == EX_USAGE)
			return err_set(e, EX_USAGE, "%s: one TPM2_NV_Extend "
				       "takes at most %u bytes "
				       "(TPM_PT_NV_BUFFER_MAX)", in, max);
		return rc;
	}
	cap = strlen(hex) / 2 + 1;
	if (!(*data = malloc(cap)))
		return err_set(e, EX_USAGE, "out of memory");
	if ((k = hex_decode(hex, *data, cap)) >= 0 && (size_t)k <= max) {
		*n = (size_t)k;
		return 0;
	}
	free(*data);
	*data = NULL;
	if (k < 0)
		return err_set(e, EX_USAGE, "bad hex data '%.40s'", hex);
	return err_set(e, EX_USAGE, "%ld bytes of data: one TPM2_NV_Extend "
		       "takes at most %u (TPM_PT_NV_BUFFER_MAX)", k, max);
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *in = NULL, *hex = NULL;
	uint32_t buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_opts no;
	struct nv_auth na;
	uint8_t *data;
	struct tpm *t;
	size_t n;
	int o, rc;

	memset(&no, 0, sizeof(no));
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (nv_opt(&no, o, optarg))
			continue;
		switch (o) {
		case 'i': in = optarg; break;
		case 'd': hex = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (nv_operands(&no, argc, argv, NULL, NV_ONE_AUTH, &c->e) ||
	    nv_index_parse(no.index_s, &no.index, &c->e))
		return ctx_fail(c);
	if (!in == !hex)
		return ctx_usage(c, "give exactly one of -i FILE and -d HEX");

	/* Step 1: an extend index, and the data for one TPM2_NV_Extend. */
	if (!(t = ctx_tpm(c)) ||
	    nv2_public(t, no.index, TPM2_NT_EXTEND, &p, &buffer_max) ||
	    data_get(&c->e, hex, in, buffer_max, &data, &n))
		return ctx_fail(c);

	/* Step 2: extend it. */
	rc = nv2_access_begin(t, &no, &p, buffer_max, NV_OP_WRITE, &x, &na);
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
