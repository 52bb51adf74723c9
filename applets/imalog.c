/* imalog: print, replay and check a Linux IMA measurement list. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "fmt/pcrfile.h"
#include "log/eventlog.h"
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

/* Text of a file name: the bytes as the kernel prints them, with control
 * characters made visible. */
static void put_path(const uint8_t *p, uint32_t n, int json)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (json && (p[i] == '"' || p[i] == '\\'))
			printf("\\%c", p[i]);
		else if (json && (p[i] < 0x20 || p[i] >= 0x7f))
			printf("\\u%04x", p[i]);
		else
			putchar(p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i]);
	}
}

static void put_hex(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/* How ascii_runtime_measurements shows the fields of the kernel's built-in
 * templates (security/integrity/ima/ima_template.c): 'd' a digest with its
 * "alg:" prefix (d-ng, d-ngv2), 'n' a name, 'x' hex (d, sig, buf, modsig,
 * d-modsig).  Each field is preceded by one blank, an empty field shows
 * nothing after it (hence the trailing blank of an unsigned ima-sig). */
static const struct {
	const char *name, *fields;
} tpl_show[] = {
	{ "ima", "xn" },
	{ "ima-ng", "dn" },
	{ "ima-ngv2", "dn" },
	{ "ima-sig", "dnx" },
	{ "ima-sigv2", "dnx" },
	{ "ima-buf", "dnx" },
	{ "ima-modsig", "dnxxx" },
};

/* A d-ng field: "alg:" NUL digest, shown as alg:hex. */
static void put_digest_ng(const uint8_t *p, uint32_t n)
{
	const uint8_t *z = memchr(p, '\0', n);

	if (z && z > p && z[-1] == ':') {
		fwrite(p, 1, (size_t)(z - p), stdout);
		put_hex(z + 1, n - (uint32_t)(z - p) - 1);
	} else {
		put_hex(p, n);
	}
}

static void text_entry(const struct ima_entry *en)
{
	struct ima_field f[IMA_MAX_FIELDS];
	const char *show = NULL;
	size_t t;
	int k, nf;

	printf("%u ", en->pcr);
	put_hex(en->hash, 20);
	printf(" %s", en->name);
	for (t = 0; t < sizeof(tpl_show) / sizeof(tpl_show[0]); t++)
		if (strcmp(en->name, tpl_show[t].name) == 0)
			show = tpl_show[t].fields;
	nf = imalog_fields(en, f, IMA_MAX_FIELDS);
	if (!show || nf != (int)strlen(show)) {
		/* A template tpmbox does not know: its data as hex. */
		putchar(' ');
		put_hex(en->tdata, en->tlen);
		putchar('\n');
		return;
	}
	for (k = 0; k < nf; k++) {
		putchar(' ');
		if (!f[k].len)
			continue;
		if (show[k] == 'd')
			put_digest_ng(f[k].p, f[k].len);
		else if (show[k] == 'n')
			/* n-ng carries its NUL; the kernel shows the string */
			put_path(f[k].p, f[k].len && !f[k].p[f[k].len - 1] ?
				 f[k].len - 1 : f[k].len, 0);
		else
			put_hex(f[k].p, f[k].len);
	}
	putchar('\n');
}

static void json_entry(const struct ima_entry *en, int first)
{
	printf("%s\n    {\"num\": %u, \"offset\": %zu, \"pcr\": %u, "
	       "\"template_hash\": \"", first ? "" : ",", en->num, en->offset,
	       en->pcr);
	put_hex(en->hash, 20);
	printf("\", \"invalid\": %s, \"template\": \"%s\"",
	       en->invalid ? "true" : "false", en->name);
	if (en->digest) {
		printf(", \"digest_alg\": \"%s\", \"digest\": \"", en->dalg);
		put_hex(en->digest, en->dsize);
		printf("\", \"path\": \"");
		put_path(en->path, en->plen, 1);
		printf("\"");
		if (en->sig) {
			printf(", \"signature\": \"");
			put_hex(en->sig, en->slen);
			printf("\"");
		}
	}
	printf(", \"template_data\": \"");
	put_hex(en->tdata, en->tlen);
	printf("\"}");
}

/* "sha1,sha256" -> algs; exit 2 naming a bad bank. */
static int parse_banks(struct ctx *c, const char *s, uint16_t *algs, int *n)
{
	int i;

	if (pcr_banks_parse(s, algs, n, &c->e))
		return ctx_usage(c, "%s", c->e.msg);
	for (i = 0; i < *n; i++)
		if (!imalog_bank_ok(algs[i]) || !hash_supported(algs[i]))
			return ctx_usage(c, "cannot replay an IMA log in bank "
					 "%s (sha1, sha256, sha384, sha512 "
					 "can be)", alg_name(algs[i]));
	return 0;
}

static int read_list(struct ctx *c, const char *path, uint8_t **buf,
		     struct imalog *log)
{
	size_t len;

	if (file_read(path, IMA_MAX_FILE, buf, &len, &c->e))
		return ctx_fail(c);
	if (imalog_parse(*buf, len, log, &c->e)) {
		free(*buf);
		*buf = NULL;
		err_prefix(&c->e, "%s", path);
		return ctx_fail(c);
	}
	return 0;
}

/* "sha256:10" or "sha256:10,11": the PCRs of one bank the list extends. */
static void bank_pcrs(char *out, size_t cap, uint16_t bank, uint32_t mask)
{
	size_t off = (size_t)snprintf(out, cap, "%s:", alg_name(bank));
	int p, first = 1;

	for (p = 0; p < 32 && off < cap; p++)
		if (mask & (1u << p)) {
			off += (size_t)snprintf(out + off, cap - off, "%s%d",
						first ? "" : ",", p);
			first = 0;
		}
}

/* --check: the PCRs first, then the list (so the list can only be ahead),
 * then per bank the prefix of the list that replays to them. */
static int check(struct ctx *c, const char *path, const uint16_t *algs,
		 int nb)
{
	struct pcr_vals *want = malloc(sizeof(*want));
	struct pcr_vals *got = malloc(sizeof(*got));
	struct pcr_vals *full = malloc(sizeof(*full));
	char bad[256] = "", name[160], hx[2 * TPM2_MAX_DIGEST + 1];
	char ht[2 * TPM2_MAX_DIGEST + 1];
	struct imalog log;
	uint8_t *buf = NULL;
	uint32_t touched;
	int i, p, k, rc = 0, nbad = 0, nok = 0;
	struct tpm *t;

	if (!want || !got || !full) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	/* A first read only to learn which PCRs the list extends. */
	if ((rc = read_list(c, path, &buf, &log)))
		goto out;
	touched = imalog_pcrs(&log);
	imalog_free(&log);
	free(buf);
	buf = NULL;
	want->n = 0;
	for (i = 0; i < nb; i++)
		for (p = 0; p < 32; p++)
			if (touched & (1u << p)) {
				struct pcr_val *v = &want->v[want->n++];

				v->alg = algs[i];
				v->idx = (uint8_t)p;
				v->len = (uint8_t)hash_size(algs[i]);
			}
	if (!(t = ctx_tpm(c)) || evl_tpm_values(t, want, got)) {
		rc = ctx_fail(c);
		goto out;
	}
	for (k = 0; k < got->n; k++)
		if (!got->v[k].len)
			printf("%s:%u not on this TPM; not checked\n",
			       alg_name(got->v[k].alg), got->v[k].idx);
	if ((rc = read_list(c, path, &buf, &log)))
		goto out;
	for (i = 0; i < nb && !rc; i++) {
		struct ima_match m;

		if (imalog_match(&log, algs[i], got, &m, &c->e)) {
			rc = ctx_fail(c);
			break;
		}
		if (!m.compared)
			continue;
		bank_pcrs(name, sizeof(name), algs[i], touched);
		if (m.matched) {
			nok++;
			printf("%s match%s the list", name,
			       strchr(name, ',') ? "" : "es");
			if (m.how == IMA_DIGEST_SHA1_PADDED)
				printf(" with SHA-1 template digests "
				       "zero-padded (the kernel could not use "
				       "%s)", alg_name(algs[i]));
			if (m.upto < log.n)
				printf(" up to entry %u of %u; %u beyond it, "
				       "measured after the PCRs were read, are "
				       "not covered", m.upto, log.n,
				       log.n - m.upto);
			printf("\n");
			continue;
		}
		/* Show the full list's replay (own digests) against the TPM. */
		full->n = 0;
		if (imalog_replay(&log, algs[i], full, &c->e)) {
			rc = ctx_fail(c);
			break;
		}
		for (k = 0; k < full->n; k++) {
			const struct pcr_val *f = &full->v[k];
			int j;

			for (j = 0; j < got->n; j++)
				if (got->v[j].alg == f->alg &&
				    got->v[j].idx == f->idx && got->v[j].len)
					break;
			if (j == got->n)
				continue;
			hex_encode(f->d, f->len, hx);
			hex_encode(got->v[j].d, got->v[j].len, ht);
			printf("%s:%u differs: log %s tpm %s\n",
			       alg_name(f->alg), f->idx, hx, ht);
		}
		printf("%s: no prefix of the list matches, with %s template "
		       "digests or SHA-1 ones zero-padded\n", name,
		       alg_name(algs[i]));
		if (strlen(bad) < sizeof(bad) - 40)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%s%s", nbad ? " " : "", name);
		nbad++;
	}
	imalog_free(&log);
	if (rc)
		goto out;
	if (nbad) {
		err_set(&c->e, EX_FAIL, "%d bank%s differ%s from the log: %s",
			nbad, nbad == 1 ? "" : "s", nbad == 1 ? "s" : "", bad);
		rc = ctx_fail(c);
	} else if (!nok) {
		err_set(&c->e, EX_FAIL, "no PCR of the log could be compared: "
			"the TPM has none of its banks");
		rc = ctx_fail(c);
	} else {
		printf("%d bank%s match%s the log\n", nok, nok == 1 ? "" : "s",
		       nok == 1 ? "es" : "");
	}
out:
	free(buf);
	free(want);
	free(got);
	free(full);
	return rc;
}

static const char shortopts[] = "b:";
static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{"pcrs", no_argument, NULL, 'p'},
	{"check", no_argument, NULL, 'c'},
	{"banks", required_argument, NULL, 'b'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *path = IMA_DEFAULT_PATH, *banks = NULL;
	int json = 0, pcrs = 0, chk = 0, o, rc = 0, nb = 0, i;
	uint16_t algs[TPM2_MAX_BANKS];
	struct pcr_vals *v = NULL;
	struct imalog log;
	uint8_t *buf;
	size_t len;
	uint32_t k;

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
	if (banks && (rc = parse_banks(c, banks, algs, &nb)))
		return rc;
	if (!banks && chk) {
		struct pcr_sel alloc;
		unsigned npcrs;
		struct tpm *t;

		if (!(t = ctx_tpm(c)) || tpm2_pcr_banks(t, &alloc, &npcrs))
			return ctx_fail(c);
		for (i = 0; i < alloc.n; i++)
			if (imalog_bank_ok(alloc.b[i].alg) &&
			    hash_supported(alloc.b[i].alg))
				algs[nb++] = alloc.b[i].alg;
		if (!nb) {
			err_set(&c->e, EX_FAIL, "the TPM has no bank an IMA "
				"log can be replayed in");
			return ctx_fail(c);
		}
	} else if (!banks) {
		algs[nb++] = TPM2_ALG_SHA1;
		algs[nb++] = TPM2_ALG_SHA256;
	}

	if (chk)
		return check(c, path, algs, nb);
	if (file_read(path, IMA_MAX_FILE, &buf, &len, &c->e))
		return ctx_fail(c);
	if (imalog_parse(buf, len, &log, &c->e)) {
		free(buf);
		err_prefix(&c->e, "%s", path);
		return ctx_fail(c);
	}
	if (pcrs) {
		if (!(v = malloc(sizeof(*v)))) {
			rc = ctx_usage(c, "out of memory");
			goto out;
		}
		v->n = 0;
		for (i = 0; i < nb; i++)
			if (imalog_replay(&log, algs[i], v, &c->e)) {
				rc = ctx_fail(c);
				goto out;
			}
	}
	if (pcrs) {
		if ((rc = ctx_print_pcrs(c, v, json)))
			goto out;
	} else if (json) {
		printf("{\n  \"entries\": [");
		for (k = 0; k < log.n; k++)
			json_entry(&log.ent[k], k == 0);
		printf("\n  ]\n}\n");
	} else {
		for (k = 0; k < log.n; k++)
			text_entry(&log.ent[k]);
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
