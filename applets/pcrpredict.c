/* pcrpredict: the PCR values the next boot will have, from this boot's
 * event log with a boot application or a secure-boot variable replaced. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "fmt/authenticode.h"
#include "log/eventlog.h"
#include "log/predict.h"
#include "tpm2/pcr.h"

#define MAX_REPL 16

static const char usage[] =
	"usage: pcrpredict [--log FILE] [--replace-app OLD=NEW.efi]... "
	"[--replace-var NAME=FILE]... [-p SELECTION] [--keep-unknown] "
	"[--json]\n"
	"       pcrpredict --authenticode FILE.efi [--bank LIST]\n"
	"Print the PCR values the next boot will have, in pcrread's format\n"
	"(for seal -P and policysign -P): the boot event log replayed with\n"
	"the changes given.  No TPM is used.\n"
	"  --log FILE  the boot event log (default:\n"
	"             " EVL_DEFAULT_PATH ")\n"
	"  --replace-app OLD=NEW.efi  every boot application or driver whose\n"
	"             digests are OLD's Authenticode digests gets NEW's\n"
	"             (split at the first '=')\n"
	"  --replace-var NAME=FILE  recompute the EV_EFI_VARIABLE_DRIVER_CONFIG\n"
	"             event of NAME (SecureBoot, PK, KEK, db, dbx) with FILE\n"
	"             as its value: EFI_SIGNATURE_LISTs (or one byte for\n"
	"             SecureBoot); an efivarfs copy (attributes first) is\n"
	"             taken without its 4-byte attributes\n"
	"  -p SELECTION  print only these PCRs (sha256:0-7+sha1:7, all)\n"
	"  --keep-unknown  print the values even when an event that may\n"
	"             change could not be recomputed (named on stderr)\n"
	"  --json     {\"sha256\": {\"7\": \"hex\"}}\n"
	"  --authenticode FILE.efi  print FILE's Authenticode digest (as\n"
	"             UEFI measures it), one BANK HEX line per bank\n"
	"  --bank LIST  --authenticode's banks (default sha1,sha256,sha384,\n"
	"             sha512)\n"
	"Exit 1 when an event could not be recomputed (unless --keep-unknown),\n"
	"OLD matches no event, or a file is malformed.\n";

static const char shortopts[] = "p:";
static const struct option longopts[] = {
	{"log", required_argument, NULL, 'l'},
	{"replace-app", required_argument, NULL, 'a'},
	{"replace-var", required_argument, NULL, 'v'},
	{"keep-unknown", no_argument, NULL, 'k'},
	{"json", no_argument, NULL, 'j'},
	{"authenticode", required_argument, NULL, 'A'},
	{"bank", required_argument, NULL, 'b'},
	{NULL, 0, NULL, 0}
};

/* Read path and compute its Authenticode digests for algs[0..n). */
static int pe_digests(struct ctx *c, const char *path, const uint16_t *algs,
		      int n, uint8_t (*out)[64])
{
	uint8_t *buf;
	size_t len;
	int rc;

	if (file_read(path, PE_MAX_FILE, &buf, &len, &c->e))
		return ctx_fail(c);
	rc = authenticode_digests(buf, len, algs, n, out, &c->e);
	free(buf);
	if (rc) {
		err_prefix(&c->e, "%s", path);
		return ctx_fail(c);
	}
	return 0;
}

static int print_authenticode(struct ctx *c, const char *path,
			      const char *banks)
{
	uint16_t algs[TPM2_MAX_BANKS];
	uint8_t d[TPM2_MAX_BANKS][64];
	char hex[2 * TPM2_MAX_DIGEST + 1];
	int n, k, rc;

	if (pcr_banks_parse(banks, algs, &n, &c->e))
		return ctx_fail(c);
	for (k = 0; k < n; k++)
		if (!hash_size(algs[k]) || algs[k] == TPM2_ALG_SM3_256)
			return ctx_usage(c, "--bank: %s is not supported",
					 alg_name(algs[k]));
	if ((rc = pe_digests(c, path, algs, n, d)))
		return rc;
	for (k = 0; k < n; k++) {
		hex_encode(d[k], hash_size(algs[k]), hex);
		printf("%s %s\n", alg_name(algs[k]), hex);
	}
	return 0;
}

static int apply_app(struct ctx *c, struct pred *p, char *arg)
{
	uint16_t algs[TPM2_MAX_BANKS];
	uint8_t old[TPM2_MAX_BANKS][64], new[TPM2_MAX_BANKS][64];
	char *eq = strchr(arg, '=');
	int n = pred_banks(p, algs), rc, count;

	*eq = '\0';
	if ((rc = pe_digests(c, arg, algs, n, old)) ||
	    (rc = pe_digests(c, eq + 1, algs, n, new)))
		return rc;
	rc = pred_app(p, arg, (const uint8_t (*)[64])old,
		      (const uint8_t (*)[64])new, &count, &c->e);
	*eq = '=';
	return rc ? ctx_fail(c) : 0;
}

