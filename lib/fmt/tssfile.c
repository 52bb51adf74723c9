/* tpm-tools' sealed file (include/fmt/tssfile.h). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/pem.h"
#include "crypto/sym.h"
#include "fmt/tssfile.h"
#include "tpm12/structs.h"

#define L_BEGIN		"-----BEGIN TSS-----"
#define L_KEY		"-----TSS KEY-----"
#define L_ENCKEY	"-----ENC KEY-----"
#define L_SYM		"Symmetric Key: AES-256-CBC"
#define L_ENCDAT	"-----ENC DAT-----"
#define L_END		"-----END TSS-----"
#define B64_LINE	64

struct rd {
	const char *t;
	size_t n, pos;
	unsigned line;		/* number of the line last taken */
	struct tberr *e;
};

/* Take the next line (without its "\n") or fail: every line ends in one. */
static int take(struct rd *r, const char **s, size_t *len)
{
	const char *nl;

	if (r->pos >= r->n)
		return err_set(r->e, EX_FAIL, "tpm-tools file: line %u: "
			       "the file ends early (truncated?)", r->line + 1);
	nl = memchr(r->t + r->pos, '\n', r->n - r->pos);
	r->line++;
	if (!nl)
		return err_set(r->e, EX_FAIL, "tpm-tools file: line %u: no "
			       "line end (truncated?)", r->line);
	*s = r->t + r->pos;
	*len = (size_t)(nl - *s);
	r->pos += *len + 1;
	return 0;
}

static int is_line(const char *s, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(s, want, len) == 0;
}

static int expect(struct rd *r, const char *want)
{
	const char *s;
	size_t len;

	if (take(r, &s, &len))
		return r->e->code;
	if (!is_line(s, len, want))
		return err_set(r->e, EX_FAIL, "tpm-tools file: line %u: not "
			       "\"%s\"", r->line, want);
	return 0;
}

static int b64_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

/* A section's base64 lines up to the header line `next`; decoded into a
 * malloc'd *out of at most max bytes. */
static int section(struct rd *r, const char *name, const char *next,
		   size_t max, uint8_t **out, size_t *outlen)
{
	const char *s, *body = r->t + r->pos;
	size_t len, blen = 0, i, lines = 0, short_line = 0, cap;
	long got;

	for (;;) {
		if (take(r, &s, &len))
			return r->e->code;
		if (len && s[0] == '-')
			break;
		if (short_line)
			return err_set(r->e, EX_FAIL, "tpm-tools file: line "
				       "%u: %s: a line after a short one",
				       r->line, name);
		if (len == 0 || len > B64_LINE)
			return err_set(r->e, EX_FAIL, "tpm-tools file: line "
				       "%u: %s: a base64 line of %zu characters"
				       " (1 to %d)", r->line, name, len,
				       B64_LINE);
		for (i = 0; i < len; i++)
			if (!b64_char(s[i]))
				return err_set(r->e, EX_FAIL, "tpm-tools file:"
					       " line %u: %s: not base64",
					       r->line, name);
		short_line = len < B64_LINE;
		blen += len;
		lines++;
		/* Bounded before decoding: 4 characters per 3 bytes. */
		if (blen / 4 > max / 3 + 1)
			return err_set(r->e, EX_FAIL, "tpm-tools file: line "
				       "%u: %s: more than %zu bytes", r->line,
				       name, max);
	}
	if (!is_line(s, len, next))
		return err_set(r->e, EX_FAIL, "tpm-tools file: line %u: not "
			       "\"%s\"", r->line, next);
	if (!lines)
		return err_set(r->e, EX_FAIL, "tpm-tools file: line %u: the "
			       "%s section is empty", r->line, name);
	cap = blen / 4 * 3 + 3;
	if (cap > max)
		cap = max;
	*out = malloc(cap);
	if (!*out)
		return err_set(r->e, EX_FAIL, "tpm-tools file: out of memory");
	/* The lines and their line ends, which b64_decode skips. */
	got = b64_decode(body, (size_t)(s - body), *out, cap);
	if (got <= 0) {
		free(*out);
		*out = NULL;
		return err_set(r->e, EX_FAIL, "tpm-tools file: line %u: the "
			       "%s section is not valid base64 or larger "
			       "than %zu bytes", r->line, name, max);
	}
	*outlen = (size_t)got;
	return 0;
}

