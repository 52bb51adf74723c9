/* nvread: read data from an NV index. */
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
	"usage: nvread INDEX [-s SIZE] [--offset N] [-o FILE] [-f] [--hex]\n"
	"              [--auth AUTH | --owner-auth AUTH]\n"
	"Read SIZE bytes of NV index INDEX from offset N, in as many\n"
	"TPM2_NV_Read commands as TPM_PT_NV_BUFFER_MAX needs.\n"
	"  -s SIZE    bytes to read (default: from the offset to the end)\n"
	"  --offset N  first byte to read (default 0)\n"
	"  -o FILE    write to FILE atomically (mode 0600; default stdout)\n"
	"  -f         replace FILE if it exists\n"
	"  --hex      print lowercase hex and a newline instead of raw bytes\n"
	"  --auth AUTH  authorize with the index's auth value (str:, hex:, "
	"file:, env:)\n"
	"  --owner-auth AUTH  authorize with the owner's auth value\n"
	"Without --auth or --owner-auth the index's own (empty) auth value "
	"is\nused when authread is set, else the owner's.\n"
	"On a TPM 1.2 (TPM_NV_ReadValue, or TPM_NV_ReadValueAuth with the\n"
	"index's value; OSAP, every answer's HMAC checked; chunks of the\n"
	"TPM's input buffer, TPM_CAP_PROP_INPUT_BUFFER, less 128 bytes):\n"
	"--auth needs AUTHREAD, --owner-auth OWNERREAD; without either the\n"
	"index's rule with the well-known secret (20 zero bytes), or no\n"
	"authorization when it asks for none.  AUTH values are SHA-1 of the\n"
	"AUTH's bytes, as tpm-tools makes them from a password.  A 1.2 index\n"
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
	{"auth", required_argument, NULL, 'A'},
	{"owner-auth", required_argument, NULL, 'O'},
	{"lock", no_argument, NULL, 'L'},
	{NULL, 0, NULL, 0}
};

/* The bytes read, to FILE or stdout, raw or as hex; data is wiped. */
static int output(struct ctx *c, uint8_t *data, size_t size, const char *out,
		  int flags, int ashex)
{
	char *text = NULL;
	int rc;

	if (ashex) {
		if (!(text = malloc(size * 2 + 2))) {
			explicit_bzero(data, size);
			free(data);
			return ctx_usage(c, "out of memory");
		}
		hex_encode(data, size, text);
		strcat(text, "\n");
	}
	rc = file_write_atomic(out, ashex ? (uint8_t *)text : data,
			       ashex ? size * 2 + 1 : size, flags, &c->e);
	explicit_bzero(data, size);
	free(data);
	if (text) {
		explicit_bzero(text, size * 2 + 1);
		free(text);
	}
	return rc ? ctx_fail(c) : 0;
}

/* TPM 1.2: the index's public part (unauthenticated, as tpm_nvinfo
 * reads it), who authorizes, then the data in chunks. */
