/* tpmbox: dispatch by basename(argv[0]) or argv[1] to an applet. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "eventlog.h"
#include "hex.h"
#include "pcrfile.h"
#include "tpm2/cmd.h"

#include "applets.h"	/* generated: APPLET_EXTERNS, APPLET_TABLE */

#ifndef TPMBOX_VERSION
#define TPMBOX_VERSION "0.1"
#endif

APPLET_EXTERNS

static const struct applet *const applets[] = { APPLET_TABLE };
#define NAPPLETS (sizeof(applets) / sizeof(applets[0]))

/* The one block of mutable global options. */
static struct globals opts = { NULL, 120, 0 };

static const struct applet *find_applet(const char *name)
{
	size_t i;

	for (i = 0; i < NAPPLETS; i++)
		if (strcmp(applets[i]->name, name) == 0)
			return applets[i];
	return NULL;
}

static void trace_hex(char dir, uint32_t cc, const uint8_t *p, size_t n)
{
	char line[2 * 32 + 1];
	size_t i;

	fprintf(stderr, "%c %s (%zu bytes)\n", dir, tpm2_cc_name(cc), n);
	for (i = 0; i < n; i += 32) {
		hex_encode(p + i, n - i > 32 ? 32 : n - i, line);
		fprintf(stderr, "  %s\n", line);
	}
}

struct tpm *ctx_tpm(struct ctx *c)
{
	if (c->tpm)
		return c->tpm;
	if (tpm_open(&c->tpm, opts.tcti, opts.timeout_s, &c->e))
		return NULL;
	if (opts.trace)
		c->tpm->trace = trace_hex;
	return c->tpm;
}

int ctx_fail(struct ctx *c)
{
	fprintf(stderr, "tpmbox %s: %s\n", c->name, c->e.msg);
	if (c->e.hint[0])
		fprintf(stderr, "  hint: %s\n", c->e.hint);
	return c->e.code ? c->e.code : EX_FAIL;
}

int ctx_usage(struct ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tpmbox %s: %s\n", c->name, msg);
	fprintf(stderr, "  hint: see 'tpmbox %s --help'\n", c->name);
	return EX_USAGE;
}

int ctx_help(struct ctx *c, const struct applet *a)
{
	(void)c;
	fputs(a->usage, stdout);
	fputs("\nCommon options (before or after the applet name):\n"
	      "  -T, --tcti CONF   TPM: device:PATH, swtpm:path=SOCKET, "
	      "swtpm:host=ADDR,port=N\n"
	      "  --timeout S       give up on a TPM that does not answer "
	      "(default 120)\n"
	      "  --trace           show each command and response (secrets "
	      "masked)\n", stdout);
	return 0;
}

int ctx_check_pcrs(struct ctx *c, const struct pcr_vals *want)
{
	struct tpm *t;
	char *report;
	int rc;

	if (!(t = ctx_tpm(c)))
		return ctx_fail(c);
	rc = evl_check(t, want, &report, &c->e);
	if (report)
		fputs(report, stdout);
	free(report);
	return rc ? ctx_fail(c) : 0;
}

int ctx_print_pcrs(struct ctx *c, const struct pcr_vals *v, int json)
{
	char *text = json ? pcr_format_json(v) : pcr_format_text(v);

	if (!text)
		return ctx_usage(c, "out of memory");
	fputs(text, stdout);
	free(text);
	return 0;
}

int wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}

static void usage_main(FILE *f)
{
	fprintf(f, "usage: tpmbox [-T CONF] [--timeout S] APPLET [ARGS...]\n"
		"       tpmbox --list | --install [-s] DIR | --version\n"
		"A link named after an applet runs that applet.\n"
		"See 'tpmbox --list' and 'tpmbox APPLET --help'.\n");
}

static int set_timeout(const char *s)
{
	uint64_t v;

	if (parse_u64(s, &v) || v == 0 || v > 86400) {
		fprintf(stderr, "tpmbox: bad --timeout '%s' (1-86400 "
			"seconds)\n", s);
		return -1;
	}
	opts.timeout_s = (int)v;
	return 0;
}

/* If argv[i] is a global option, consume it (and its value); returns the
 * number of words used, 0 if not global, -1 on error. */
