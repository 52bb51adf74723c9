/* ppi: the firmware's physical presence interface (Linux sysfs
 * /sys/class/tpm/tpmN/ppi): show it, or queue a request (clear, PCR
 * banks, cancel) that the firmware runs at the next boot. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "tpm/ppi.h"

static const char usage[] =
	"usage: ppi [--json]\n"
	"       ppi clear [--yes] | ppi banks LIST | ppi cancel\n"
	"Show the firmware's physical presence interface (PPI) as the kernel\n"
	"gives it under /sys/class/tpm/tpmN/ppi: its version, the request\n"
	"waiting for the next boot, the last request's result, what the\n"
	"firmware needs to run a request, and each TCG operation the\n"
	"firmware offers and whether a person must confirm it at boot.\n"
	"  clear       queue operation 5 (clear the TPM at the next boot);\n"
	"              asks first, as clearall does\n"
	"  banks LIST  queue operation 23 (PPI 1.3): make LIST (sha1, sha256,\n"
	"              sha384, sha512, sm3_256, comma-separated) the active\n"
	"              PCR banks\n"
	"  cancel      queue operation 0 (cancel the pending request)\n"
	"  --json      the state as JSON\n"
	"  --yes       do not ask (required for clear when stdin is not a\n"
	"              terminal)\n"
	"The TPM is the one of -T device:/dev/tpmN (or tpmrmN), else the first\n"
	"in /sys/class/tpm (TPMBOX_SYSFS=DIR reads DIR/class/tpm instead).\n"
	"Writing a request needs root.\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "yes", no_argument, NULL, 'y' },
	{ NULL, 0, NULL, 0 }
};

struct state {
	char version[8];
	struct ppi_request req;
	struct ppi_response rsp;
	uint32_t action;
	uint8_t st[PPI_OPS];
};

static int load(const char *dir, struct state *s, struct tberr *e)
{
	static char buf[PPI_FILE_MAX];
	size_t n;

	memset(s, 0, sizeof(*s));
	if (ppi_read(dir, "version", buf, &n, e) ||
	    ppi_parse_version(buf, n, s->version, e) ||
	    ppi_read(dir, "request", buf, &n, e) ||
	    ppi_parse_request(buf, n, &s->req, e) ||
	    ppi_read(dir, "response", buf, &n, e) ||
	    ppi_parse_response(buf, n, &s->rsp, e) ||
	    ppi_read(dir, "transition_action", buf, &n, e) ||
	    ppi_parse_action(buf, n, &s->action, e) ||
	    ppi_read(dir, "tcg_operations", buf, &n, e) ||
	    ppi_parse_ops(buf, n, s->st, e))
		return e->code;
	/* vs_operations is optional (PPI 1.2 and later). */
	if (ppi_read(dir, "vs_operations", buf, &n, e) == 0 &&
	    ppi_parse_ops(buf, n, s->st, e))
		return e->code;
	err_clear(e);
	return 0;
}

/* "clear" or "set the PCR banks to sha256". */
static void req_words(const struct ppi_request *r, char *out, size_t n)
{
	char b[96];

	if (r->has_arg) {
		ppi_banks_format(r->arg, b, sizeof(b));
		snprintf(out, n, "%s to %s", ppi_op_name(r->op), b);
	} else {
		snprintf(out, n, "%s", ppi_op_name(r->op));
	}
}

static void print_text(const struct state *s)
{
	char w[160];
	uint32_t op;

	printf("version: %s\n", s->version);
	req_words(&s->req, w, sizeof(w));
	if (s->req.op == 0)
		printf("pending request: none\n");
	else
		printf("pending request: %s (operation %u)\n", w, s->req.op);
	if (s->rsp.op == 0)
		printf("last response: no recent request\n");
	else
		printf("last response: %s (operation %u) %s (0x%x)\n",
		       ppi_op_name(s->rsp.op), s->rsp.op,
		       ppi_code_name(s->rsp.code), s->rsp.code);
	printf("to run a request: %s\n", ppi_action_name(s->action));
	printf("operations:\n");
	for (op = 0; op < PPI_OPS; op++)
		if (s->st[op])
			printf("  %3u %s: %s\n", op, ppi_op_name(op),
			       ppi_status_name(s->st[op]));
}

static void print_json(const struct state *s)
{
	char w[160];
	uint32_t op;
	int k = 0;

	req_words(&s->req, w, sizeof(w));
	printf("{\"version\":\"%s\",\"request\":{\"operation\":%u,"
	       "\"name\":\"%s\"", s->version, s->req.op,
	       s->req.op ? w : "none");
	if (s->req.has_arg)
		printf(",\"argument\":%u", s->req.arg);
	printf("},\"response\":{\"operation\":%u,\"name\":\"%s\","
	       "\"code\":%u,\"result\":\"%s\"},"
	       "\"transition_action\":{\"code\":%u,\"name\":\"%s\"},"
	       "\"operations\":[", s->rsp.op,
	       s->rsp.op ? ppi_op_name(s->rsp.op) : "no recent request",
	       s->rsp.code, s->rsp.op ? ppi_code_name(s->rsp.code) : "none",
	       s->action, ppi_action_name(s->action));
	for (op = 0; op < PPI_OPS; op++)
		if (s->st[op])
			printf("%s{\"operation\":%u,\"name\":\"%s\","
			       "\"status\":%u,\"supported\":%s,"
			       "\"confirm\":%s,\"status_name\":\"%s\"}",
			       k++ ? "," : "", op, ppi_op_name(op), s->st[op],
			       s->st[op] >= PPI_ST_USER ? "true" : "false",
			       s->st[op] == PPI_ST_USER ? "true" : "false",
			       ppi_status_name(s->st[op]));
	printf("]}\n");
}

