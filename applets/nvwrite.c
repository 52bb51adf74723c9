/* nvwrite: write data into an ordinary NV index. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "job/tpm.h"
#include "tpm12/nv.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvwrite INDEX [-i FILE] [--offset N] [--auth AUTH | "
	"--owner-auth AUTH]\n"
	"Write FILE's bytes into NV index INDEX at offset N, in as many\n"
	"TPM2_NV_Write commands as TPM_PT_NV_BUFFER_MAX needs.\n"
	"  -i FILE    the data (default: standard input)\n"
	"  --offset N  first byte to write (default 0)\n"
	"  --auth AUTH  authorize with the index's auth value (str:, hex:, "
	"file:, env:)\n"
	"  --owner-auth AUTH  authorize with the owner's auth value\n"
	"Without --auth or --owner-auth the index's own (empty) auth value "
	"is\nused when authwrite is set, else the owner's.\n"
	"On a TPM 1.2 (TPM_NV_WriteValue, or TPM_NV_WriteValueAuth with the\n"
	"index's value; OSAP, every answer's HMAC checked; chunks of the\n"
	"TPM's input buffer, TPM_CAP_PROP_INPUT_BUFFER, less 128 bytes):\n"
	"--auth needs AUTHWRITE, --owner-auth OWNERWRITE; without either the\n"
	"index's rule with the well-known secret (20 zero bytes), or no\n"
	"authorization when it asks for none.  AUTH values are SHA-1 of the\n"
	"AUTH's bytes, as tpm-tools makes them from a password.\n"
	"  --lock     TPM 1.2: write no bytes, which locks a WRITEDEFINE index\n"
	"             for good and a WRITE_STCLEAR one until the next TPM\n"
	"             startup; on INDEX 0, every GLOBALLOCK index until then\n";

static const char shortopts[] = "i:";
static const struct option longopts[] = {
	{"input", required_argument, NULL, 'i'},
	{"offset", required_argument, NULL, 'F'},
	{"auth", required_argument, NULL, 'A'},
	{"owner-auth", required_argument, NULL, 'O'},
	{"lock", no_argument, NULL, 'L'},
	{NULL, 0, NULL, 0}
};

/* TPM 1.2: the index's public part (unauthenticated, as tpm_nvinfo
 * reads it), who authorizes, then the data in chunks. */
