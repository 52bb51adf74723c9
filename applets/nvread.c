/* nvread: read data from an NV index. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "job/nv.h"
#include "job/tpm.h"
#include "tpm12/nv.h"
#include "tpm2/nv.h"

static const char usage[] =
	"usage: nvread INDEX [-s SIZE] [--offset N] [-o FILE] [-f] [--hex]\n"
	"              [--auth AUTH | --owner-auth AUTH]\n"
	"Read SIZE bytes of NV index INDEX from offset N, in as many\n"
	"TPM2_NV_Read commands as TPM_PT_NV_BUFFER_MAX needs.\n"
	"  -s SIZE    bytes to read (default: from the offset to the end)\n"
	"  --offset N  first byte to read (default 0)\n"
	"  -o FILE    write to FILE atomically (mode 0600; default stdout)\n"
	"  -f         replace FILE if it exists\n"
	"  --hex      print lowercase hex and a newline instead of raw bytes\n"
	NV_USAGE_ACCESS("read", "Read", "READ")
	"  A 1.2 index\n"
	"has no written flag: bytes never written read as the TPM keeps\n"
	"them (0xff on most).\n"
	"  --lock     TPM 1.2: read no bytes, which locks a READ_STCLEAR index\n"
	"             for reading until the next TPM startup\n";

static const char shortopts[] = "s:o:f";
static const struct option longopts[] = {
	{"size", required_argument, NULL, 's'},
	{"offset", required_argument, NULL, 'F'},
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, 'f'},
	{"hex", no_argument, NULL, 'x'},
	NV_LONGOPT_AUTH,
	NV_LONGOPT_OWNER,
	{"lock", no_argument, NULL, 'L'},
	{NULL, 0, NULL, 0}
};

/* What nvread was asked for. */
struct req {
	struct nv_opts n;
	uint64_t size;		/* 0: from the offset to the end */
	uint64_t offset;
	const char *out;
	int flags, ashex, lock;
};

/* The read's end: the bytes to FILE or stdout, raw or as hex, unless it
 * failed (or --lock read none); data wiped either way (a chunk may have
 * arrived before a failure). */
static int finish(struct ctx *c, const struct req *r, uint8_t *data,
		  size_t size, int rc)
{
	if (!rc && !r->lock)
		rc = file_write_bytes(r->out, data, size, r->ashex, r->flags,
				      &c->e);
	explicit_bzero(data, size);
	free(data);
	return rc ? ctx_fail(c) : 0;
}

/* TPM 1.2: the index's public part (unauthenticated, as tpm_nvinfo
 * reads it), who authorizes, then the data in chunks. */
static int read12(struct ctx *c, struct tpm *t, const struct req *r)
{
	struct tpm12_nv_access x;
	struct tpm12_nv_public p;
	uint32_t index = r->n.index;
	uint64_t size = r->size;
	uint8_t *data;
	int rc;

	/* Step 1: what the index is, whether the range fits, and who
	 * authorizes. */
	if (tpm12_nv_public(t, index, &p))
		return ctx_fail(c);
	if (r->lock && !(p.perm & TPM12_NV_PER_READ_STCLEAR))
		return ctx_usage(c, "NV index 0x%08x has no READ_STCLEAR: "
				 "--lock would change nothing", index);
	if ((!r->lock && nv_range(index, p.size, r->offset, &size, &c->e)) ||
	    tpm12_nv_access_pick(&p, 0, r->n.auth_s, r->n.owner_s, &x, &c->e))
		return ctx_fail(c);

	/* Step 2: read it in chunks (--lock: no bytes). */
	if (!(data = malloc(size ? size : 1))) {
		explicit_bzero(&x, sizeof(x));
		return ctx_usage(c, "out of memory");
	}
	rc = tpm12_nv_chunk(t, &x.chunk);
	if (!rc)
		rc = tpm12_nv_read(t, &x, data, size, (uint32_t)r->offset);
	explicit_bzero(x.auth, sizeof(x.auth));
	rc = tpm12_nv_refused(&c->e, rc, TPM12_NV_OP_READ, x.by,
			      r->n.auth_s || r->n.owner_s, index);
	if (rc && (p.perm & TPM12_NV_PER_READ_STCLEAR) &&
	    (c->e.rc == 0x08 || c->e.rc == 0x3c))
		/* TPM_DISABLED_CMD, as the spec has it (and swtpm); a
		 * TPM_AREA_LOCKED from others */
		err_set(&c->e, EX_FAIL, "NV index 0x%08x is read-locked until "
			"the next TPM startup (READ_STCLEAR)", index);

	/* Step 3: write it out, raw or as hex. */
	return finish(c, r, data, size, rc);
}

