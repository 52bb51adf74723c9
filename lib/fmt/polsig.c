/* systemd's signed-policy JSON (include/fmt/polsig.h): a reader that knows
 * only this one shape, and the writer of systemd-measure's layout.
 *
 * The reader is not a general JSON parser: at every point it expects one
 * kind of value (the object of banks, a bank's array of entries, an
 * entry's object, the "pcrs" array, a string, an integer), so a value of
 * another kind or a nesting deeper than the shape is refused where it
 * stands, and nothing recurses.  Strings are taken in printable ASCII
 * only: every name and value the format has is, so a byte >= 0x80, a \u
 * escape above 0x7f or a control character, raw or escaped, can only make
 * a key or value that would be refused. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "fmt/polsig.h"

static const struct {
	const char *name;
	uint16_t alg;
} banks[] = {
	{ "sha1", TPM2_ALG_SHA1 },
	{ "sha256", TPM2_ALG_SHA256 },
	{ "sha384", TPM2_ALG_SHA384 },
	{ "sha512", TPM2_ALG_SHA512 },
};

uint16_t polsig_bank(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(banks) / sizeof(banks[0]); i++)
		if (strcmp(banks[i].name, name) == 0)
			return banks[i].alg;
	return 0;
}

const char *polsig_bank_name(uint16_t alg)
{
	size_t i;

	for (i = 0; i < sizeof(banks) / sizeof(banks[0]); i++)
		if (banks[i].alg == alg)
			return banks[i].name;
	return NULL;
}

/* ---- the reader ---- */

/* The longest string any field can hold: "sig" in base64 for
 * POLSIG_SIG_MAX bytes (684 characters), with room to spare. */
#define STR_MAX 1024

struct jp {
	const char *s;
	size_t n, pos;
	const char *what;
	struct tberr *e;
};

static int fail(struct jp *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "WHAT: why (at byte N)", exit 1; N counts from 0. */
static int fail(struct jp *j, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return err_set(j->e, EX_FAIL, "%s: %s (at byte %zu)", j->what, why,
		       j->pos);
}

/* RFC 8259's four whitespace characters, and nothing else. */
static void ws(struct jp *j)
{
	while (j->pos < j->n && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' ||
				 j->s[j->pos] == '\n' || j->s[j->pos] == '\r'))
		j->pos++;
}

/* The next character after whitespace, or -1 at the end. */
static int peek(struct jp *j)
{
	ws(j);
	return j->pos < j->n ? (unsigned char)j->s[j->pos] : -1;
}

/* What stands at the current position, for messages. */
static const char *kind(struct jp *j)
{
	switch (peek(j)) {
	case -1: return "the end of the text";
	case '{': return "an object";
	case '[': return "an array";
	case '"': return "a string";
	case 't': case 'f': return "a boolean";
	case 'n': return "null";
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return "a number";
	default: return "a character that starts no JSON value";
	}
}

static int expect(struct jp *j, char c, const char *where)
{
	if (peek(j) != (unsigned char)c)
		return fail(j, "expected '%c' %s, found %s", c, where,
			    kind(j));
	j->pos++;
	return 0;
}

/* A string (at its opening quote) into out[0..STR_MAX], NUL-terminated;
 * escapes decoded. */
