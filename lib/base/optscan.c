/* optscan: getopt_long's reading of a command line, over several option
 * tables, without getopt's global state (see include/base/optscan.h). */
#include <ctype.h>
#include <string.h>

#include "base/optscan.h"

/* A scan error is a usage error; the scan returns -1 for it. */
#define SCAN_ERR(e, ...) (err_put((e), EX_USAGE, __VA_ARGS__), -1)

void optscan_init(struct optscan *s, int argc, char *const *argv,
		  const struct optset *sets, int nsets, int require_order)
{
	memset(s, 0, sizeof(*s));
	s->argc = argc;
	s->argv = argv;
	s->sets = sets;
	s->nsets = nsets;
	s->require_order = require_order;
	s->ind = 1;
}

int optscan_id(const struct optscan_item *it)
{
	return it->lo ? it->lo->val : it->letter;
}

/* The set defining short option c, and its argument kind; -1 if none. */
static int find_short(const struct optscan *s, int c, int *has_arg)
{
	const char *p;
	int k;

	/* getopt never takes ':' or ';' as an option letter. */
	if (c == ':' || c == ';')
		return -1;
	for (k = 0; k < s->nsets; k++) {
		p = s->sets[k].shortopts;
		if (!p || !(p = strchr(p, c)))
			continue;
		*has_arg = p[1] != ':' ? no_argument :
			   p[2] != ':' ? required_argument : optional_argument;
		return k;
	}
	return -1;
}

static int short_opt(struct optscan *s, struct optscan_item *it,
		     struct tberr *e)
{
	int c = (unsigned char)*s->bundle++;

	it->letter = c;
	it->set = find_short(s, c, &it->has_arg);
	if (it->set < 0)
		return isprint(c) ?
			SCAN_ERR(e, "unknown option '-%c'", c) :
			SCAN_ERR(e, "unknown option '-\\x%02x'", c);
	if (it->has_arg == no_argument)
		return OPTSCAN_OPT;
	if (*s->bundle) {
		it->arg = s->bundle;
		s->bundle = NULL;
	} else if (it->has_arg == required_argument) {
		if (s->ind >= s->argc)
			return SCAN_ERR(e, "option -%c needs a value", c);
		it->arg = s->argv[s->ind++];
	}
	return OPTSCAN_OPT;
}

/* getopt_long takes two prefix matches for one option when they agree in
 * everything it returns. */
static int same_option(int k1, const struct option *a, int k2,
		       const struct option *b)
{
	return k1 == k2 && a->has_arg == b->has_arg && a->flag == b->flag &&
	       a->val == b->val;
}

static int long_opt(struct optscan *s, struct optscan_item *it,
		    struct tberr *e)
{
	const char *name = s->argv[s->ind] + 2;
	size_t n = strcspn(name, "=");
	const struct option *p, *found = NULL;
	int k, kf = -1, ambiguous = 0;

	it->first = s->ind++;
	it->nwords = 1;
	for (k = 0; k < s->nsets && !found; k++)
		for (p = s->sets[k].longopts; p && p->name; p++)
			if (strlen(p->name) == n &&
			    strncmp(p->name, name, n) == 0) {
				found = p;
				kf = k;
				break;
			}
	if (!found) {
		for (k = 0; k < s->nsets; k++)
			for (p = s->sets[k].longopts; p && p->name; p++) {
				if (strncmp(p->name, name, n) != 0)
					continue;
				if (!found) {
					found = p;
					kf = k;
				} else if (!same_option(kf, found, k, p)) {
					ambiguous = 1;
				}
			}
	}
	if (ambiguous) {
		char list[256] = "";

		for (k = 0; k < s->nsets; k++)
			for (p = s->sets[k].longopts; p && p->name; p++)
				if (strncmp(p->name, name, n) == 0 &&
				    strlen(list) + strlen(p->name) + 5 <
				    sizeof(list)) {
					strcat(list, list[0] ? ", --" : "--");
					strcat(list, p->name);
				}
		return SCAN_ERR(e, "option '--%.*s' is ambiguous (%s)",
				(int)(n > 64 ? 64 : n), name, list);
	}
	/* The value after '=' may be a secret: never show it. */
	if (!found)
		return SCAN_ERR(e, "unknown option '--%.*s'",
				(int)(n > 64 ? 64 : n), name);
	it->set = kf;
	it->lo = found;
	it->has_arg = found->has_arg;
	if (name[n] == '=') {
		if (found->has_arg == no_argument)
			return SCAN_ERR(e, "option --%s takes no value",
					found->name);
		it->arg = name + n + 1;
	} else if (found->has_arg == required_argument) {
		if (s->ind >= s->argc)
			return SCAN_ERR(e, "option --%s needs a value",
					found->name);
		it->arg = s->argv[s->ind++];
		it->nwords = 2;
	}
	return OPTSCAN_OPT;
}

