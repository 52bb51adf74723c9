/* getrandom: N bytes from the TPM's random number generator. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "job/tpm.h"

#define MAX_BYTES (16u << 20)

static const char usage[] =
	"usage: getrandom [--hex] [-o FILE] [-f] N\n"
	"Write N random bytes (1 to 16 MiB) from the TPM (2.0 or 1.2) to stdout\n"
	"or FILE.\n"
	"  --hex      print lowercase hex and a newline instead of raw bytes\n"
	"  -o FILE    write to FILE atomically (mode 0600)\n"
	"  -f         replace FILE if it exists\n";

static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{"hex", no_argument, NULL, 'x'},
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *out = "-";
	int ashex = 0, flags = OUT_SECRET, o, rc;
	uint64_t n;
	uint8_t *buf;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'x': ashex = 1; break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one byte count N");
	if (parse_u64(argv[optind], &n) || n == 0 || n > MAX_BYTES)
		return ctx_usage(c, "bad byte count '%s' (1 to %u)",
				 argv[optind], MAX_BYTES);

	/* Step 1: ask the TPM, in chunks, for exactly n bytes. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t))
		return ctx_fail(c);
	if (!(buf = malloc(n)))
		return ctx_usage(c, "out of memory for %llu bytes",
				 (unsigned long long)n);
	tpm_last(t);
	if (tpm_getrandom(t, buf, n)) {
		free(buf);
		return ctx_fail(c);
	}
	/* Step 2: write them, raw or as hex. */
	rc = file_write_bytes(out, buf, n, ashex, flags, &c->e);
	explicit_bzero(buf, n);
	free(buf);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_getrandom = {
	"getrandom", "random bytes from the TPM", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
