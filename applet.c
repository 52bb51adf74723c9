/* The applet-support layer (include/applet.h): what every applet shares
 * between its options and its job: opening the TPM with the pin, the one
 * error line, refusing an output that exists, the help text, PCR values
 * printed one way. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <unistd.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/unpack.h"
#include "fmt/pcrfile.h"
#include "job/tpm.h"
#include "log/eventlog.h"
#include "tpm2/srk.h"

static void trace_hex(char dir, uint32_t cc, const uint8_t *p, size_t n)
{
	char line[2 * 32 + 1];
	size_t i;

	fprintf(stderr, "%c %s (%zu bytes)\n", dir, tpm_cc_name(cc), n);
	for (i = 0; i < n; i += 32) {
		hex_encode(p + i, n - i > 32 ? 32 : n - i, line);
		fprintf(stderr, "  %s\n", line);
	}
}

const char *ctx_srk_file(struct tpm *t)
{
	const char *f = getenv("TPMBOX_SRK_FILE");

	if (f && *f)
		return f;
	/* a device the kernel calls a TPM 1.2 (sysfs) has no such pin */
	return tpm_is_device(t) && tpm_family_known(t) != TPM_FAMILY_12 ?
	       SRK_REMEMBERED_PATH : NULL;
}

struct tpm *ctx_tpm(struct ctx *c)
{
	struct srk_pin pin;
	const char *env = getenv("TPMBOX_SRK");
	int rc = 0;

	if (c->tpm)
		return c->tpm;
	/* The pin first: a bad one fails before the TPM sees anything. */
	memset(&pin, 0, sizeof(pin));
	if (c->pin && c->g->srk_name && c->g->srk_pub)
		rc = err_set(&c->e, EX_USAGE, "give --srk-name or --srk-pub, "
			     "not both");
	else if (c->pin && c->g->srk_name)
		rc = srk_pin_name(&pin, c->g->srk_name, "--srk-name", &c->e);
	else if (c->pin && c->g->srk_pub)
		rc = srk_pin_pub(&pin, c->g->srk_pub, "--srk-pub", &c->e);
	else if (c->pin && env && *env && strcmp(env, "none"))
		rc = srk_pin_env(&pin, env, &c->e);
	if (rc)
		return NULL;
	if (tpm_open(&c->tpm, c->g->tcti, c->g->timeout_s, &c->e))
		return NULL;
	if (c->g->trace)
		c->tpm->trace = trace_hex;
	/* No pin given: the remembered one (takeown's file), read before
	 * anything is sent; TPMBOX_SRK=none runs unpinned on purpose. */
	if (c->pin && !pin.set && !c->no_remembered) {
		const char *path = ctx_srk_file(c->tpm);

		if (env && strcmp(env, "none") == 0) {
			if (c->g->trace)
				fprintf(stderr, "tpmbox %s: TPMBOX_SRK=none: "
					"the SRK is not pinned (trust on first "
					"use)\n", c->name);
		} else if (path && srk_pin_remembered(&pin, path, &c->e)) {
			tpm_close(c->tpm);
			c->tpm = NULL;
			return NULL;
		}
	}
	if (c->pin && tpm_trust_set(c->tpm, &pin, c->g->allow_unsalted)) {
		tpm_close(c->tpm);
		c->tpm = NULL;
		return NULL;
	}
	return c->tpm;
}

int ctx_fail(struct ctx *c)
{
	fprintf(stderr, "tpmbox %s: %s\n", c->name, c->e.msg);
	if (c->e.hint[0])
		fprintf(stderr, "  hint: %s\n", c->e.hint);
	else if (c->e.code == EX_USAGE)
		fprintf(stderr, "  hint: see 'tpmbox %s --help'\n", c->name);
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

#ifdef TPMBOX_PACKED_HELP
/* The small build keeps every applet's whole --help text packed
 * (tiny/packhelp.c, made from the default build's texts by make tiny):
 * unpack them all, print this applet's. */
extern const size_t help_plain_len, help_packed_len;
extern const unsigned char help_packed[];

int ctx_help(struct ctx *c, const struct applet *a)
{
	uint8_t *plain = malloc(help_plain_len + 1);
	const char *p, *end;
	long n;

	(void)c;
	if (!plain)
		return EX_FAIL;
	n = lz_unpack(help_packed, help_packed_len, plain, help_plain_len);
	if (n != (long)help_plain_len) {
		free(plain);
		return EX_FAIL;
	}
	plain[n] = 0;
	end = (const char *)plain + n;
	/* name NUL text NUL, for each applet */
	for (p = (const char *)plain; p < end; p += strlen(p) + 1) {
		int match = !strcmp(p, a->name);

		p += strlen(p) + 1;
		if (p < end && match) {
			fputs(p, stdout);
			break;
		}
	}
	free(plain);
	return 0;
}
#else
int ctx_help(struct ctx *c, const struct applet *a)
{
	(void)c;
	fputs(a->usage, stdout);
	if (a->pin)
		fprintf(stdout, "\nSRK pin (tpmbox(1), SECURITY; TPMBOX_SRK "
			"when no option is given):\n"
			"  --srk-name HEX    the SRK's name as takeown prints "
			"it; another key is refused\n%s"
			"  --allow-unsalted  let an owner or lockout value key "
			"a session salted to a\n"
			"                    NULL-hierarchy key when the "
			"pinned SRK cannot be had\n",
			a->pin & APPLET_PIN ?
			"  --srk-pub FILE    the SRK's public key (PEM, as "
			"takeown --srk-pub wrote it)\n" : "");
	fputs("\nCommon options (before or after the applet name):\n"
	      "  -T, --tcti CONF   TPM: device:PATH, swtpm:path=SOCKET, "
	      "swtpm:host=ADDR,port=N,\n"
	      "                    spi:/dev/spidevB.C, i2c:/dev/i2c-N\n"
	      "  --timeout S       give up on a TPM that does not answer "
	      "(default 120)\n"
	      "  --trace           show each command and response (secrets "
	      "masked)\n", stdout);
	return 0;
}
#endif

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

void ctx_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
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

int ctx_no_operands(struct ctx *c, int argc, char **argv)
{
	if (optind < argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int ctx_json_only(struct ctx *c, int argc, char **argv,
		  const struct option *longopts, int *json)
{
	struct ctx_opt opts[2];

	*json = 0;
	memset(opts, 0, sizeof(opts));
	opts[0].id = 'j';
	opts[0].flags = json;
	opts[0].bits = 1;
	return ctx_getopt(c, argc, argv, "", longopts, opts);
}

int ctx_outs_new(struct ctx *c, int flags, const char *const *outs, int n)
{
	int i;

	for (i = 0; i < n && !(flags & OUT_FORCE); i++)
		if (outs[i] && strcmp(outs[i], "-") &&
		    !file_out_in_place(outs[i]) &&
		    access(outs[i], F_OK) == 0)
			return ctx_usage(c, "%s exists (use -f to replace it)",
					 outs[i]);
	return 0;
}

int ctx_out_new(struct ctx *c, int flags, const char *out)
{
	return ctx_outs_new(c, flags, &out, 1);
}

int ctx_getopt(struct ctx *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const struct ctx_opt *opts)
{
	const struct ctx_opt *x;
	int o;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		for (x = opts; x->id && x->id != o; x++)
			;
		if (!x->id)
			return ctx_usage(c, "unknown option");
		if (x->str)
			*x->str = optarg;
		else
			*x->flags |= x->bits;
	}
	return ctx_no_operands(c, argc, argv);
}
