/* Read a command line the way GNU getopt_long reads it, against more than
 * one option table at once (main.c's common options and the applet's own),
 * so that main.c knows which words are option values before any applet
 * runs.  The result is what getopt_long would make of one table holding
 * every option of every set: a short option with ':' takes the rest of its
 * word or the next word, whatever it looks like; a long option with
 * required_argument takes "=VALUE" or the next word, optional_argument only
 * "=VALUE"; unambiguous prefixes of long names are accepted (an exact name
 * wins over prefixes); "--" ends the options; operands may come before
 * options (permutation) unless require_order is set. */
#ifndef TPMBOX_BASE_OPTSCAN_H
#define TPMBOX_BASE_OPTSCAN_H

#include <getopt.h>

#include "base/err.h"

/* One option table, in getopt_long's own terms. */
struct optset {
	const char *shortopts;		/* getopt's string, NULL: none */
	const struct option *longopts;	/* ends with a NULL name; NULL: none */
};

struct optscan {
	int argc;
	char *const *argv;
	const struct optset *sets;
	int nsets;
	int require_order;	/* the first operand ends the options */
	int ind;		/* next word of argv */
	const char *bundle;	/* rest of a word of short options */
	int ended;		/* after "--" (or, require_order, an operand) */
};

enum { OPTSCAN_END = 0, OPTSCAN_OPT = 1, OPTSCAN_OPERAND = 2 };

struct optscan_item {
	int set;			/* its table: an index in sets */
	int letter;			/* the short option; 0 for a long one */
	const struct option *lo;	/* the long option, or NULL */
	int has_arg;			/* no_argument, required_... */
	const char *arg;		/* the option's value, NULL: none */
	int first, nwords;		/* argv words of a long option (its name
					 * and maybe its value) or an operand */
};

/* Start a scan of argv[1..argc) (argv[0] is the program's name). */
void optscan_init(struct optscan *s, int argc, char *const *argv,
		  const struct optset *sets, int nsets, int require_order);
/* The next option or operand: OPTSCAN_OPT or OPTSCAN_OPERAND with *it
 * filled, OPTSCAN_END, or -1 with e set (EX_USAGE: unknown or ambiguous
 * option, missing value, value given to an option that takes none).  After
 * -1 the scan can go on with the next option, as getopt_long's does. */
int optscan_next(struct optscan *s, struct optscan_item *it,
		 struct tberr *e);
/* The option id getopt_long would return for *it: its letter or the long
 * option's val. */
int optscan_id(const struct optscan_item *it);
/* Check that a table is one this scanner and getopt_long read alike (short
 * letters alphanumeric with at most "::", no leading '+', '-' or ':', no
 * name twice, no '=' in a long name) and that it defines none of the
 * options of reserved (NULL: none).  0, or EX_FAIL with e naming the
 * option. */
int optset_check(const struct optset *s, const struct optset *reserved,
		 struct tberr *e);

/* The next word of an option's '|'-separated list (nvdefine's attribute
 * and permission words): the word at *p, blanks around it trimmed, into
 * tok[0..cap); *p moves past its '|', NULL after the last word.  0, or
 * exit 2 "empty WHAT in 'LIST'" / "unknown WHAT '...'" (too long). */
int optword_next(const char **p, const char *list, const char *what,
		 char *tok, size_t cap, struct tberr *e);

#endif