void tssfile_free(struct tssfile *f)
{
	if (f->enckey)
		explicit_bzero(f->enckey, f->enckeylen);
	free(f->key);
	free(f->enckey);
	free(f->encdat);
	memset(f, 0, sizeof(*f));
}

int tssfile_parse(const char *text, size_t n, struct tssfile *f,
		  struct tberr *e)
{
	struct rd r = { text, n, 0, 0, e };

	memset(f, 0, sizeof(*f));
	if (n > TSSFILE_TEXT_MAX)
		return err_set(e, EX_FAIL, "tpm-tools file: larger than %zu "
			       "bytes", (size_t)TSSFILE_TEXT_MAX);
	if (expect(&r, L_BEGIN) || expect(&r, L_KEY) ||
	    section(&r, "TSS KEY", L_ENCKEY, TSSFILE_KEY_MAX, &f->key,
		    &f->keylen) ||
	    expect(&r, L_SYM) ||
	    section(&r, "ENC KEY", L_ENCDAT, TSSFILE_ENCKEY_MAX, &f->enckey,
		    &f->enckeylen) ||
	    section(&r, "ENC DAT", L_END, TSSFILE_ENCDAT_MAX, &f->encdat,
		    &f->encdatlen))
		goto fail;
	if (r.pos != n) {
		err_set(e, EX_FAIL, "tpm-tools file: line %u: text after "
			"\"%s\"", r.line + 1, L_END);
		goto fail;
	}
	if (f->encdatlen % AES_BLOCK) {
		err_set(e, EX_FAIL, "tpm-tools file: ENC DAT: %zu bytes, not "
			"whole AES blocks", f->encdatlen);
		goto fail;
	}
	return 0;
fail:
	tssfile_free(f);
	return e->code;
}

/* Append "line\n" or a section's base64 in 64-character lines. */
struct wr {
	char *p;
	size_t n, cap;
};

static void put(struct wr *w, const char *s, size_t len)
{
	memcpy(w->p + w->n, s, len);
	w->n += len;
}

static void put_line(struct wr *w, const char *s)
{
	put(w, s, strlen(s));
	put(w, "\n", 1);
}

static void put_b64(struct wr *w, const char *b, size_t blen)
{
	size_t i, m;

	for (i = 0; i < blen; i += m) {
		m = blen - i > B64_LINE ? B64_LINE : blen - i;
		put(w, b + i, m);
		put(w, "\n", 1);
	}
}

int tssfile_format(const struct tssfile *f, char **text, size_t *n,
		   struct tberr *e)
{
	char *b[3] = { NULL, NULL, NULL };
	size_t bl[3], need;
	struct wr w = { NULL, 0, 0 };
	int i;

	*text = NULL;
	*n = 0;
	if (!f->keylen || !f->enckeylen || !f->encdatlen ||
	    f->keylen > TSSFILE_KEY_MAX || f->enckeylen > TSSFILE_ENCKEY_MAX ||
	    f->encdatlen > TSSFILE_ENCDAT_MAX || f->encdatlen % AES_BLOCK)
		return err_set(e, EX_FAIL, "tpm-tools file: a section is "
			       "empty or too large");
	b[0] = b64_encode(f->key, f->keylen, &bl[0]);
	b[1] = b64_encode(f->enckey, f->enckeylen, &bl[1]);
	b[2] = b64_encode(f->encdat, f->encdatlen, &bl[2]);
	if (!b[0] || !b[1] || !b[2])
		goto nomem;
	need = 256;
	for (i = 0; i < 3; i++)
		need += bl[i] + bl[i] / B64_LINE + 1;
	w.p = malloc(need + 1);
	if (!w.p)
		goto nomem;
	w.cap = need;
	put_line(&w, L_BEGIN);
	put_line(&w, L_KEY);
	put_b64(&w, b[0], bl[0]);
	put_line(&w, L_ENCKEY);
	put_line(&w, L_SYM);
	put_b64(&w, b[1], bl[1]);
	put_line(&w, L_ENCDAT);
	put_b64(&w, b[2], bl[2]);
	put_line(&w, L_END);
	w.p[w.n] = '\0';
	*text = w.p;
	*n = w.n;
	for (i = 0; i < 3; i++)
		free(b[i]);
	return 0;
nomem:
	for (i = 0; i < 3; i++)
		free(b[i]);
	return err_set(e, EX_FAIL, "tpm-tools file: out of memory");
}

