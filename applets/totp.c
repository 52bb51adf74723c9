/* totp: a one-time-password secret sealed to the boot state, so that a
 * person can tell an untampered boot by the code their phone also shows
 * (issue 29; job/totp.h). */
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/otp.h"
#include "fmt/qr.h"
#include "job/tpm.h"
#include "tpm2/nv.h"
#include "job/totp.h"

static const char usage[] =
	"usage: totp enroll [-p SELECTION[=VALUES]]... (-o BLOB [-f] | --nv INDEX)\n"
	"         [--issuer NAME] [--label NAME] [--digits 6|8]\n"
	"         [--period SECONDS] [--qr utf8|ansi|ascii|none]\n"
	"         [--uri-out FILE] [--owner-auth AUTH]\n"
	"         [--hotp [--counter INDEX]]\n"
	"       totp show [--time UNIX] [--watch] (BLOB | --nv INDEX)\n"
	"       totp status [--json] (BLOB | --nv INDEX)\n"
	"A one-time-password secret that only this TPM, in the boot state it\n"
	"was sealed to, can use: the machine shows a code, and a phone\n"
	"enrolled with the same secret shows the same one.\n"
	"enroll: a new 20-byte secret (the TPM's random XOR the host's),\n"
	"  sealed to the PCRs; it prints the otpauth:// URI and its QR code\n"
	"  once (they carry the secret: on a terminal, not into a file).\n"
	"  TPM 2.0: an HMAC key (HMAC-SHA1) under the SRK behind PolicyPCR;\n"
	"  the TPM computes every code and the secret never leaves it again.\n"
	"  TPM 1.2: sealed with TPM_Sealx; show computes the code on the\n"
	"  host.\n"
	"  -p SELECTION[=VALUES]  the PCRs, as seal takes them (several -p:\n"
	"             any of these states, PolicyOR on a 2.0); default\n"
	"             " TOTP_PCRS_20 " (1.2: " TOTP_PCRS_12 ")\n"
	"  -o BLOB    the blob (PEM, mode 0600, atomic); -f replaces one\n"
	"             (and the --uri-out FILE)\n"
	"  --issuer NAME  the URI's issuer (default tpmbox; no ':')\n"
	"  --label NAME   the account name (default this host's name)\n"
	"  --digits 6|8   code length (default 6)\n"
	"  --period SECONDS  time step (default 30, at most 86400)\n"
	"  --qr MODE  utf8 (half blocks, default), ansi (colours, for a\n"
	"             terminal without those glyphs), ascii (## and spaces,\n"
	"             for a serial console) or none\n"
	"  --nv INDEX  keep the blob in this new NV index (TPM 2.0; anyone\n"
	"             reads it, the owner writes it) instead of a file\n"
	"  --uri-out FILE  also write the URI to FILE (0600, atomic)\n"
	"  --owner-auth AUTH  to create the SRK (when none is persisted)\n"
	"             and the HOTP counter\n"
	"  --hotp     HOTP (RFC 4226) for a hardware token: the counter is\n"
	"             an NV counter index (TPM 2.0), bound to the blob by its\n"
	"             name; every show increments it first\n"
	"  --counter INDEX  that index (default 0x01500a07; must not exist)\n"
	"show: the code now (or at --time UNIX), the UTC time used and the\n"
	"  seconds left; exit 4 naming the PCRs when they moved.  HOTP: the\n"
	"  code and the counter value it used.\n"
	"  --watch    refresh in place until a key is pressed (a terminal\n"
	"             only: exit 2 otherwise)\n"
	"status: where the secret is, its PCRs and whether they match now,\n"
	"  digits and period (--json: as one JSON object).\n"
	"When /etc/adjtime (TPMBOX_ADJTIME) says the clock keeps LOCAL time,\n"
	"show notes that the code is computed from UTC.\n";

static const char shortopts[] = "p:o:f";
static const struct option longopts[] = {
	{ "issuer", required_argument, NULL, 'I' },
	{ "label", required_argument, NULL, 'L' },
	{ "digits", required_argument, NULL, 'D' },
	{ "period", required_argument, NULL, 'E' },
	{ "qr", required_argument, NULL, 'Q' },
	{ "uri-out", required_argument, NULL, 'U' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ "time", required_argument, NULL, 't' },
	{ "watch", no_argument, NULL, 'w' },
	{ "json", no_argument, NULL, 'j' },
	{ "hotp", no_argument, NULL, 'H' },
	{ "counter", required_argument, NULL, 'C' },
	{ "nv", required_argument, NULL, 'N' },
	{ NULL, 0, NULL, 0 }
};

