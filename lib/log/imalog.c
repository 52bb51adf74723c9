/* IMA measurement lists: parse and replay.
 *
 * How the kernel extends (security/integrity/ima, checked against its
 * ima_calc_field_array_hash and ima_add_template_entry):
 *   - the template hash of a bank is that bank's hash over the template
 *     fields, each field preceded by its u32 length -- which is exactly the
 *     template data as the binary list shows it -- except for the "ima"
 *     template, whose hash covers the digest field as is and the file name
 *     zero-padded to 256 bytes (IMA_EVENT_NAME_LEN_MAX + 1);
 *   - the list shows only the SHA-1 template hash, so the SHA-1 bank is
 *     replayed from it and the other banks from the recomputed hash;
 *   - a violation is logged with an all-zero template hash and extends
 *     0xff...ff (the bank's digest size) into every bank;
 *   - a bank whose hash the kernel could not allocate at IMA's start
 *     (ima_init_crypto: "Can not allocate sha384") is extended with the
 *     SHA-1 template hash zero-padded to the bank's size (seen on Debian's
 *     6.1, where sha384 and sha512 are modules);
 *   - ima_add_template_entry appends to the list first and extends the
 *     PCR after, so the list read after the PCRs may be longer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "log/eventlog.h"
#include "log/imalog.h"
#include "tpm2/cmd.h"

#define IMA_NAME_PAD 256	/* IMA_EVENT_NAME_LEN_MAX + 1 */

static const uint8_t zero20[20];

static int truncated(struct tberr *e, uint32_t num, size_t off, size_t len)
{
	return err_set(e, EX_FAIL, "IMA log truncated at offset %zu: entry "
		       "%u (at offset %zu) runs past the end", len, num, off);
}

/* Decode the fields of a template other than "ima": a list of
 * (u32 length, bytes), the first a d-ng digest ("alg:\0" + digest), the
 * second an n-ng name, the third (ima-sig) a signature. */
static int decode_ng(struct ima_entry *en, struct tberr *e)
{
	struct tb b;
	int k = 0;

	tb_init_read(&b, en->tdata, en->tlen);
	while (tb_left(&b)) {
		uint32_t n = tb_get_u32_le(&b);
		const uint8_t *p;

		if (tb_err(&b) || n > tb_left(&b))
			return err_set(e, EX_FAIL, "IMA entry %u at offset "
				       "%zu: template field %d runs past the "
				       "template data", en->num, en->offset,
				       k + 1);
		p = tb_get_ref(&b, n);
		if (k == 0 && strncmp(en->name, "ima-", 4) == 0) {
			const uint8_t *colon = memchr(p, ':', n);

			/* d-ng: "alg:" NUL digest. */
			if (colon && (size_t)(colon - p) < sizeof(en->dalg) &&
			    (size_t)(colon - p) + 2 <= n &&
			    colon[1] == '\0') {
				memcpy(en->dalg, p, (size_t)(colon - p));
				en->dalg[colon - p] = '\0';
				en->digest = colon + 2;
				en->dsize = n - (uint32_t)(colon - p) - 2;
			} else {
				/* "d" in a custom template: a bare digest. */
				strcpy(en->dalg, n == 20 ? "sha1" : "");
				en->digest = p;
				en->dsize = n;
			}
		} else if (k == 1 && strncmp(en->name, "ima-", 4) == 0) {
			en->path = p;
			en->plen = n;
			/* n-ng carries its NUL terminator. */
			if (en->plen && p[en->plen - 1] == '\0')
				en->plen--;
		} else if (k == 2 && strcmp(en->name, "ima-sig") == 0) {
			en->sig = p;
			en->slen = n;
		}
		k++;
	}
	if (strcmp(en->name, "ima-ng") == 0 && k != 2)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "ima-ng has %d template fields, expected 2",
			       en->num, en->offset, k);
	if (strcmp(en->name, "ima-sig") == 0 && k != 3 && k != 2)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "ima-sig has %d template fields, expected 3",
			       en->num, en->offset, k);
	return 0;
}

/* The template hash of one bank over an entry, as the kernel computes it.
 * Returns -1 if the bank cannot be computed. */
