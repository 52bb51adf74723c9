/* tpmbox: dispatch by basename(argv[0]) or argv[1] to an applet. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/optscan.h"
#include "job/tpm.h"

#include "applets.h"	/* generated: APPLET_EXTERNS, APPLET_TABLE */

#ifndef TPMBOX_VERSION
#define TPMBOX_VERSION "0.1"
#endif

APPLET_EXTERNS

static const struct applet *const applets[] = { APPLET_TABLE };
#define NAPPLETS (sizeof(applets) / sizeof(applets[0]))

/* The one block of mutable global options. */
static struct globals opts = { NULL, 120, 0, NULL, NULL, 0 };

static const struct applet *find_applet(const char *name)
{
	size_t i;

	for (i = 0; i < NAPPLETS; i++)
		if (strcmp(applets[i]->name, name) == 0)
			return applets[i];
	return NULL;
}

static void usage_main(FILE *f)
{
	fprintf(f, "usage: tpmbox [-T CONF] [--timeout S] APPLET [ARGS...]\n"
		"       tpmbox --list | --install [-s] [-f] DIR | --version\n"
		"A link named after an applet runs that applet.\n"
		"See 'tpmbox --list' and 'tpmbox APPLET --help'.\n");
}

/* Is PATH already this binary: the same file (a hard link), or a
 * symbolic link that resolves to it? */
static int is_self(const char *path, const struct stat *self)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == self->st_dev &&
	       st.st_ino == self->st_ino;
}

/* --install [-s] [-f] DIR: a link per applet, made under a temporary name
 * and renamed over the applet's name, so a name never goes missing.  A
 * name that is some other program (GNU info in /usr/bin, say) is left
 * alone unless -f.  Hard links cannot cross file systems: that is one
 * error with the hint, not one error per applet. */
static int install_links(int argc, char **argv)
{
	char self[PATH_MAX];
	const char *dir = NULL;
	int sym = 0, force = 0, i, fails = 0, kept = 0;
	struct stat self_st, st;
	ssize_t n;
	size_t k;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-s") == 0)
			sym = 1;
		else if (strcmp(argv[i], "-f") == 0)
			force = 1;
		else if (!dir && argv[i][0] != '-')
			dir = argv[i];
		else
			dir = NULL, i = argc;
	}
	if (!dir) {
		fprintf(stderr, "tpmbox: usage: tpmbox --install [-s] [-f] DIR\n");
		return EX_USAGE;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || (self[n] = '\0', stat(self, &self_st) != 0)) {
		fprintf(stderr, "tpmbox --install: cannot find my own path: "
			"%s\n", strerror(errno));
		return EX_IO;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tpmbox --install: %s: %s\n", dir,
			access(dir, F_OK) != 0 ? strerror(errno) :
			"not a directory");
		return EX_IO;
	}
	for (k = 0; k < NAPPLETS; k++) {
		char path[PATH_MAX], tmp[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", dir, applets[k]->name);
		snprintf(tmp, sizeof(tmp), "%s/.%s.tpmbox-install", dir,
			 applets[k]->name);
		if (!force && lstat(path, &st) == 0 && !is_self(path, &self_st)) {
			fprintf(stderr, "tpmbox --install: %s exists and is "
				"not tpmbox: left alone\n", path);
			kept++;
			continue;
		}
		unlink(tmp);
		if ((sym ? symlink(self, tmp) : link(self, tmp)) != 0) {
			if (errno == EXDEV) {
				fprintf(stderr, "tpmbox --install: cannot "
					"hard-link %s into %s: another file "
					"system\nhint: tpmbox --install -s %s "
					"makes symbolic links\n", self, dir,
					dir);
				return EX_IO;
			}
			fprintf(stderr, "tpmbox --install: %s: %s\n", path,
				strerror(errno));
			fails++;
			if (errno == EACCES || errno == EROFS ||
			    errno == EPERM || errno == ENOSPC)
				break;	/* the same for every name */
			continue;
		}
		if (rename(tmp, path) != 0) {
			fprintf(stderr, "tpmbox --install: %s: %s\n", path,
				strerror(errno));
			unlink(tmp);
			fails++;
		}
	}
	if (kept && !fails)
		fprintf(stderr, "hint: tpmbox --install -f %s replaces them\n",
			dir);
	return fails ? EX_IO : kept ? EX_FAIL : 0;
}

/* The common options, read wherever an option can be: before the applet
 * name and among the applet's options.  Before the applet name the main
 * actions (--list, --version, --install) are options too. */
enum { G_TIMEOUT = 256, G_TRACE, M_LIST, M_VERSION, M_INSTALL };

