/* pcrread: read PCR values. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "fmt/pcrfile.h"
#include "job/tpm.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: pcrread [--json] [-o FILE] [-f] [SELECTION]\n"
	"Print PCR values, one line per PCR: BANK:INDEX HEX.\n"
	"SELECTION as tpm2-tools: sha256:0,1,2+sha1:7, ranges 0-7, "
	"sha256:all, all.\n"
	"Default: every allocated bank, every PCR.  A TPM 1.2 has the sha1 "
	"bank\n"
	"only; there a bare list (0,7) means sha1:0,7.\n"
	"  --json     {\"sha256\": {\"7\": \"hex\"}}\n"
	"  -o FILE    also write the raw digests concatenated in selection "
	"order\n"
	"  -f         replace FILE if it exists\n";

static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *out = NULL, *spec = "all";
	int json = 0, flags = 0, bare, o, i;
	struct pcr_sel sel, alloc;
	struct pcr_vals *v;
	unsigned npcrs;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (argc - optind > 1)
		return ctx_usage(c, "expected at most one SELECTION");
	if (optind < argc)
		spec = argv[optind];
	/* A bare list ("0,7") is for a TPM 1.2's one bank: it waits for
	 * the family; any other selection is checked before the TPM. */
	bare = !strchr(spec, ':') && strcmp(spec, "all") != 0;
	if (!bare && pcr_sel_parse(spec, &sel, &c->e))
		return ctx_fail(c);

	/* Step 1: which banks does this TPM have, and how many PCRs (not
	 * asked for PCRs named one by one on a TPM 2.0: the read names a
	 * bank or PCR it lacks). */
	if (!(t = ctx_tpm(c)) || (bare && tpm_pcr_parse(t, spec, &sel)) ||
	    tpm_trust_begin(t) ||
	    ((!pcr_sel_resolved(&sel) || t->family == TPM_FAMILY_12) &&
	     (tpm_pcr_banks(t, &alloc, &npcrs) ||
	      tpm_pcr_resolve(t, &sel, &alloc, npcrs))))
		return ctx_fail(c);
	/* Step 2: read them. */
	v = malloc(sizeof(*v));
	tpm_last(t);
	if (!v || tpm_pcr_read(t, &sel, v)) {
		free(v);
		return ctx_fail(c);
	}
	/* Step 3: raw digests to FILE, text or JSON to stdout. */
	if (out) {
		uint8_t *raw = malloc((size_t)v->n * TPM2_MAX_DIGEST + 1);
		size_t n = 0;

		for (i = 0; raw && i < v->n; i++) {
			memcpy(raw + n, v->v[i].d, v->v[i].len);
			n += v->v[i].len;
		}
		if (!raw || file_write_atomic(out, raw, n, flags, &c->e)) {
			free(raw);
			free(v);
			return raw ? ctx_fail(c) : ctx_usage(c, "no memory");
		}
		free(raw);
	}
	o = ctx_print_pcrs(c, v, json);
	free(v);
	return o;
}

const struct applet applet_pcrread = {
	"pcrread", "read PCR values", APPLET_USAGE(usage), run, shortopts,
	longopts, APPLET_PIN
};
