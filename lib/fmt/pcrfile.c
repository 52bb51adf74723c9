#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "crypto/hash.h"
#include "fmt/pcrfile.h"

/* Enough for every line: "sha512:31 " + 128 hex + newline. */
#define LINE 160

char *pcr_format_text(const struct pcr_vals *v)
{
	size_t cap = (size_t)v->n * LINE + 1, off = 0;
	char *s = malloc(cap), hex[2 * TPM2_MAX_DIGEST + 1];
	int i;

	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < v->n; i++) {
		hex_encode(v->v[i].d, v->v[i].len, hex);
		off += (size_t)snprintf(s + off, cap - off, "%s:%u %s\n",
					alg_name(v->v[i].alg), v->v[i].idx,
					hex);
	}
	return s;
}

char *pcr_format_json(const struct pcr_vals *v)
{
	size_t cap = (size_t)v->n * LINE + 64, off = 0;
	char *s = malloc(cap), hex[2 * TPM2_MAX_DIGEST + 1];
	int i;
	uint16_t cur = 0;

	if (!s)
		return NULL;
	off += (size_t)snprintf(s + off, cap - off, "{");
	for (i = 0; i < v->n; i++) {
		if (i == 0 || v->v[i].alg != cur) {
			off += (size_t)snprintf(s + off, cap - off,
						"%s\n  \"%s\": {", i ? "\n  },"
						: "", alg_name(v->v[i].alg));
			cur = v->v[i].alg;
		} else {
			off += (size_t)snprintf(s + off, cap - off, ",");
		}
		hex_encode(v->v[i].d, v->v[i].len, hex);
		off += (size_t)snprintf(s + off, cap - off,
					"\n    \"%u\": \"%s\"", v->v[i].idx,
					hex);
	}
	snprintf(s + off, cap - off, "%s}\n", v->n ? "\n  }\n" : "");
	return s;
}

static const char *skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* "BANK:INDEX HEX" with blanks around the words (and after the colon):
 * BANK is 1..bsz-1 characters up to the colon, INDEX decimal digits, HEX
 * one word of at most hsz-1 characters.  0, or -1 for anything else.
 * (A hand-made reader: sscanf would pull the whole of libc's scanf,
 * floats included, into the small static build.) */
static int split_line(const char *s, char *bank, size_t bsz, unsigned *idx,
		      char *hex, size_t hsz)
{
	const char *c, *w;
	unsigned long v = 0;
	size_t n;

	s = skip_space(s);
	c = strchr(s, ':');
	if (!c || c == s || (size_t)(c - s) >= bsz)
		return -1;
	memcpy(bank, s, (size_t)(c - s));
	bank[c - s] = '\0';
	s = skip_space(c + 1);
	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (unsigned)(*s - '0')) > 0xffffffffUL)
			return -1;
	*idx = (unsigned)v;
	if (!isspace((unsigned char)*s))
		return -1;
	w = skip_space(s);
	for (s = w; *s && !isspace((unsigned char)*s); s++)
		;
	n = (size_t)(s - w);
	if (n == 0 || n >= hsz || *skip_space(s) != '\0')
		return -1;
	memcpy(hex, w, n);
	hex[n] = '\0';
	return 0;
}

int pcr_parse_text(const char *text, struct pcr_vals *v, struct tberr *e)
{
	const char *p = text;
	int line = 0;

	v->n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char buf[LINE + 64], bank[16], hexs[2 * TPM2_MAX_DIGEST + 2];
		unsigned idx;
		uint16_t alg;
		struct pcr_val *pv;
		long n;

		line++;
		if (len >= sizeof(buf))
			return err_set(e, EX_USAGE, "PCR file line %d is too "
				       "long", line);
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[len - 1] = '\0';
		p = nl ? nl + 1 : p + len;
		if (buf[strspn(buf, " \t")] == '\0' ||
		    buf[strspn(buf, " \t")] == '#')
			continue;
		if (split_line(buf, bank, sizeof(bank), &idx, hexs,
			       sizeof(hexs)))
			return err_set(e, EX_USAGE, "PCR file line %d: "
				       "expected 'BANK:INDEX HEX'", line);
		alg = alg_from_name(bank);
		if (!alg)
			return err_set(e, EX_USAGE, "PCR file line %d: unknown "
				       "bank '%s'", line, bank);
		if (idx > 31)
			return err_set(e, EX_USAGE, "PCR file line %d: PCR %u "
				       "is out of range", line, idx);
		if (pcr_val_find(v->v, v->n, alg, idx))
			return err_set(e, EX_USAGE, "PCR file line %d: %s:%u "
				       "appears twice", line, bank, idx);
		if (v->n == (int)(sizeof(v->v) / sizeof(v->v[0])))
			return err_set(e, EX_USAGE, "PCR file: too many lines");
		pv = &v->v[v->n];
		n = hex_decode(hexs, pv->d, sizeof(pv->d));
		if (n < 0 || (size_t)n != hash_size(alg))
			return err_set(e, EX_USAGE, "PCR file line %d: %s "
				       "needs %zu bytes of hex", line, bank,
				       hash_size(alg));
		pv->alg = alg;
		pv->idx = (uint8_t)idx;
		pv->len = (uint8_t)n;
		v->n++;
	}
	return 0;
}
