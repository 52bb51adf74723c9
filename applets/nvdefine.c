/* nvdefine: define an NV index. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "job/nv.h"
#include "job/tpm.h"
#include "tpm12/nv.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/pcr.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: nvdefine INDEX [-s SIZE] [-a ATTRS] [-t TYPE] [-g HASH]\n"
	"                [--auth AUTH] [--owner-auth AUTH] "
	"[--allow-irreversible]\n"
	"Define NV index INDEX (0x01000000-0x01ffffff, hex or decimal).\n"
	"  -s SIZE    data size in bytes (required for ordinary indices; "
	"counter,\n"
	"             bits: 8; extend: the HASH digest size)\n"
	"  -a ATTRS   attributes in tpm2-tools' syntax, e.g. "
	"ownerread|ownerwrite\n"
	"             (default ownerread|ownerwrite|authread|authwrite)\n"
	"  -t TYPE    ordinary (default), counter, bits or extend\n"
	"  -g HASH    name algorithm, and the extend hash (default sha256)\n"
	"  --auth AUTH  the index's auth value (str:, hex:, file:, env:)\n"
	NV_USAGE_HIER
	"  --allow-irreversible  permit policydelete, writedefine, "
	"write_stclear,\n"
	"             read_stclear, globallock and platformcreate\n"
	"On a TPM 1.2 (TPM_NV_DefineSpace, owner-authorized over OSAP, the\n"
	"index's value ADIP-encrypted): INDEX is any 32-bit index but the D\n"
	"bit (0x10000000), 0 and 0xffffffff; -a takes tpm-tools' names (as\n"
	"tpm_nvdefine -p; case ignored, numbers too): OWNERREAD, OWNERWRITE,\n"
	"AUTHREAD, AUTHWRITE, PPREAD, PPWRITE, WRITEDEFINE, WRITE_STCLEAR,\n"
	"READ_STCLEAR, GLOBALLOCK, WRITEALL (default AUTHREAD|AUTHWRITE with\n"
	"--auth, else OWNERREAD|OWNERWRITE); the last five but WRITEALL need\n"
	"--allow-irreversible.  AUTH values are SHA-1 of AUTH's bytes, as\n"
	"tpm-tools makes them from a password; not given: the well-known\n"
	"secret (20 zero bytes, tpm-tools' -y/-z).  -t, -g and\n"
	"--platform-auth have no TPM 1.2 meaning.\n";

#define DEFAULT_ATTRS (TPMA_NV_OWNERREAD | TPMA_NV_OWNERWRITE | \
		       TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE)

static const char shortopts[] = "s:a:t:g:";
static const struct option longopts[] = {
	{"size", required_argument, NULL, 's'},
	{"attributes", required_argument, NULL, 'a'},
	{"type", required_argument, NULL, 't'},
	{"hash", required_argument, NULL, 'g'},
	NV_LONGOPT_AUTH,
	NV_LONGOPT_OWNER,
	NV_LONGOPT_PLATFORM,
	{"allow-irreversible", no_argument, NULL, 'I'},
	{NULL, 0, NULL, 0}
};

/* TPM 1.2: the index, permissions and size checked here, then
 * TPM_NV_DefineSpace with the owner value. */