struct opts {
	struct seal_opts so;
	struct otp_params p;
	const char *out, *uri_out, *time_s, *digits_s, *period_s;
	const char *issuer, *label, *counter_s, *nv_s;
	uint32_t nvidx;			/* --nv: the blob's index */
	char nvname[32];		/* "NV index 0x..." for messages */
	int hotp;
	int force, qr, watch, json;
	int enroll_only, show_only, status_only;	/* options seen */
};

static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	return parse_u64(s, v) || *v > max;
}

/* The counter now: the time step, and the seconds left in it. */
static uint64_t step_now(const struct otp_params *p, uint64_t now,
			 unsigned *left)
{
	if (!p->period) {	/* the blob reader refuses 0 */
		*left = 0;
		return 0;
	}
	*left = p->period - (unsigned)(now % p->period);
	return otp_step(now, p->period);
}

static void adjtime_note(void)
{
	const char *path = getenv("TPMBOX_ADJTIME");
	char line[3][64];
	FILE *f;
	int i;

	if (!(f = fopen(path ? path : "/etc/adjtime", "r")))
		return;
	for (i = 0; i < 3 && fgets(line[i], sizeof(line[i]), f); i++)
		;
	fclose(f);
	if (i == 3 && strncmp(line[2], "LOCAL", 5) == 0)
		fprintf(stderr, "tpmbox totp: note: /etc/adjtime says the "
			"hardware clock keeps local time; the code is computed "
			"from UTC (the system clock)\n");
}

