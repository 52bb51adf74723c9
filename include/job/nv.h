/* What the NV applets share around their jobs: the INDEX operand and the
 * AUTH options (--auth, --owner-auth, --platform-auth), the family that
 * decides how INDEX reads, and on a TPM 2.0 the index's public area
 * checked against the applet's type and its access authorized.  Every
 * check says the same words in every applet. */
#ifndef TPMBOX_JOB_NV_H
#define TPMBOX_JOB_NV_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm2/nv.h"

struct tpm;

/* The applets' long options for them, as getopt_long's struct option
 * (<getopt.h>), and what getopt_long answers for each. */
#define NV_OPT_AUTH	'A'
#define NV_OPT_OWNER	'O'
#define NV_OPT_PLATFORM	'P'
#define NV_LONGOPT_AUTH	{"auth", required_argument, NULL, NV_OPT_AUTH}
#define NV_LONGOPT_OWNER \
	{"owner-auth", required_argument, NULL, NV_OPT_OWNER}
#define NV_LONGOPT_PLATFORM \
	{"platform-auth", required_argument, NULL, NV_OPT_PLATFORM}

/* The whole table of an applet that takes those two and no others. */
struct option;
extern const struct option nv_auth_longopts[];

/* Their lines in the applets' help texts: --auth and --owner-auth for
 * an access to the index, --owner-auth and --platform-auth for defining
 * and releasing one. */
#define NV_USAGE_AUTH \
	"  --auth AUTH  authorize with the index's auth value (str:, hex:, " \
	"file:, env:)\n" \
	"  --owner-auth AUTH  authorize with the owner's auth value\n"
/* nvread's and nvwrite's on how they authorize on either family (op
 * "read" or "write", Op "Read" or "Write", OP "READ" or "WRITE"); the
 * last sentence is left open. */
#define NV_USAGE_ACCESS(op, Op, OP) \
	NV_USAGE_AUTH \
	"Without --auth or --owner-auth the index's own (empty) auth value " \
	"is\nused when auth" op " is set, else the owner's.\n" \
	"On a TPM 1.2 (TPM_NV_" Op "Value, or TPM_NV_" Op "ValueAuth with " \
	"the\nindex's value; OSAP, every answer's HMAC checked; chunks of " \
	"the\nTPM's input buffer, TPM_CAP_PROP_INPUT_BUFFER, less 128 " \
	"bytes):\n--auth needs AUTH" OP ", --owner-auth OWNER" OP "; " \
	"without either the\nindex's rule with the well-known secret (20 " \
	"zero bytes), or no\nauthorization when it asks for none.  AUTH " \
	"values are SHA-1 of the\nAUTH's bytes, as tpm-tools makes them " \
	"from a password."
#define NV_USAGE_HIER \
	"  --owner-auth AUTH  the owner hierarchy's auth value (default " \
	"empty)\n" \
	"  --platform-auth AUTH  the platform's, for platformcreate " \
	"indices\n"

struct nv_opts {
	const char *auth_s;	/* --auth AUTH: the index's value */
	const char *owner_s;	/* --owner-auth AUTH */
	const char *plat_s;	/* --platform-auth AUTH */
	const char *index_s;	/* the INDEX operand */
	const char *more_s;	/* the operand after it (nv_operands' more) */
	uint32_t index;		/* INDEX by the family's rule */
	int family;		/* TPM_FAMILY_12 or TPM_FAMILY_20 (nv_open) */
};

/* One answer of getopt_long (o, its optarg arg): 1 when it is one of the
 * options above (kept in n), 0 when it is another. */
int nv_opt(struct nv_opts *n, int o, const char *arg);

/* The whole command line of an applet whose only options are --auth and
 * --owner-auth (nv_auth_longopts, no short ones), one of them at most,
 * and whose operands are a TPM 2.0 INDEX (n->index) and, when more
 * names one, one more (n->more_s).  0, or exit 2 with e set. */
int nv_args_auth(struct nv_opts *n, int argc, char **argv, const char *more,
		 struct tberr *e);

/* nv_operands' flags. */
#define NV_ONE_AUTH	1	/* --auth and --owner-auth exclude each other */

/* After the getopt loop: the operands left (argv[optind..]) are INDEX
 * and, when more names one, that one more ("expected an NV index and
 * MORE"; else "expected one NV index"); with NV_ONE_AUTH, not both
 * --auth and --owner-auth.  0, or exit 2 with e set. */
int nv_operands(struct nv_opts *n, int argc, char **argv, const char *more,
		int flags, struct tberr *e);

/* The family, which decides the job (TPM 1.2 indices and authorization
 * differ): with an SRK pin the salted session's first answer tells it,
 * and a 1.2 is a usage error (tpm_trust_begin).  The family, or 0 with
 * t->e set. */
int nv_family(struct tpm *t);
/* nv_family, then n->index read from n->index_s by the family's rule
 * (TPM 2.0: 0x01000000-0x01ffffff; 1.2: any 32-bit value); a 1.2 has no
 * platform hierarchy (--platform-auth).  0, or the exit code with t->e
 * set. */
int nv_open(struct nv_opts *n, struct tpm *t);

/* TPM 2.0: the process's salted session when a pin is set, then index's
 * public area (TPM2_NV_ReadPublic) and, when want is a TPM_NT, its type
 * checked (exit 2 naming the applet for the type it is; want -1: any);
 * buffer_max, when not NULL, gets TPM_PT_NV_BUFFER_MAX.  0, or the exit
 * code with t->e set. */
int nv2_public(struct tpm *t, uint32_t index, int want, struct nv_public *p,
	       uint32_t *buffer_max);
/* TPM 2.0: the hierarchy that defines and releases an index with these
 * attributes (*hier: TPM2_RH_PLATFORM for platformcreate, else
 * TPM2_RH_OWNER) and its AUTH from n (*spec: NULL when not given); the
 * other hierarchy's option is exit 2 with e set. */
int nv2_hier(const struct nv_opts *n, uint32_t index, uint32_t attrs,
	     uint32_t *hier, const char **spec, struct tberr *e);
/* TPM 2.0: authorize op (NV_OP_*) on p with n's --auth or --owner-auth
 * (nv_auth_begin), x filled for the job (chunk: TPM_PT_NV_BUFFER_MAX, or
 * 0 for a job without data).  Whatever this and the job return, end with
 * nv_auth_end(t, na, rc). */
int nv2_access_begin(struct tpm *t, const struct nv_opts *n,
		     struct nv_public *p, uint32_t chunk, int op,
		     struct nv_access *x, struct nv_auth *na);

/* TPM 2.0: add one to a counter (type TPM2_NT_COUNTER) or OR bits into
 * a bit field (TPM2_NT_BITS; bits unused for a counter), authorized with
 * n's --auth or --owner-auth.  0, or the exit code with t->e set. */
int nv2_modify(struct tpm *t, const struct nv_opts *n, int type,
	       uint64_t bits);

/* The bytes [offset, offset + *size) of index (isize bytes): the offset
 * inside it, *size (0: up to the end, which it then gets) not past the
 * end.  0, or exit 2 with e set. */
int nv_range(uint32_t index, uint32_t isize, uint64_t offset, uint64_t *size,
	     struct tberr *e);
/* The data for a write at offset into index (isize bytes): all of in
 * ("-": standard input), at least one byte, fitting from the offset on
 * (nv_range).  0 with *data malloc'd (the caller wipes and frees it), or
 * the exit code with e set and nothing allocated. */
int nv_data_read(const char *in, uint32_t index, uint32_t isize,
		 uint64_t offset, uint8_t **data, size_t *n, struct tberr *e);

#endif