/* TPM 2.0: the index's public area, the authorization, then the data
 * in chunks of TPM_PT_NV_BUFFER_MAX. */
static int read20(struct ctx *c, struct tpm *t, const struct req *r)
{
	uint32_t buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint64_t size = r->size;
	uint8_t *data;
	int rc;

	if (r->lock)
		return ctx_usage(c, "--lock is for a TPM 1.2 (a TPM 2.0 locks "
				 "with TPM2_NV_ReadLock, which nvread does not "
				 "send)");

	/* Step 1: what the index is, and whether the range fits. */
	if (nv2_public(t, r->n.index, -1, &p, &buffer_max) ||
	    nv_range(p.index, p.size, r->offset, &size, &c->e))
		return ctx_fail(c);

	/* Step 2: the authorization, then whether there is anything to
	 * read, then read it in chunks. */
	if (!(data = malloc(size)))
		return ctx_usage(c, "out of memory");
	if ((rc = nv2_access_begin(t, &r->n, &p, buffer_max, NV_OP_READ, &x,
				   &na)) == 0 &&
	    !(p.attrs & TPMA_NV_WRITTEN)) {
		rc = err_set(&c->e, EX_FAIL, "NV index 0x%08x has not been "
			     "written yet: there is nothing to read", p.index);
		err_hint(&c->e, "write it first (nvwrite, nvincrement, "
			 "nvextend or nvsetbits by its type)");
	}
	if (!rc) {
		tpm_last(t);
		rc = tpm2_nv_read(t, &x, data, size, (size_t)r->offset);
	}
	rc = nv_auth_end(t, &na, rc);

	/* Step 3: write it out, raw or as hex. */
	return finish(c, r, data, size, rc);
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct tpm *t;
	struct req r;
	int o;

	memset(&r, 0, sizeof(r));
	r.out = "-";
	r.flags = OUT_SECRET;
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (nv_opt(&r.n, o, optarg))
			continue;
		switch (o) {
		case 's':
			if (parse_u64(optarg, &r.size) || r.size == 0 ||
			    r.size > 0xffff)
				return ctx_usage(c, "bad size '%s'", optarg);
			break;
		case 'F':
			if (parse_u64(optarg, &r.offset) || r.offset > 0xffff)
				return ctx_usage(c, "bad offset '%s'", optarg);
			break;
		case 'o': r.out = optarg; break;
		case 'f': r.flags |= OUT_FORCE; break;
		case 'x': r.ashex = 1; break;
		case 'L': r.lock = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (nv_operands(&r.n, argc, argv, NULL, NV_ONE_AUTH, &c->e))
		return ctx_fail(c);
	if (r.lock && (r.size || r.offset || r.ashex || strcmp(r.out, "-")))
		return ctx_usage(c, "--lock reads no data: it takes no -s, "
				 "--offset, -o or --hex");
	/* The family decides the job (and how INDEX reads). */
	if (!(t = ctx_tpm(c)) || nv_open(&r.n, t))
		return ctx_fail(c);
	return r.n.family == TPM_FAMILY_12 ? read12(c, t, &r)
					   : read20(c, t, &r);
}

const struct applet applet_nvread = {
	"nvread", "read data from an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