static int template_hash(const struct ima_entry *en, uint16_t bank,
			 uint8_t *out)
{
	struct hash_ctx *h;
	uint8_t pad[IMA_NAME_PAD];

	if (strcmp(en->name, "ima") != 0)
		return hash_buf(bank, en->tdata, en->tlen, out);
	if (!(h = hash_new(bank)))
		return -1;
	memset(pad, 0, sizeof(pad));
	memcpy(pad, en->path, en->plen);	/* plen < 256: checked */
	hash_update(h, en->digest, en->dsize);
	hash_update(h, pad, sizeof(pad));
	hash_final(h, out);
	return 0;
}

/* The kernel writes a built-in template's name ("ima-ng", "ima-sig",
 * "evm-sig"...) or, for a template of ima_template_fmt=, its format
 * ("d-ng|n-ng|sig"): letters, digits, '-', '_' and '|', from a letter.
 * Anything else (a newline, a quote) is no kernel's list, and would
 * forge a line of the text or break the JSON. */
static int template_name_ok(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '|'))
			return 0;
	return 1;
}

static int get_entry(struct tb *b, struct ima_entry *en, struct tberr *e)
{
	uint32_t nlen;
	const uint8_t *p;

	en->pcr = tb_get_u32_le(b);
	en->hash = tb_get_ref(b, 20);
	nlen = tb_get_u32_le(b);
	if (tb_err(b))
		return truncated(e, en->num, en->offset, b->len);
	if (en->pcr > 31) {
		err_set(e, EX_FAIL, "IMA entry %u at offset %zu: PCR %u is out "
			"of range", en->num, en->offset, en->pcr);
		if (__builtin_bswap32(en->pcr) <= 31)
			err_hint(e, "a big-endian list? tpmbox reads the "
				 "little-endian (canonical) format: boot with "
				 "ima_canonical_fmt");
		return EX_FAIL;
	}
	if (nlen == 0 || nlen > IMA_MAX_NAME)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "template name length %u (1-%u allowed)",
			       en->num, en->offset, nlen, IMA_MAX_NAME);
	if (!(p = tb_get_ref(b, nlen)))
		return truncated(e, en->num, en->offset, b->len);
	memcpy(en->name, p, nlen);
	en->name[nlen] = '\0';
	if (strlen(en->name) != nlen)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: NUL "
			       "in the template name", en->num, en->offset);
	if (!template_name_ok(en->name))
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: the "
			       "template name is not one the kernel writes "
			       "(letters, digits, '-', '_' and '|', from a "
			       "letter)", en->num, en->offset);
	en->invalid = memcmp(en->hash, zero20, 20) == 0;
	if (strcmp(en->name, "ima") == 0) {
		/* No overall length: a SHA-1 digest, then a u32-length name
		 * without its NUL. */
		size_t start = b->pos;
		uint32_t plen;

		en->digest = tb_get_ref(b, 20);
		plen = tb_get_u32_le(b);
		if (tb_err(b))
			return truncated(e, en->num, en->offset, b->len);
		if (plen >= IMA_NAME_PAD)
			return err_set(e, EX_FAIL, "IMA entry %u at offset "
				       "%zu: file name of %u bytes in an "
				       "\"ima\" entry (at most %u)", en->num,
				       en->offset, plen, IMA_NAME_PAD - 1);
		if (!(en->path = tb_get_ref(b, plen)))
			return truncated(e, en->num, en->offset, b->len);
		strcpy(en->dalg, "sha1");
		en->dsize = 20;
		en->plen = plen;
		en->tdata = b->p + start;
		en->tlen = (uint32_t)(b->pos - start);
		return 0;
	}
	en->tlen = tb_get_u32_le(b);
	if (tb_err(b))
		return truncated(e, en->num, en->offset, b->len);
	if (en->tlen > IMA_MAX_TDATA)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "template data of %u bytes exceeds the limit "
			       "of %u", en->num, en->offset, en->tlen,
			       IMA_MAX_TDATA);
	if (!(en->tdata = tb_get_ref(b, en->tlen)))
		return truncated(e, en->num, en->offset, b->len);
	return decode_ng(en, e);
}

