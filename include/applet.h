/* The applet interface.  Each applets/NAME.c defines
 *     const struct applet applet_NAME = { ... };
 * and the Makefile generates the table from the file names, so adding an
 * applet touches no shared file. */
#ifndef TPMBOX_APPLET_H
#define TPMBOX_APPLET_H

#include "base/err.h"

struct tpm;

/* Options shared by every applet (parsed by main.c, before or after the
 * applet name, wherever an option can be). */
struct globals {
	const char *tcti;	/* -T / --tcti, NULL: environment, then device */
	int timeout_s;		/* --timeout, default 120 */
	int trace;		/* --trace or TPMBOX_TRACE=1 */
	/* The SRK pin (applets with APPLET_PIN*): --srk-name, --srk-pub,
	 * --allow-unsalted; TPMBOX_SRK when neither is given. */
	const char *srk_name;
	const char *srk_pub;
	int allow_unsalted;
};

struct ctx {
	const char *name;	/* applet name for messages */
	const struct globals *g;
	struct tpm *tpm;	/* opened by ctx_tpm() on first use */
	struct tberr e;
	int pin;		/* the applet's APPLET_PIN* flags */
	int no_remembered;	/* set before ctx_tpm: no pin from the
				 * remembered file (takeown --force) */
};

struct option;

struct applet {
	const char *name;
	const char *summary;	/* one line for --list */
	const char *usage;	/* full -h text (first line: usage) */
	int (*main)(struct ctx *c, int argc, char **argv);
	/* The applet's option syntax, the very strings its getopt_long call
	 * uses: main.c reads the command line with them (include/base/optscan.h)
	 * so that an option's value is never taken for a common option.
	 * The applet's getopt sees its own options first, then "--", then
	 * the operands. */
	const char *shortopts;		/* getopt's string */
	const struct option *longopts;	/* NULL: no long options */
	/* APPLET_PIN: main.c reads --srk-name, --srk-pub and
	 * --allow-unsalted (and TPMBOX_SRK) for it, and ctx_tpm() gives the
	 * pin to lib/tpm2/srk.c; APPLET_PIN_NAME: the same without
	 * --srk-pub (takeown, whose --srk-pub is an output). */
	int pin;
};

/* The usage text in an applet's table entry: the small build
 * (TPMBOX_PACKED_HELP) keeps every --help text packed instead (applet.c),
 * and the applet's own copy is left out of the binary. */
#ifdef TPMBOX_PACKED_HELP
#define APPLET_USAGE(u)	((const char *)(0 * sizeof(u)))
#else
#define APPLET_USAGE(u)	(u)
#endif

#define APPLET_PIN	1
#define APPLET_PIN_NAME	2

/* Open the TPM chosen by -T / TPMBOX_TCTI / TPM2TOOLS_TCTI / default device.
 * NULL on failure (c->e set).  For an applet with APPLET_PIN the pin is
 * --srk-name, --srk-pub or TPMBOX_SRK, else the remembered file
 * (ctx_srk_file) when it exists; TPMBOX_SRK=none: no pin. */
struct tpm *ctx_tpm(struct ctx *c);
/* The remembered SRK's file for this TPM: TPMBOX_SRK_FILE when set, else
 * /etc/tpmbox/srk.pem for a device (the machine's own TPM) unless the
 * kernel says it is a TPM 1.2, else NULL (a swtpm socket: never /etc). */
const char *ctx_srk_file(struct tpm *t);
/* Print "tpmbox APPLET: msg" (+ hint) from c->e and return its code; a
 * usage error (exit 2) without a hint of its own points to --help. */
int ctx_fail(struct ctx *c);
/* Report a usage error (exit 2) with a printf message. */
int ctx_usage(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* After the applet's getopt loop: a usage error (exit 2) naming the first
 * operand left, or 0 when there is none. */
int ctx_no_operands(struct ctx *c, int argc, char **argv);
/* The whole command line of an applet whose one option is --json
 * (longopts: {"json", no_argument, NULL, 'j'}, no short options) and
 * which takes no operand: *json set, 0; or a usage error (exit 2). */
int ctx_json_only(struct ctx *c, int argc, char **argv,
		  const struct option *longopts, int *json);
/* Before the TPM does any work: a usage error (exit 2) naming the first
 * of the n output paths that exists, unless flags has OUT_FORCE (-f);
 * NULL, "-" (stdout) and what the write goes into as it is (/dev/stdout,
 * a FIFO, a device: base/file.h's file_out_in_place) are skipped.  0 when every one is free.  The
 * atomic write checks again (base/file.h): this only refuses early. */
int ctx_outs_new(struct ctx *c, int flags, const char *const *outs, int n);
/* The same for one path. */
int ctx_out_new(struct ctx *c, int flags, const char *out);
/* An applet whose options only keep a value or set a flag says so in a
 * table (the toybox way, without the generated structs): one entry per
 * getopt value, ended by id 0. */
struct ctx_opt {
	int id;			/* getopt_long's value */
	const char **str;	/* the option's argument goes here, or */
	int *flags;		/* bits are or'ed in here */
	int bits;
};
/* The applet's getopt_long loop from the table: an option it does not
 * name is "unknown option", an operand left "unexpected argument" (exit
 * 2, reported); 0 otherwise. */
int ctx_getopt(struct ctx *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const struct ctx_opt *opts);
/* Print the applet's help text to stdout; returns 0. */
int ctx_help(struct ctx *c, const struct applet *a);
/* Print s as a JSON string (quoted, escaped) to stdout. */
void ctx_json_str(const char *s);
struct pcr_vals;
/* Print PCR values in pcrread's text format (or JSON) to stdout; the one
 * place every applet that shows PCR values goes through.  0, or exit 2 on
 * out-of-memory. */
int ctx_print_pcrs(struct ctx *c, const struct pcr_vals *v, int json);
/* Compare replayed values with the TPM's PCRs (evl_check), print the
 * report; 0 when all match, else the failure printed. */
int ctx_check_pcrs(struct ctx *c, const struct pcr_vals *want);

#endif