int tssfile_encrypt(struct tssfile *f, const uint8_t key[TSSFILE_AES_KEY],
		    const uint8_t *data, size_t n, struct tberr *e)
{
	uint8_t *c;
	size_t clen;

	if (n > TSSFILE_DATA_MAX)
		return err_set(e, EX_USAGE, "tpm-tools file: the data is "
			       "larger than %u bytes", TSSFILE_DATA_MAX);
	c = malloc(n + AES_BLOCK);
	if (!c)
		return err_set(e, EX_FAIL, "tpm-tools file: out of memory");
	if (aes256_cbc_pad_encrypt(key, (const uint8_t *)TSSFILE_IV, data, n,
				   c, &clen)) {
		free(c);
		return err_set(e, EX_FAIL, "tpm-tools file: AES-256-CBC "
			       "failed");
	}
	free(f->encdat);
	f->encdat = c;
	f->encdatlen = clen;
	return 0;
}

int tssfile_decrypt(const struct tssfile *f,
		    const uint8_t key[TSSFILE_AES_KEY], uint8_t **out,
		    size_t *n, struct tberr *e)
{
	uint8_t *p;

	*out = NULL;
	*n = 0;
	if (!f->encdatlen || f->encdatlen % AES_BLOCK)
		return err_set(e, EX_FAIL, "tpm-tools file: ENC DAT is not "
			       "whole AES blocks");
	p = malloc(f->encdatlen);
	if (!p)
		return err_set(e, EX_FAIL, "tpm-tools file: out of memory");
	if (aes256_cbc_pad_decrypt(key, (const uint8_t *)TSSFILE_IV,
				   f->encdat, f->encdatlen, p, n)) {
		free(p);
		return err_set(e, EX_FAIL, "tpm-tools file: ENC DAT does not "
			       "decrypt (a wrong data key or a damaged file)");
	}
	*out = p;
	return 0;
}

/* A non-negative INTEGER of 1 to 4 content bytes, leading zeros allowed:
 * TrouSerS writes the blob length as 4 bytes (02 04 00 00 01 1c), which
 * strict DER (der_get_uint) refuses. */
static int tss_int(struct tb *b, uint32_t *v)
{
	struct tb in;
	size_t n;

	*v = 0;
	if (der_get(b, DER_INT, &in))
		return -1;
	n = tb_left(&in);
	if (n < 1 || n > 4 || in.p[in.pos] & 0x80)
		return -1;
	while (tb_left(&in))
		*v = *v << 8 | tb_get_u8(&in);
	return 0;
}

int tss_pubkey_blob_parse(const uint8_t *der, size_t n,
			  struct tpm12_pubkey *k, const char *what,
			  struct tberr *e)
{
	struct tb b, seq, oct;
	uint32_t ver, type, len;

	tb_init_read(&b, der, n);
	if (der_get(&b, DER_SEQ, &seq) || tb_left(&b) ||
	    tss_int(&seq, &ver) || tss_int(&seq, &type) ||
	    tss_int(&seq, &len) || der_get(&seq, DER_OCTETS, &oct) ||
	    tb_left(&seq))
		return err_set(e, EX_FAIL, "%s: not a TrouSerS public key "
			       "blob (DER SEQUENCE of version, type, length, "
			       "key)", what);
	if (ver != 1 || type != 2)
		return err_set(e, EX_FAIL, "%s: TrouSerS blob version %u type "
			       "%u, not a version 1 public key (type 2)", what,
			       ver, type);
	if (len != tb_left(&oct))
		return err_set(e, EX_FAIL, "%s: the blob says %u bytes, holds "
			       "%zu", what, len, tb_left(&oct));
	return tpm12_pubkey_parse(oct.p + oct.pos, tb_left(&oct), k, what, e);
}
