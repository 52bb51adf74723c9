/* PEM and base64 (include/base/pem.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pem.h"

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *b64_encode(const uint8_t *p, size_t n, size_t *outlen)
{
	size_t i, o = 0, len = (n + 2) / 3 * 4;
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
			     p[i + 2];

		s[o++] = b64[v >> 18];
		s[o++] = b64[(v >> 12) & 63];
		s[o++] = b64[(v >> 6) & 63];
		s[o++] = b64[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		s[o++] = b64[v >> 18];
		s[o++] = b64[(v >> 12) & 63];
		s[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		s[o++] = '=';
	}
	s[o] = '\0';
	*outlen = o;
	return s;
}

char *b64url_encode(const uint8_t *p, size_t n, size_t *outlen)
{
	char *s = b64_encode(p, n, outlen), *c;

	if (!s)
		return NULL;
	for (c = s; *c && *c != '='; c++)
		*c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
	*c = '\0';
	*outlen = (size_t)(c - s);
	return s;
}

/* By ranges, not strchr: a 64 MiB secret's escrow copies are 180 MB of
 * base64 (measured: strchr was a third of recover's time). */
static int b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Both alphabets: standard (RFC 4648 section 4; blanks skipped, '='
 * padding checked against the leftover bits) and, with url, the URL-safe
 * one (section 5) as JOSE writes it (no blanks, no '=').  The unused bits
 * must be zero either way. */
static long b64_any(const char *s, size_t n, uint8_t *out, size_t cap,
		    int url)
{
	uint32_t acc = 0;
	size_t i, o = 0;
	int bits = 0, pad = 0, v;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!url && (c == ' ' || c == '\t' || c == '\r' || c == '\n'))
			continue;
		if (!url && c == '=') {
			pad++;
			continue;
		}
		if (url)
			v = c == '-' ? 62 : c == '_' ? 63 :
			    c == '+' || c == '/' ? -1 : b64_val(c);
		else
			v = b64_val(c);
		if (pad || v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= cap)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* 2 or 4 leftover bits must be zero (and match the padding). */
	if (bits == 6 || (acc & ((1u << bits) - 1)) ||
	    (!url && (pad > 2 || (bits == 2 && pad != 1) ||
		      (bits == 4 && pad != 2) || (bits == 0 && pad))))
		return -1;
	return (long)o;
}

long b64_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	return b64_any(s, n, out, cap, 0);
}

long b64url_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	return b64_any(s, n, out, cap, 1);
}

int pem_append(char **buf, size_t *len, const char *label,
	       const uint8_t *der, size_t n)
{
	size_t blen, i, need;
	char *s = b64_encode(der, n, &blen), *p, *q;

	if (!s)
		return -1;
	need = *len + 2 * (strlen(label) + 32) + blen + blen / 64 + 2;
	p = realloc(*buf, need + 1);
	if (!p) {
		free(s);
		return -1;
	}
	*buf = p;
	q = p + *len;
	q += sprintf(q, "-----BEGIN %s-----\n", label);
	for (i = 0; i < blen; i += 64) {
		size_t m = blen - i > 64 ? 64 : blen - i;

		memcpy(q, s + i, m);
		q += m;
		*q++ = '\n';
	}
	q += sprintf(q, "-----END %s-----\n", label);
	*len = (size_t)(q - p);
	*q = '\0';
	free(s);
	return 0;
}

/* Find the one block; body and blen cover its base64 text. */
static int pem_find(const char *text, size_t n, const char *label,
		    const char **body, size_t *blen)
{
	char begin[96], end[96];
	const char *p, *q;

	if (strlen(label) > 64)
		return PEM_NONE;
	snprintf(begin, sizeof(begin), "-----BEGIN %s-----", label);
	snprintf(end, sizeof(end), "-----END %s-----", label);
	p = memmem(text, n, begin, strlen(begin));
	if (!p)
		return PEM_NONE;
	p += strlen(begin);
	q = memmem(p, n - (size_t)(p - text), end, strlen(end));
	if (!q)
		return PEM_NOEND;
	/* A second block with the same label is not ours to guess about. */
	if (memmem(q, n - (size_t)(q - text), begin, strlen(begin)))
		return PEM_TWICE;
	*body = p;
	*blen = (size_t)(q - p);
	return PEM_OK;
}

int pem_block(const char *text, size_t n, const char *label, uint8_t **der,
	      size_t *len)
{
	const char *body;
	size_t blen, cap;
	long got;
	int r = pem_find(text, n, label, &body, &blen);

	*der = NULL;
	*len = 0;
	if (r)
		return r;
	cap = blen / 4 * 3 + 3;
	if (!(*der = malloc(cap)))
		return PEM_NOMEM;
	got = b64_decode(body, blen, *der, cap);
	if (got <= 0) {
		free(*der);
		*der = NULL;
		return PEM_BADB64;
	}
	*len = (size_t)got;
	return PEM_OK;
}

int pem_get(const char *text, size_t n, const char *label, const char *what,
	    uint8_t **der, size_t *len, struct tberr *e)
{
	switch (pem_block(text, n, label, der, len)) {
	case PEM_OK:
		return 0;
	case PEM_NONE:
		return err_set(e, EX_FAIL, "%s: no %s PEM block", what, label);
	case PEM_NOEND:
		return err_set(e, EX_FAIL, "%s: the %s block has no END line "
			       "(truncated?)", what, label);
	case PEM_TWICE:
		return err_set(e, EX_FAIL, "%s: more than one %s block", what,
			       label);
	case PEM_BADB64:
		return err_set(e, EX_FAIL, "%s: the %s block is not valid "
			       "base64", what, label);
	}
	return err_set(e, EX_FAIL, "%s: out of memory", what);
}

int pem_encode(const char *label, const uint8_t *der, size_t len,
	       char **pem, size_t *n, struct tberr *e)
{
	*pem = NULL;
	*n = 0;
	if (pem_append(pem, n, label, der, len)) {
		free(*pem);
		*pem = NULL;
		*n = 0;
		return err_set(e, EX_FAIL, "out of memory");
	}
	return 0;
}
