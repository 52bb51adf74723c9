/* A bounded JSON reader (RFC 8259) for untrusted text: LUKS2 header
 * metadata, its tokens, JOSE headers.  One place for JSON in lib/: the
 * text becomes a tree the caller walks with json_get and the type tests,
 * each shape's rules (which keys, which types) staying with its reader.
 * Limits every caller sets: nesting depth (the parser recurses once per
 * level and never deeper than the limit), the decoded length of one
 * string, the members of one object or array, the nodes of the whole
 * tree.  Strings: escapes decoded, surrogate pairs joined, invalid UTF-8,
 * an unpaired surrogate, a control character or NUL (raw or \u0000)
 * refused.  Numbers: the RFC's grammar; the value is kept only for an
 * integer that fits int64_t (isint), the rest are numbers without a value.
 * A key given twice in one object, and anything after the value but
 * whitespace, are refused. */
#ifndef TPMBOX_BASE_JSON_H
#define TPMBOX_BASE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum {
	JSON_NULL = 1,
	JSON_BOOL,
	JSON_NUM,
	JSON_STR,
	JSON_ARR,
	JSON_OBJ,
};

struct json {
	int type;
	int b;			/* JSON_BOOL */
	int isint;		/* JSON_NUM: an integer that fits i */
	int64_t i;
	char *s;		/* JSON_STR: decoded, NUL-terminated */
	size_t slen;
	char *key;		/* a member of an object: its name (decoded) */
	size_t n;		/* JSON_ARR, JSON_OBJ: members */
	struct json *kid;	/* the first member, in text order */
	struct json *next;	/* the next member of the parent */
	size_t off;		/* byte offset of the value in the text */
};

struct json_limits {
	int depth;		/* nesting of arrays and objects, >= 1 */
	size_t str;		/* decoded bytes of one string or key */
	size_t members;		/* members of one array or object */
	size_t nodes;		/* values in the whole tree */
};

/* Parse text[0..n) into *out (free with json_free).  Exit 1 "WHAT: JSON
 * at byte N: why" when malformed or past a limit; exit 3 "out of
 * memory". */
int json_parse(const char *text, size_t n, const struct json_limits *lim,
	       const char *what, struct json **out, struct tberr *e);
void json_free(struct json *j);
/* The member named key of an object (NULL when j is no object or has no
 * such member). */
const struct json *json_get(const struct json *j, const char *key);
/* "null", "boolean", "number", "string", "array", "object". */
const char *json_type_name(int type);

#endif