static int confirm(void)
{
	char line[32];

	fputs("Ask the firmware to clear the TPM at the next boot? This "
	      "cannot be undone. Type 'yes': ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return strcmp(line, "yes\n") == 0 || strcmp(line, "yes") == 0;
}

/* The device path from -T device:PATH (or TPMBOX_TCTI); NULL: the first
 * TPM.  A TPM that is not a kernel device has no sysfs folder. */
static int device(struct ctx *c, const char **dev)
{
	const char *t = c->g->tcti;

	*dev = NULL;
	if (!t) {
		t = getenv("TPMBOX_TCTI");
		if (!t || strncmp(t, "device:", 7))
			return 0;
	}
	if (strncmp(t, "device:", 7))
		return err_set(&c->e, EX_IO, "'%s' is not a kernel TPM: the "
			       "physical presence interface is the firmware's, "
			       "under /sys/class/tpm", t);
	if (t[7])
		*dev = t + 7;
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *dev, *cmd = NULL;
	char dir[4200], w[160];
	struct ppi_request want;
	struct state s;
	int json = 0, yes = 0, o;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		case 'y': yes = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}

	/* Step 1: what to do. */
	memset(&want, 0, sizeof(want));
	if (optind < argc)
		cmd = argv[optind++];
	if (!cmd) {
		/* show */
	} else if (!strcmp(cmd, "clear")) {
		want.op = 5;
	} else if (!strcmp(cmd, "cancel")) {
		want.op = 0;
	} else if (!strcmp(cmd, "banks")) {
		if (optind >= argc)
			return ctx_usage(c, "banks needs a LIST (e.g. sha256)");
		want.op = PPI_OP_SET_BANKS;
		want.has_arg = 1;
		if (ppi_banks_parse(argv[optind++], &want.arg, &c->e))
			return ctx_fail(c);
	} else {
		return ctx_usage(c, "unknown subcommand '%s' (clear, banks, "
				 "cancel)", cmd);
	}
	if (optind != argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	if (cmd && json)
		return ctx_usage(c, "--json only shows the state");

	/* Step 2: the folder and what the firmware offers. */
	if (device(c, &dev))
		return ctx_fail(c);
	if (ppi_find(dev, dir, sizeof(dir), &c->e)) {
		err_hint(&c->e, "the firmware has no physical presence "
			 "interface (ACPI), or the kernel lacks tpm_ppi");
		return ctx_fail(c);
	}
	if (load(dir, &s, &c->e))
		return ctx_fail(c);
	if (!cmd) {
		if (json)
			print_json(&s);
		else
			print_text(&s);
		return 0;
	}
	if (want.op == PPI_OP_SET_BANKS && strcmp(s.version, "1.3") < 0) {
		err_set(&c->e, EX_FAIL, "PPI %s has no operation 23 (PCR "
			"banks need PPI 1.3)", s.version);
		return ctx_fail(c);
	}
	if (want.op && s.st[want.op] < PPI_ST_USER) {
		err_set(&c->e, EX_FAIL, "the firmware does not let the OS ask "
			"for operation %u (%s): %s", want.op,
			ppi_op_name(want.op), ppi_status_name(s.st[want.op]));
		err_hint(&c->e, "use the firmware's setup menu");
		return ctx_fail(c);
	}

	/* Step 3: consent for the destructive request, as clearall. */
	if (want.op == 5 && !yes) {
		if (!isatty(0))
			return ctx_usage(c, "refusing to queue a TPM clear "
					 "without --yes: standard input is "
					 "not a terminal");
		if (!confirm()) {
			err_set(&c->e, EX_FAIL, "not queued: not confirmed");
			return ctx_fail(c);
		}
	}

	/* Step 4: write the request and read it back. */
	if (ppi_write_request(dir, &want, &c->e) || load(dir, &s, &c->e))
		return ctx_fail(c);
	if (s.req.op != want.op || s.req.has_arg != want.has_arg ||
	    s.req.arg != want.arg) {
		err_set(&c->e, EX_FAIL, "the request reads back as %u, not %u",
			s.req.op, want.op);
		return ctx_fail(c);
	}

	/* Step 5: what happens at the next boot. */
	if (want.op == 0) {
		printf("pending request: none (cancelled)\n");
		return 0;
	}
	req_words(&s.req, w, sizeof(w));
	printf("pending request: %s (operation %u)\n", w, s.req.op);
	printf("at the next boot: the firmware will %s%s; to get there: %s\n",
	       w, s.st[want.op] == PPI_ST_USER ?
	       " after a person at the console confirms it (a key press)" :
	       " without asking anyone", ppi_action_name(s.action));
	return 0;
}

const struct applet applet_ppi = {
	"ppi", "the firmware's physical presence interface: show, clear, "
	"banks, cancel", usage, run, shortopts, longopts, 0
};