int optscan_next(struct optscan *s, struct optscan_item *it,
		 struct tberr *e)
{
	const char *w;

	memset(it, 0, sizeof(*it));
	it->set = -1;
	if (s->bundle && *s->bundle)
		return short_opt(s, it, e);
	s->bundle = NULL;
	for (;;) {
		if (s->ind >= s->argc)
			return OPTSCAN_END;
		w = s->argv[s->ind];
		if (s->ended || w[0] != '-' || w[1] == '\0') {
			if (s->require_order)
				s->ended = 1;
			it->first = s->ind++;
			it->nwords = 1;
			return OPTSCAN_OPERAND;
		}
		if (strcmp(w, "--") != 0)
			break;
		s->ended = 1;
		s->ind++;
	}
	if (w[1] == '-')
		return long_opt(s, it, e);
	s->bundle = w + 1;
	s->ind++;
	return short_opt(s, it, e);
}

static int defines_short(const struct optset *s, int c)
{
	return s->shortopts && c != ':' && strchr(s->shortopts, c);
}

static const struct option *defines_long(const struct optset *s,
					 const char *name)
{
	const struct option *p;

	for (p = s->longopts; p && p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

int optset_check(const struct optset *s, const struct optset *reserved,
		 struct tberr *e)
{
	const char *p = s->shortopts ? s->shortopts : "";
	const struct option *l;

	for (; *p; p++) {
		if (!isalnum((unsigned char)*p))
			return err_set(e, EX_FAIL, "bad short option '%c' in "
				       "\"%s\"", *p, s->shortopts);
		if (strchr(s->shortopts, *p) != p)
			return err_set(e, EX_FAIL, "short option -%c defined "
				       "twice", *p);
		if (reserved && defines_short(reserved, *p))
			return err_set(e, EX_FAIL, "defines -%c, a common "
				       "option", *p);
		if (p[1] == ':')
			p += p[2] == ':' ? 2 : 1;
		if (p[1] == ':')
			return err_set(e, EX_FAIL, "bad short option string "
				       "\"%s\"", s->shortopts);
	}
	for (l = s->longopts; l && l->name; l++) {
		if (!l->name[0] || strchr(l->name, '=') ||
		    l->has_arg < no_argument || l->has_arg > optional_argument)
			return err_set(e, EX_FAIL, "bad long option '--%s'",
				       l->name);
		if (defines_long(s, l->name) != l)
			return err_set(e, EX_FAIL, "long option --%s defined "
				       "twice", l->name);
		if (reserved && defines_long(reserved, l->name))
			return err_set(e, EX_FAIL, "defines --%s, a common "
				       "option", l->name);
	}
	return 0;
}

int optword_next(const char **p, const char *list, const char *what,
		 char *tok, size_t cap, struct tberr *e)
{
	const char *w = *p, *end = strchr(w, '|');
	size_t n = end ? (size_t)(end - w) : strlen(w);

	while (n && (*w == ' ' || *w == '\t'))
		w++, n--;
	while (n && (w[n - 1] == ' ' || w[n - 1] == '\t'))
		n--;
	if (n == 0)
		return err_set(e, EX_USAGE, "empty %s in '%s'", what, list);
	if (n >= cap)
		return err_set(e, EX_USAGE, "unknown %s '%.*s'", what,
			       (int)(n > 40 ? 40 : n), w);
	memcpy(tok, w, n);
	tok[n] = '\0';
	*p = end ? end + 1 : NULL;
	return 0;
}