static int apply_var(struct ctx *c, struct pred *p, const char *arg)
{
	const char *eq = strchr(arg, '='), *path = eq + 1;
	const uint8_t *val;
	char name[16];
	uint8_t *buf;
	size_t len;
	int rc, count;

	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (file_read(path, EVL_MAX_DATA, &buf, &len, &c->e))
		return ctx_fail(c);
	val = buf;
	if (pred_var_value(name, &val, &len, &c->e)) {
		free(buf);
		err_prefix(&c->e, "%s", path);
		return ctx_fail(c);
	}
	rc = pred_var(p, name, val, len, &count, &c->e);
	free(buf);
	return rc ? ctx_fail(c) : 0;
}

/* Is arg[0..eq) one of the names --replace-var takes? */
static int var_named(const char *arg, const char *eq)
{
	char nm[16];

	if (eq - arg >= (long)sizeof(nm))
		return 0;
	memcpy(nm, arg, (size_t)(eq - arg));
	nm[eq - arg] = '\0';
	return pred_var_known(nm);
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *path = EVL_DEFAULT_PATH, *spec = NULL, *pe = NULL;
	const char *banks = "sha1,sha256,sha384,sha512";
	int bank_given = 0;
	char *apps[MAX_REPL];
	const char *vars[MAX_REPL];
	int napps = 0, nvars = 0, keep = 0, json = 0, o, i, rc = 0;
	struct pcr_vals *all = NULL, *v = NULL;
	struct pcr_sel sel;
	struct pred p;
	struct evl log;
	uint8_t *buf;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'l': path = optarg; break;
		case 'a':
			if (napps == MAX_REPL)
				return ctx_usage(c, "at most %d --replace-app",
						 MAX_REPL);
			if (!strchr(optarg, '=') || optarg[0] == '=' ||
			    !strchr(optarg, '=')[1])
				return ctx_usage(c, "--replace-app %s: "
						 "expected OLD=NEW", optarg);
			apps[napps++] = optarg;
			break;
		case 'v': {
			const char *eq = strchr(optarg, '=');

			if (nvars == MAX_REPL)
				return ctx_usage(c, "at most %d --replace-var",
						 MAX_REPL);
			if (!eq || !eq[1])
				return ctx_usage(c, "--replace-var %s: "
						 "expected NAME=FILE", optarg);
			for (i = 0; i < nvars; i++)
				if (!strncmp(vars[i], optarg,
					     (size_t)(eq - optarg) + 1))
					return ctx_usage(c, "--replace-var: %.*s"
							 " given twice",
							 (int)(eq - optarg),
							 optarg);
			if (!var_named(optarg, eq))
				return ctx_usage(c, "--replace-var: unknown "
						 "variable %.*s (SecureBoot, PK,"
						 " KEK, db or dbx)",
						 (int)(eq - optarg), optarg);
			vars[nvars++] = optarg;
			break;
		}
		case 'p': spec = optarg; break;
		case 'k': keep = 1; break;
		case 'j': json = 1; break;
		case 'A': pe = optarg; break;
		case 'b': banks = optarg; bank_given = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind < argc)
		return ctx_usage(c, "unexpected argument %s", argv[optind]);
	if (pe) {
		if (napps || nvars || spec || keep || json ||
		    strcmp(path, EVL_DEFAULT_PATH))
			return ctx_usage(c, "--authenticode takes only --bank");
		return print_authenticode(c, pe, banks);
	}
	if (bank_given)
		return ctx_usage(c, "--bank goes with --authenticode");
	if (spec && pcr_sel_parse(spec, &sel, &c->e))
		return ctx_fail(c);

	/* Step 1: this boot's event log. */
	if (evl_read_file(path, &buf, &log, &c->e))
		return ctx_fail(c);
	if (pred_init(&p, &log, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* Step 2: the changes, each event they touch recomputed or noted. */
	for (i = 0; i < napps && !rc; i++)
		rc = apply_app(c, &p, apps[i]);
	for (i = 0; i < nvars && !rc; i++)
		rc = apply_var(c, &p, vars[i]);
	if (rc)
		goto out;
	if (p.nnotes) {
		const char *l = p.notes, *nl;

		/* One line per event, each named (lib/ only collects). */
		for (; l && *l; l = nl + 1) {
			nl = strchr(l, '\n');
			fprintf(stderr, "tpmbox pcrpredict: not recomputed: "
				"%.*s\n", (int)(nl - l), l);
		}
		if (!keep) {
			err_set(&c->e, EX_FAIL, "the prediction is incomplete:"
				" %d line%s above", p.nnotes,
				p.nnotes == 1 ? "" : "s");
			err_hint(&c->e, "--keep-unknown prints the values "
				 "anyway");
			rc = ctx_fail(c);
			goto out;
		}
	}
	/* Step 3: replay, keep the selected PCRs, print. */
	all = malloc(sizeof(*all));
	v = malloc(sizeof(*v));
	if (!all || !v) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	if (evl_replay_reset(&log, spec ? 0xffu : 0, all, &c->e) ||
	    pred_select(all, spec ? &sel : &(struct pcr_sel){ .all = 1 }, v,
			&c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	rc = ctx_print_pcrs(c, v, json);
out:
	free(all);
	free(v);
	pred_free(&p);
	evl_free(&log);
	free(buf);
	return rc;
}

const struct applet applet_pcrpredict = {
	"pcrpredict", "predict PCRs after a boot loader or key change",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
