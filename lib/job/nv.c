/* The NV applets' shared part (job/nv.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "job/nv.h"
#include "job/tpm.h"
#include "tpm12/nv.h"
#include "tpm2/srk.h"

const struct option nv_auth_longopts[] = {
	NV_LONGOPT_AUTH,
	NV_LONGOPT_OWNER,
	{NULL, 0, NULL, 0}
};

int nv_opt(struct nv_opts *n, int o, const char *arg)
{
	switch (o) {
	case NV_OPT_AUTH: n->auth_s = arg; return 1;
	case NV_OPT_OWNER: n->owner_s = arg; return 1;
	case NV_OPT_PLATFORM: n->plat_s = arg; return 1;
	}
	return 0;
}

int nv_operands(struct nv_opts *n, int argc, char **argv, const char *more,
		int flags, struct tberr *e)
{
	if (argc - optind != (more ? 2 : 1))
		return more ? err_set(e, EX_USAGE, "expected an NV index and "
				      "%s", more)
			    : err_set(e, EX_USAGE, "expected one NV index");
	n->index_s = argv[optind];
	n->more_s = more ? argv[optind + 1] : NULL;
	if ((flags & NV_ONE_AUTH) && n->auth_s && n->owner_s)
		return err_set(e, EX_USAGE, "give --auth or --owner-auth, not "
			       "both");
	return 0;
}

int nv_args_auth(struct nv_opts *n, int argc, char **argv, const char *more,
		 struct tberr *e)
{
	int o;

	memset(n, 0, sizeof(*n));
	while ((o = getopt_long(argc, argv, "", nv_auth_longopts, NULL)) != -1)
		if (!nv_opt(n, o, optarg))
			return err_set(e, EX_USAGE, "unknown option");
	if (nv_operands(n, argc, argv, more, NV_ONE_AUTH, e))
		return e->code;
	return nv_index_parse(n->index_s, &n->index, e);
}

/* The family; one that the arguments contradict (want) is asked again
 * (tpm_family_confirm). */
static int family_for(struct tpm *t, int want)
{
	int f;

	if (tpm_trust_begin(t) || !(f = tpm_family_confirm(t, want))) {
		if (!t->e->code)
			err_set(t->e, EX_IO, "the TPM's family is not known");
		return 0;
	}
	return f;
}

int nv_family(struct tpm *t)
{
	return family_for(t, 0);
}

int nv_open(struct nv_opts *n, struct tpm *t)
{
	struct tberr scratch;
	uint32_t ix;
	int want = n->plat_s ? TPM_FAMILY_20 : 0;

	/* an index only a 1.2 has (outside 0x01000000-0x01ffffff) */
	memset(&scratch, 0, sizeof(scratch));
	if (!want && n->index_s &&
	    nv_index_parse(n->index_s, &ix, &scratch) &&
	    !tpm12_nv_index_parse(n->index_s, &ix, &scratch))
		want = TPM_FAMILY_12;
	if (!(n->family = family_for(t, want)))
		return t->e->code;
	if (n->family == TPM_FAMILY_20)
		return nv_index_parse(n->index_s, &n->index, t->e);
	if (n->plat_s)
		return err_set(t->e, EX_USAGE, "this TPM is a TPM 1.2: it has "
			       "no platform hierarchy (--platform-auth)");
	return tpm12_nv_index_parse(n->index_s, &n->index, t->e);
}

/* "a counter index", "an ordinary index", ... */
static const char *a_type(unsigned nt)
{
	switch (nt) {
	case TPM2_NT_ORDINARY: return "an ordinary index";
	case TPM2_NT_COUNTER: return "a counter index";
	case TPM2_NT_BITS: return "a bit-field index";
	case TPM2_NT_EXTEND: return "an extend index";
	case TPM2_NT_PIN_FAIL: return "a pinfail index";
	case TPM2_NT_PIN_PASS: return "a pinpass index";
	}
	return "an index of unknown type";
}

/* The applet for an index type. */
static const char *type_applet(unsigned nt)
{
	switch (nt) {
	case TPM2_NT_ORDINARY: return "nvwrite";
	case TPM2_NT_COUNTER: return "nvincrement";
	case TPM2_NT_BITS: return "nvsetbits";
	case TPM2_NT_EXTEND: return "nvextend";
	}
	return "another tool";
}