void imalog_free(struct imalog *log)
{
	free(log->ent);
	log->ent = NULL;
	log->n = 0;
}

int imalog_parse(const uint8_t *buf, size_t len, struct imalog *log,
		 struct tberr *e)
{
	struct tb b;
	uint32_t cap = 64;
	int rc;

	memset(log, 0, sizeof(*log));
	if (len == 0)
		return err_set(e, EX_FAIL, "IMA log is empty");
	if (!(log->ent = malloc(cap * sizeof(*log->ent))))
		return err_set(e, EX_IO, "out of memory");
	tb_init_read(&b, buf, len);
	while (tb_left(&b)) {
		struct ima_entry *en;
		uint8_t h[20];

		if (log->n == IMA_MAX_ENTRIES) {
			rc = err_set(e, EX_FAIL, "IMA log has more than %u "
				     "entries", IMA_MAX_ENTRIES);
			goto fail;
		}
		if (log->n == cap) {
			struct ima_entry *p = realloc(log->ent, 2 * cap *
						      sizeof(*p));

			if (!p) {
				rc = err_set(e, EX_IO, "out of memory");
				goto fail;
			}
			log->ent = p;
			cap *= 2;
		}
		en = &log->ent[log->n];
		memset(en, 0, sizeof(*en));
		en->num = log->n;
		en->offset = b.pos;
		if ((rc = get_entry(&b, en, e)))
			goto fail;
		/* A forged or corrupted entry: its data does not match the
		 * hash that went into the TPM. */
		if (!en->invalid && (template_hash(en, TPM2_ALG_SHA1, h) ||
				     memcmp(h, en->hash, 20))) {
			rc = err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
				     "template hash does not match its "
				     "template data", en->num, en->offset);
			goto fail;
		}
		log->n++;
	}
	return 0;
fail:
	imalog_free(log);
	return rc;
}

/* The digest one entry extends into a bank, written to out. */
static void extend_digest(const struct ima_entry *en, uint16_t bank, int how,
			  size_t sz, uint8_t *out)
{
	if (en->invalid) {
		memset(out, 0xff, sz);
	} else if (bank == TPM2_ALG_SHA1) {
		memcpy(out, en->hash, sz);
	} else if (how == IMA_DIGEST_SHA1_PADDED) {
		memset(out, 0, sz);
		memcpy(out, en->hash, 20);
	} else {
		template_hash(en, bank, out);
	}
}

int imalog_bank_ok(uint16_t bank)
{
	return bank == TPM2_ALG_SHA1 || bank == TPM2_ALG_SHA256 ||
	       bank == TPM2_ALG_SHA384 || bank == TPM2_ALG_SHA512;
}

int imalog_replay(const struct imalog *log, uint16_t bank,
		  struct pcr_vals *out, struct tberr *e)
{
	uint8_t val[32][TPM2_MAX_DIGEST], m[2 * TPM2_MAX_DIGEST];
	size_t sz = hash_size(bank);
	uint32_t touched = 0, i;
	int p;

	if (!imalog_bank_ok(bank) || !hash_supported(bank))
		return err_set(e, EX_USAGE, "cannot replay an IMA log in bank "
			       "%s (sha1, sha256, sha384, sha512 can be)",
			       alg_name(bank));
	memset(val, 0, sizeof(val));
	for (i = 0; i < log->n; i++) {
		const struct ima_entry *en = &log->ent[i];

		memcpy(m, val[en->pcr], sz);
		extend_digest(en, bank, IMA_DIGEST_OWN, sz, m + sz);
		hash_buf(bank, m, 2 * sz, val[en->pcr]);
		touched |= 1u << en->pcr;
	}
	for (p = 0; p < 32; p++) {
		struct pcr_val *v;

		if (!(touched & (1u << p)))
			continue;
		if (out->n >= (int)(sizeof(out->v) / sizeof(out->v[0])))
			return err_set(e, EX_FAIL, "too many PCR values");
		v = &out->v[out->n++];
		v->alg = bank;
		v->idx = (uint8_t)p;
		v->len = (uint8_t)sz;
		memcpy(v->d, val[p], sz);
	}
	return 0;
}