static int enroll(struct ctx *c, struct opts *o)
{
	struct seal_spec *spec = calloc(1, sizeof(*spec));
	struct seal12_opts o12 = { .srk = NULL };
	struct qr *q = NULL;
	char *pem = NULL, *uri = NULL, *art = NULL;
	size_t pemlen = 0;
	uint64_t counter = 0;
	struct tpm *t;
	int rc = 0, fam;

	if (!spec)
		return ctx_usage(c, "out of memory");
	if ((o->out &&
	     (rc = ctx_out_new(c, o->force ? OUT_FORCE : 0, o->out))) ||
	    (rc = ctx_out_new(c, o->force ? OUT_FORCE : 0, o->uri_out)))
		goto out;
	/* The family decides the default PCRs and the job. */
	if (!(t = ctx_tpm(c)) || !(fam = tpm_family(t))) {
		rc = ctx_fail(c);
		goto out;
	}
	if (!o->so.npcr && seal_opts_add(&o->so, 'p', fam == TPM_FAMILY_12 ?
					 TOTP_PCRS_12 : TOTP_PCRS_20,
					 &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if ((o->hotp || o->nv_s) && fam == TPM_FAMILY_12) {
		rc = ctx_usage(c, "%s needs a TPM 2.0 in this version; this "
			       "one is a TPM 1.2", o->hotp ? "--hotp" : "--nv");
		goto out;
	}
	if (seal_spec_parse(spec, &o->so, &c->e) ||
	    (fam == TPM_FAMILY_12 && seal12_spec_check(spec, &c->e)) ||
	    (o->hotp && totp_counter_new(t, o->p.nv, o->so.ownerspec, &o->p,
					 &counter, &c->e)) ||
	    totp_enroll(t, fam, spec, &o12, &o->p, counter + o->hotp, &pem,
			&pemlen, &uri, &c->e) ||
	    (o->nv_s ?
	     totp_nv_store(t, o->nvidx, o->so.ownerspec, pem, pemlen,
			   &c->e) :
	     file_write_atomic(o->out, pem, pemlen,
			       OUT_SECRET | (o->force ? OUT_FORCE : 0),
			       &c->e))) {
		rc = ctx_fail(c);
		goto out;
	}
	if (o->uri_out &&
	    file_write_atomic(o->uri_out, uri, strlen(uri),
			      OUT_SECRET | (o->force ? OUT_FORCE : 0),
			      &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* Shown once: the URI and its QR code. */
	if (o->qr != QR_NONE &&
	    (!(q = malloc(sizeof(*q))) ||
	     qr_encode((const uint8_t *)uri, strlen(uri), 0, -1, q, &c->e) ||
	     qr_render(q, o->qr, &art, &c->e))) {
		if (!q)
			err_set(&c->e, EX_FAIL, "out of memory");
		err_prefix(&c->e, "the QR code (the blob is written; enroll "
			   "with the URI)");
		printf("%s\n", uri);
		rc = ctx_fail(c);
		goto out;
	}
	if (!isatty(1))
		fprintf(stderr, "tpmbox totp: note: the URI and QR code carry "
			"the secret; wipe what standard output went to\n");
	printf("%s%s\n", art ? art : "", uri);
	fflush(stdout);
out:
	if (uri) {
		explicit_bzero(uri, strlen(uri));
		free(uri);
	}
	if (art) {
		explicit_bzero(art, strlen(art));
		free(art);
	}
	if (q) {
		explicit_bzero(q, sizeof(*q));
		free(q);
	}
	seal_spec_wipe(spec);
	free(spec);
	free(pem);
	return rc;
}

/* Read and check a blob with no TPM. */
static int blob_open(struct ctx *c, const struct opts *o, const char *path,
		     struct totp_blob *b, uint8_t **text)
{
	struct tpm *t;
	size_t n = 0;

	memset(b, 0, sizeof(*b));
	if (o->nv_s ?
	    (!(t = ctx_tpm(c)) ||
	     totp_nv_load(t, o->nvidx, text, &n, &c->e)) :
	    file_read(path, 1u << 20, text, &n, &c->e))
		return ctx_fail(c);
	if (totp_blob_open(b, path, (const char *)*text, n, &c->e))
		return ctx_fail(c);
	return 0;
}

/* A key pressed within ms milliseconds (stdin in raw mode). */
static int key_within(int ms)
{
	struct pollfd pf = { .fd = 0, .events = POLLIN };
	char ch;

	if (poll(&pf, 1, ms) > 0 && (pf.revents & (POLLIN | POLLHUP)))
		return read(0, &ch, 1) >= 0;
	return 0;
}

/* HOTP: the next counter value, its code. */
static int hotp_show(struct ctx *c, struct opts *o, struct totp_blob *b)
{
	uint64_t ctr;
	uint32_t code;
	char digits[9];
	struct tpm *t;

	if (o->time_s || o->watch)
		return ctx_usage(c, "%s is an HOTP blob: --time and --watch "
				 "are for TOTP", b->name);
	if (!(t = ctx_tpm(c)) || totp_counter_next(t, &b->p, &ctr, &c->e) ||
	    totp_code(t, b, ctr, &code, &c->e))
		return ctx_fail(c);
	otp_format(code, b->p.digits, digits);
	printf("%s\ncounter %llu\n", digits, (unsigned long long)ctr);
	return 0;
}

static int show(struct ctx *c, struct opts *o, const char *path)
{
	struct totp_blob b;
	struct termios old, raw;
	uint8_t *text = NULL;
	uint64_t now, ctr;
	uint32_t code;
	unsigned left;
	char digits[9], when[32];
	struct tm tm;
	time_t tt;
	struct tpm *t;
	int rc, watching = 0;

	if (o->watch && (!isatty(0) || !isatty(1)))
		return ctx_usage(c, "--watch needs a terminal on standard "
				 "input and output (without it: print once)");
	if ((rc = blob_open(c, o, path, &b, &text)))
		goto out;
	if (b.p.kind == OTP_HOTP) {
		rc = hotp_show(c, o, &b);
		goto out;
	}
	adjtime_note();
	if (o->watch) {
		if (tcgetattr(0, &old) == 0) {
			raw = old;
			raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
			raw.c_cc[VMIN] = 1;
			raw.c_cc[VTIME] = 0;
			watching = tcsetattr(0, TCSANOW, &raw) == 0;
		}
	}
	for (;;) {
		if (o->time_s)
			(void)parse_u64(o->time_s, &now);
		else
			now = (uint64_t)time(NULL);
		ctr = step_now(&b.p, now, &left);
		if (!(t = ctx_tpm(c)) ||
		    totp_code(t, &b, ctr, &code, &c->e)) {
			if (watching)
				printf("\n");
			rc = ctx_fail(c);
			break;
		}
		otp_format(code, b.p.digits, digits);
		tt = (time_t)now;
		if (!gmtime_r(&tt, &tm) ||
		    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC",
			      &tm))
			snprintf(when, sizeof(when), "@%llu",
				 (unsigned long long)now);
		if (watching)
			printf("\r\033[K%s  %s  %u s left  (a key stops)",
			       digits, when, left);
		else
			printf("%s\n%s\n%u s left\n", digits, when, left);
		fflush(stdout);
		if (!watching)
			break;
		/* the next code at the step's end, or a key */
		if (key_within((int)(left > 60 ? 60 : left) * 1000) ||
		    o->time_s) {
			printf("\n");
			break;
		}
		/* one TPM connection a code (the session ends with it) */
		tpm_close(c->tpm);
		c->tpm = NULL;
	}
	if (watching)
		tcsetattr(0, TCSANOW, &old);
out:
	totp_blob_close(&b);
	free(text);
	return rc;
}

static int status(struct ctx *c, struct opts *o, const char *path)
{
	struct totp_blob b;
	struct totp_state st;
	uint8_t *text = NULL;
	struct tpm *t;
	const char *where;
	int rc, i;

	if ((rc = blob_open(c, o, path, &b, &text)))
		goto out;
	if (!(t = ctx_tpm(c)) || totp_state(t, &b, &st, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	where = b.family == TPM_FAMILY_12 ?
		"TPM 1.2, sealed with TPM_Sealx under the SRK" :
		"TPM 2.0, an HMAC-SHA1 key under the SRK";
	if (o->json) {
		printf("{\"blob\":");
		ctx_json_str(path);
		printf(",\"tpm\":\"%s\",\"kind\":\"%s\",\"issuer\":",
		       b.family == TPM_FAMILY_12 ? "1.2" : "2.0",
		       b.p.kind == OTP_HOTP ? "hotp" : "totp");
		ctx_json_str(b.p.issuer);
		printf(",\"label\":");
		ctx_json_str(b.p.label);
		printf(",\"digits\":%d,\"period\":%u,\"counter_index\":%u,"
		       "\"states\":[", b.p.digits, (unsigned)b.p.period,
		       (unsigned)b.p.nv);
		for (i = 0; i < st.nstate; i++) {
			printf("%s", i ? "," : "");
			ctx_json_str(st.sel[i]);
		}
		printf("],\"match\":%s,\"state\":%d,\"differ\":",
		       st.match ? "true" : "false",
		       st.match ? st.match : st.closest);
		ctx_json_str(st.diff);
		printf("}\n");
	} else {
		printf("blob: %s\nsecret: %s\n", path, where);
		if (b.p.kind == OTP_HOTP)
			printf("kind: HOTP, %d digits, counter NV index "
			       "0x%08x\n", b.p.digits, (unsigned)b.p.nv);
		else
			printf("kind: TOTP, %d digits, period %u s\n",
			       b.p.digits, (unsigned)b.p.period);
		printf("issuer: %s\nlabel: %s\n", b.p.issuer, b.p.label);
		for (i = 0; i < st.nstate; i++)
			printf("PCR state %d: %s\n", i + 1, st.sel[i]);
		if (st.match)
			printf("PCRs: match state %d now\n", st.match);
		else
			printf("PCRs: do not match (closest: state %d, where "
			       "%s differ)\n", st.closest, st.diff);
	}
out:
	totp_blob_close(&b);
	free(text);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct opts o;
	const char *sub;
	char host[OTP_TEXT_MAX + 1];
	uint64_t v;
	int ch;

	memset(&o, 0, sizeof(o));
	o.qr = QR_UTF8;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'p':
			if (seal_opts_add(&o.so, ch, optarg, &c->e))
				return ctx_fail(c);
			o.enroll_only = 1;
			break;
		case 'O': o.so.ownerspec = optarg; o.enroll_only = 1; break;
		case 'o': o.out = optarg; o.enroll_only = 1; break;
		case 'f': o.force = 1; o.enroll_only = 1; break;
		case 'I': o.issuer = optarg; o.enroll_only = 1; break;
		case 'L': o.label = optarg; o.enroll_only = 1; break;
		case 'D': o.digits_s = optarg; o.enroll_only = 1; break;
		case 'E': o.period_s = optarg; o.enroll_only = 1; break;
		case 'Q':
			if ((o.qr = qr_style_parse(optarg)) < 0)
				return ctx_usage(c, "--qr: utf8, ansi, ascii "
						 "or none");
			o.enroll_only = 1;
			break;
		case 'U': o.uri_out = optarg; o.enroll_only = 1; break;
		case 't': o.time_s = optarg; o.show_only = 1; break;
		case 'w': o.watch = 1; o.show_only = 1; break;
		case 'j': o.json = 1; o.status_only = 1; break;
		case 'H': o.hotp = 1; o.enroll_only = 1; break;
		case 'C': o.counter_s = optarg; o.enroll_only = 1; break;
		case 'N': o.nv_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind >= argc)
		return ctx_usage(c, "expected a subcommand: enroll, show, "
				 "status");
	sub = argv[optind++];
	if (strcmp(sub, "enroll") && strcmp(sub, "show") &&
	    strcmp(sub, "status"))
		return ctx_usage(c, "unknown subcommand '%s' (enroll, show, "
				 "status)", sub);
	if ((o.enroll_only && strcmp(sub, "enroll")) ||
	    (o.show_only && strcmp(sub, "show")) ||
	    (o.status_only && strcmp(sub, "status")))
		return ctx_usage(c, "an option given is not one of totp %s's "
				 "(see --help)", sub);
	if (o.nv_s) {
		if (nv_index_parse(o.nv_s, &o.nvidx, &c->e))
			return ctx_fail(c);
		snprintf(o.nvname, sizeof(o.nvname), "NV index 0x%08x",
			 (unsigned)o.nvidx);
	}
	if (strcmp(sub, "enroll")) {
		if (argc - optind != !o.nv_s)
			return ctx_usage(c, "expected: totp %s BLOB, or --nv "
					 "INDEX alone", sub);
		if (o.time_s && parse_u64(o.time_s, &v))
			return ctx_usage(c, "--time: seconds since 1970 "
					 "(UTC), not '%s'", o.time_s);
		if (o.time_s && o.watch)
			return ctx_usage(c, "--time and --watch exclude each "
					 "other");
		return strcmp(sub, "show") ?
		       status(c, &o, o.nv_s ? o.nvname : argv[optind]) :
		       show(c, &o, o.nv_s ? o.nvname : argv[optind]);
	}
	if (optind != argc)
		return ctx_usage(c, "totp enroll takes no operand");
	if (o.force && !o.out)
		return ctx_usage(c, "-f is for -o");
	if (!o.out == !o.nv_s)
		return ctx_usage(c, "one of -o BLOB and --nv INDEX is "
				 "required");
	if ((o.out && strcmp(o.out, "-") == 0) ||
	    (o.uri_out && !strcmp(o.uri_out, "-")))
		return ctx_usage(c, "-o and --uri-out need file names (written "
				 "atomically with mode 0600)");
	o.p.kind = o.hotp ? OTP_HOTP : OTP_TOTP;
	o.p.digits = 6;
	o.p.period = o.hotp ? 0 : 30;
	if (o.counter_s && !o.hotp)
		return ctx_usage(c, "--counter is for --hotp");
	if (o.period_s && o.hotp)
		return ctx_usage(c, "--period is for TOTP, not --hotp");
	if (o.hotp) {
		o.p.nv = 0x01500a07;
		if (o.counter_s && nv_index_parse(o.counter_s, &o.p.nv,
						  &c->e))
			return ctx_fail(c);
	}
	if (o.digits_s) {
		if (parse_num(o.digits_s, 8, &v))
			return ctx_usage(c, "--digits: 6 or 8");
		o.p.digits = (int)v;
	}
	if (o.period_s) {
		if (parse_num(o.period_s, OTP_PERIOD_MAX, &v))
			return ctx_usage(c, "--period: 1 to %d seconds",
					 OTP_PERIOD_MAX);
		o.p.period = (uint32_t)v;
	}
	if (!o.issuer)
		o.issuer = "tpmbox";
	if (!o.label) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "tpm");
		host[OTP_TEXT_MAX] = '\0';
		o.label = host;
	}
	if (strlen(o.issuer) > OTP_TEXT_MAX || strlen(o.label) > OTP_TEXT_MAX)
		return ctx_usage(c, "--issuer and --label: at most %d bytes",
				 OTP_TEXT_MAX);
	strcpy(o.p.issuer, o.issuer);
	strcpy(o.p.label, o.label);
	/* checked with the counter's name as it will be */
	o.p.nvnamelen = o.hotp ? 34 : 0;
	if (otp_params_check(&o.p, &c->e))
		return ctx_fail(c);
	o.p.nvnamelen = 0;
	return enroll(c, &o);
}

const struct applet applet_totp = {
	"totp", "a one-time password sealed to the boot state (enroll, "
	"show, status)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
