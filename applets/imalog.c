/* imalog: print, replay and check a Linux IMA measurement list. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "applet.h"
#include "log/imalog.h"

static const char usage[] =
	"usage: imalog [--json] [--pcrs] [--check] [-b BANKS] [FILE]\n"
	"Parse an IMA binary measurement list (templates ima, ima-ng, "
	"ima-sig)\nand print it like ascii_runtime_measurements.\n"
	"FILE defaults to " IMA_DEFAULT_PATH ".\n"
	"  --json     entries (or with --pcrs, the values) as JSON\n"
	"  --pcrs     print the PCR values (10) the list replays to, in "
	"pcrread's\n"
	"             format\n"
	"  --check    compare with the TPM's PCRs, read before the list (the\n"
	"             kernel appends, then extends): a prefix of the list\n"
	"             must match them, entries beyond it are counted; each\n"
	"             bank is tried with its own template digests and with\n"
	"             SHA-1 ones zero-padded (what a kernel that could not\n"
	"             use the bank's hash extends); exit 1 if a bank differs\n"
	"  -b BANKS   banks to replay, e.g. sha1,sha256 (default: sha1,sha256;"
	"\n"
	"             with --check, every allocated bank IMA can replay)\n";

static const char shortopts[] = "b:";
static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{"pcrs", no_argument, NULL, 'p'},
	{"check", no_argument, NULL, 'c'},
	{"banks", required_argument, NULL, 'b'},
	{NULL, 0, NULL, 0}
};

/* --check: a first read of the list to learn its PCRs, the TPM's values
 * of them, the list again, a report per bank. */
static int check(struct ctx *c, const char *path, const uint16_t *algs,
		 int nb)
{
	uint32_t touched;
	char *report;
	struct tpm *t;
	int rc;

	if (imalog_file_pcrs(path, &touched, &c->e) || !(t = ctx_tpm(c)))
		return ctx_fail(c);
	rc = imalog_check(t, path, algs, nb, touched, &report);
	if (report)
		fputs(report, stdout);
	free(report);
	return rc ? ctx_fail(c) : 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *path = IMA_DEFAULT_PATH, *banks = NULL;
	int json = 0, pcrs = 0, chk = 0, o, rc = 0, nb = 0, i;
	uint16_t algs[TPM2_MAX_BANKS];
	struct pcr_vals *v = NULL;
	struct imalog log;
	struct tpm *t;
	uint8_t *buf;
	char *text;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		case 'p': pcrs = 1; break;
		case 'c': chk = 1; break;
		case 'b': banks = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (argc - optind > 1)
		return ctx_usage(c, "expected at most one FILE");
	if (optind < argc)
		path = argv[optind];
	/* The banks: -b, or with --check the TPM's, or sha1 and sha256. */
	if (banks && imalog_banks_parse(banks, algs, &nb, &c->e))
		return ctx_fail(c);
	if (!banks && chk && (!(t = ctx_tpm(c)) ||
			      imalog_tpm_banks(t, algs, &nb)))
		return ctx_fail(c);
	if (!banks && !chk) {
		algs[nb++] = TPM2_ALG_SHA1;
		algs[nb++] = TPM2_ALG_SHA256;
	}

	if (chk)
		return check(c, path, algs, nb);
	if (imalog_read_file(path, &buf, &log, &c->e))
		return ctx_fail(c);
	if (pcrs) {
		/* The values the list replays to, bank by bank. */
		if (!(v = malloc(sizeof(*v)))) {
			rc = ctx_usage(c, "out of memory");
			goto out;
		}
		v->n = 0;
		for (i = 0; i < nb && !rc; i++)
			if (imalog_replay(&log, algs[i], v, &c->e))
				rc = ctx_fail(c);
		if (!rc)
			rc = ctx_print_pcrs(c, v, json);
	} else if (!(text = imalog_format(&log, json))) {
		rc = ctx_usage(c, "out of memory");
	} else {
		fputs(text, stdout);
		free(text);
	}
out:
	free(v);
	imalog_free(&log);
	free(buf);
	return rc;
}

const struct applet applet_imalog = {
	"imalog", "parse, replay and check an IMA measurement list",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
