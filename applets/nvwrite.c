/* nvwrite: write data into an ordinary NV index. */
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
	"usage: nvwrite INDEX [-i FILE] [--offset N] [--auth AUTH | "
	"--owner-auth AUTH]\n"
	"Write FILE's bytes into NV index INDEX at offset N, in as many\n"
	"TPM2_NV_Write commands as TPM_PT_NV_BUFFER_MAX needs.\n"
	"  -i FILE    the data (default: standard input)\n"
	"  --offset N  first byte to write (default 0)\n"
	NV_USAGE_ACCESS("write", "Write", "WRITE")
	"\n"
	"  --lock     TPM 1.2: write no bytes, which locks a WRITEDEFINE index\n"
	"             for good and a WRITE_STCLEAR one until the next TPM\n"
	"             startup; on INDEX 0, every GLOBALLOCK index until then\n";

static const char shortopts[] = "i:";
static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	{"offset", required_argument, NULL, 'F'},
	NV_LONGOPT_AUTH,
	NV_LONGOPT_OWNER,
	{"lock", no_argument, NULL, 'L'},
	{NULL, 0, NULL, 0}
};

/* What nvwrite was asked for. */
struct req {
	struct nv_opts n;
	const char *in;
	uint64_t offset;
	int lock;
};

/* The write lock a refused write met, in words ("" when none is
 * known): the lock by the permission whose flag is set (a 0-byte write
 * may set both flags: swtpm does). */
static const char *locked12(const struct tpm12_nv_public *p)
{
	if ((p->perm & TPM12_NV_PER_WRITEDEFINE) && p->write_define)
		return " for good (WRITEDEFINE)";
	if ((p->perm & TPM12_NV_PER_WRITE_STCLEAR) && p->write_stclear)
		return " until the next TPM startup (WRITE_STCLEAR)";
	if (p->perm & TPM12_NV_PER_GLOBALLOCK)
		return " until the next TPM startup (GLOBALLOCK)";
	return "";
}

/* TPM 1.2: the index's public part (unauthenticated, as tpm_nvinfo
 * reads it), who authorizes, then the data in chunks. */
