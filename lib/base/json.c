/* The bounded JSON reader (include/base/json.h). */
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

struct jp {
	const char *s;
	size_t n, pos;
	const struct json_limits *lim;
	size_t nodes;
	const char *what;
	struct tberr *e;
	int rc;
};

static int jp_fail(struct jp *p, const char *why)
{
	if (!p->rc)
		p->rc = err_set(p->e, EX_FAIL, "%s: JSON at byte %zu: %s",
				p->what, p->pos, why);
	return p->rc;
}

static int jp_nomem(struct jp *p)
{
	if (!p->rc)
		p->rc = err_set(p->e, EX_IO, "%s: out of memory", p->what);
	return p->rc;
}

static void ws(struct jp *p)
{
	while (p->pos < p->n && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				 p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

/* Bytes of the UTF-8 sequence at s[0..n) (RFC 3629: no overlong form, no
 * surrogate, at most U+10FFFF), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && c < 0x800) || (k == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return k;
}

static int hex4(struct jp *p, uint32_t *v)
{
	int i;

	*v = 0;
	if (p->n - p->pos < 4)
		return jp_fail(p, "a \\u escape is cut short");
	for (i = 0; i < 4; i++) {
		char c = p->s[p->pos++];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return jp_fail(p, "a \\u escape is not 4 hex digits");
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* A string at p->pos (the opening quote), decoded into a malloc'd copy. */
static int jp_string(struct jp *p, char **out, size_t *outlen)
{
	size_t start, cap, o = 0;
	char *d;

	p->pos++;
	start = p->pos;
	/* The decoded form is never longer than the text. */
	while (p->pos < p->n && p->s[p->pos] != '"')
		p->pos += p->s[p->pos] == '\\' ? 2 : 1;
	if (p->pos >= p->n) {
		p->pos = start - 1;
		return jp_fail(p, "a string has no closing quote");
	}
	cap = p->pos - start;
	p->pos = start;
	if (!(d = malloc(cap + 1)))
		return jp_nomem(p);
	while (p->s[p->pos] != '"') {
		unsigned char c = (unsigned char)p->s[p->pos];
		uint32_t u, lo;
		size_t k;

		if (o >= p->lim->str)
			goto toolong;
		if (c < 0x20) {
			free(d);
			return jp_fail(p, c ? "a control character in a string"
					 : "a NUL byte in a string");
		}
		if (c != '\\') {
			if (!(k = utf8_len((const unsigned char *)p->s + p->pos,
					   p->n - p->pos))) {
				free(d);
				return jp_fail(p, "a string is not valid UTF-8");
			}
			memcpy(d + o, p->s + p->pos, k);
			o += k;
			p->pos += k;
			continue;
		}
		p->pos++;
		switch (p->s[p->pos++]) {
		case '"': d[o++] = '"'; continue;
		case '\\': d[o++] = '\\'; continue;
		case '/': d[o++] = '/'; continue;
		case 'b': d[o++] = '\b'; continue;
		case 'f': d[o++] = '\f'; continue;
		case 'n': d[o++] = '\n'; continue;
		case 'r': d[o++] = '\r'; continue;
		case 't': d[o++] = '\t'; continue;
		case 'u': break;
		default:
			free(d);
			p->pos -= 2;
			return jp_fail(p, "an unknown escape in a string");
		}
		if (hex4(p, &u))
			goto bad;
		if (u >= 0xdc00 && u <= 0xdfff) {
			free(d);
			return jp_fail(p, "an unpaired surrogate in a string");
		}
		if (u >= 0xd800 && u <= 0xdbff) {
			if (p->n - p->pos < 2 || p->s[p->pos] != '\\' ||
			    p->s[p->pos + 1] != 'u') {
				free(d);
				return jp_fail(p, "an unpaired surrogate in a "
					       "string");
			}
			p->pos += 2;
			if (hex4(p, &lo))
				goto bad;
			if (lo < 0xdc00 || lo > 0xdfff) {
				free(d);
				return jp_fail(p, "an unpaired surrogate in a "
					       "string");
			}
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		}
		if (u == 0) {
			free(d);
			return jp_fail(p, "a NUL character (\\u0000) in a "
				       "string");
		}
		/* The escape's text is 6 or 12 bytes: room for 1 to 4. */
		if (u < 0x80) {
			d[o++] = (char)u;
		} else if (u < 0x800) {
			d[o++] = (char)(0xc0 | u >> 6);
			d[o++] = (char)(0x80 | (u & 0x3f));
		} else if (u < 0x10000) {
			d[o++] = (char)(0xe0 | u >> 12);
			d[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
			d[o++] = (char)(0x80 | (u & 0x3f));
		} else {
			d[o++] = (char)(0xf0 | u >> 18);
			d[o++] = (char)(0x80 | ((u >> 12) & 0x3f));
			d[o++] = (char)(0x80 | ((u >> 6) & 0x3f));
			d[o++] = (char)(0x80 | (u & 0x3f));
		}
	}
	if (o > p->lim->str)
		goto toolong;
	p->pos++;
	d[o] = 0;
	*out = d;
	*outlen = o;
	return 0;
toolong:
	free(d);
	return jp_fail(p, "a string is longer than this format allows");
bad:
	free(d);
	return p->rc;
}

static int jp_number(struct jp *p, struct json *j)
{
	int neg = 0, frac = 0, over = 0;
	uint64_t v = 0;

	if (p->s[p->pos] == '-') {
		neg = 1;
		p->pos++;
	}
	if (p->pos >= p->n || p->s[p->pos] < '0' || p->s[p->pos] > '9')
		return jp_fail(p, "not a value");
	if (p->s[p->pos] == '0' && p->pos + 1 < p->n &&
	    p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9')
		return jp_fail(p, "a number with a leading zero");
	while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
		unsigned dgt = (unsigned)(p->s[p->pos++] - '0');

		if (v > (UINT64_MAX - dgt) / 10)
			over = 1;
		else
			v = v * 10 + dgt;
	}
	if (p->pos < p->n && p->s[p->pos] == '.') {
		frac = 1;
		p->pos++;
		if (p->pos >= p->n || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return jp_fail(p, "a number without digits after '.'");
		while (p->pos < p->n && p->s[p->pos] >= '0' &&
		       p->s[p->pos] <= '9')
			p->pos++;
	}
	if (p->pos < p->n && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		frac = 1;
		p->pos++;
		if (p->pos < p->n && (p->s[p->pos] == '+' ||
				      p->s[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->n || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return jp_fail(p, "a number without exponent digits");
		while (p->pos < p->n && p->s[p->pos] >= '0' &&
		       p->s[p->pos] <= '9')
			p->pos++;
	}
	j->type = JSON_NUM;
	if (!frac && !over && (neg ? v <= (uint64_t)INT64_MAX + 1 :
			       v <= (uint64_t)INT64_MAX)) {
		j->isint = 1;
		j->i = neg ? (int64_t)(0 - v) : (int64_t)v;
	}
	return 0;
}

static int jp_word(struct jp *p, const char *w)
{
	size_t k = strlen(w);

	if (p->n - p->pos < k || memcmp(p->s + p->pos, w, k))
		return jp_fail(p, "not a value");
	p->pos += k;
	return 0;
}

static int jp_value(struct jp *p, int depth, struct json **out);

/* The members of an array or object: p->pos after the opening bracket. */
static int jp_members(struct jp *p, int depth, struct json *j, int obj)
{
	char close = obj ? '}' : ']';
	struct json **tail = &j->kid;

	if (depth >= p->lim->depth)
		return jp_fail(p, "nested deeper than this format allows");
	ws(p);
	if (p->pos < p->n && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		size_t klen;
		struct json *m;

		if (j->n >= p->lim->members)
			return jp_fail(p, obj ? "an object has more members "
				       "than this format allows" :
				       "an array has more elements than this "
				       "format allows");
		ws(p);
		if (obj) {
			const struct json *k;
			size_t at = p->pos;

			if (p->pos >= p->n || p->s[p->pos] != '"')
				return jp_fail(p, "expected a member name");
			if (jp_string(p, &key, &klen))
				return p->rc;
			if (!key)	/* (jp_string sets it when it succeeds) */
				return jp_nomem(p);
			for (k = j->kid; k; k = k->next)
				if (k->key && strcmp(k->key, key) == 0) {
					free(key);
					p->pos = at;
					return jp_fail(p, "a member name given "
						       "twice");
				}
			ws(p);
			if (p->pos >= p->n || p->s[p->pos] != ':') {
				free(key);
				return jp_fail(p, "expected ':'");
			}
			p->pos++;
		}
		/* linked even when it failed: json_free takes it */
		if (jp_value(p, depth + 1, &m) && !m) {
			free(key);
			return p->rc;
		}
		m->key = key;
		*tail = m;
		tail = &m->next;
		j->n++;
		if (p->rc)
			return p->rc;
		ws(p);
		if (p->pos < p->n && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->n && p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		return jp_fail(p, obj ? "expected ',' or '}'" :
			       "expected ',' or ']'");
	}
}

static int jp_value(struct jp *p, int depth, struct json **out)
{
	struct json *j;

	*out = NULL;
	ws(p);
	if (p->pos >= p->n)
		return jp_fail(p, "the text ends where a value should be");
	if (++p->nodes > p->lim->nodes)
		return jp_fail(p, "more values than this format allows");
	if (!(j = calloc(1, sizeof(*j))))
		return jp_nomem(p);
	*out = j;
	j->off = p->pos;
	switch (p->s[p->pos]) {
	case '{':
		j->type = JSON_OBJ;
		p->pos++;
		return jp_members(p, depth, j, 1);
	case '[':
		j->type = JSON_ARR;
		p->pos++;
		return jp_members(p, depth, j, 0);
	case '"':
		j->type = JSON_STR;
		return jp_string(p, &j->s, &j->slen);
	case 't':
		j->type = JSON_BOOL;
		j->b = 1;
		return jp_word(p, "true");
	case 'f':
		j->type = JSON_BOOL;
		return jp_word(p, "false");
	case 'n':
		j->type = JSON_NULL;
		return jp_word(p, "null");
	default:
		return jp_number(p, j);
	}
}

int json_parse(const char *text, size_t n, const struct json_limits *lim,
	       const char *what, struct json **out, struct tberr *e)
{
	struct jp p = { text, n, 0, lim, 0, what, e, 0 };
	struct json *j;

	*out = NULL;
	if (jp_value(&p, 0, &j) == 0) {
		ws(&p);
		if (p.pos != n)
			jp_fail(&p, "more text after the value");
	}
	if (p.rc) {
		json_free(j);
		return p.rc;
	}
	*out = j;
	return 0;
}

/* Depth first without recursion: a member's children are spliced in
 * before its siblings. */
void json_free(struct json *j)
{
	while (j) {
		struct json *next = j->next;

		if (j->kid) {
			struct json *k = j->kid;

			while (k->next)
				k = k->next;
			k->next = next;
			next = j->kid;
		}
		free(j->s);
		free(j->key);
		free(j);
		j = next;
	}
}

const struct json *json_get(const struct json *j, const char *key)
{
	const struct json *k;

	if (!j || j->type != JSON_OBJ)
		return NULL;
	for (k = j->kid; k; k = k->next)
		if (k->key && strcmp(k->key, key) == 0)
			return k;
	return NULL;
}

const char *json_type_name(int type)
{
	switch (type) {
	case JSON_NULL: return "null";
	case JSON_BOOL: return "boolean";
	case JSON_NUM: return "number";
	case JSON_STR: return "string";
	case JSON_ARR: return "array";
	case JSON_OBJ: return "object";
	}
	return "?";
}
