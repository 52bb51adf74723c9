/* optscan reads a command line over two option tables exactly as glibc's
 * getopt_long reads it over one table holding both: checked against
 * getopt_long itself on every sequence of up to 3 words from a set of
 * tricky words, and on random longer ones. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/optscan.h"
#include "unit.h"

/* main.c's common options and an applet-like table with the hard cases:
 * an alias (same option under two names), an exact name that is a prefix
 * of another (--bet, --beta), an optional value, names sharing a prefix
 * with common ones (--type, --hex). */
static const struct option g_lo[] = {
	{ "tcti", required_argument, NULL, 'T' },
	{ "timeout", required_argument, NULL, 300 },
	{ "trace", no_argument, NULL, 301 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};
static const struct option a_lo[] = {
	{ "alpha", no_argument, NULL, 'a' },
	{ "alias", no_argument, NULL, 'a' },
	{ "beta", required_argument, NULL, 'b' },
	{ "bet", no_argument, NULL, 400 },
	{ "gamma", optional_argument, NULL, 'c' },
	{ "type", required_argument, NULL, 401 },
	{ "hex", no_argument, NULL, 402 },
	{ NULL, 0, NULL, 0 }
};
static const struct optset sets[2] = {
	{ "T:h", g_lo }, { "ab:c::", a_lo }
};
/* The same, as one table for getopt_long. */
static struct option all_lo[16];

static const char *const words[] = {
	"-a", "-b", "-bv", "-ab", "-abv", "-ba", "-c", "-cv", "-ac", "-z",
	"-T", "-Tv", "-aT", "-h", "-ah", "-:", "--alpha", "--al", "--a",
	"--beta", "--beta=v", "--bet", "--be", "--gamma", "--gamma=v", "--g",
	"--type=v", "--t", "--ty", "--tr", "--tcti=", "--timeout", "--help",
	"--help=v", "--h", "--he", "--zz=v", "--=v", "--", "-", "v", "",
};
#define NW (sizeof(words) / sizeof(words[0]))

#define APPEND(out, cap, ...) \
	snprintf((out) + strlen(out), (cap) - strlen(out), __VA_ARGS__)

static void oracle(int argc, char **argv, int require_order, char *out,
		   size_t cap)
{
	char *v[16];
	int o, i;

	memcpy(v, argv, sizeof(*v) * (size_t)argc);
	v[argc] = NULL;
	out[0] = '\0';
	optind = 0;	/* glibc: full reinitialisation */
	opterr = 0;
	while ((o = getopt_long(argc, v, require_order ? "+T:hab:c::" :
				"T:hab:c::", all_lo, NULL)) != -1) {
		if (o == '?')
			APPEND(out, cap, "E;");
		else
			APPEND(out, cap, "O%d=%s;", o, optarg ? optarg : "-");
	}
	for (i = optind; i < argc; i++)
		APPEND(out, cap, "P%s;", v[i]);
}

static void mine(int argc, char **argv, int require_order, char *out,
		 size_t cap)
{
	char ops[512] = "";
	struct optscan s;
	struct optscan_item it;
	struct tberr e;
	int r;

	out[0] = '\0';
	optscan_init(&s, argc, argv, sets, 2, require_order);
	while ((r = optscan_next(&s, &it, &e)) != OPTSCAN_END) {
		if (r < 0)
			APPEND(out, cap, "E;");
		else if (r == OPTSCAN_OPERAND)
			APPEND(ops, sizeof(ops), "P%s;", argv[it.first]);
		else
			APPEND(out, cap, "O%d=%s;", optscan_id(&it),
			       it.arg ? it.arg : "-");
	}
	APPEND(out, cap, "%s", ops);
}

/* Returns 1 when both readings agree (prints the first few that don't). */
static int same(int argc, char **argv, int require_order)
{
	static int shown;
	char a[1024], b[1024];
	int i;

	oracle(argc, argv, require_order, a, sizeof(a));
	mine(argc, argv, require_order, b, sizeof(b));
	if (strcmp(a, b) == 0)
		return 1;
	if (shown++ < 5) {
		fprintf(stderr, "differ (%s):",
			require_order ? "+" : "permute");
		for (i = 1; i < argc; i++)
			fprintf(stderr, " '%s'", argv[i]);
		fprintf(stderr, "\n  getopt_long: %s\n  optscan:     %s\n", a,
			b);
	}
	return 0;
}

static void test_against_getopt_long(void)
{
	char *argv[16];
	unsigned long n = 0, bad = 0, x = 12345;
	size_t i, j, k, m;
	int ro, len;

	m = 0;
	for (i = 0; g_lo[i].name; i++)
		all_lo[m++] = g_lo[i];
	for (i = 0; a_lo[i].name; i++)
		all_lo[m++] = a_lo[i];
	memset(&all_lo[m], 0, sizeof(all_lo[m]));
	unsetenv("POSIXLY_CORRECT");
	argv[0] = (char *)"t";
	for (ro = 0; ro < 2; ro++) {
		/* every sequence of 0 to 3 words */
		n++, bad += !same(1, argv, ro);
		for (i = 0; i < NW; i++) {
			argv[1] = (char *)words[i];
			n++, bad += !same(2, argv, ro);
			for (j = 0; j < NW; j++) {
				argv[2] = (char *)words[j];
				n++, bad += !same(3, argv, ro);
				for (k = 0; k < NW; k++) {
					argv[3] = (char *)words[k];
					n++, bad += !same(4, argv, ro);
				}
			}
		}
		/* and random ones of 4 to 8 words */
		for (i = 0; i < 20000; i++) {
			len = 4 + (int)(i % 5);
			for (j = 1; j <= (size_t)len; j++) {
				x = x * 6364136223846793005ul +
				    1442695040888963407ul;
				argv[j] = (char *)words[(x >> 33) % NW];
			}
			n++, bad += !same(len + 1, argv, ro);
		}
	}
	printf("optscan: %lu command lines, %lu read differently from "
	       "getopt_long\n", n, bad);
	CHECK(n > 100000);
	CHECK(bad == 0);
}

/* The cases the dispatcher exists for, spelled out. */
static void test_values_are_values(void)
{
	char *argv[] = { "extend", "16", "-s", "-h", "--trace", "-bsha1",
			 "-T", "--", "--", "-T", NULL };
	const struct optset ext[2] = { { "T:h", g_lo }, { "s:f:d:b:v", NULL } };
	struct optscan s;
	struct optscan_item it;
	struct tberr e;

	optscan_init(&s, 10, argv, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_OPERAND &&
	      it.first == 1);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_OPT && it.set == 1 &&
	      it.letter == 's' && strcmp(it.arg, "-h") == 0);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_OPT && it.set == 0 &&
	      it.lo && it.lo->val == 301 && !it.arg);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_OPT && it.set == 1 &&
	      it.letter == 'b' && strcmp(it.arg, "sha1") == 0);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_OPT && it.set == 0 &&
	      it.letter == 'T' && strcmp(it.arg, "--") == 0);
	/* the second "--" ends the options: "-T" is an operand */
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_OPERAND && it.first == 9);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_END);
}