static int string(struct jp *j, const char *name, char *out, size_t *len)
{
	size_t o = 0;

	if (peek(j) != '"')
		return fail(j, "%s is %s, not a string", name, kind(j));
	j->pos++;
	for (;;) {
		int c;

		if (j->pos >= j->n)
			return fail(j, "a string is not closed");
		c = (unsigned char)j->s[j->pos];
		if (c == '"')
			break;
		if (c < 0x20 || c == 0x7f)
			return fail(j, "a control character (0x%02x) in a "
				    "string", c);
		if (c >= 0x80)
			return fail(j, "a byte outside ASCII (0x%02x) in a "
				    "string", c);
		if (c == '\\') {
			if (j->pos + 1 >= j->n)
				return fail(j, "a string is not closed");
			switch (j->s[++j->pos]) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				int k, d;

				c = 0;
				for (k = 1; k <= 4; k++) {
					if (j->pos + k >= j->n ||
					    (d = hex_digit((unsigned char)
							j->s[j->pos + k])) < 0)
						return fail(j, "a \\u escape "
							    "without four hex "
							    "digits");
					c = c << 4 | d;
				}
				if (c == 0 || c >= 0x80)
					return fail(j, "a \\u escape outside "
						    "ASCII or NUL (U+%04X)",
						    (unsigned)c);
				j->pos += 4;
				break;
			}
			default:
				return fail(j, "an invalid escape in a string");
			}
			/* no name or value here has one, and a message
			 * quoting the string stays one line */
			if (c < 0x20 || c == 0x7f)
				return fail(j, "an escaped control character "
					    "(0x%02x) in a string", c);
		}
		if (o >= STR_MAX)
			return fail(j, "%s is longer than %d characters",
				    name, STR_MAX);
		out[o++] = (char)c;
		j->pos++;
	}
	j->pos++;
	out[o] = '\0';
	*len = o;
	return 0;
}

/* A non-negative integer of at most 9 digits, no leading zero, no
 * fraction or exponent. */
static int uint_val(struct jp *j, const char *name, unsigned *v)
{
	size_t start;
	int c;

	*v = 0;
	c = peek(j);
	if (c == '-')
		return fail(j, "%s has a negative number", name);
	if (c < '0' || c > '9')
		return fail(j, "%s holds %s, not a number", name, kind(j));
	start = j->pos;
	while (j->pos < j->n && j->s[j->pos] >= '0' && j->s[j->pos] <= '9') {
		if (j->pos - start >= 9)
			return fail(j, "%s has a number too large", name);
		*v = *v * 10 + (unsigned)(j->s[j->pos] - '0');
		j->pos++;
	}
	if (j->pos - start > 1 && j->s[start] == '0') {
		j->pos = start;
		return fail(j, "%s has a number with a leading zero", name);
	}
	if (j->pos < j->n && (j->s[j->pos] == '.' || j->s[j->pos] == 'e' ||
			      j->s[j->pos] == 'E'))
		return fail(j, "%s has a number that is not an integer",
			    name);
	return 0;
}

/* "pcrs": [i, ...], ascending, each 0..23, at least one. */
static int pcrs(struct jp *j, uint32_t *mask)
{
	int last = -1;

	if (peek(j) != '[')
		return fail(j, "\"pcrs\" is %s, not an array", kind(j));
	j->pos++;
	if (peek(j) == ']')
		return fail(j, "\"pcrs\" is empty");
	for (;;) {
		unsigned v;

		if (uint_val(j, "\"pcrs\"", &v))
			return EX_FAIL;
		if (v > 23)
			return fail(j, "PCR %u in \"pcrs\" is out of range "
				    "(0-23)", v);
		if ((int)v <= last)
			return fail(j, "\"pcrs\" is not in ascending order "
				    "(%u after %d)", v, last);
		last = (int)v;
		*mask |= 1u << v;
		if (peek(j) == ']')
			break;
		if (expect(j, ',', "or ']' in \"pcrs\""))
			return EX_FAIL;
	}
	j->pos++;
	return 0;
}

/* Exactly 64 hex digits (32 bytes) into out. */
static int hex32(struct jp *j, const char *name, uint8_t out[32])
{
	char s[STR_MAX + 1];
	size_t n, i;

	if (string(j, name, s, &n))
		return EX_FAIL;
	for (i = 0; i < n; i++)
		if (hex_digit((unsigned char)s[i]) < 0)
			return fail(j, "%s is not hex", name);
	if (n != 64)
		return fail(j, "%s has %zu hex digits, not 64", name, n);
	if (hex_decode(s, out, 32) != 32)
		return fail(j, "%s is not hex", name);
	return 0;
}