static const struct option common_lo[] = {
	{ "tcti", required_argument, NULL, 'T' },
	{ "timeout", required_argument, NULL, G_TIMEOUT },
	{ "trace", no_argument, NULL, G_TRACE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};
static const struct option main_lo[] = {
	{ "list", no_argument, NULL, M_LIST },
	{ "version", no_argument, NULL, M_VERSION },
	{ "install", no_argument, NULL, M_INSTALL },
	{ NULL, 0, NULL, 0 }
};
static const struct optset common = { "T:h", common_lo };

/* The SRK pin options of applets with APPLET_PIN (all three) or
 * APPLET_PIN_NAME (the first and last). */
enum { P_SRK_NAME = 300, P_ALLOW_UNSALTED, P_SRK_PUB };
static const struct option pin_lo[] = {
	{ "srk-name", required_argument, NULL, P_SRK_NAME },
	{ "allow-unsalted", no_argument, NULL, P_ALLOW_UNSALTED },
	{ "srk-pub", required_argument, NULL, P_SRK_PUB },
	{ NULL, 0, NULL, 0 }
};
static const struct option pin_name_lo[] = {
	{ "srk-name", required_argument, NULL, P_SRK_NAME },
	{ "allow-unsalted", no_argument, NULL, P_ALLOW_UNSALTED },
	{ NULL, 0, NULL, 0 }
};

static void set_pin(int id, const char *arg)
{
	switch (id) {
	case P_SRK_NAME:
		opts.srk_name = arg;
		break;
	case P_SRK_PUB:
		opts.srk_pub = arg;
		break;
	case P_ALLOW_UNSALTED:
		opts.allow_unsalted = 1;
		break;
	}
}

/* Apply -T, --timeout or --trace: 0, or EX_USAGE with e set. */
static int set_common(int id, const char *arg, struct tberr *e)
{
	uint64_t v;

	switch (id) {
	case 'T':
		opts.tcti = arg;
		break;
	case G_TIMEOUT:
		if (parse_u64(arg, &v) || v == 0 || v > 86400)
			return err_set(e, EX_USAGE, "bad --timeout '%s' "
				       "(1-86400 seconds)", arg);
		opts.timeout_s = (int)v;
		break;
	case G_TRACE:
		opts.trace = 1;
		break;
	}
	return 0;
}

/* The words before the applet name: common options and main actions.
 * -1 with *name the index of the applet name in argv, or the exit code of
 * a main action or of a usage error. */
static int main_words(int argc, char **argv, int *name)
{
	const struct optset sets[2] = { common, { "", main_lo } };
	struct optscan_item it;
	struct optscan s;
	struct tberr e;
	size_t j;
	int r;

	optscan_init(&s, argc, argv, sets, 2, 1);
	for (;;) {
		r = optscan_next(&s, &it, &e);
		if (r == OPTSCAN_OPERAND) {
			*name = it.first;
			return -1;
		}
		if (r == OPTSCAN_END) {
			usage_main(stderr);
			return EX_USAGE;
		}
		if (r < 0 || set_common(optscan_id(&it), it.arg, &e)) {
			fprintf(stderr, "tpmbox: %s\n"
				"  hint: see 'tpmbox --help'\n", e.msg);
			return EX_USAGE;
		}
		switch (optscan_id(&it)) {
		case 'h':
			usage_main(stdout);
			return EX_OK;
		case M_LIST:
			for (j = 0; j < NAPPLETS; j++)
				printf("%-12s %s\n", applets[j]->name,
				       applets[j]->summary);
			return EX_OK;
		case M_VERSION:
			printf("tpmbox %s\n", TPMBOX_VERSION);
			return EX_OK;
		case M_INSTALL:
			return install_links(argc - s.ind, argv + s.ind);
		}
	}
}

/* The applet's words (argv[0] is its name): take out the common options,
 * see -h/--help, and lay out what is left for the applet's getopt as its
 * options, "--", its operands.  0 with *help set or *avp the new vector
 * (free it and *bufp), or EX_USAGE / EX_FAIL with c->e set. */
static int applet_words(struct ctx *c, const struct applet *a, int argc,
			char **argv, int *help, char ***avp, char **bufp)
{
	const struct optset sets[3] = {
		common, { a->shortopts, a->longopts },
		{ "", a->pin & APPLET_PIN ? pin_lo : pin_name_lo }
	};
	int nsets = a->pin ? 3 : 2;
	struct optscan_item it;
	struct optscan s;
	struct tberr e;
	size_t cap = 4, room = 1;
	char **av, **ops, *buf, *p;
	int ac = 0, nops = 0, bad = 0, r, k;

	if (optset_check(&sets[1], &common, &c->e) ||
	    (a->pin && optset_check(&sets[1], &sets[2], &c->e))) {
		err_prefix(&c->e, "bad option table");
		return EX_FAIL;
	}
	for (k = 1; k < argc && argv[k]; k++) {
		cap += strlen(argv[k]) + 2;
		room += 4 * strlen(argv[k]) + 4;
	}
	av = calloc(cap, sizeof(*av));
	ops = calloc(cap, sizeof(*ops));
	buf = malloc(room);
	if (!av || !ops || !buf) {
		free(av);
		free(ops);
		free(buf);
		return err_set(&c->e, EX_FAIL, "out of memory");
	}
	*help = 0;
	*avp = av;
	*bufp = p = buf;
	av[ac++] = (char *)a->name;
	optscan_init(&s, argc, argv, sets, nsets, 0);
	while ((r = optscan_next(&s, &it, &e)) != OPTSCAN_END) {
		if (r < 0 || (it.set == 0 &&
			      set_common(optscan_id(&it), it.arg, &e))) {
			/* the first error is the one reported */
			if (!bad++)
				c->e = e;
		} else if (r == OPTSCAN_OPERAND) {
			ops[nops++] = argv[it.first];
		} else if (it.set == 0) {
			*help |= optscan_id(&it) == 'h';
		} else if (it.set == 2) {
			set_pin(optscan_id(&it), it.arg);
		} else if (it.lo) {
			for (k = 0; k < it.nwords; k++)
				av[ac++] = argv[it.first + k];
		} else {
			/* a letter out of a bundle: "-x" then its value, or
			 * "-xVALUE" when the value is optional */
			av[ac++] = p;
			*p++ = '-';
			*p++ = (char)it.letter;
			if (it.arg && it.has_arg == optional_argument)
				p = stpcpy(p, it.arg);
			*p++ = '\0';
			if (it.arg && it.has_arg == required_argument)
				av[ac++] = (char *)it.arg;
		}
	}
	av[ac++] = (char *)"--";
	for (k = 0; k < nops; k++)
		av[ac++] = ops[k];
	av[ac] = NULL;
	free(ops);
	return bad && !*help ? EX_USAGE : 0;
}

/* Applets that hold a secret in memory (an unsealed key, an auth value,
 * a session key, random bytes for a key). */
static int handles_secrets(const char *name)
{
	static const char *const names[] = {
		"seal", "unseal", "takeown", "clearall", "getrandom",
		"akcreate", "quote", "nvdefine", "nvread", "nvwrite",
		"nvextend", "nvincrement", "nvsetbits", "nvrelease",
		"recover", "reseal", "activatecredential", "makecredential",
		"policysign", "dalock", "persist", "evict", "pcrallocate",
	};
	size_t j;

	for (j = 0; j < sizeof(names) / sizeof(names[0]); j++)
		if (strcmp(name, names[j]) == 0)
			return 1;
	return 0;
}

/* Keep the secret's pages out of swap: every page the process has or
 * will touch is locked once it is faulted in (MCL_ONFAULT: nothing is
 * populated early).  Only where locking has no budget to run out of
 * (root, or an unlimited RLIMIT_MEMLOCK): with a limited one, MCL_FUTURE
 * would make a later allocation fail, and the job matters more.  Not
 * under a sanitizer, whose reserved shadow memory would count as locked.
 * Best effort: a failure is ignored. */
#if defined(__SANITIZE_ADDRESS__)
#define TB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TB_SANITIZED 1
#endif
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif
static void no_swap(void)
{
#ifndef TB_SANITIZED
	struct rlimit rl;

	if (geteuid() != 0 &&
	    (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur != RLIM_INFINITY))
		return;
	(void)mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
#endif
}

/* No core file and no ptrace by other processes of the same user: a
 * crash or a kill -ABRT must not write the secret to disk.  Best effort:
 * a failure here is not a reason to refuse the job. */
static void no_core(void)
{
	struct rlimit rl = { 0, 0 };

	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	(void)setrlimit(RLIMIT_CORE, &rl);
	no_swap();
}

int main(int argc, char **argv)
{
	const struct applet *a = NULL;
	const char *base, *trace;
	struct ctx c;
	char **av = NULL, *buf = NULL;
	int ac, i, k, rc, help = 0;

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
	i = 0;
	if (strcmp(base, "tpmbox") != 0 && (a = find_applet(base)) != NULL) {
		/* busybox-style link */
	} else {
		rc = main_words(argc, argv, &i);
		if (rc >= 0)
			return rc;
		a = find_applet(argv[i]);
		if (!a) {
			fprintf(stderr, "tpmbox: unknown applet '%s'\n"
				"  hint: 'tpmbox --list' lists the applets\n",
				argv[i]);
			return EX_NOAPPLET;
		}
	}
	memset(&c, 0, sizeof(c));
	c.name = a->name;
	c.g = &opts;
	c.pin = a->pin;
	rc = applet_words(&c, a, argc - i, argv + i, &help, &av, &buf);
	if (rc || help) {
		if (help)
			rc = ctx_help(&c, a);
		else if (rc == EX_USAGE)
			rc = ctx_usage(&c, "%s", c.e.msg);
		else
			rc = ctx_fail(&c);
		free(av);
		free(buf);
		return rc;
	}
	for (ac = 0; av[ac]; ac++)
		;
	file_set_timeout(opts.timeout_s);
	if (handles_secrets(a->name))
		no_core();
	optind = 1;
	rc = a->main(&c, ac, av);
	tpm_close(c.tpm);
	free(av);
	free(buf);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0) {
			fprintf(stderr, "tpmbox %s: writing to stdout: %s\n",
				a->name, strerror(errno));
			rc = EX_IO;
		}
	}
	return rc;
}