static int write12(struct ctx *c, struct tpm *t, const char *index_s,
		   const char *in, uint64_t offset, int lock,
		   const char *auth_s, const char *owner_s)
{
	struct tpm12_nv_access x;
	struct tpm12_nv_public p;
	uint8_t *data = NULL;
	uint32_t index;
	size_t n = 0;
	int rc;

	/* Step 1: what the index is, and who authorizes. */
	if (tpm12_nv_index_parse(index_s, &index, &c->e))
		return ctx_fail(c);
	if (index == TPM12_NV_INDEX0) {
		/* TPM_NV_INDEX0 is no area: a write of no bytes, without
		 * authorization, is the global lock. */
		if (!lock)
			return ctx_usage(c, "NV index 0 holds no data: only "
					 "--lock (the global lock) writes it");
		if (auth_s || owner_s)
			return ctx_usage(c, "the global lock (NV index 0) "
					 "takes no authorization");
		tpm12_nv_public_init(&p, 0, 0, 0);
	} else if (tpm12_nv_public(t, index, &p)) {
		if (c->e.code == EX_NOENT)
			err_set(&c->e, EX_NOENT, "NV index 0x%08x is not "
				"defined", index);
		return ctx_fail(c);
	}
	if (tpm12_nv_access_pick(&p, 1, auth_s, owner_s, &x, &c->e))
		return ctx_fail(c);
	if (lock && !(p.perm & (TPM12_NV_PER_WRITEDEFINE |
				 TPM12_NV_PER_WRITE_STCLEAR)) && index) {
		explicit_bzero(&x, sizeof(x));
		return ctx_usage(c, "NV index 0x%08x has neither WRITEDEFINE "
				 "nor WRITE_STCLEAR: --lock would change "
				 "nothing", index);
	}
	if (!lock && offset >= p.size) {
		explicit_bzero(&x, sizeof(x));
		return ctx_usage(c, "offset %llu is past the end of NV index "
				 "0x%08x (%u bytes)",
				 (unsigned long long)offset, index, p.size);
	}

	/* Step 2: the data, which must fit from the offset on. */
	if (!lock) {
		if (file_read(in, p.size - offset, &data, &n, &c->e)) {
			explicit_bzero(&x, sizeof(x));
			if (c->e.code == EX_USAGE)
				return ctx_usage(c, "the data does not fit: NV "
						 "index 0x%08x holds %u bytes "
						 "and the write starts at "
						 "offset %llu", index, p.size,
						 (unsigned long long)offset);
			return ctx_fail(c);
		}
		if (n == 0) {
			free(data);
			explicit_bzero(&x, sizeof(x));
			return ctx_usage(c, "no data to write");
		}
	}
	if ((p.perm & TPM12_NV_PER_WRITEALL) && !lock &&
	    (offset != 0 || n != p.size)) {
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
	rc = tpm12_nv_write(t, &x, data, n, (uint32_t)offset);
	if (rc == EX_AUTH && c->e.rc != 0x38) {
		err_set(&c->e, EX_AUTH, "the %s value is wrong%s (the failure "
			"counts toward the lockout)", x.by == TPM12_NV_BY_INDEX
			? "index's" : "owner", auth_s || owner_s ? "" : ": the "
			"well-known secret was tried");
		err_hint(&c->e, "give it with %s (SHA-1 of the value is the "
			 "auth, as tpm-tools makes it from a password)",
			 x.by == TPM12_NV_BY_INDEX ? "--auth" : "--owner-auth");
	} else if (rc && c->e.rc == 0x2d) {	/* TPM_BAD_PRESENCE */
		err_set(&c->e, EX_AUTH, "NV index 0x%08x has PPWRITE: writing "
			"it needs physical presence, which is not asserted",
			index);
		err_hint(&c->e, "the platform asserts physical presence (a "
			 "firmware menu or the physical presence interface); "
			 "tpmbox does not");
	} else if (rc && (c->e.rc == 0x3c || c->e.rc == 0x41)) {
		/* the lock by the permission whose flag is set (a 0-byte
		 * write may set both flags: swtpm does) */
		err_set(&c->e, EX_FAIL, "NV index 0x%08x is write-locked%s",
			index, (p.perm & TPM12_NV_PER_WRITEDEFINE) &&
			p.write_define ? " for good (WRITEDEFINE)" :
			(p.perm & TPM12_NV_PER_WRITE_STCLEAR) &&
			p.write_stclear ? " until the next TPM startup "
			"(WRITE_STCLEAR)" : (p.perm & TPM12_NV_PER_GLOBALLOCK) ?
			" until the next TPM startup (GLOBALLOCK)" : "");
	}
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

static int run(struct ctx *c, int argc, char **argv)
{
	const char *in = "-", *auth_s = NULL, *owner_s = NULL;
	uint32_t index_max, buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint64_t offset = 0;
	uint8_t *data;
	size_t n;
	struct tpm *t;
	int o, rc, lock = 0;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'i': in = optarg; break;
		case 'F':
			if (parse_u64(optarg, &offset) || offset > 0xffff)
				return ctx_usage(c, "bad offset '%s'", optarg);
			break;
		case 'A': auth_s = optarg; break;
		case 'O': owner_s = optarg; break;
		case 'L': lock = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one NV index");
	if (auth_s && owner_s)
		return ctx_usage(c, "give --auth or --owner-auth, not both");
	if (lock && (offset || (in && strcmp(in, "-"))))
		return ctx_usage(c, "--lock writes no data: it takes no -i or "
				 "--offset");
	/* The family decides the job (TPM 1.2 indices and authorization
	 * differ); with an SRK pin the salted session's first answer tells
	 * it, and a 1.2 is a usage error. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) || !(o = tpm_family(t)))
		return ctx_fail(c);
	if (o == TPM_FAMILY_12)
		return write12(c, t, argv[optind], in, offset, lock, auth_s,
			       owner_s);
	if (lock)
		return ctx_usage(c, "--lock is for a TPM 1.2 (a TPM 2.0 locks "
				 "with TPM2_NV_WriteLock, which nvwrite does "
				 "not send)");
	if (nv_index_parse(argv[optind], &p.index, &c->e))
		return ctx_usage(c, "%s", c->e.msg);

	/* Step 1: what the index is. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p) ||
	    tpm2_nv_limits(t, &index_max, &buffer_max))
		return ctx_fail(c);
	if (nv_type(p.attrs) != TPM2_NT_ORDINARY)
		return ctx_usage(c, "NV index 0x%08x is a %s index: use %s",
				 p.index, nv_type_name(nv_type(p.attrs)),
				 nv_type(p.attrs) == TPM2_NT_COUNTER ?
				 "nvincrement" : nv_type(p.attrs) ==
				 TPM2_NT_EXTEND ? "nvextend" : nv_type(p.attrs)
				 == TPM2_NT_BITS ? "nvsetbits" : "another tool");
	if (offset >= p.size)
		return ctx_usage(c, "offset %llu is past the end of NV index "
				 "0x%08x (%u bytes)",
				 (unsigned long long)offset, p.index, p.size);

	/* Step 2: the data, which must fit from the offset on. */
	if (file_read(in, p.size - offset, &data, &n, &c->e)) {
		if (c->e.code == EX_USAGE)
			return ctx_usage(c, "the data does not fit: NV index "
					 "0x%08x holds %u bytes and the write "
					 "starts at offset %llu", p.index,
					 p.size, (unsigned long long)offset);
		return ctx_fail(c);
	}
	if (n == 0) {
		free(data);
		return ctx_usage(c, "no data to write");
	}
	if ((p.attrs & TPMA_NV_WRITEALL) && (offset != 0 || n != p.size)) {
		explicit_bzero(data, n);
		free(data);
		return ctx_usage(c, "NV index 0x%08x has writeall: write all "
				 "%u bytes at offset 0", p.index, p.size);
	}

	/* Step 3: write it in chunks. */
	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.chunk = buffer_max;
	rc = nv_auth_begin(t, &x, &na, NV_OP_WRITE, auth_s,
			   owner_s);
	if (!rc)
		rc = tpm2_nv_write(t, &x, data, n, (size_t)offset);
	rc = nv_auth_end(t, &na, rc);
	explicit_bzero(data, n);
	free(data);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvwrite = {
	"nvwrite", "write data into an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