uint32_t imalog_pcrs(const struct imalog *log)
{
	uint32_t m = 0, i;

	for (i = 0; i < log->n; i++)
		m |= 1u << log->ent[i].pcr;
	return m;
}

int imalog_match(const struct imalog *log, uint16_t bank,
		 const struct pcr_vals *pcrs, struct ima_match *m,
		 struct tberr *e)
{
	uint8_t val[32][TPM2_MAX_DIGEST], m2[2 * TPM2_MAX_DIGEST];
	const struct pcr_val *want[32];
	size_t sz = hash_size(bank);
	uint32_t touched = imalog_pcrs(log), i;
	int how, p, k;

	memset(m, 0, sizeof(*m));
	m->bank = bank;
	if (!imalog_bank_ok(bank) || !hash_supported(bank))
		return err_set(e, EX_USAGE, "cannot replay an IMA log in bank "
			       "%s (sha1, sha256, sha384, sha512 can be)",
			       alg_name(bank));
	memset(want, 0, sizeof(want));
	for (k = 0; k < pcrs->n; k++) {
		const struct pcr_val *v = &pcrs->v[k];

		if (v->alg == bank && v->idx < 32 && v->len == sz &&
		    (touched & (1u << v->idx)) && !want[v->idx]) {
			want[v->idx] = v;
			m->compared++;
		}
	}
	if (!m->compared)
		return 0;
	/* SHA-1 has one way only. */
	for (how = IMA_DIGEST_OWN; how <= (bank == TPM2_ALG_SHA1 ?
		IMA_DIGEST_OWN : IMA_DIGEST_SHA1_PADDED); how++) {
		memset(val, 0, sizeof(val));
		for (i = 0; i < log->n; i++) {
			const struct ima_entry *en = &log->ent[i];
			int all = 1;

			memcpy(m2, val[en->pcr], sz);
			extend_digest(en, bank, how, sz, m2 + sz);
			hash_buf(bank, m2, 2 * sz, val[en->pcr]);
			for (p = 0; p < 32 && all; p++)
				if (want[p] && memcmp(want[p]->d, val[p], sz))
					all = 0;
			if (all) {
				m->matched = 1;
				m->how = how;
				m->upto = i + 1;
			}
		}
		if (m->matched)
			return 0;
	}
	return 0;
}

int imalog_fields(const struct ima_entry *en, struct ima_field *f, int max)
{
	struct tb b;
	int k = 0;

	if (strcmp(en->name, "ima") == 0) {
		if (max < 2)
			return 0;
		f[0].p = en->digest;
		f[0].len = en->dsize;
		f[1].p = en->path;
		f[1].len = en->plen;
		return 2;
	}
	tb_init_read(&b, en->tdata, en->tlen);
	while (tb_left(&b) && k < max) {
		uint32_t n = tb_get_u32_le(&b);

		if (tb_err(&b) || n > tb_left(&b))
			break;
		f[k].len = n;
		f[k++].p = tb_get_ref(&b, n);
	}
	return k;
}

int imalog_read_file(const char *path, uint8_t **buf, struct imalog *log,
		     struct tberr *e)
{
	size_t len;

	*buf = NULL;
	if (file_read(path, IMA_MAX_FILE, buf, &len, e))
		return e->code ? e->code : EX_IO;
	if (imalog_parse(*buf, len, log, e)) {
		free(*buf);
		*buf = NULL;
		err_prefix(e, "%s", path);
		return e->code ? e->code : EX_FAIL;
	}
	return 0;
}

int imalog_banks_parse(const char *s, uint16_t *algs, int *n,
		       struct tberr *e)
{
	int i, rc;

	if ((rc = pcr_banks_parse(s, algs, n, e)))
		return rc;
	for (i = 0; i < *n; i++)
		if (!imalog_bank_ok(algs[i]) || !hash_supported(algs[i]))
			return err_set(e, EX_USAGE, "cannot replay an IMA log "
				       "in bank %s (sha1, sha256, sha384, "
				       "sha512 can be)", alg_name(algs[i]));
	return 0;
}

