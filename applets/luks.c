/* luks: the TPM tokens of a LUKS2 volume (systemd-cryptenroll's and
 * clevis'): list them and whether this TPM's PCRs satisfy them now. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/hex.h"
#include "job/luks.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: luks list DEV [--json]\n"
	"Read a LUKS2 header (a block device or an image file, read-only, no\n"
	"cryptsetup needed) and list its keyslots and tokens; for each TPM\n"
	"token (systemd-tpm2 from systemd-cryptenroll, clevis with its tpm2\n"
	"and sss pins): the keyslots, PCR bank and PCRs, PIN, signed policy\n"
	"(the key's SHA-256 fingerprint), pcrlock, the primary key it is\n"
	"sealed under, and whether this TPM's PCRs match its policy now\n"
	"(yes, no, unknown without a TPM; a signed policy or pcrlock is not\n"
	"checked here).  Nothing is sent to the TPM before the header and\n"
	"every token have been read.\n"
	"  --json     the same as JSON\n"
	"Exit 1 for a header or token that is malformed.\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{NULL, 0, NULL, 0}
};

static const char *const match_word[] = {
	"unknown", "yes", "no", "no (PCR bank not allocated)",
	"not checked here", "-"
};
static const char *const match_json[] = {
	"unknown", "yes", "no", "nobank", "unchecked", "na"
};

static void pcr_text(uint16_t bank, uint32_t mask)
{
	int i, first = 1;

	if (!mask) {
		printf("none");
		return;
	}
	printf("%s:", alg_name(bank));
	for (i = 0; i < 32; i++)
		if (mask & (1u << i)) {
			printf(first ? "%d" : ",%d", i);
			first = 0;
		}
}

static void pcr_json(uint32_t mask)
{
	int i, first = 1;

	putchar('[');
	for (i = 0; i < 32; i++)
		if (mask & (1u << i)) {
			printf(first ? "%d" : ",%d", i);
			first = 0;
		}
	putchar(']');
}

static void hex_print(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static const char *alg_word(uint16_t a)
{
	return a == TPM2_ALG_RSA ? "rsa" : "ecc";
}

static void text_systemd(const struct luks_tok *t)
{
	const struct sdtpm2 *s = t->sd;

	printf("    pcrs: ");
	pcr_text(s->bank, s->pcrs);
	printf("\n    pin: %s%s\n", s->pin ? "yes" : "no",
	       s->pin && s->saltlen ? " (salted)" : "");
	if (s->has_pubkey) {
		printf("    signed policy: key ");
		hex_print(s->pubkey_fp, 32);
		printf(" (%s), pcrs ", s->pubkey_rsa ? "RSA" : "P-256");
		pcr_text(s->bank, s->pubkey_pcrs);
		printf("; signed policy: not checked here\n");
	} else {
		printf("    signed policy: no\n");
	}
	if (s->pcrlock)
		printf("    pcrlock: yes (NV index 0x%08x)\n", s->nv_index);
	else
		printf("    pcrlock: no\n");
	if (s->has_srk) {
		printf("    primary: persistent SRK 0x%08x, name ",
		       s->srk_handle);
		hex_print(s->srk_name, s->srk_namelen);
		putchar('\n');
	} else {
		printf("    primary: legacy %s template\n",
		       alg_word(s->primary_alg));
	}
	if (s->nblob > 1)
		printf("    blob parts: %d\n", s->nblob);
	printf("    match: %s\n", match_word[t->match[0]]);
}

static void text_clevis(const struct luks_tok *t)
{
	const struct clevis *c = t->cl;
	int k;

	for (k = 0; k < c->n; k++) {
		const struct clevis_pin *p = &c->pin[k];
		int ind = 4 + 2 * p->depth;

		printf("%*spin: %s", ind, "", p->name);
		if (p->kind == CLEVIS_SSS)
			printf(" (threshold %d of %d)\n", p->t, p->nshare);
		else if (p->kind == CLEVIS_OTHER)
			printf(" (not a TPM pin: skipped)\n");
		else
			putchar('\n');
		if (p->kind != CLEVIS_TPM2)
			continue;
		printf("%*s  pcrs: ", ind, "");
		pcr_text(p->pcr_bank, p->pcr_ids);
		printf("\n%*s  primary: %s template (tpm2_createprimary's "
		       "default), policy hash %s\n", ind, "", alg_word(p->key),
		       alg_name(p->hash));
		printf("%*s  match: %s\n", ind, "", match_word[t->match[k]]);
	}
}

static void text_out(const char *dev, const struct luks_vol *v)
{
	const struct luks2 *h = &v->h;
	int i, k;

	printf("%s: LUKS2, UUID %s%s%s\n", dev, h->uuid,
	       h->label[0] ? ", label " : "", h->label);
	if (h->copy == 0)
		printf("header: primary copy (seqid %llu)%s%s\n",
		       (unsigned long long)h->seqid,
		       h->other_ok ? "" : "; the secondary copy ",
		       h->other_ok ? "" : h->other_why);
	else
		printf("header: secondary copy at %llu (seqid %llu); the "
		       "primary copy %s\n", (unsigned long long)h->offset,
		       (unsigned long long)h->seqid, h->other_why);
	printf("keyslots:\n");
	for (i = 0; i < h->nkeyslot; i++)
		printf("  %d: %s, %s, key %lld bits\n", h->ks[i].id,
		       h->ks[i].type, h->ks[i].kdf,
		       (long long)h->ks[i].key_size * 8);
	printf("tokens:%s\n", v->n ? "" : " none");
	for (i = 0; i < v->n; i++) {
		const struct luks_tok *t = &v->tok[i];

		printf("  %d: %s, keyslot%s", t->id, t->t->type,
		       (t->t->keyslots & (t->t->keyslots - 1)) ? "s" : "");
		for (k = 0; k < 32; k++)
			if (t->t->keyslots & (1u << k))
				printf(" %d", k);
		putchar('\n');
		if (t->kind == LUKS_TOK_SYSTEMD)
			text_systemd(t);
		else if (t->kind == LUKS_TOK_CLEVIS)
			text_clevis(t);
	}
}

static void json_systemd(const struct luks_tok *t)
{
	const struct sdtpm2 *s = t->sd;

	printf(",\"pcr_bank\":\"%s\",\"pcrs\":", alg_name(s->bank));
	pcr_json(s->pcrs);
	printf(",\"pin\":%s,\"salt\":%s,\"signed_policy\":",
	       s->pin ? "true" : "false", s->saltlen ? "true" : "false");
	if (s->has_pubkey) {
		printf("{\"fingerprint\":\"");
		hex_print(s->pubkey_fp, 32);
		printf("\",\"key\":\"%s\",\"pcrs\":",
		       s->pubkey_rsa ? "rsa" : "p256");
		pcr_json(s->pubkey_pcrs);
		putchar('}');
	} else {
		printf("null");
	}
	if (s->pcrlock)
		printf(",\"pcrlock\":{\"nv_index\":\"0x%08x\"}", s->nv_index);
	else
		printf(",\"pcrlock\":null");
	if (s->has_srk) {
		printf(",\"primary\":{\"kind\":\"srk\",\"handle\":\"0x%08x\","
		       "\"name\":\"", s->srk_handle);
		hex_print(s->srk_name, s->srk_namelen);
		printf("\"}");
	} else {
		printf(",\"primary\":{\"kind\":\"legacy\",\"alg\":\"%s\"}",
		       alg_word(s->primary_alg));
	}
	printf(",\"blob_parts\":%d,\"match\":\"%s\"", s->nblob,
	       match_json[t->match[0]]);
}

static void json_clevis(const struct luks_tok *t)
{
	const struct clevis *c = t->cl;
	int k;

	printf(",\"pins\":[");
	for (k = 0; k < c->n; k++) {
		const struct clevis_pin *p = &c->pin[k];

		printf("%s{\"pin\":", k ? "," : "");
		ctx_json_str(p->name);
		printf(",\"parent\":%d", p->parent);
		if (p->kind == CLEVIS_SSS)
			printf(",\"t\":%d,\"shares\":%d", p->t, p->nshare);
		if (p->kind == CLEVIS_TPM2) {
			printf(",\"hash\":\"%s\",\"key\":\"%s\","
			       "\"pcr_bank\":\"%s\",\"pcrs\":",
			       alg_name(p->hash), alg_word(p->key),
			       alg_name(p->pcr_bank));
			pcr_json(p->pcr_ids);
		}
		printf(",\"match\":\"%s\"}", match_json[t->match[k]]);
	}
	putchar(']');
}

static void json_out(const char *dev, const struct luks_vol *v)
{
	const struct luks2 *h = &v->h;
	int i, k;

	printf("{\"device\":");
	ctx_json_str(dev);
	printf(",\"uuid\":");
	ctx_json_str(h->uuid);
	printf(",\"copy\":\"%s\",\"offset\":%llu,\"seqid\":%llu,"
	       "\"other_copy_valid\":%s,\"keyslots\":[",
	       h->copy ? "secondary" : "primary",
	       (unsigned long long)h->offset, (unsigned long long)h->seqid,
	       h->other_ok ? "true" : "false");
	for (i = 0; i < h->nkeyslot; i++) {
		printf("%s{\"id\":%d,\"type\":", i ? "," : "", h->ks[i].id);
		ctx_json_str(h->ks[i].type);
		printf(",\"kdf\":");
		ctx_json_str(h->ks[i].kdf);
		printf(",\"key_size\":%lld}", (long long)h->ks[i].key_size);
	}
	printf("],\"tokens\":[");
	for (i = 0; i < v->n; i++) {
		const struct luks_tok *t = &v->tok[i];
		int first = 1;

		printf("%s{\"id\":%d,\"type\":", i ? "," : "", t->id);
		ctx_json_str(t->t->type);
		printf(",\"keyslots\":[");
		for (k = 0; k < 32; k++)
			if (t->t->keyslots & (1u << k)) {
				printf(first ? "%d" : ",%d", k);
				first = 0;
			}
		putchar(']');
		if (t->kind == LUKS_TOK_SYSTEMD)
			json_systemd(t);
		else if (t->kind == LUKS_TOK_CLEVIS)
			json_clevis(t);
		putchar('}');
	}
	printf("]}\n");
}

static int has_tpm_token(const struct luks_vol *v)
{
	int i;

	for (i = 0; i < v->n; i++)
		if (v->tok[i].kind != LUKS_TOK_OTHER)
			return 1;
	return 0;
}

static int list(struct ctx *c, const char *dev, int json)
{
	struct luks_vol *v = malloc(sizeof(*v));
	struct tpm *t;

	if (!v)
		return ctx_usage(c, "out of memory");
	/* Step 1: the header and every token, before the TPM. */
	if (luks_load(dev, v, &c->e)) {
		free(v);
		return ctx_fail(c);
	}
	/* Step 2: this TPM's PCRs against each token's policy; without a
	 * TPM the list still stands, the match unknown. */
	if (has_tpm_token(v) &&
	    (!(t = ctx_tpm(c)) || luks_match(t, v, &c->e))) {
		int i;

		fprintf(stderr, "tpmbox %s: note: PCRs not compared: %s\n",
			c->name, c->e.msg);
		for (i = 0; i < v->n; i++)
			memset(v->tok[i].match, 0, sizeof(v->tok[i].match));
	}
	/* Step 3: print. */
	if (json)
		json_out(dev, v);
	else
		text_out(dev, v);
	luks_vol_free(v);
	free(v);
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	int json = 0, o;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind >= argc)
		return ctx_usage(c, "expected a subcommand: list");
	if (strcmp(argv[optind], "list"))
		return ctx_usage(c, "unknown subcommand '%s' (this version "
				 "has: list)", argv[optind]);
	if (argc - optind != 2)
		return ctx_usage(c, "expected: luks list DEV");
	return list(c, argv[optind + 1], json);
}

const struct applet applet_luks = {
	"luks", "list a LUKS2 volume's TPM tokens (systemd, clevis)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