static void test_errors(void)
{
	char *a1[] = { "x", "-s", NULL };
	char *a2[] = { "x", "--tim", NULL };
	char *a3[] = { "x", "--t=1", NULL };
	char *a4[] = { "x", "--trace=1", NULL };
	char *a5[] = { "x", "--auht=secret", NULL };
	char *a6[] = { "x", "-q\x01", NULL };
	const struct optset ext[2] = { { "T:h", g_lo }, { "s:", a_lo } };
	struct optscan s;
	struct optscan_item it;
	struct tberr e;

	optscan_init(&s, 2, a1, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == -1 && e.code == EX_USAGE);
	CHECK(strcmp(e.msg, "option -s needs a value") == 0);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_END);
	optscan_init(&s, 2, a2, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == -1);
	CHECK(strcmp(e.msg, "option --timeout needs a value") == 0);
	optscan_init(&s, 2, a3, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == -1);
	CHECK(strcmp(e.msg, "option '--t' is ambiguous (--tcti, --timeout, "
		     "--trace, --type)") == 0);
	optscan_init(&s, 2, a4, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == -1);
	CHECK(strcmp(e.msg, "option --trace takes no value") == 0);
	optscan_init(&s, 2, a5, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == -1);
	CHECK(strcmp(e.msg, "unknown option '--auht'") == 0);
	CHECK(!strstr(e.msg, "secret"));
	/* an unknown letter, then the scan goes on in the same word */
	optscan_init(&s, 2, a6, ext, 2, 0);
	CHECK(optscan_next(&s, &it, &e) == -1);
	CHECK(strcmp(e.msg, "unknown option '-q'") == 0);
	CHECK(optscan_next(&s, &it, &e) == -1);
	CHECK(strcmp(e.msg, "unknown option '-\\x01'") == 0);
	CHECK(optscan_next(&s, &it, &e) == OPTSCAN_END);
}

static void test_check(void)
{
	static const struct option ok[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "trace-file", required_argument, NULL, 1 },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const names[] = { "tcti", "timeout", "trace",
					     "help" };
	const struct optset reserved = { "T:h", g_lo };
	struct option bad[2];
	struct optset s;
	struct tberr e;
	char want[64];
	size_t i;

	s.shortopts = "o:fv::x";
	s.longopts = ok;
	CHECK(optset_check(&s, &reserved, &e) == 0);
	s.longopts = NULL;
	s.shortopts = NULL;
	CHECK(optset_check(&s, &reserved, &e) == 0);
	/* every common option, as a letter or a name */
	s.shortopts = "o:T";
	CHECK(optset_check(&s, &reserved, &e) == EX_FAIL);
	CHECK(strcmp(e.msg, "defines -T, a common option") == 0);
	s.shortopts = "ho:";
	CHECK(optset_check(&s, &reserved, &e) == EX_FAIL);
	CHECK(strcmp(e.msg, "defines -h, a common option") == 0);
	s.shortopts = "";
	memset(bad, 0, sizeof(bad));
	s.longopts = bad;
	for (i = 0; i < 4; i++) {
		bad[0].name = names[i];
		CHECK(optset_check(&s, &reserved, &e) == EX_FAIL);
		snprintf(want, sizeof(want), "defines --%s, a common option",
			 names[i]);
		CHECK(strcmp(e.msg, want) == 0);
	}
	/* tables getopt_long would read differently, or not at all */
	bad[0].name = "a=b";
	CHECK(optset_check(&s, NULL, &e) == EX_FAIL);
	bad[0].name = "";
	CHECK(optset_check(&s, NULL, &e) == EX_FAIL);
	bad[0].name = "ok";
	bad[0].has_arg = 3;
	CHECK(optset_check(&s, NULL, &e) == EX_FAIL);
	s.longopts = NULL;
	for (i = 0; i < 6; i++) {
		static const char *const strs[] = { "+a", ":a", "-a", "a:::",
						    "aba", "a;" };

		s.shortopts = strs[i];
		CHECK(optset_check(&s, NULL, &e) == EX_FAIL);
	}
}

int main(void)
{
	test_against_getopt_long();
	test_values_are_values();
	test_errors();
	test_check();
	return unit_done("optscan");
}