static int global_opt(int argc, char **argv, int i)
{
	const char *a = argv[i];

	if (strcmp(a, "-T") == 0 || strcmp(a, "--tcti") == 0) {
		if (i + 1 >= argc) {
			fprintf(stderr, "tpmbox: %s needs a value\n", a);
			return -1;
		}
		opts.tcti = argv[i + 1];
		return 2;
	}
	if (strncmp(a, "--tcti=", 7) == 0) {
		opts.tcti = a + 7;
		return 1;
	}
	if (strncmp(a, "-T", 2) == 0 && a[2]) {
		opts.tcti = a + 2;
		return 1;
	}
	if (strcmp(a, "--timeout") == 0) {
		if (i + 1 >= argc) {
			fprintf(stderr, "tpmbox: --timeout needs a value\n");
			return -1;
		}
		return set_timeout(argv[i + 1]) ? -1 : 2;
	}
	if (strncmp(a, "--timeout=", 10) == 0)
		return set_timeout(a + 10) ? -1 : 1;
	if (strcmp(a, "--trace") == 0) {
		opts.trace = 1;
		return 1;
	}
	return 0;
}

static int install_links(int argc, char **argv)
{
	char self[PATH_MAX];
	const char *dir = NULL;
	int sym = 0, i, fails = 0;
	ssize_t n;
	size_t k;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-s") == 0)
			sym = 1;
		else if (!dir)
			dir = argv[i];
		else
			dir = NULL, i = argc;
	}
	if (!dir) {
		fprintf(stderr, "tpmbox: usage: tpmbox --install [-s] DIR\n");
		return EX_USAGE;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		fprintf(stderr, "tpmbox --install: cannot find my own path: "
			"%s\n", strerror(errno));
		return EX_IO;
	}
	self[n] = '\0';
	for (k = 0; k < NAPPLETS; k++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, applets[k]->name);
		unlink(path);
		if ((sym ? symlink(self, path) : link(self, path)) != 0) {
			fprintf(stderr, "tpmbox --install: %s: %s\n", path,
				strerror(errno));
			fails++;
		}
	}
	return fails ? EX_IO : 0;
}

int main(int argc, char **argv)
{
	const struct applet *a = NULL;
	const char *base, *trace;
	struct ctx c;
	char **av;
	int ac = 0, i, k, rc, dashdash = 0;

	signal(SIGPIPE, SIG_IGN);
	/* A closed stdin/stdout/stderr would be reused by the TPM's file
	 * descriptor, and output would go to the TPM.  Hold them with
	 * /dev/null opened read-only, so writes fail (and are reported). */
	for (k = 0; k < 3; k++)
		if (fcntl(k, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY) != k)
			return EX_IO;
	trace = getenv("TPMBOX_TRACE");
	if (trace && strcmp(trace, "1") == 0)
		opts.trace = 1;
	/* execve() may pass argc 0 (argv[0] NULL): run as "tpmbox". */
	base = argc > 0 && argv[0] ? argv[0] : "tpmbox";
	if (strrchr(base, '/'))
		base = strrchr(base, '/') + 1;
	i = 1;
	if (strcmp(base, "tpmbox") != 0 && (a = find_applet(base)) != NULL) {
		/* busybox-style link */
	} else {
		for (; i < argc; i += k) {
			k = global_opt(argc, argv, i);
			if (k < 0)
				return EX_USAGE;
			if (k == 0)
				break;
		}
		if (i >= argc) {
			usage_main(stderr);
			return EX_USAGE;
		}
		if (strcmp(argv[i], "--list") == 0) {
			size_t j;

			for (j = 0; j < NAPPLETS; j++)
				printf("%-12s %s\n", applets[j]->name,
				       applets[j]->summary);
			return 0;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("tpmbox %s\n", TPMBOX_VERSION);
			return 0;
		}
		if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			usage_main(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--install") == 0)
			return install_links(argc - i - 1, argv + i + 1);
		a = find_applet(argv[i]);
		if (!a) {
			fprintf(stderr, "tpmbox: unknown applet '%s'\n"
				"  hint: 'tpmbox --list' lists the applets\n",
				argv[i]);
			return EX_NOAPPLET;
		}
		i++;
	}
	/* Rebuild argv for the applet without the global options. */
	av = calloc((size_t)argc + 1, sizeof(*av));
	if (!av)
		return EX_FAIL;
	av[ac++] = (char *)a->name;
	for (; i < argc; i++) {
		if (!dashdash && strcmp(argv[i], "--") == 0)
			dashdash = 1;
		if (!dashdash) {
			k = global_opt(argc, argv, i);
			if (k < 0) {
				free(av);
				return EX_USAGE;
			}
			if (k > 0) {
				i += k - 1;
				continue;
			}
		}
		av[ac++] = argv[i];
	}
	memset(&c, 0, sizeof(c));
	c.name = a->name;
	c.g = &opts;
	if (wants_help(ac, av)) {
		rc = ctx_help(&c, a);
		free(av);
		return rc;
	}
	optind = 1;
	rc = a->main(&c, ac, av);
	tpm_close(c.tpm);
	free(av);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0) {
			fprintf(stderr, "tpmbox %s: writing to stdout: %s\n",
				a->name, strerror(errno));
			rc = EX_IO;
		}
	}
	return rc;
}
