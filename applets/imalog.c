/* imalog: print, replay and check a Linux IMA measurement list. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "crypto/hash.h"
#include "eventlog.h"
#include "file.h"
#include "imalog.h"
#include "pcrfile.h"

static const char usage[] =
	"usage: imalog [--json] [--pcrs] [--check] [-b BANKS] [FILE]\n"
	"Parse an IMA binary measurement list (templates ima, ima-ng, "
	"ima-sig)\nand print it like ascii_runtime_measurements.\n"
	"FILE defaults to " IMA_DEFAULT_PATH ".\n"
	"  --json     entries (or with --pcrs, the values) as JSON\n"
	"  --pcrs     print the PCR values (10) the list replays to, in "
	"pcrread's\n"
	"             format\n"
	"  --check    compare the replayed values with the TPM's; name the\n"
	"             PCRs that differ and exit 1 if any\n"
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

static void text_entry(const struct ima_entry *en)
{
	printf("%u ", en->pcr);
	put_hex(en->hash, 20);
	printf(" %s ", en->name);
	if (!en->digest) {
		put_hex(en->tdata, en->tlen);
		putchar('\n');
		return;
	}
	if (strcmp(en->name, "ima") && en->dalg[0])
		printf("%s:", en->dalg);
	put_hex(en->digest, en->dsize);
	putchar(' ');
	put_path(en->path, en->plen, 0);
	if (en->slen) {
		putchar(' ');
		put_hex(en->sig, en->slen);
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

	if (file_read(path, IMA_MAX_FILE, &buf, &len, &c->e))
		return ctx_fail(c);
	if (imalog_parse(buf, len, &log, &c->e)) {
		free(buf);
		err_prefix(&c->e, "%s", path);
		return ctx_fail(c);
	}
	if (pcrs || chk) {
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
	} else if (!chk && json) {
		printf("{\n  \"entries\": [");
		for (k = 0; k < log.n; k++)
			json_entry(&log.ent[k], k == 0);
		printf("\n  ]\n}\n");
	} else if (!chk) {
		for (k = 0; k < log.n; k++)
			text_entry(&log.ent[k]);
	}
	if (chk)
		rc = ctx_check_pcrs(c, v);
out:
	free(v);
	imalog_free(&log);
	free(buf);
	return rc;
}

const struct applet applet_imalog = {
	"imalog", "parse, replay and check an IMA measurement list", usage,
	run, shortopts, longopts, 0
};