static int read12(struct ctx *c, struct tpm *t, const char *index_s,
		  const char *size_s, uint64_t size, uint64_t offset,
		  const char *out, int flags, int ashex, int lock,
		  const char *auth_s, const char *owner_s)
{
	struct tpm12_nv_access x;
	struct tpm12_nv_public p;
	uint32_t index;
	uint8_t *data;
	int rc;

	/* Step 1: what the index is, whether the range fits, and who
	 * authorizes. */
	if (tpm12_nv_index_parse(index_s, &index, &c->e))
		return ctx_fail(c);
	if (tpm12_nv_public(t, index, &p)) {
		if (c->e.code == EX_NOENT)
			err_set(&c->e, EX_NOENT, "NV index 0x%08x is not "
				"defined", index);
		return ctx_fail(c);
	}
	if (lock && !(p.perm & TPM12_NV_PER_READ_STCLEAR))
		return ctx_usage(c, "NV index 0x%08x has no READ_STCLEAR: "
				 "--lock would change nothing", index);
	if (!lock && offset >= p.size)
		return ctx_usage(c, "offset %llu is past the end of NV index "
				 "0x%08x (%u bytes)",
				 (unsigned long long)offset, index, p.size);
	if (lock)
		size = 0;
	else if (!size_s)
		size = p.size - offset;
	if (size > p.size - offset)
		return ctx_usage(c, "%llu bytes at offset %llu go past the "
				 "end of NV index 0x%08x (%u bytes)",
				 (unsigned long long)size,
				 (unsigned long long)offset, index, p.size);
	if (tpm12_nv_access_pick(&p, 0, auth_s, owner_s, &x, &c->e))
		return ctx_fail(c);

	/* Step 2: read it in chunks. */
	if (!(data = malloc(size ? size : 1))) {
		explicit_bzero(&x, sizeof(x));
		return ctx_usage(c, "out of memory");
	}
	rc = tpm12_nv_chunk(t, &x.chunk);
	if (!rc)
		rc = tpm12_nv_read(t, &x, data, size, (uint32_t)offset);
	explicit_bzero(x.auth, sizeof(x.auth));
	if (rc == EX_AUTH && c->e.rc != 0x38) {
		err_set(&c->e, EX_AUTH, "the %s value is wrong%s (the failure "
			"counts toward the lockout)", x.by == TPM12_NV_BY_INDEX
			? "index's" : "owner", auth_s || owner_s ? "" : ": the "
			"well-known secret was tried");
		err_hint(&c->e, "give it with %s (SHA-1 of the value is the "
			 "auth, as tpm-tools makes it from a password)",
			 x.by == TPM12_NV_BY_INDEX ? "--auth" : "--owner-auth");
	} else if (rc && c->e.rc == 0x2d) {	/* TPM_BAD_PRESENCE */
		err_set(&c->e, EX_AUTH, "NV index 0x%08x has PPREAD: reading "
			"it needs physical presence, which is not asserted",
			index);
		err_hint(&c->e, "the platform asserts physical presence (a "
			 "firmware menu or the physical presence interface); "
			 "tpmbox does not");
	} else if (rc && (p.perm & TPM12_NV_PER_READ_STCLEAR) &&
		   (c->e.rc == 0x08 || c->e.rc == 0x3c)) {
		/* TPM_DISABLED_CMD, as the spec has it (and swtpm); a
		 * TPM_AREA_LOCKED from others */
		err_set(&c->e, EX_FAIL, "NV index 0x%08x is read-locked until "
			"the next TPM startup (READ_STCLEAR)", index);
	}
	if (rc) {
		explicit_bzero(data, size);	/* a chunk may have arrived */
		free(data);
		return ctx_fail(c);
	}

	/* Step 3: write it out, raw or as hex (--lock: nothing). */
	if (lock) {
		free(data);
		return 0;
	}
	return output(c, data, size, out, flags, ashex);
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *out = "-", *auth_s = NULL, *owner_s = NULL;
	const char *size_s = NULL;
	uint32_t index_max, buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint64_t offset = 0, size = 0;
	int flags = OUT_SECRET, ashex = 0, o, rc;
	uint8_t *data;
	struct tpm *t;
	int lock = 0;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 's':
			size_s = optarg;
			if (parse_u64(optarg, &size) || size == 0 ||
			    size > 0xffff)
				return ctx_usage(c, "bad size '%s'", optarg);
			break;
		case 'F':
			if (parse_u64(optarg, &offset) || offset > 0xffff)
				return ctx_usage(c, "bad offset '%s'", optarg);
			break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		case 'x': ashex = 1; break;
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
	if (lock && (size_s || offset || ashex || (out && strcmp(out, "-"))))
		return ctx_usage(c, "--lock reads no data: it takes no -s, "
				 "--offset, -o or --hex");
	/* The family decides the job (TPM 1.2 indices and authorization
	 * differ); with an SRK pin the salted session's first answer tells
	 * it, and a 1.2 is a usage error. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) || !(o = tpm_family(t)))
		return ctx_fail(c);
	if (o == TPM_FAMILY_12)
		return read12(c, t, argv[optind], size_s, size, offset, out,
			      flags, ashex, lock, auth_s, owner_s);
	if (lock)
		return ctx_usage(c, "--lock is for a TPM 1.2 (a TPM 2.0 locks "
				 "with TPM2_NV_ReadLock, which nvread does not "
				 "send)");
	if (nv_index_parse(argv[optind], &p.index, &c->e))
		return ctx_usage(c, "%s", c->e.msg);

	/* Step 1: what the index is, and whether the range fits. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_nv_readpublic(t, p.index, &p) ||
	    tpm2_nv_limits(t, &index_max, &buffer_max))
		return ctx_fail(c);
	if (offset >= p.size)
		return ctx_usage(c, "offset %llu is past the end of NV index "
				 "0x%08x (%u bytes)",
				 (unsigned long long)offset, p.index, p.size);
	if (!size_s)
		size = p.size - offset;
	if (size > p.size - offset)
		return ctx_usage(c, "%llu bytes at offset %llu go past the "
				 "end of NV index 0x%08x (%u bytes)",
				 (unsigned long long)size,
				 (unsigned long long)offset, p.index, p.size);

	/* Step 2: the authorization, then whether there is anything to
	 * read, then read it in chunks. */
	if (!(data = malloc(size)))
		return ctx_usage(c, "out of memory");
	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.chunk = buffer_max;
	if ((rc = nv_auth_begin(t, &x, &na, NV_OP_READ, auth_s,
				 owner_s)) == 0 &&
	    !(p.attrs & TPMA_NV_WRITTEN)) {
		rc = err_set(&c->e, EX_FAIL, "NV index 0x%08x has not been "
			     "written yet: there is nothing to read", p.index);
		err_hint(&c->e, "write it first (nvwrite, nvincrement, "
			 "nvextend or nvsetbits by its type)");
	}
	if (!rc)
		rc = tpm2_nv_read(t, &x, data, size, (size_t)offset);
	rc = nv_auth_end(t, &na, rc);
	if (rc) {
		explicit_bzero(data, size);	/* a chunk may have arrived */
		free(data);
		return ctx_fail(c);
	}

	/* Step 3: write it out, raw or as hex. */
	return output(c, data, size, out, flags, ashex);
}

const struct applet applet_nvread = {
	"nvread", "read data from an NV index", APPLET_USAGE(usage), run,
	shortopts, longopts, APPLET_PIN
};
