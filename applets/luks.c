/* luks: the TPM tokens of a LUKS2 volume (systemd-cryptenroll's,
 * clevis' and tpmbox's own): list them and whether this TPM's PCRs
 * satisfy them now, unlock with them, enroll a keyslot with one, remove
 * one with its keyslot, reseal tpmbox's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/run.h"
#include "job/luks.h"
#include "base/tty.h"
#include "job/escrow.h"
#include "job/luksenroll.h"
#include "job/luksunlock.h"
#include "job/reseal.h"
#include "job/sealing.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: luks list DEV [--json]\n"
	"       luks unlock DEV [--token-id N] [--pin AUTH] [--signature "
	"SIG.json]\n"
	"                   [-o FILE [-f] | --open NAME]\n"
	"       luks unlock --jwe FILE [-o FILE [-f]]\n"
	"       luks enroll DEV --as systemd|clevis|tpmbox [-p SELECTION]...\n"
	"                   [--pin AUTH] [--escrow RCPT]... "
	"[--recovery-code-out FILE]\n"
	"                   [--unlock-key-file FILE]\n"
	"       luks recover DEV [--token-id N] (-k KEYFILE | --recovery-code "
	"AUTH)\n"
	"                   [-o FILE [-f] | --open NAME]\n"
	"       luks remove DEV --token-id N [--force [--yes]]\n"
	"       luks reseal DEV [--token-id N] -p SELECTION... [-k KEYFILE]\n"
	"                   [--escrow RCPT]... [--recovery-code-out FILE]\n"
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
	"unlock: the volume's passphrase out of a TPM token (systemd-tpm2 of\n"
	"systemd 252-258; clevis tpm2, and sss over tpm2 pins), each token\n"
	"tried in turn, written to stdout without a newline:\n"
	"  tpmbox luks unlock DEV | cryptsetup open --key-file=- DEV NAME\n"
	"  --token-id N     that token only\n"
	"  --pin AUTH       a systemd token's PIN (AUTH: file:, env:, str:;\n"
	"                   default: asked on the terminal)\n"
	"  --signature F    systemd's signed-policy JSON (tpm2_pubkey tokens)\n"
	"  -o FILE          write it to FILE (mode 0600, atomically; -f\n"
	"                   replaces one)\n"
	"  --open NAME      run cryptsetup open --key-file=- DEV NAME, the\n"
	"                   passphrase on its stdin\n"
	"  --jwe FILE       a clevis JWE (clevis encrypt tpm2/sss): its\n"
	"                   plaintext, as clevis decrypt gives it\n"
	"enroll: a new keyslot with a random passphrase (cryptsetup\n"
	"luksAddKey, authorized by an existing passphrase) and a token for\n"
	"it that systemd (252+), clevis (19+) or tpmbox unlocks; a token that\n"
	"cannot be written takes its keyslot with it:\n"
	"  --as FORM        systemd, clevis or tpmbox (seal's blob: PolicyOR\n"
	"                   states, escrow, luks unlock and recover open it)\n"
	"  -p SELECTION     the PCRs (one bank; several -p: tpmbox's states;\n"
	"                   none: no PCRs; default sha256:7)\n"
	"  --pin AUTH       systemd: also a PIN (AUTH; -: asked twice)\n"
	"  --escrow RCPT    tpmbox: an escrow copy, as seal --escrow\n"
	"  --recovery-code-out FILE  tpmbox: a recovery code, as seal's\n"
	"  --unlock-key-file FILE  the existing passphrase (default: stdin\n"
	"                   when it is not a terminal, else asked)\n"
	"recover: without the TPM, the passphrase out of a tpmbox token's\n"
	"escrow copy (enroll --as tpmbox --escrow or --recovery-code-out), as\n"
	"recover opens a blob's; each tpmbox token in turn (or the one named):\n"
	"  -k KEYFILE       an escrow recipient's private key or age identity\n"
	"  --recovery-code AUTH  the recovery code (AUTH; - asks on the\n"
	"                   terminal); a mistyped group is named (exit 2)\n"
	"remove: a TPM token and its keyslot; never a keyslot another token\n"
	"names, the last keyslot only with --force and consent:\n"
	"  --force          the volume's last keyslot too\n"
	"  --yes            consent without asking (stdin not a terminal)\n"
	"reseal: a tpmbox token sealed again to -p's PCRs (their values now),\n"
	"its escrow recipients kept; the new token replaces the old one in\n"
	"its place (the keyslot stays); an old recovery code needs a new\n"
	"one (--recovery-code-out):\n"
	"  -k KEYFILE       when the old token no longer unseals here: an\n"
	"                   escrow recipient's private key opens its copy\n"
	"Exit 1 for a header or token that is malformed or not for this TPM\n"
	"(another SRK, a PCR bank it lacks, pcrlock, tang), 4 when the PCRs\n"
	"or the PIN do not match, 5 in dictionary-attack lockout.\n";

static const char shortopts[] = "o:fp:k:";
static const struct option longopts[] = {
	{"as", required_argument, NULL, 'A'},
	{"escrow", required_argument, NULL, 'E'},
	{"recovery-code-out", required_argument, NULL, 'K'},
	{"unlock-key-file", required_argument, NULL, 'U'},
	{"yes", no_argument, NULL, 'y'},
	{"json", no_argument, NULL, 'j'},
	{"token-id", required_argument, NULL, 't'},
	{"pin", required_argument, NULL, 'P'},
	{"signature", required_argument, NULL, 's'},
	{"open", required_argument, NULL, 'O'},
	{"jwe", required_argument, NULL, 'J'},
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, 'f'},
	{"recovery-code", required_argument, NULL, 'R'},
	{NULL, 0, NULL, 0}
};

#define SIG_FILES 8

struct unlock_opts {
	int token;		/* -1: every TPM token */
	const char *pin;	/* AUTH */
	const char *sig[SIG_FILES];
	int nsig;
	const char *out;
	int force;
	const char *open;
	const char *jwe;
	const char *key;	/* recover: -k KEYFILE */
	const char *code;	/* recover: --recovery-code AUTH */
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

