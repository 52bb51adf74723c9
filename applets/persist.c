/* persist: make the SRK, the EK or a key from a key file persistent
 * (TPM2_EvictControl with the owner hierarchy). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "job/attest.h"
#include "tpm2/cmd.h"
#include "tpm2/ek.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/persist.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: persist (--srk | --ek | HANDLE -k KEYFILE) [--rsa | --ecc]\n"
	"               [--owner-auth AUTH] [--endorsement-auth AUTH] [--force]\n"
	"Make an object persistent (TPM2_EvictControl, owner hierarchy):\n"
	"  --srk      the standard SRK at 0x81000001 (ECC P-256, or --rsa)\n"
	"  --ek       the EK of the TCG template at 0x81010001 (--rsa, the\n"
	"             default) or 0x81010002 (--ecc)\n"
	"  HANDLE -k KEYFILE  the key of a loadable key file (akcreate -o)\n"
	"             at HANDLE (0x81000000-0x817fffff)\n"
	"  --owner-auth AUTH  the owner auth value (keys a salted session)\n"
	"  --endorsement-auth AUTH  the endorsement value, for --ek (the\n"
	"             same way)\n"
	"  --force    replace another object at the handle (else exit 1)\n"
	"The same object already there: nothing is sent, exit 0.\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

static const char shortopts[] = "k:";
static const struct option longopts[] = {
	{ "srk", no_argument, NULL, 's' },
	{ "ek", no_argument, NULL, 'e' },
	{ "rsa", no_argument, NULL, 'r' },
	{ "ecc", no_argument, NULL, 'c' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ "endorsement-auth", required_argument, NULL, 'E' },
	{ "force", no_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

/* The object to persist, loaded: made from its template, or the key
 * file's key loaded under its SRK. */
static int load_object(struct ctx *c, struct tpm *t, int what, int rsa,
		       const char *keyf, const char *owner_spec,
		       const char *endo_spec, uint32_t *h,
		       struct tpm2_public *pub)
{
	struct tpm2_public tmpl;
	struct ak_blob blob;
	struct nv_auth na;
	int rc;

	if (what == 'k')
		return (ak_blob_read(keyf, &blob, &c->e) ||
			ak_load(t, &blob, NULL, 0, h, pub)) ? c->e.code : 0;
	if (what == 's') {
		tpm2_srk_template(&tmpl, rsa);
		if (nv_hier_auth_begin(t, &na, TPM2_RH_OWNER, owner_spec, 0))
			return c->e.code;
		rc = tpm2_create_primary(t, TPM2_RH_OWNER, &na.a, &tmpl, NULL,
					 0, h, pub);
		auth_wipe(&na.v);
	} else {
		tpm2_ek_template(&tmpl, rsa);
		if (nv_hier_auth_begin(t, &na, TPM2_RH_ENDORSEMENT, endo_spec,
				       0))
			return c->e.code;
		rc = tpm2_create_primary(t, TPM2_RH_ENDORSEMENT, &na.a, &tmpl,
					 NULL, 0, h, pub);
		auth_wipe(&na.v);
		if (rc == EX_AUTH)
			err_hint(&c->e, "the endorsement value is %s: give it "
				 "with --endorsement-auth", endo_spec ?
				 "wrong" : "set");
	}
	if (rc)
		return rc;
	if (!tpm2_public_same_template(pub, &tmpl))
		return err_set(&c->e, EX_FAIL, "TPM2_CreatePrimary: the key "
			       "made is not the one its template asks for");
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyf = NULL, *owner_spec = NULL, *endo_spec = NULL;
	uint64_t hv = 0;
	int o, what = 0, rsa = -1, force = 0, already = 0, rc;
	struct tpm2_public *pub;
	char hx[2 * TPM2_NAME_MAX + 1];
	uint32_t handle = 0, h = 0;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 's': case 'e':
			if (what && what != o)
				return ctx_usage(c, "give one of --srk, --ek "
						 "and HANDLE -k KEYFILE");
			what = o;
			break;
		case 'k': keyf = optarg; break;
		case 'r': rsa = 1; break;
		case 'c': rsa = 0; break;
		case 'O': owner_spec = optarg; break;
		case 'E': endo_spec = optarg; break;
		case 'F': force = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (keyf) {
		if (what || optind != argc - 1 ||
		    parse_u64(argv[optind], &hv) || hv < TPM2_PERSIST_FIRST ||
		    hv > TPM2_PERSIST_LAST)
			return ctx_usage(c, "HANDLE -k KEYFILE: HANDLE is an "
					 "owner persistent handle "
					 "(0x81000000-0x817fffff)");
		what = 'k';
		handle = (uint32_t)hv;
	} else if (!what || optind != argc) {
		return ctx_usage(c, "give one of --srk, --ek and HANDLE -k "
				 "KEYFILE");
	}
	if (endo_spec && what != 'e')
		return ctx_usage(c, "--endorsement-auth is for --ek");
	if (what == 's') {
		rsa = rsa == 1;
		handle = TPM2_SRK_HANDLE;
	} else if (what == 'e') {
		rsa = rsa != 0;
		handle = rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE;
	}
	if (!(pub = calloc(1, sizeof(*pub))))
		return ctx_usage(c, "out of memory");
	/* Step 1: the object, loaded; step 2: persisted; step 3: said. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    load_object(c, t, what, rsa, keyf, owner_spec, endo_spec, &h,
			pub) ||
	    tpm2_persist(t, owner_spec, h, pub, handle, force, &already))
		rc = ctx_fail(c);
	else
		rc = 0;
	if (h)
		tpm2_flush(t, h);
	if (rc == 0) {
		hex_encode(pub->name, pub->namelen, hx);
		printf("0x%08x: %s %s (%s)\n", handle, tpm2_object_kind(pub),
		       already ? "already persisted" : "persisted", hx);
	}
	free(pub);
	return rc;
}

const struct applet applet_persist = {
	"persist", "make the SRK, the EK or a key persistent",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