int nv2_public(struct tpm *t, uint32_t index, int want, struct nv_public *p,
	       uint32_t *buffer_max)
{
	uint32_t index_max;
	unsigned nt;
	int rc;

	if ((rc = tpm2_trust_begin(t)) || (rc = tpm2_nv_readpublic(t, index, p)))
		return rc;
	nt = nv_type(p->attrs);
	if (want >= 0 && nt != (unsigned)want)
		return err_set(t->e, EX_USAGE, "NV index 0x%08x is %s, not %s: "
			       "use %s", p->index, a_type(nt),
			       a_type((unsigned)want), type_applet(nt));
	return buffer_max ? tpm2_nv_limits(t, &index_max, buffer_max) : 0;
}

int nv2_hier(const struct nv_opts *n, uint32_t index, uint32_t attrs,
	     uint32_t *hier, const char **spec, struct tberr *e)
{
	if (attrs & TPMA_NV_PLATFORMCREATE) {
		if (n->owner_s)
			return err_set(e, EX_USAGE, "NV index 0x%08x is a "
				       "platformcreate index: the platform "
				       "defines and releases it (use "
				       "--platform-auth)", index);
		*hier = TPM2_RH_PLATFORM;
		*spec = n->plat_s;
		return 0;
	}
	if (n->plat_s)
		return err_set(e, EX_USAGE, "NV index 0x%08x is the owner's: "
			       "--platform-auth is for platformcreate indices "
			       "(use --owner-auth)", index);
	*hier = TPM2_RH_OWNER;
	*spec = n->owner_s;
	return 0;
}

int nv2_access_begin(struct tpm *t, const struct nv_opts *n,
		     struct nv_public *p, uint32_t chunk, int op,
		     struct nv_access *x, struct nv_auth *na)
{
	memset(x, 0, sizeof(*x));
	x->p = p;
	x->chunk = chunk;
	return nv_auth_begin(t, x, na, op, n->auth_s, n->owner_s);
}

int nv2_modify(struct tpm *t, const struct nv_opts *n, int type,
	       uint64_t bits)
{
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	int rc;

	if ((rc = nv2_public(t, n->index, type, &p, NULL)))
		return rc;
	rc = nv2_access_begin(t, n, &p, 0, NV_OP_MODIFY, &x, &na);
	if (!rc)
		rc = type == TPM2_NT_COUNTER ? tpm2_nv_increment(t, &x)
					     : tpm2_nv_setbits(t, &x, bits);
	return nv_auth_end(t, &na, rc);
}

int nv_range(uint32_t index, uint32_t isize, uint64_t offset, uint64_t *size,
	     struct tberr *e)
{
	if (offset >= isize)
		return err_set(e, EX_USAGE, "offset %llu is past the end of NV "
			       "index 0x%08x (%u bytes)",
			       (unsigned long long)offset, index, isize);
	if (!*size)
		*size = isize - offset;
	if (*size > isize - offset)
		return err_set(e, EX_USAGE, "%llu bytes at offset %llu go past "
			       "the end of NV index 0x%08x (%u bytes)",
			       (unsigned long long)*size,
			       (unsigned long long)offset, index, isize);
	return 0;
}

int nv_data_read(const char *in, uint32_t index, uint32_t isize,
		 uint64_t offset, uint8_t **data, size_t *n, struct tberr *e)
{
	uint64_t size = 0;
	int rc;

	*data = NULL;
	*n = 0;
	if ((rc = nv_range(index, isize, offset, &size, e)))
		return rc;
	if ((rc = file_read(in, (size_t)size, data, n, e))) {
		if (rc == EX_USAGE)
			return err_set(e, EX_USAGE, "the data does not fit: NV "
				       "index 0x%08x holds %u bytes and the "
				       "write starts at offset %llu", index,
				       isize, (unsigned long long)offset);
		return rc;
	}
	if (*n == 0) {
		free(*data);
		*data = NULL;
		return err_set(e, EX_USAGE, "no data to write");
	}
	return 0;
}