static void text_tpmbox(const struct luks_tok *t)
{
	const struct keyfile *k = t->kf;
	int b, j;

	printf("    pcrs: ");
	if (!k->nbranch)
		printf("none");
	for (b = 0; b < k->nbranch; b++)
		for (j = 0; j < k->br[b].sel.n; j++) {
			printf("%s", b && !j ? " | " : j ? "+" : "");
			pcr_text(k->br[b].sel.b[j].alg, k->br[b].sel.b[j].mask);
		}
	printf("%s\n", k->nbranch > 1 ? " (any one state: PolicyOR)" : "");
	printf("    signed policy: %s\n    password: %s\n",
	       k->authorized ? "yes" : "no", k->auth ? "yes" : "no");
	if (t->escrow)
		printf("    escrow: %zu RSA, %zu EC, %zu age, %s\n", t->ec.rsa,
		       t->ec.ec, t->ec.age, t->ec.code ? "a recovery code" :
		       "no recovery code");
	else
		printf("    escrow: none\n");
	printf("    primary: %s\n", k->parent == KEYFILE_PARENT_SRK ?
	       "the SRK at 0x81000001" : "the SRK's template (owner)");
	printf("    match: %s\n", match_word[t->match[0]]);
}

static void json_tpmbox(const struct luks_tok *t)
{
	const struct keyfile *k = t->kf;
	int b, j;

	printf(",\"states\":[");
	for (b = 0; b < k->nbranch; b++) {
		printf("%s[", b ? "," : "");
		for (j = 0; j < k->br[b].sel.n; j++) {
			printf("%s{\"pcr_bank\":\"%s\",\"pcrs\":", j ? "," : "",
			       alg_name(k->br[b].sel.b[j].alg));
			pcr_json(k->br[b].sel.b[j].mask);
			putchar('}');
		}
		putchar(']');
	}
	printf("],\"signed_policy\":%s,\"password\":%s,\"escrow\":",
	       k->authorized ? "true" : "false", k->auth ? "true" : "false");
	if (t->escrow)
		printf("{\"rsa\":%zu,\"ec\":%zu,\"age\":%zu,\"code\":%s}",
		       t->ec.rsa, t->ec.ec, t->ec.age,
		       t->ec.code ? "true" : "false");
	else
		printf("null");
	printf(",\"match\":\"%s\"", match_json[t->match[0]]);
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
		else if (t->kind == LUKS_TOK_TPMBOX)
			text_tpmbox(t);
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
		else if (t->kind == LUKS_TOK_TPMBOX)
			json_tpmbox(t);
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

/* The passphrase where it goes: stdout, -o FILE or cryptsetup's stdin. */
static int deliver(struct ctx *c, const char *dev,
		   const struct unlock_opts *o, const uint8_t *p, size_t n)
{
	char *argv[] = { "cryptsetup", "open", "--key-file=-", (char *)dev,
			 (char *)o->open, NULL };

	if (o->open)
		return run_feed(argv, p, n, &c->e) ? ctx_fail(c) : 0;
	return file_write_atomic(o->out ? o->out : "-", p, n,
				 OUT_SECRET | (o->force ? OUT_FORCE : 0),
				 &c->e) ? ctx_fail(c) : 0;
}

/* exit codes in the order one is worth telling over another */
static int worth(int code)
{
	return code == EX_LOCKOUT ? 3 : code == EX_AUTH ? 2 : 1;
}

static int unlock_jwe(struct ctx *c, const struct unlock_opts *o)
{
	struct clevis *cl = calloc(1, sizeof(*cl));
	uint8_t *text = NULL, *pass = NULL;
	size_t n = 0, plen = 0, len;
	struct tpm *t;
	int rc;

	/* Step 1: the JWE (up to the first blank: file_read's buffer has
	 * no terminating NUL), before the TPM. */
	if (!cl)
		return ctx_usage(c, "out of memory");
	if (file_read(o->jwe, 1 << 20, &text, &n, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	for (len = 0; len < n && !strchr(" \t\r\n", text[len]); len++)
		;
	if (clevis_parse_compact((const char *)text, len, o->jwe, cl,
				 &c->e) ||
	    luks_unlock_check_clevis(cl, o->jwe, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (ctx_out_new(c, o->force ? OUT_FORCE : 0, o->out)) {
		rc = EX_USAGE;
		goto out;
	}
	/* Step 2: its pins opened on the TPM, the plaintext written. */
	if (!(t = ctx_tpm(c)) ||
	    luks_unlock_clevis(t, cl, o->jwe, &pass, &plen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	rc = deliver(c, NULL, o, pass, plen);
out:
	if (pass) {
		explicit_bzero(pass, plen);
		free(pass);
	}
	clevis_free(cl);
	free(cl);
	free(text);
	return rc;
}

static int unlock(struct ctx *c, const char *dev, const struct unlock_opts *o)
{
	struct luks_vol *v = malloc(sizeof(*v));
	struct luks_unlock_in in;
	char what[LUKS2_SLOTS][300], skip[LUKS2_SLOTS][512], pin[AUTH_MAX + 1];
	int ok[LUKS2_SLOTS], i, n = 0, need = 0, np, rc = 0, best = 0;
	struct tberr best_e;
	uint8_t *pass = NULL;
	size_t plen = 0, pinlen = 0;
	struct tpm *t;

	if (!v)
		return ctx_usage(c, "out of memory");
	memset(&in, 0, sizeof(in));
	memset(&best_e, 0, sizeof(best_e));
	in.sigpaths = o->sig;
	in.nsig = o->nsig;
	/* Step 1: the header and every token, before the TPM. */
	if (luks_load(dev, v, &c->e)) {
		free(v);
		return ctx_fail(c);
	}
	/* Step 2: the tokens to try (the one named, or every TPM token),
	 * each checked without the TPM. */
	for (i = 0; i < v->n; i++) {
		const struct luks_tok *tk = &v->tok[i];

		ok[i] = 0;
		skip[i][0] = 0;
		snprintf(what[i], sizeof(what[i]), "%s: token %d (%s)", dev,
			 tk->id, tk->t->type);
		if (o->token >= 0 ? tk->id != o->token :
		    tk->kind == LUKS_TOK_OTHER)
			continue;
		if (luks_unlock_check(tk, what[i], &in, &np, &c->e)) {
			if (o->token >= 0 || !best ||
			    worth(c->e.code) > worth(best)) {
				best = c->e.code;
				best_e = c->e;
			}
			snprintf(skip[i], sizeof(skip[i]), "%s", c->e.msg);
			err_clear(&c->e);
			continue;
		}
		ok[i] = 1;
		n++;
		need |= np;
	}
	if (!n) {
		if (best) {
			c->e = best_e;
			rc = ctx_fail(c);
		} else if (o->token >= 0) {
			rc = ctx_usage(c, "%s has no token %d", dev, o->token);
		} else {
			err_set(&c->e, EX_FAIL, "%s has no TPM token "
				"(systemd-tpm2, clevis or tpmbox)", dev);
			rc = ctx_fail(c);
		}
		goto out;
	}
	/* the tokens left out, told now that others are tried */
	for (i = 0; i < v->n; i++)
		if (skip[i][0])
			fprintf(stderr, "tpmbox %s: note: %s\n", c->name,
				skip[i]);
	best = 0;
	/* Step 3: the PIN (asked on the terminal when not given), the
	 * output checked free. */
	if (need && auth_text(o->pin, "PIN: ", pin, sizeof(pin), &pinlen,
			      &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (need) {
		in.pin = pin;
		in.pinlen = pinlen;
	}
	if (ctx_out_new(c, o->force ? OUT_FORCE : 0, o->out)) {
		rc = EX_USAGE;
		goto out;
	}
	/* Step 4: each token on the TPM until one opens. */
	if (!(t = ctx_tpm(c))) {
		rc = ctx_fail(c);
		goto out;
	}
	for (i = 0; i < v->n; i++) {
		if (!ok[i])
			continue;
		if (!luks_unlock_token(t, &v->tok[i], what[i], &in, &pass,
				       &plen, &c->e))
			break;
		if (--n)
			fprintf(stderr, "tpmbox %s: note: %s\n", c->name,
				c->e.msg);
		if (!best || worth(c->e.code) > worth(best)) {
			best = c->e.code;
			best_e = c->e;
		}
		err_clear(&c->e);
	}
	if (!pass) {
		c->e = best_e;
		rc = ctx_fail(c);
		goto out;
	}
	/* Step 5: the passphrase where it goes. */
	rc = deliver(c, dev, o, pass, plen);
out:
	if (pass) {
		explicit_bzero(pass, plen);
		free(pass);
	}
	explicit_bzero(pin, sizeof(pin));
	luks_vol_free(v);
	free(v);
	return rc;
}

/* luks recover: a tpmbox token's escrow copy opened with a key or the
 * recovery code, no TPM at all (recover's job on the token's blob). */
static int recover_tok(struct ctx *c, const char *dev,
		       const struct unlock_opts *o)
{
	struct luks_vol *v = malloc(sizeof(*v));
	struct escrow_blk b;
	char code[AUTH_MAX + 1], what[300];
	uint8_t *pass = NULL;
	size_t plen = 0, clen = 0;
	int i, n = 0, rc = 0, best = 0;
	struct tberr best_e;

	if (!v)
		return ctx_usage(c, "out of memory");
	memset(&best_e, 0, sizeof(best_e));
	/* Step 1: the header and its tokens. */
	if (luks_load(dev, v, &c->e)) {
		free(v);
		return ctx_fail(c);
	}
	/* Step 2: the code (asked when AUTH is -), the output checked. */
	if (o->code && auth_text(strcmp(o->code, "-") ? o->code : NULL,
				 "Recovery code: ", code, sizeof(code), &clen,
				 &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (ctx_out_new(c, o->force ? OUT_FORCE : 0, o->out)) {
		rc = EX_USAGE;
		goto out;
	}
	/* Step 3: each tpmbox token's escrow copies until one opens. */
	for (i = 0; i < v->n && !pass; i++) {
		const struct luks_tok *tk = &v->tok[i];

		if (o->token >= 0 ? tk->id != o->token :
		    tk->kind != LUKS_TOK_TPMBOX)
			continue;
		n++;
		snprintf(what, sizeof(what), "%s: token %d (%s)", dev, tk->id,
			 tk->t->type);
		memset(&b, 0, sizeof(b));
		if (tk->kind != LUKS_TOK_TPMBOX)
			err_set(&c->e, EX_FAIL, "%s is not a tpmbox token: "
				"only tpmbox's keep escrow copies", what);
		else if (!escrow_read(tk->tb->text, tk->tb->n, &b, &c->e))
			o->key ? escrow_open_keyfile(&b, o->key, &pass, &plen,
						     &c->e) :
				 escrow_open_code(&b, code, clen, &pass, &plen,
						  &c->e);
		escrow_blk_free(&b);
		if (pass)
			break;
		if (!best || worth(c->e.code) > worth(best) ||
		    c->e.code == EX_USAGE) {
			best = c->e.code;
			best_e = c->e;
			snprintf(best_e.msg, sizeof(best_e.msg), "%.200s: %.300s",
				 what, c->e.msg);
		}
		err_clear(&c->e);
	}
	if (!pass) {
		if (n) {
			c->e = best_e;
			rc = ctx_fail(c);
		} else if (o->token >= 0) {
			rc = ctx_usage(c, "%s has no token %d", dev, o->token);
		} else {
			err_set(&c->e, EX_FAIL, "%s has no tpmbox token: only "
				"tpmbox's keep escrow copies", dev);
			rc = ctx_fail(c);
		}
		goto out;
	}
	/* Step 4: the passphrase where it goes. */
	rc = deliver(c, dev, o, pass, plen);
out:
	if (pass) {
		explicit_bzero(pass, plen);
		free(pass);
	}
	explicit_bzero(code, sizeof(code));
	luks_vol_free(v);
	free(v);
	return rc;
}

/* ---- enroll, remove ---- */

static const char eshort[] = "p:k:";
static const struct option elong[] = {
	{"as", required_argument, NULL, 'A'},
	{"pin", required_argument, NULL, 'P'},
	{"escrow", required_argument, NULL, 'E'},
	{"recovery-code-out", required_argument, NULL, 'K'},
	{"unlock-key-file", required_argument, NULL, 'U'},
	{"token-id", required_argument, NULL, 't'},
	{"force", no_argument, NULL, 'F'},
	{"yes", no_argument, NULL, 'y'},
	{NULL, 0, NULL, 0}
};

struct enroll_opts {
	int as;			/* LUKS_TOK_* */
	const char *pcr[POLICY_BRANCHES];
	int npcr;
	int pin;		/* --pin given */
	const char *pinspec;	/* its AUTH; "-": asked on the terminal */
	const char *code_out;
	const char *keyfile;
	const char *escrow_key;	/* reseal -k */
	int token, force, yes;
};

/* The existing passphrase: --unlock-key-file, stdin when it is not a
 * terminal, else asked without echo. */
static int old_pass(struct ctx *c, const char *dev, const char *keyfile,
		    uint8_t **old, size_t *n)
{
	char prompt[300];

	if (keyfile || !isatty(0))
		return file_read(keyfile ? keyfile : "-", LUKS_OLD_MAX, old, n,
				 &c->e) ? ctx_fail(c) : 0;
	if (!(*old = malloc(LUKS_OLD_MAX)))
		return ctx_usage(c, "out of memory");
	snprintf(prompt, sizeof(prompt), "Existing passphrase for %.200s: ",
		 dev);
	return tty_ask(prompt, (char *)*old, LUKS_OLD_MAX, n, &c->e) ?
	       ctx_fail(c) : 0;
}

/* The new PIN: --pin AUTH, or (--pin -) asked twice on the terminal. */
static int new_pin(struct ctx *c, const struct enroll_opts *o, char *pin,
		   size_t *n)
{
	char again[AUTH_MAX + 1];
	size_t m = 0;
	int same;

	if (strcmp(o->pinspec, "-"))
		return auth_text(o->pinspec, NULL, pin, AUTH_MAX + 1, n,
				 &c->e) ? ctx_fail(c) : 0;
	if (tty_ask("New PIN: ", pin, AUTH_MAX + 1, n, &c->e) ||
	    tty_ask("New PIN again: ", again, sizeof(again), &m, &c->e))
		return ctx_fail(c);
	same = m == *n && memcmp(again, pin, m) == 0;
	explicit_bzero(again, sizeof(again));
	if (!same)
		return ctx_usage(c, "the PINs typed differ");
	if (!*n)
		return ctx_usage(c, "an empty PIN: leave --pin out instead");
	return 0;
}

/* One bank's PCRs for --as systemd|clevis: -p SELECTION, "none", or
 * systemd-cryptenroll's default sha256:7. */
static int one_sel(struct ctx *c, const struct enroll_opts *o,
		   struct pcr_sel *sel)
{
	memset(sel, 0, sizeof(*sel));
	if (o->npcr > 1)
		return ctx_usage(c, "-p: one PCR selection for --as systemd "
				 "or clevis (several are --as tpmbox's "
				 "PolicyOR)");
	if (o->npcr && strcmp(o->pcr[0], "none") == 0)
		return 0;
	if (pcr_sel_parse(o->npcr ? o->pcr[0] : "sha256:7", sel, &c->e))
		return ctx_fail(c);
	if (sel->all || sel->n != 1 || sel->b[0].all ||
	    strchr(o->pcr[0] ? o->pcr[0] : "", '='))
		return ctx_usage(c, "-p %s: name one bank and its PCRs (e.g. "
				 "sha256:0,7), current values", o->pcr[0]);
	return 0;
}

static const char *const as_type[] = {
	"", "systemd-tpm2", "clevis", "tpmbox"
};

static int enroll(struct ctx *c, const char *dev, struct enroll_opts *o,
		  struct escrow *esc)
{
	struct luks_vol *v = malloc(sizeof(*v));
	struct seal_spec *spec = NULL;
	struct seal_opts so;
	struct pcr_sel sel;
	uint8_t secret[32], *old = NULL;
	char pass[LUKS_PASS_LEN + 1], pin[AUTH_MAX + 1], *json = NULL;
	char *pem = NULL;
	size_t oldlen = 0, pinlen = 0, pemlen = 0;
	int slot, token, rc = 0, i, imported = 0;
	struct tpm *t;

	memset(pass, 0, sizeof(pass));
	memset(pin, 0, sizeof(pin));
	memset(&so, 0, sizeof(so));
	if (!v)
		return ctx_usage(c, "out of memory");
	/* Step 1: what is asked, checked before anything is read. */
	if (o->pin && o->as != LUKS_TOK_SYSTEMD) {
		rc = ctx_usage(c, "--pin is for --as systemd");
		goto out;
	}
	if (escrow_wanted(esc) && o->as != LUKS_TOK_TPMBOX) {
		rc = ctx_usage(c, "--escrow and --recovery-code-out are for "
			       "--as tpmbox");
		goto out;
	}
	if (o->as == LUKS_TOK_TPMBOX) {
		if (!(spec = calloc(1, sizeof(*spec)))) {
			rc = ctx_usage(c, "out of memory");
			goto out;
		}
		for (i = 0; i < o->npcr; i++)
			if (strcmp(o->pcr[i], "none") &&
			    seal_opts_add(&so, 'p', o->pcr[i], &c->e)) {
				rc = ctx_fail(c);
				goto out;
			}
		if (!o->npcr)
			seal_opts_add(&so, 'p', "sha256:7", &c->e);
		if (seal_spec_parse(spec, &so, &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
	} else if ((rc = one_sel(c, o, &sel))) {
		goto out;
	}
	if (ctx_out_new(c, 0, o->code_out)) {
		rc = EX_USAGE;
		goto out;
	}
	/* Step 2: the header, a free keyslot and token id. */
	if (luks_load(dev, v, &c->e)) {
		free(v);
		return ctx_fail(c);
	}
	if (luks_enroll_free(v, dev, &slot, &token, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 3: the existing passphrase and the PIN, before the TPM. */
	if ((rc = old_pass(c, dev, o->keyfile, &old, &oldlen)) ||
	    (o->pin && (rc = new_pin(c, o, pin, &pinlen))))
		goto done;
	if (!oldlen) {
		rc = ctx_usage(c, "the existing passphrase is empty (give it "
			       "with --unlock-key-file, on stdin, or typed)");
		goto done;
	}
	/* Step 4: the new passphrase and its token, made on the TPM. */
	if (!(t = ctx_tpm(c))) {
		rc = ctx_fail(c);
		goto done;
	}
	if (o->as == LUKS_TOK_SYSTEMD)
		rc = luks_token_systemd(t, slot, &sel,
					o->pin ? (uint8_t *)pin : NULL,
					pinlen, pass, &json, &c->e);
	else if (o->as == LUKS_TOK_CLEVIS)
		rc = luks_token_clevis(t, slot, &sel, pass, &json, &c->e);
	else if (!(rc = luks_enroll_pass(t, secret, pass, &c->e)) &&
		 !(rc = escrow_wanted(esc) &&
		   escrow_make(esc, (uint8_t *)pass, LUKS_PASS_LEN, &c->e)) &&
		 !(rc = seal_blob(t, spec, (uint8_t *)pass, LUKS_PASS_LEN,
				  &pem, &pemlen, &c->e)) &&
		 !(rc = escrow_append(esc, &pem, &pemlen, &c->e)))
		rc = luks_token_tpmbox(slot, pem, pemlen, &json, &c->e);
	if (rc) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 5: the keyslot, then the token naming it; a token that
	 * cannot be written takes the keyslot with it. */
	if (luks_cs_addkey(dev, slot, old, oldlen, pass, LUKS_PASS_LEN,
			   &c->e) ||
	    luks_cs_verify(dev, v, 1u << slot, 0, 0, 0, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	if (luks_cs_import(dev, token, 0, json, &c->e))
		goto undo;
	imported = 1;
	if (luks_cs_verify(dev, v, 1u << slot, 0, 1u << token, 0, &c->e) ||
	    (o->code_out && escrow_write_code(esc, o->code_out, 0, &c->e)))
		goto undo;
	printf("%s: keyslot %d, token %d (%s)\n", dev, slot, token,
	       as_type[o->as]);
	goto done;
undo:
	{
		struct tberr first = c->e;

		err_clear(&c->e);
		if (!(imported && luks_cs_token_remove(dev, token, &c->e)) &&
		    (luks_cs_killslot(dev, slot, &c->e) ||
		     luks_cs_verify(dev, v, 0, 0, 0, 0, &c->e)))
			fprintf(stderr, "tpmbox %s: %s: keyslot %d was added "
				"and could not be removed again: %s\n",
				c->name, dev, slot, c->e.msg);
		else if (c->e.code)
			fprintf(stderr, "tpmbox %s: %s: token %d and keyslot "
				"%d were added and could not be removed again: "
				"%s\n", c->name, dev, token, slot, c->e.msg);
		else
			fprintf(stderr, "tpmbox %s: note: keyslot %d removed "
				"again: %s is as it was\n", c->name, slot,
				dev);
		c->e = first;
		rc = ctx_fail(c);
	}
done:
	luks_vol_free(v);
out:
	free(v);
	if (old) {
		explicit_bzero(old, oldlen);
		free(old);
	}
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(pass, sizeof(pass));
	explicit_bzero(pin, sizeof(pin));
	if (spec)
		seal_spec_wipe(spec);
	free(spec);
	free(json);
	if (pem) {
		explicit_bzero(pem, pemlen);
		free(pem);
	}
	return rc;
}

static int popcount(uint32_t m)
{
	int n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

/* remove: a TPM token and its keyslots, never one another token names;
 * the volume's last keyslot only with --force and consent. */
static int remove_tok(struct ctx *c, const char *dev,
		      const struct enroll_opts *o)
{
	struct luks_vol *v = malloc(sizeof(*v));
	const struct luks_tok *tk = NULL;
	uint32_t all = 0, slots;
	int i, k, rc = 0;
	char line[32];

	if (!v)
		return ctx_usage(c, "out of memory");
	/* Step 1: the header; the token, its keyslots none other names. */
	if (luks_load(dev, v, &c->e)) {
		free(v);
		return ctx_fail(c);
	}
	for (i = 0; i < v->n; i++)
		if (v->tok[i].id == o->token)
			tk = &v->tok[i];
	for (i = 0; i < v->h.nkeyslot; i++)
		all |= 1u << v->h.ks[i].id;
	if (!tk) {
		err_set(&c->e, EX_FAIL, "%s has no token %d", dev, o->token);
		goto fail;
	}
	if (tk->kind == LUKS_TOK_OTHER) {
		err_set(&c->e, EX_FAIL, "%s: token %d is of type %s, not a TPM "
			"token (systemd-tpm2, clevis, tpmbox): left alone",
			dev, tk->id, tk->t->type);
		err_hint(&c->e, "cryptsetup token remove removes any token");
		goto fail;
	}
	slots = tk->t->keyslots;
	for (i = 0; i < v->n; i++)
		for (k = 0; k < LUKS2_SLOTS && &v->tok[i] != tk; k++)
			if (v->tok[i].t->keyslots & slots & (1u << k)) {
				err_set(&c->e, EX_FAIL, "%s: keyslot %d of "
					"token %d is also token %d's: "
					"nothing removed", dev, k, tk->id,
					v->tok[i].id);
				goto fail;
			}
	/* Step 2: the last keyslot goes only with --force and consent. */
	if (!popcount(all & ~slots)) {
		if (!o->force) {
			err_set(&c->e, EX_FAIL, "%s: token %d's keyslot is the "
				"volume's last: without it nothing opens the "
				"volume; refusing without --force", dev,
				tk->id);
			err_hint(&c->e, "add a passphrase first (cryptsetup "
				 "luksAddKey)");
			goto fail;
		}
		if (!o->yes && !isatty(0)) {
			rc = ctx_usage(c, "refusing to remove the last keyslot "
				       "without --yes: standard input is not "
				       "a terminal");
			goto out;
		}
		if (!o->yes) {
			fprintf(stderr, "Remove the last keyslot of %s? Its "
				"data cannot be opened after. Type 'yes': ",
				dev);
			fflush(stderr);
			if (!fgets(line, sizeof(line), stdin) ||
			    (strcmp(line, "yes\n") && strcmp(line, "yes"))) {
				err_set(&c->e, EX_FAIL, "not removed: not "
					"confirmed");
				goto fail;
			}
		}
	}
	/* Step 3: the token, then its keyslots; the header read again. */
	if (luks_cs_token_remove(dev, tk->id, &c->e))
		goto fail;
	for (k = 0; k < LUKS2_SLOTS; k++)
		if ((slots & all) >> k & 1 && luks_cs_killslot(dev, k, &c->e))
			goto fail;
	if (luks_cs_verify(dev, v, 0, slots, 0, 1u << tk->id, &c->e))
		goto fail;
	printf("%s: token %d and keyslot", dev, tk->id);
	for (k = 0; k < LUKS2_SLOTS; k++)
		if ((slots & all) >> k & 1)
			printf(" %d", k);
	printf(" removed\n");
	goto out;
fail:
	rc = ctx_fail(c);
out:
	luks_vol_free(v);
	free(v);
	return rc;
}

/* reseal: a tpmbox token sealed again to -p's PCRs, its escrow
 * recipients kept (reseal's job); the new token replaces the old one in
 * its place: the keyslot and its passphrase stay. */
static int reseal_tok(struct ctx *c, const char *dev, struct enroll_opts *o,
		      struct escrow *esc)
{
	struct luks_vol *v = malloc(sizeof(*v));
	struct reseal *rs = calloc(1, sizeof(*rs));
	struct seal_spec *spec = calloc(1, sizeof(*spec));
	const struct luks_tok *tk = NULL;
	struct seal_opts so;
	char what[300], *pem = NULL, *json = NULL;
	size_t pemlen = 0;
	int i, slot, rc = 0;
	struct tpm *t = NULL;

	memset(&so, 0, sizeof(so));
	if (!v || !rs || !spec) {
		free(v);
		free(rs);
		free(spec);
		return ctx_usage(c, "out of memory");
	}
	/* Step 1: NEW's policy; the header and the token. */
	for (i = 0; i < o->npcr; i++)
		if (strcmp(o->pcr[i], "none") &&
		    seal_opts_add(&so, 'p', o->pcr[i], &c->e))
			goto fail0;
	if (!o->npcr) {
		rc = ctx_usage(c, "luks reseal needs -p SELECTION (the new "
			       "PCRs; none: no PCRs)");
		goto out0;
	}
	if (seal_spec_parse(spec, &so, &c->e) || luks_load(dev, v, &c->e))
		goto fail0;
	for (i = 0; i < v->n; i++)
		if (o->token >= 0 ? v->tok[i].id == o->token :
		    v->tok[i].kind == LUKS_TOK_TPMBOX) {
			if (tk && o->token < 0) {
				rc = ctx_usage(c, "%s has several tpmbox "
					       "tokens: name one with "
					       "--token-id", dev);
				goto out;
			}
			tk = &v->tok[i];
		}
	if (!tk || tk->kind != LUKS_TOK_TPMBOX) {
		err_set(&c->e, EX_FAIL, tk ? "%s: token %d is not a tpmbox "
			"token (luks reseal moves tpmbox tokens; enroll the "
			"others again)" : "%s has no tpmbox token", dev,
			tk ? tk->id : 0);
		goto fail;
	}
	for (slot = 0; !(tk->t->keyslots >> slot & 1); slot++)
		;
	if (ctx_out_new(c, 0, o->code_out)) {
		rc = EX_USAGE;
		goto out;
	}
	/* Step 2: OLD's secret (unsealed here, or from its escrow copy),
	 * NEW's escrow copies for OLD's recipients, NEW sealed. */
	snprintf(what, sizeof(what), "%s: token %d", dev, tk->id);
	rs->in = what;
	rs->keyfile = o->escrow_key;
	rs->new_code = o->code_out != NULL;
	if (!(rs->text = malloc(tk->tb->n + 1))) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	memcpy(rs->text, tk->tb->text, tk->tb->n + 1);
	rs->tlen = tk->tb->n;
	if (reseal_old(rs, esc, &c->e) ||
	    (reseal_here(rs, &c->e) == 0 && !(t = ctx_tpm(c))) ||
	    reseal_secret(t, rs, &spec->owner, &c->e) ||
	    reseal_recipients(rs, esc, &c->e) ||
	    reseal_escrow(rs, esc, &c->e) ||
	    (!t && !(t = ctx_tpm(c))) ||
	    seal_blob(t, spec, rs->secret, rs->slen, &pem, &pemlen, &c->e) ||
	    escrow_append(esc, &pem, &pemlen, &c->e) ||
	    luks_token_tpmbox(slot, pem, pemlen, &json, &c->e))
		goto fail;
	/* Step 3: the new token in the old one's place (one header
	 * write: cryptsetup token import --token-replace), read again. */
	if (luks_cs_import(dev, tk->id, 1, json, &c->e) ||
	    luks_cs_verify(dev, v, 0, 0, 0, 0, &c->e) ||
	    (o->code_out && escrow_write_code(esc, o->code_out, 0, &c->e)))
		goto fail;
	printf("%s: token %d resealed in place (keyslot %d)\n", dev, tk->id,
	       slot);
	goto out;
fail:
	rc = ctx_fail(c);
out:
	luks_vol_free(v);
	goto out0;
fail0:
	rc = ctx_fail(c);
out0:
	free(v);
	reseal_free(rs);
	free(rs);
	seal_spec_wipe(spec);
	free(spec);
	free(json);
	if (pem) {
		explicit_bzero(pem, pemlen);
		free(pem);
	}
	return rc;
}

static int run_change(struct ctx *c, int argc, char **argv, const char *sub)
{
	struct enroll_opts o;
	struct escrow *esc = escrow_new();
	char *end;
	long id;
	int opt, rc;

	memset(&o, 0, sizeof(o));
	o.token = -1;
	if (!esc)
		return ctx_usage(c, "out of memory");
	optind = 1;
	while ((opt = getopt_long(argc, argv, eshort, elong, NULL)) != -1) {
		switch (opt) {
		case 'A':
			o.as = strcmp(optarg, "systemd") == 0 ?
			       LUKS_TOK_SYSTEMD :
			       strcmp(optarg, "clevis") == 0 ? LUKS_TOK_CLEVIS :
			       strcmp(optarg, "tpmbox") == 0 ? LUKS_TOK_TPMBOX :
			       -1;
			if (o.as < 0) {
				rc = ctx_usage(c, "--as: systemd, clevis or "
					       "tpmbox, not '%s'", optarg);
				goto out;
			}
			break;
		case 'p':
			if (o.npcr == POLICY_BRANCHES) {
				rc = ctx_usage(c, "-p: at most %d",
					       POLICY_BRANCHES);
				goto out;
			}
			o.pcr[o.npcr++] = optarg;
			break;
		case 'P': o.pin = 1; o.pinspec = optarg; break;
		case 'E':
			if (escrow_add(esc, optarg, &c->e)) {
				rc = ctx_fail(c);
				goto out;
			}
			break;
		case 'K': o.code_out = optarg; escrow_want_code(esc); break;
		case 'U': o.keyfile = optarg; break;
		case 'k': o.escrow_key = optarg; break;
		case 't':
			id = strtol(optarg, &end, 10);
			if (!*optarg || *end || id < 0 || id >= LUKS2_SLOTS) {
				rc = ctx_usage(c, "--token-id: not a token id "
					       "(0 to 31): '%s'", optarg);
				goto out;
			}
			o.token = (int)id;
			break;
		case 'F': o.force = 1; break;
		case 'y': o.yes = 1; break;
		default: rc = ctx_usage(c, "unknown option"); goto out;
		}
	}
	if (argc - optind != 2) {
		rc = ctx_usage(c, "expected: luks %s DEV", sub);
		goto out;
	}
	optind++;
	if (strcmp(sub, "reseal") == 0) {
		if (o.as || o.pin || o.keyfile || o.force || o.yes) {
			rc = ctx_usage(c, "luks reseal takes -p, --token-id, "
				       "--escrow and --recovery-code-out");
			goto out;
		}
		rc = reseal_tok(c, argv[optind], &o, esc);
	} else if (strcmp(sub, "enroll") == 0) {
		if (!o.as) {
			rc = ctx_usage(c, "luks enroll needs --as systemd, "
				       "clevis or tpmbox");
			goto out;
		}
		if (o.token >= 0 || o.force || o.yes) {
			rc = ctx_usage(c, "--token-id, --force and --yes are "
				       "for luks remove");
			goto out;
		}
		if (o.escrow_key) {
			rc = ctx_usage(c, "-k is for luks reseal");
			goto out;
		}
		rc = enroll(c, argv[optind], &o, esc);
	} else {
		if (o.as || o.npcr || o.pin || o.keyfile || o.escrow_key ||
		    escrow_wanted(esc)) {
			rc = ctx_usage(c, "luks remove takes --token-id, "
				       "--force and --yes");
			goto out;
		}
		if (o.token < 0) {
			rc = ctx_usage(c, "luks remove needs --token-id N");
			goto out;
		}
		if (o.yes && !o.force) {
			rc = ctx_usage(c, "--yes is for --force");
			goto out;
		}
		rc = remove_tok(c, argv[optind], &o);
	}
out:
	escrow_free(esc);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct unlock_opts uo;
	int json = 0, o, other = 0;
	char *end;
	long id;

	/* main.c hands the options first, then "--", then the operands:
	 * enroll and remove have options of their own */
	for (o = 1; o < argc - 1 && strcmp(argv[o], "--"); o++)
		;
	if (o < argc - 1 && (strcmp(argv[o + 1], "enroll") == 0 ||
			     strcmp(argv[o + 1], "remove") == 0 ||
			     strcmp(argv[o + 1], "reseal") == 0))
		return run_change(c, argc, argv, argv[o + 1]);
	memset(&uo, 0, sizeof(uo));
	uo.token = -1;
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		case 't':
			id = strtol(optarg, &end, 10);
			if (!*optarg || *end || id < 0 || id >= LUKS2_SLOTS)
				return ctx_usage(c, "--token-id: not a token "
						 "id (0 to 31): '%s'", optarg);
			uo.token = (int)id;
			other = 1;
			break;
		case 'P': uo.pin = optarg; other = 1; break;
		case 's':
			if (uo.nsig == SIG_FILES)
				return ctx_usage(c, "--signature: at most %d "
						 "files", SIG_FILES);
			uo.sig[uo.nsig++] = optarg;
			other = 1;
			break;
		case 'O': uo.open = optarg; other = 1; break;
		case 'J': uo.jwe = optarg; other = 1; break;
		case 'o': uo.out = optarg; other = 1; break;
		case 'f': uo.force = 1; other = 1; break;
		case 'k': uo.key = optarg; other = 1; break;
		case 'R': uo.code = optarg; other = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind >= argc)
		return ctx_usage(c, "expected a subcommand: list, unlock, "
				 "recover, enroll, remove, reseal");
	if (strcmp(argv[optind], "list") == 0) {
		if (other)
			return ctx_usage(c, "luks list takes only --json");
		if (argc - optind != 2)
			return ctx_usage(c, "expected: luks list DEV");
		return list(c, argv[optind + 1], json);
	}
	if (strcmp(argv[optind], "unlock") && strcmp(argv[optind], "recover"))
		return ctx_usage(c, "unknown subcommand '%s' (this version "
				 "has: list, unlock, recover, enroll, remove, "
				 "reseal)", argv[optind]);
	if (json)
		return ctx_usage(c, "--json is for luks list");
	if (uo.out && uo.open)
		return ctx_usage(c, "-o and --open exclude each other");
	if (uo.force && !uo.out)
		return ctx_usage(c, "-f is for -o");
	if (strcmp(argv[optind], "recover") == 0) {
		if (!uo.key == !uo.code)
			return ctx_usage(c, "luks recover: give -k KEYFILE or "
					 "--recovery-code AUTH (one of them)");
		if (uo.pin || uo.nsig || uo.jwe)
			return ctx_usage(c, "luks recover takes --token-id, "
					 "-k or --recovery-code, -o, -f and "
					 "--open");
		if (argc - optind != 2)
			return ctx_usage(c, "expected: luks recover DEV");
		return recover_tok(c, argv[optind + 1], &uo);
	}
	if (uo.key || uo.code)
		return ctx_usage(c, "-k and --recovery-code are for luks "
				 "recover (and -k for reseal)");
	if (uo.jwe) {
		if (argc - optind != 1)
			return ctx_usage(c, "--jwe takes no DEV");
		if (uo.token >= 0 || uo.pin || uo.nsig || uo.open)
			return ctx_usage(c, "--jwe takes only -o and -f");
		return unlock_jwe(c, &uo);
	}
	if (argc - optind != 2)
		return ctx_usage(c, "expected: luks unlock DEV");
	return unlock(c, argv[optind + 1], &uo);
}

const struct applet applet_luks = {
	"luks", "list, unlock, enroll and remove a LUKS2 volume's TPM tokens "
	"(systemd, clevis, tpmbox)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
