/* eventlog: print, replay and check a TCG PC Client boot event log. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "fmt/pcrfile.h"
#include "log/eventlog.h"

static const char usage[] =
	"usage: eventlog [--json] [--pcrs] [--check] [FILE]\n"
	"Parse a TCG PC Client boot event log (crypto-agile or SHA-1 legacy)"
	"\nand print its events: number, PCR, type, digests, data summary.\n"
	"FILE defaults to " EVL_DEFAULT_PATH ".\n"
	"  --json     events (or with --pcrs, the values) as JSON\n"
	"  --pcrs     print the PCR values the log replays to, in pcrread's\n"
	"             format (banks in the log's order, PCRs ascending)\n"
	"  --check    compare the replayed values with the TPM's; name the\n"
	"             PCRs that differ and exit 1 if any\n";

static void json_event(const struct evl_event *ev, int first)
{
	char sum[160], hex[2 * TPM2_MAX_DIGEST + 1];
	const char *name = evl_type_name(ev->type);
	uint32_t i;
	int j;

	evl_summary(ev, sum, sizeof(sum));
	printf("%s\n    {\"num\": %u, \"offset\": %zu, \"pcr\": %u, "
	       "\"type\": ", first ? "" : ",", ev->num, ev->offset, ev->pcr);
	if (name)
		printf("\"%s\"", name);
	else
		printf("\"0x%08x\"", ev->type);
	printf(", \"type_value\": %u, \"digests\": {", ev->type);
	for (j = 0; j < ev->ndig; j++) {
		hex_encode(ev->dig[j].d, ev->dig[j].len, hex);
		if (strcmp(alg_name(ev->dig[j].alg), "unknown"))
			printf("%s\"%s\": \"%s\"", j ? ", " : "",
			       alg_name(ev->dig[j].alg), hex);
		else
			printf("%s\"0x%04x\": \"%s\"", j ? ", " : "",
			       ev->dig[j].alg, hex);
	}
	/* evl_summary never emits '"' or '\\' inside its text. */
	printf("}, \"size\": %u, \"summary\": \"", ev->dlen);
	for (i = 0; sum[i]; i++)
		putchar(sum[i] == '"' ? '\'' : sum[i]);
	printf("\", \"data\": \"");
	for (i = 0; i < ev->dlen; i++)
		printf("%02x", ev->data[i]);
	printf("\"}");
}

static void text_event(const struct evl_event *ev)
{
	char sum[160], hex[2 * TPM2_MAX_DIGEST + 1];
	const char *name = evl_type_name(ev->type);
	int j;

	evl_summary(ev, sum, sizeof(sum));
	printf("event %u: PCR %u ", ev->num, ev->pcr);
	if (name)
		printf("%s", name);
	else
		printf("0x%08x", ev->type);
	printf(" size %u: %s\n", ev->dlen, sum);
	for (j = 0; j < ev->ndig; j++) {
		hex_encode(ev->dig[j].d, ev->dig[j].len, hex);
		if (strcmp(alg_name(ev->dig[j].alg), "unknown"))
			printf("  %s %s\n", alg_name(ev->dig[j].alg), hex);
		else
			printf("  0x%04x %s\n", ev->dig[j].alg, hex);
	}
}

static const char shortopts[] = "";
static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{"pcrs", no_argument, NULL, 'p'},
	{"check", no_argument, NULL, 'c'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *path = EVL_DEFAULT_PATH;
	int json = 0, pcrs = 0, chk = 0, o, rc = 0;
	struct pcr_vals *v = NULL;
	struct evl log;
	uint8_t *buf;
	uint32_t i;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'j': json = 1; break;
		case 'p': pcrs = 1; break;
		case 'c': chk = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (argc - optind > 1)
		return ctx_usage(c, "expected at most one FILE");
	if (optind < argc)
		path = argv[optind];
	if (evl_read_file(path, &buf, &log, &c->e))
		return ctx_fail(c);
	if (pcrs || chk) {
		if (!(v = malloc(sizeof(*v)))) {
			rc = ctx_usage(c, "out of memory");
			goto out;
		}
		if (evl_replay(&log, v, &c->e)) {
			err_prefix(&c->e, "%s", path);
			rc = ctx_fail(c);
			goto out;
		}
	}
	if (pcrs) {
		if ((rc = ctx_print_pcrs(c, v, json)))
			goto out;
	} else if (!chk && json) {
		printf("{\n  \"format\": \"%s\",\n  \"events\": [",
		       log.agile ? "crypto-agile" : "sha1");
		for (i = 0; i < log.n; i++)
			json_event(&log.ev[i], i == 0);
		printf("\n  ]\n}\n");
	} else if (!chk) {
		for (i = 0; i < log.n; i++)
			text_event(&log.ev[i]);
	}
	if (chk)
		rc = ctx_check_pcrs(c, v);
out:
	free(v);
	evl_free(&log);
	free(buf);
	return rc;
}

const struct applet applet_eventlog = {
	"eventlog", "parse, replay and check a TCG boot event log",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