static int is_b64(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

/* Canonical padded base64 of 1..POLSIG_SIG_MAX bytes. */
static int sig(struct jp *j, struct polsig_entry *en)
{
	char s[STR_MAX + 1];
	size_t n, i;
	long got;

	if (string(j, "\"sig\"", s, &n))
		return EX_FAIL;
	for (i = 0; i < n; i++)
		if (!is_b64((unsigned char)s[i]))
			return fail(j, "\"sig\" is not base64");
	if (n == 0)
		return fail(j, "\"sig\" is empty");
	if (n % 4 || n > (POLSIG_SIG_MAX + 2) / 3 * 4)
		return fail(j, "\"sig\" has %zu base64 characters: %s", n,
			    n % 4 ? "not a multiple of 4" :
			    "longer than any signature here");
	got = b64_decode(s, n, en->sig, sizeof(en->sig));
	if (got <= 0)
		return fail(j, "\"sig\" is not canonical base64");
	en->siglen = (size_t)got;
	return 0;
}

static const char *const fields[] = { "pcrs", "pkfp", "pol", "sig" };

static int entry(struct jp *j, uint16_t bank, struct polsig *out)
{
	struct polsig_entry *en;
	unsigned seen = 0;
	size_t i;

	if (peek(j) != '{')
		return fail(j, "an entry of \"%s\" is %s, not an object",
			    polsig_bank_name(bank), kind(j));
	if (out->n >= POLSIG_MAX)
		return fail(j, "more than %d entries", POLSIG_MAX);
	en = &out->e[out->n];
	memset(en, 0, sizeof(*en));
	en->bank = bank;
	j->pos++;
	if (peek(j) != '}') {
		for (;;) {
			char key[STR_MAX + 1];
			size_t kl, at = (ws(j), j->pos);
			int r;

			if (string(j, "a key in an entry", key, &kl))
				return EX_FAIL;
			for (i = 0; i < 4 && strcmp(key, fields[i]); i++)
				;
			j->pos = i == 4 || seen & 1u << i ? at : j->pos;
			if (i == 4)
				return fail(j, "an entry has an unknown key "
					    "\"%.32s\"", key);
			if (seen & 1u << i)
				return fail(j, "an entry has \"%s\" twice",
					    fields[i]);
			seen |= 1u << i;
			if (expect(j, ':', "after a key"))
				return EX_FAIL;
			switch (i) {
			case 0: r = pcrs(j, &en->pcrs); break;
			case 1: r = hex32(j, "\"pkfp\"", en->pkfp); break;
			case 2: r = hex32(j, "\"pol\"", en->pol); break;
			default: r = sig(j, en); break;
			}
			if (r)
				return r;
			if (peek(j) == '}')
				break;
			if (expect(j, ',', "or '}' in an entry"))
				return EX_FAIL;
		}
	}
	for (i = 0; i < 4; i++)
		if (!(seen & 1u << i))
			return fail(j, "an entry has no \"%s\"", fields[i]);
	j->pos++;
	out->n++;
	return 0;
}

int polsig_parse(const char *text, size_t n, const char *what,
		 struct polsig *out, struct tberr *e)
{
	struct jp j = { text, n, 0, what, e };
	unsigned seen = 0;

	out->n = 0;
	if (expect(&j, '{', "at the start"))
		return EX_FAIL;
	if (peek(&j) != '}') {
		for (;;) {
			char key[STR_MAX + 1];
			size_t kl, at = (ws(&j), j.pos), b;
			uint16_t bank;

			if (string(&j, "a bank name", key, &kl))
				return EX_FAIL;
			if (!(bank = polsig_bank(key))) {
				j.pos = at;
				return fail(&j, "unknown bank \"%.32s\"", key);
			}
			for (b = 0; banks[b].alg != bank; b++)
				;
			if (seen & 1u << b) {
				j.pos = at;
				return fail(&j, "bank \"%s\" appears twice",
					    key);
			}
			seen |= 1u << b;
			if (expect(&j, ':', "after a bank name"))
				return EX_FAIL;
			if (peek(&j) != '[')
				return fail(&j, "\"%s\" is %s, not an array",
					    key, kind(&j));
			j.pos++;
			if (peek(&j) != ']') {
				for (;;) {
					if (entry(&j, bank, out))
						return EX_FAIL;
					if (peek(&j) == ']')
						break;
					if (expect(&j, ',', "or ']' after an "
						   "entry"))
						return EX_FAIL;
				}
			}
			j.pos++;
			if (peek(&j) == '}')
				break;
			if (expect(&j, ',', "or '}' after a bank"))
				return EX_FAIL;
		}
	}
	j.pos++;
	if (peek(&j) != -1)
		return fail(&j, "trailing data after the JSON object");
	return 0;
}

/* ---- changes ---- */

static int same_state(const struct polsig_entry *a,
		      const struct polsig_entry *b)
{
	return a->bank == b->bank && a->pcrs == b->pcrs &&
	       !memcmp(a->pkfp, b->pkfp, sizeof(a->pkfp)) &&
	       !memcmp(a->pol, b->pol, sizeof(a->pol));
}

int polsig_put(struct polsig *p, const struct polsig_entry *en,
	       struct tberr *e)
{
	int i, k, put = 0;

	/* The first entry for the same state is replaced in place; any
	 * further ones go (a file that had them held stale copies). */
	for (i = k = 0; i < p->n; i++) {
		if (same_state(&p->e[i], en)) {
			if (put)
				continue;
			p->e[k++] = *en;
			put = 1;
		} else if (k != i) {
			p->e[k++] = p->e[i];
		} else {
			k++;
		}
	}
	p->n = k;
	if (put)
		return 0;
	if (p->n >= POLSIG_MAX)
		return err_set(e, EX_FAIL, "the file has %d entries, the most "
			       "it can hold", POLSIG_MAX);
	p->e[p->n++] = *en;
	return 0;
}

/* ---- the writer ---- */

int polsig_format(const struct polsig *p, char **text, size_t *n)
{
	/* Per entry: the keys and punctuation (40), 24 indices of up to 3
	 * characters, two 64-digit hex strings, the base64 signature. */
	size_t cap = 8 + (size_t)p->n * (48 + 24 * 3 + 2 * 64 +
					 (POLSIG_SIG_MAX + 2) / 3 * 4) +
		     sizeof(banks) / sizeof(banks[0]) * 16;
	uint16_t order[sizeof(banks) / sizeof(banks[0])];
	int nb = 0, i, k, b;
	char *s, *q;

	*text = NULL;
	*n = 0;
	if (p->n < 0 || p->n > POLSIG_MAX)
		return -1;
	/* Banks in the order first seen; nothing the reader would refuse. */
	for (i = 0; i < p->n; i++) {
		if (!polsig_bank_name(p->e[i].bank) || !p->e[i].pcrs ||
		    p->e[i].pcrs >> 24 || !p->e[i].siglen ||
		    p->e[i].siglen > POLSIG_SIG_MAX)
			return -1;
		for (b = 0; b < nb && order[b] != p->e[i].bank; b++)
			;
		if (b == nb)
			order[nb++] = p->e[i].bank;
	}
	if (!(s = malloc(cap)))
		return -1;
	q = s;
	*q++ = '{';
	for (b = 0; b < nb; b++) {
		int first = 1;

		q += sprintf(q, "%s\"%s\":[", b ? "," : "",
			     polsig_bank_name(order[b]));
		for (i = 0; i < p->n; i++) {
			const struct polsig_entry *en = &p->e[i];
			char *sig;
			size_t sl;
			int f = 1;

			if (en->bank != order[b])
				continue;
			q += sprintf(q, "%s{\"pcrs\":[", first ? "" : ",");
			first = 0;
			for (k = 0; k < 32; k++)
				if (en->pcrs >> k & 1) {
					q += sprintf(q, "%s%d", f ? "" : ",",
						     k);
					f = 0;
				}
			q += sprintf(q, "],\"pkfp\":\"");
			hex_encode(en->pkfp, 32, q);
			q += 64;
			q += sprintf(q, "\",\"pol\":\"");
			hex_encode(en->pol, 32, q);
			q += 64;
			if (!(sig = b64_encode(en->sig, en->siglen, &sl))) {
				free(s);
				return -1;
			}
			q += sprintf(q, "\",\"sig\":\"%s\"}", sig);
			free(sig);
		}
		*q++ = ']';
	}
	*q++ = '}';
	*q++ = '\n';
	*q = '\0';
	*text = s;
	*n = (size_t)(q - s);
	return 0;
}
