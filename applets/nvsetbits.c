/* nvsetbits: OR bits into an NV bit field. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "base/hex.h"
#include "job/nv.h"
#include "tpm2/nv.h"

static const char usage[] =
	"usage: nvsetbits INDEX BITS [--auth AUTH | --owner-auth AUTH]\n"
	"OR the 64-bit value BITS (0x... or decimal) into the bit-field "
	"index\nINDEX (TPM2_NV_SetBits).  Bits once set stay set.\n"
	NV_USAGE_AUTH;

static int run(struct ctx *c, int argc, char **argv)
{
	struct nv_opts no;
	uint64_t bits;
	struct tpm *t;

	if (nv_args_auth(&no, argc, argv, "BITS", &c->e))
		return ctx_fail(c);
	if (parse_u64(no.more_s, &bits))
		return ctx_usage(c, "bad BITS '%s' (a 64-bit number, 0x... or "
				 "decimal)", no.more_s);
	if (!(t = ctx_tpm(c)) || nv2_modify(t, &no, TPM2_NT_BITS, bits))
		return ctx_fail(c);
	return 0;
}

const struct applet applet_nvsetbits = {
	"nvsetbits", "set bits in an NV bit field", APPLET_USAGE(usage), run,
	"", nv_auth_longopts, APPLET_PIN
};
