/* nvsetbits: OR bits into an NV bit field. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "base/hex.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvsetbits INDEX BITS [--auth AUTH | --owner-auth AUTH]\n"
	"OR the 64-bit value BITS (0x... or decimal) into the bit-field "
	"index\nINDEX (TPM2_NV_SetBits).  Bits once set stay set.\n"
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
	uint64_t bits;
	int o, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'A': auth_s = optarg; break;
		case 'O': owner_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 2)
		return ctx_usage(c, "expected an NV index and BITS");
	if (nv_index_parse(argv[optind], &p.index, &c->e))
		return ctx_usage(c, "%s", c->e.msg);
	if (parse_u64(argv[optind + 1], &bits))
		return ctx_usage(c, "bad BITS '%s' (a 64-bit number, 0x... or "
				 "decimal)", argv[optind + 1]);
	if (auth_s && owner_s)
		return ctx_usage(c, "give --auth or --owner-auth, not both");
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p))
		return ctx_fail(c);
	if (nv_type(p.attrs) != TPM2_NT_BITS)
		return ctx_usage(c, "NV index 0x%08x is a %s index, not a bit "
				 "field", p.index,
				 nv_type_name(nv_type(p.attrs)));
	memset(&x, 0, sizeof(x));
	x.p = &p;
	rc = nv_auth_begin(t, &x, &na, NV_OP_MODIFY, auth_s,
			   owner_s);
	if (!rc)
		rc = tpm2_nv_setbits(t, &x, bits);
	rc = nv_auth_end(t, &na, rc);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvsetbits = {
	"nvsetbits", "set bits in an NV bit field", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