static int define12(struct ctx *c, struct tpm *t, const struct nv_opts *n,
		    const char *size_s, const char *attr_s, int irrev)
{
	const uint32_t locks = TPM12_NV_PER_WRITEDEFINE |
		TPM12_NV_PER_WRITE_STCLEAR | TPM12_NV_PER_READ_STCLEAR |
		TPM12_NV_PER_GLOBALLOCK;
	struct tpm12_nv_public p, old;
	uint8_t owner[20], auth[20];
	uint32_t index = n->index, perm;
	uint64_t size;
	char list[256];
	int rc;

	/* Step 1: index, permissions and size. */
	if (index == TPM12_NV_INDEX_LOCK || index == TPM12_NV_INDEX0)
		return ctx_usage(c, "NV index 0x%08x is not an area: %s",
				 index, index ? "defining TPM_NV_INDEX_LOCK "
				 "turns NV permission checks on for good, and "
				 "tpmbox does not send that" : "a write of no "
				 "bytes to TPM_NV_INDEX0 sets the global lock "
				 "(nvwrite 0 --lock)");
	if (index & TPM12_NV_INDEX_D)
		return ctx_usage(c, "NV index 0x%08x has the D bit (0x10000000)"
				 ": such indices are made by the TPM's maker, "
				 "never by TPM_NV_DefineSpace", index);
	perm = n->auth_s ? TPM12_NV_PER_AUTHREAD | TPM12_NV_PER_AUTHWRITE
			 : TPM12_NV_PER_OWNERREAD | TPM12_NV_PER_OWNERWRITE;
	if (attr_s && tpm12_nv_perm_parse(attr_s, &perm, &c->e))
		return ctx_fail(c);
	if (perm & ~TPM12_NV_PER_ALL)
		return ctx_usage(c, "permission bits 0x%08x are not TPM 1.2 NV "
				 "permissions", perm & ~TPM12_NV_PER_ALL);
	if ((perm & TPM12_NV_PER_OWNERREAD) && (perm & TPM12_NV_PER_AUTHREAD))
		return ctx_usage(c, "OWNERREAD and AUTHREAD exclude each other "
				 "on a TPM 1.2 (TPM_AUTH_CONFLICT)");
	if ((perm & TPM12_NV_PER_OWNERWRITE) &&
	    (perm & TPM12_NV_PER_AUTHWRITE))
		return ctx_usage(c, "OWNERWRITE and AUTHWRITE exclude each "
				 "other on a TPM 1.2 (TPM_AUTH_CONFLICT)");
	if ((perm & locks) && !irrev) {
		tpm12_nv_perm_format(perm & locks, list, sizeof(list));
		return ctx_usage(c, "%s can lock the index (for good, or until "
				 "the next TPM startup); add "
				 "--allow-irreversible if that is what you "
				 "want", list);
	}
	if (!size_s)
		return ctx_usage(c, "a TPM 1.2 index needs -s SIZE");
	if (parse_u64(size_s, &size) || size > 0xffff)
		return ctx_usage(c, "bad size '%s'", size_s);
	if (size == 0)
		return ctx_usage(c, "SIZE must be at least 1 (a size of 0 "
				 "releases an index: nvrelease)");
	tpm12_nv_public_init(&p, index, perm, (uint32_t)size);

	/* Step 2: the values, SHA-1 of AUTH's bytes (tpm-tools' rule). */
	if (tpm12_nv_auth_value(n->owner_s, owner, &c->e))
		return ctx_fail(c);
	if (tpm12_nv_auth_value(n->auth_s, auth, &c->e)) {
		explicit_bzero(owner, sizeof(owner));
		return ctx_fail(c);
	}

	/* Step 3: define it, unless it is: a TPM 1.2 would replace an
	 * index defined already, its data lost. */
	rc = tpm12_nv_public(t, index, &old);
	if (rc == 0) {
		rc = err_set(&c->e, EX_FAIL, "NV index 0x%08x is defined "
			     "already (%u bytes): a TPM 1.2 would replace it "
			     "and lose its data", index, old.size);
		err_hint(&c->e, "nvrelease it first if that is what you want");
	} else if (rc == EX_NOENT) {
		err_clear(&c->e);
		rc = tpm12_nv_define(t, owner, auth, &p);
		rc = tpm12_nv_refused(&c->e, rc, TPM12_NV_OP_DEFINE,
				      TPM12_NV_BY_OWNER, n->owner_s != NULL,
				      index);
	}
	explicit_bzero(owner, sizeof(owner));
	explicit_bzero(auth, sizeof(auth));
	return rc ? ctx_fail(c) : 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *size_s = NULL, *attr_s = NULL, *type_s = NULL;
	const char *hash_s = NULL, *hier_s;
	struct authval av;
	struct nv_opts no;
	struct nv_auth na;
	struct nv_public p;
	uint32_t attrs = DEFAULT_ATTRS, index_max, buffer_max, hier, bad;
	int irrev = 0, type = -1, o, rc;
	uint64_t size = 0;
	char list[256];
	struct tpm *t;

	memset(&no, 0, sizeof(no));
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (nv_opt(&no, o, optarg))
			continue;
		switch (o) {
		case 's': size_s = optarg; break;
		case 'a': attr_s = optarg; break;
		case 't': type_s = optarg; break;
		case 'g': hash_s = optarg; break;
		case 'I': irrev = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (nv_operands(&no, argc, argv, NULL, 0, &c->e))
		return ctx_fail(c);
	/* The family decides the job (TPM 1.2 indices, attributes and
	 * authorization differ, and how INDEX reads). */
	if (!(t = ctx_tpm(c)) || nv_open(&no, t))
		return ctx_fail(c);
	if (no.family == TPM_FAMILY_12) {
		if (type_s || hash_s)
			return ctx_usage(c, "this TPM is a TPM 1.2: its NV "
					 "indices have no %s", type_s ? "types "
					 "(-t)" : "name algorithm (-g)");
		return define12(c, t, &no, size_s, attr_s, irrev);
	}
	memset(&p, 0, sizeof(p));
	p.index = no.index;

	/* Step 1: attributes, type, name algorithm and size, checked here
	 * so the TPM's refusals are the rare ones. */
	if (attr_s && nv_attr_parse(attr_s, &attrs, &c->e))
		return ctx_usage(c, "%s", c->e.msg);
	if (type_s) {
		type = nv_type_parse(type_s);
		if (type < 0 || type == TPM2_NT_PIN_FAIL ||
		    type == TPM2_NT_PIN_PASS)
			return ctx_usage(c, "unknown type '%s' (ordinary, "
					 "counter, bits, extend)", type_s);
		if (attr_s && (attrs & TPMA_NV_TPM_NT_MASK) &&
		    nv_type(attrs) != (unsigned)type)
			return ctx_usage(c, "-t %s disagrees with nt=%s in -a",
					 type_s, nv_type_name(nv_type(attrs)));
		attrs = (attrs & ~TPMA_NV_TPM_NT_MASK) |
			(uint32_t)type << TPMA_NV_TPM_NT_SHIFT;
	}
	type = (int)nv_type(attrs);
	p.name_alg = TPM2_ALG_SHA256;
	if (hash_s) {
		p.name_alg = alg_from_name(hash_s);
		if (!p.name_alg || !hash_supported(p.name_alg))
			return ctx_usage(c, "unknown hash '%s' (sha1, sha256, "
					 "sha384, sha512)", hash_s);
	}
	if ((bad = attrs & TPMA_NV_STATE)) {
		nv_attr_format(bad, list, sizeof(list));
		return ctx_usage(c, "%s: set by the TPM, not at definition",
				 list);
	}
	if (attrs & TPMA_NV_RESERVED)
		return ctx_usage(c, "reserved attribute bits 0x%x are set",
				 attrs & TPMA_NV_RESERVED);
	if (!(attrs & TPMA_NV_ANYREAD) || !(attrs & TPMA_NV_ANYWRITE))
		return ctx_usage(c, "the index needs a read and a write "
				 "authorization (one of ppread, ownerread, "
				 "authread, policyread and one of ppwrite, "
				 "ownerwrite, authwrite, policywrite)");
	if ((bad = attrs & TPMA_NV_IRREVERSIBLE) && !irrev) {
		nv_attr_format(bad, list, sizeof(list));
		return ctx_usage(c, "%s cannot be undone or lock the index "
				 "for good; add --allow-irreversible if that "
				 "is what you want", list);
	}
	if ((attrs & TPMA_NV_POLICY_DELETE) &&
	    !(attrs & TPMA_NV_PLATFORMCREATE))
		return ctx_usage(c, "policydelete needs platformcreate: only "
				 "the platform defines such indices");
	if (nv2_hier(&no, p.index, attrs, &hier, &hier_s, &c->e))
		return ctx_fail(c);
	if (size_s && (parse_u64(size_s, &size) || size > 0xffff))
		return ctx_usage(c, "bad size '%s'", size_s);
	switch (type) {
	case TPM2_NT_ORDINARY:
		if (!size_s)
			return ctx_usage(c, "an ordinary index needs -s SIZE");
		if (size == 0)
			return ctx_usage(c, "SIZE must be at least 1");
		break;
	case TPM2_NT_COUNTER:
	case TPM2_NT_BITS:
	case TPM2_NT_PIN_FAIL:
	case TPM2_NT_PIN_PASS:
		if (size_s && size != 8)
			return ctx_usage(c, "a %s index holds 8 bytes, not "
					 "%s", nv_type_name((unsigned)type),
					 size_s);
		size = 8;
		break;
	case TPM2_NT_EXTEND:
		if (size_s && size != hash_size(p.name_alg))
			return ctx_usage(c, "an extend index with %s holds %zu"
					 " bytes, not %s",
					 alg_name(p.name_alg),
					 hash_size(p.name_alg), size_s);
		size = hash_size(p.name_alg);
		break;
	default:
		return ctx_usage(c, "index type 0x%x is not one tpmbox "
				 "defines", (unsigned)type);
	}
	p.attrs = attrs;
	p.size = (uint16_t)size;

	/* Step 2: the TPM's limit. */
	if (tpm2_trust_begin(t) || tpm2_nv_limits(t, &index_max, &buffer_max))
		return ctx_fail(c);
	if (size > index_max)
		return ctx_usage(c, "SIZE %llu is above this TPM's "
				 "TPM_PT_NV_INDEX_MAX (%u bytes)",
				 (unsigned long long)size, index_max);

	/* Step 3: define it.  The new auth value travels encrypted, and a
	 * hierarchy value given here keys an HMAC instead of crossing the
	 * bus (both over a session salted to the SRK). */
	memset(&av, 0, sizeof(av));
	if (no.auth_s && auth_parse(no.auth_s, &av, &c->e))
		return ctx_fail(c);
	rc = nv_hier_auth_begin(t, &na, hier, hier_s, no.auth_s != NULL);
	if (!rc)
		rc = tpm2_nv_define(t, hier, &na.a, av.v, av.n, &p);
	rc = nv_auth_end(t, &na, rc);
	auth_wipe(&av);
	return rc ? ctx_fail(c) : 0;
}

const struct applet applet_nvdefine = {
	"nvdefine", "define an NV index", APPLET_USAGE(usage), run, shortopts,
	longopts, APPLET_PIN
};