int imalog_tpm_banks(struct tpm *t, uint16_t *algs, int *n)
{
	struct pcr_sel alloc;
	unsigned npcrs;
	int i;

	*n = 0;
	if (tpm2_pcr_banks(t, &alloc, &npcrs))
		return t->e->code ? t->e->code : EX_FAIL;
	for (i = 0; i < alloc.n; i++)
		if (imalog_bank_ok(alloc.b[i].alg) &&
		    hash_supported(alloc.b[i].alg))
			algs[(*n)++] = alloc.b[i].alg;
	if (!*n)
		return err_set(t->e, EX_FAIL, "the TPM has no bank an IMA log "
			       "can be replayed in");
	return 0;
}

/* --- text ---------------------------------------------------------------- */

/* A growing string; oom set (and the text dropped) when memory runs out. */
struct out {
	char *p;
	size_t len, cap;
	int oom;
};

static void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (o->oom)
		return;
	va_start(ap, fmt);
	r = vsnprintf(o->p ? o->p + o->len : NULL, o->p ? o->cap - o->len : 0,
		      fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	if (!o->p || (size_t)r >= o->cap - o->len) {
		size_t cap = o->cap ? o->cap : 256;
		char *p;

		while (cap - o->len <= (size_t)r)
			cap *= 2;
		if (!(p = realloc(o->p, cap))) {
			free(o->p);
			o->p = NULL;
			o->oom = 1;
			return;
		}
		o->p = p;
		o->cap = cap;
		va_start(ap, fmt);
		vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)r;
}

static void out_char(struct out *o, int ch)
{
	out_printf(o, "%c", ch);
}

/* The text made, or NULL when memory ran out (an empty text is ""). */
static char *out_done(struct out *o)
{
	if (!o->oom && !o->p)
		out_printf(o, "%s", "");
	return o->oom ? NULL : o->p;
}

/* Text of a file name: the bytes as the kernel prints them, with control
 * characters made visible. */
static void put_path(struct out *o, const uint8_t *p, uint32_t n, int json)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (json && (p[i] == '"' || p[i] == '\\'))
			out_printf(o, "\\%c", p[i]);
		else if (json && (p[i] < 0x20 || p[i] >= 0x7f))
			out_printf(o, "\\u%04x", p[i]);
		else
			out_char(o, p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i]);
	}
}