static int write12(struct ctx *c, struct tpm *t, const struct req *r)
{
	struct tpm12_nv_access x;
	struct tpm12_nv_public p;
	uint32_t index = r->n.index;
	uint8_t *data = NULL;
	size_t n = 0;
	int rc;

	/* Step 1: what the index is, and who authorizes. */
	if (index == TPM12_NV_INDEX0) {
		/* TPM_NV_INDEX0 is no area: a write of no bytes, without
		 * authorization, is the global lock. */
		if (!r->lock)
			return ctx_usage(c, "NV index 0 holds no data: only "
					 "--lock (the global lock) writes it");
		if (r->n.auth_s || r->n.owner_s)
			return ctx_usage(c, "the global lock (NV index 0) "
					 "takes no authorization");
		tpm12_nv_public_init(&p, 0, 0, 0);
	} else if (tpm12_nv_public(t, index, &p)) {
		return ctx_fail(c);
	}
	if (tpm12_nv_access_pick(&p, 1, r->n.auth_s, r->n.owner_s, &x,
				 &c->e))
		return ctx_fail(c);
	if (r->lock && !(p.perm & (TPM12_NV_PER_WRITEDEFINE |
				   TPM12_NV_PER_WRITE_STCLEAR)) && index) {
		rc = ctx_usage(c, "NV index 0x%08x has neither WRITEDEFINE "
			       "nor WRITE_STCLEAR: --lock would change "
			       "nothing", index);
		goto out;
	}

	/* Step 2: the data, which must fit from the offset on. */
	if (!r->lock && nv_data_read(r->in, index, p.size, r->offset, &data,
				     &n, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if ((p.perm & TPM12_NV_PER_WRITEALL) && !r->lock &&
	    (r->offset != 0 || n != p.size)) {
		rc = ctx_usage(c, "NV index 0x%08x has WRITEALL: write all %u "
			       "bytes at offset 0", index, p.size);
		goto out;
	}

	/* Step 3: write it in chunks (WRITEALL: in one). */
	if ((rc = tpm12_nv_chunk(t, &x.chunk)))
		goto fail;
	if ((p.perm & TPM12_NV_PER_WRITEALL) && n > x.chunk) {
		rc = err_set(&c->e, EX_FAIL, "NV index 0x%08x has WRITEALL and "
			     "%zu bytes do not fit one command to this TPM (%zu "
			     "bytes at most)", index, n, x.chunk);
		goto fail;
	}
	rc = tpm12_nv_write(t, &x, data, n, (uint32_t)r->offset);
	rc = tpm12_nv_refused(&c->e, rc, TPM12_NV_OP_WRITE, x.by,
			      r->n.auth_s || r->n.owner_s, index);
	if (rc && (c->e.rc == 0x3c || c->e.rc == 0x41))
		err_set(&c->e, EX_FAIL, "NV index 0x%08x is write-locked%s",
			index, locked12(&p));
fail:
	if (rc)
		rc = ctx_fail(c);
out:
	explicit_bzero(&x, sizeof(x));
	if (data) {
		explicit_bzero(data, n);
		free(data);
	}
	return rc;
}

/* TPM 2.0: the index's public area (an ordinary index), the data, then
 * the authorization and the data in chunks of TPM_PT_NV_BUFFER_MAX. */
static int write20(struct ctx *c, struct tpm *t, const struct req *r)
{
	uint32_t buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint8_t *data;
	size_t n;
	int rc;

	if (r->lock)
		return ctx_usage(c, "--lock is for a TPM 1.2 (a TPM 2.0 locks "
				 "with TPM2_NV_WriteLock, which nvwrite does "
				 "not send)");

	/* Step 1: what the index is, and the data, which must fit from
	 * the offset on. */
	if (nv2_public(t, r->n.index, TPM2_NT_ORDINARY, &p, &buffer_max) ||
	    nv_data_read(r->in, p.index, p.size, r->offset, &data, &n, &c->e))
		return ctx_fail(c);
	if ((p.attrs & TPMA_NV_WRITEALL) && (r->offset != 0 || n != p.size)) {
		rc = ctx_usage(c, "NV index 0x%08x has writeall: write all %u "
			       "bytes at offset 0", p.index, p.size);
		goto out;
	}

	/* Step 2: write it in chunks. */
	rc = nv2_access_begin(t, &r->n, &p, buffer_max, NV_OP_WRITE, &x, &na);
	if (!rc) {
		tpm_last(t);
		rc = tpm2_nv_write(t, &x, data, n, (size_t)r->offset);
	}
	if (nv_auth_end(t, &na, rc))
		rc = ctx_fail(c);
out:
	explicit_bzero(data, n);
	free(data);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct tpm *t;
	struct req r;
	int o;

	memset(&r, 0, sizeof(r));
	r.in = "-";
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (nv_opt(&r.n, o, optarg))
			continue;
		switch (o) {
		case 'i': r.in = optarg; break;
		case 'F':
			if (parse_u64(optarg, &r.offset) || r.offset > 0xffff)
				return ctx_usage(c, "bad offset '%s'", optarg);
			break;
		case 'L': r.lock = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (nv_operands(&r.n, argc, argv, NULL, NV_ONE_AUTH, &c->e))
		return ctx_fail(c);
	if (r.lock && (r.offset || strcmp(r.in, "-")))
		return ctx_usage(c, "--lock writes no data: it takes no -i or "
				 "--offset");
	/* The family decides the job (and how INDEX reads). */
	if (!(t = ctx_tpm(c)) || nv_open(&r.n, t))
		return ctx_fail(c);
	return r.n.family == TPM_FAMILY_12 ? write12(c, t, &r)
					   : write20(c, t, &r);
}

const struct applet applet_nvwrite = {
	"nvwrite", "write data into an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