static void put_hex(struct out *o, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		out_printf(o, "%02x", p[i]);
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

/* A hash algorithm's name from the log: the kernel's names are letters
 * and digits ("sha256", "streebog256"); any other byte is shown as \xHH
 * (in JSON, escaped as JSON), so that the text cannot be forged. */
static void put_alg(struct out *o, const uint8_t *p, size_t n, int json)
{
	size_t i;

	if (json) {
		put_path(o, p, (uint32_t)n, 1);
		return;
	}
	for (i = 0; i < n; i++)
		if ((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= 'A' && p[i] <= 'Z') ||
		    (p[i] >= '0' && p[i] <= '9') || p[i] == '-' ||
		    p[i] == '_')
			out_char(o, (char)p[i]);
		else
			out_printf(o, "\\x%02x", p[i]);
}

/* A d-ng field: "alg:" NUL digest, shown as alg:hex. */
static void put_digest_ng(struct out *o, const uint8_t *p, uint32_t n)
{
	const uint8_t *z = memchr(p, '\0', n);

	if (z && z > p && z[-1] == ':') {
		put_alg(o, p, (size_t)(z - p) - 1, 0);
		out_char(o, ':');
		put_hex(o, z + 1, n - (uint32_t)(z - p) - 1);
	} else {
		put_hex(o, p, n);
	}
}

static void text_entry(struct out *o, const struct ima_entry *en)
{
	struct ima_field f[IMA_MAX_FIELDS];
	const char *show = NULL;
	size_t t;
	int k, nf;

	out_printf(o, "%u ", en->pcr);
	put_hex(o, en->hash, 20);
	out_printf(o, " %s", en->name);
	for (t = 0; t < sizeof(tpl_show) / sizeof(tpl_show[0]); t++)
		if (strcmp(en->name, tpl_show[t].name) == 0)
			show = tpl_show[t].fields;
	nf = imalog_fields(en, f, IMA_MAX_FIELDS);
	if (!show || nf != (int)strlen(show)) {
		/* A template tpmbox does not know: its data as hex. */
		out_char(o, ' ');
		put_hex(o, en->tdata, en->tlen);
		out_char(o, '\n');
		return;
	}
	for (k = 0; k < nf; k++) {
		out_char(o, ' ');
		if (!f[k].len)
			continue;
		if (show[k] == 'd')
			put_digest_ng(o, f[k].p, f[k].len);
		else if (show[k] == 'n')
			/* n-ng carries its NUL; the kernel shows the string */
			put_path(o, f[k].p, f[k].len && !f[k].p[f[k].len - 1] ?
				 f[k].len - 1 : f[k].len, 0);
		else
			put_hex(o, f[k].p, f[k].len);
	}
	out_char(o, '\n');
}

static void json_entry(struct out *o, const struct ima_entry *en, int first)
{
	out_printf(o, "%s\n    {\"num\": %u, \"offset\": %zu, \"pcr\": %u, "
		   "\"template_hash\": \"", first ? "" : ",", en->num,
		   en->offset, en->pcr);
	put_hex(o, en->hash, 20);
	out_printf(o, "\", \"invalid\": %s, \"template\": \"%s\"",
		   en->invalid ? "true" : "false", en->name);
	if (en->digest) {
		out_printf(o, ", \"digest_alg\": \"");
		put_alg(o, (const uint8_t *)en->dalg, strlen(en->dalg), 1);
		out_printf(o, "\", \"digest\": \"");
		put_hex(o, en->digest, en->dsize);
		out_printf(o, "\", \"path\": \"");
		put_path(o, en->path, en->plen, 1);
		out_printf(o, "\"");
		if (en->sig) {
			out_printf(o, ", \"signature\": \"");
			put_hex(o, en->sig, en->slen);
			out_printf(o, "\"");
		}
	}
	out_printf(o, ", \"template_data\": \"");
	put_hex(o, en->tdata, en->tlen);
	out_printf(o, "\"}");
}

char *imalog_format(const struct imalog *log, int json)
{
	struct out o = { NULL, 0, 0, 0 };
	uint32_t k;

	if (json) {
		out_printf(&o, "{\n  \"entries\": [");
		for (k = 0; k < log->n; k++)
			json_entry(&o, &log->ent[k], k == 0);
		out_printf(&o, "\n  ]\n}\n");
	} else {
		for (k = 0; k < log->n; k++)
			text_entry(&o, &log->ent[k]);
	}
	return out_done(&o);
}

/* --- against the TPM ----------------------------------------------------- */

int imalog_file_pcrs(const char *path, uint32_t *touched, struct tberr *e)
{
	struct imalog log;
	uint8_t *buf;
	int rc;

	if ((rc = imalog_read_file(path, &buf, &log, e)))
		return rc;
	*touched = imalog_pcrs(&log);
	imalog_free(&log);
	free(buf);
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

/* A bank no prefix of the list replays to: the full list's replay (own
 * digests) against the TPM, PCR by PCR. */
static int report_differ(struct out *o, const struct imalog *log,
			 uint16_t bank, const struct pcr_vals *got,
			 struct pcr_vals *full, struct tberr *e)
{
	char hx[2 * TPM2_MAX_DIGEST + 1], ht[2 * TPM2_MAX_DIGEST + 1];
	int j, k;

	full->n = 0;
	if (imalog_replay(log, bank, full, e))
		return e->code ? e->code : EX_FAIL;
	for (k = 0; k < full->n; k++) {
		const struct pcr_val *f = &full->v[k];

		for (j = 0; j < got->n; j++)
			if (got->v[j].alg == f->alg &&
			    got->v[j].idx == f->idx && got->v[j].len)
				break;
		if (j == got->n)
			continue;
		hex_encode(f->d, f->len, hx);
		hex_encode(got->v[j].d, got->v[j].len, ht);
		out_printf(o, "%s:%u differs: log %s tpm %s\n",
			   alg_name(f->alg), f->idx, hx, ht);
	}
	return 0;
}

/* Per bank the prefix of the list that replays to the TPM's values got;
 * the banks that match none named in bad. */
static int check_banks(struct out *o, const struct imalog *log,
		       const uint16_t *algs, int nb, uint32_t touched,
		       const struct pcr_vals *got, struct pcr_vals *full,
		       char *bad, size_t badcap, int *nbad, int *nok,
		       struct tberr *e)
{
	char name[160];
	int i, rc;

	for (i = 0; i < nb; i++) {
		struct ima_match m;

		if (imalog_match(log, algs[i], got, &m, e))
			return e->code ? e->code : EX_FAIL;
		if (!m.compared)
			continue;
		bank_pcrs(name, sizeof(name), algs[i], touched);
		if (m.matched) {
			(*nok)++;
			out_printf(o, "%s match%s the list", name,
				   strchr(name, ',') ? "" : "es");
			if (m.how == IMA_DIGEST_SHA1_PADDED)
				out_printf(o, " with SHA-1 template digests "
					   "zero-padded (the kernel could not "
					   "use %s)", alg_name(algs[i]));
			if (m.upto < log->n)
				out_printf(o, " up to entry %u of %u; %u "
					   "beyond it, measured after the PCRs "
					   "were read, are not covered",
					   m.upto, log->n, log->n - m.upto);
			out_printf(o, "\n");
			continue;
		}
		if ((rc = report_differ(o, log, algs[i], got, full, e)))
			return rc;
		out_printf(o, "%s: no prefix of the list matches, with %s "
			   "template digests or SHA-1 ones zero-padded\n",
			   name, alg_name(algs[i]));
		if (strlen(bad) < badcap - 40)
			snprintf(bad + strlen(bad), badcap - strlen(bad),
				 "%s%s", *nbad ? " " : "", name);
		(*nbad)++;
	}
	return 0;
}

int imalog_check(struct tpm *t, const char *path, const uint16_t *algs,
		 int nb, uint32_t touched, char **report)
{
	struct pcr_vals *want = malloc(sizeof(*want));
	struct pcr_vals *got = malloc(sizeof(*got));
	struct pcr_vals *full = malloc(sizeof(*full));
	struct out o = { NULL, 0, 0, 0 };
	char bad[256] = "";
	struct imalog log;
	uint8_t *buf = NULL;
	int i, p, k, rc = 0, nbad = 0, nok = 0;

	*report = NULL;
	if (!want || !got || !full) {
		rc = err_set(t->e, EX_USAGE, "out of memory");
		goto out;
	}
	want->n = 0;
	for (i = 0; i < nb; i++)
		for (p = 0; p < 32; p++)
			if (touched & (1u << p)) {
				struct pcr_val *v = &want->v[want->n++];

				v->alg = algs[i];
				v->idx = (uint8_t)p;
				v->len = (uint8_t)hash_size(algs[i]);
			}
	if (evl_tpm_values(t, want, got)) {
		rc = t->e->code ? t->e->code : EX_FAIL;
		goto out;
	}
	for (k = 0; k < got->n; k++)
		if (!got->v[k].len)
			out_printf(&o, "%s:%u not on this TPM; not checked\n",
				   alg_name(got->v[k].alg), got->v[k].idx);
	/* Read after the PCRs, the list can only be ahead of them. */
	if ((rc = imalog_read_file(path, &buf, &log, t->e)))
		goto out;
	rc = check_banks(&o, &log, algs, nb, touched, got, full, bad,
			 sizeof(bad), &nbad, &nok, t->e);
	imalog_free(&log);
	if (rc)
		goto out;
	if (nbad)
		rc = err_set(t->e, EX_FAIL, "%d bank%s differ%s from the log: "
			     "%s", nbad, nbad == 1 ? "" : "s",
			     nbad == 1 ? "s" : "", bad);
	else if (!nok)
		rc = err_set(t->e, EX_FAIL, "no PCR of the log could be "
			     "compared: the TPM has none of its banks");
	else
		out_printf(&o, "%d bank%s match%s the log\n", nok,
			   nok == 1 ? "" : "s", nok == 1 ? "es" : "");
out:
	if (!(*report = out_done(&o)) && !rc)
		rc = err_set(t->e, EX_USAGE, "out of memory");
	free(buf);
	free(want);
	free(got);
	free(full);
	return rc;
}
