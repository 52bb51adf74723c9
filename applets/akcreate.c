/* akcreate: make an attestation key under the SRK. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/pk.h"
#include "fmt/quote12.h"
#include "job/attest.h"
#include "job/key.h"
#include "job/tpm.h"
#include "job/tpm12quote.h"
#include "tpm12/da.h"
#include "tpm2/object.h"

static const char usage[] =
	"usage: akcreate -o AKBLOB [--pub PEM] [--tpm-public FILE] "
	"[--name FILE]\n"
	"                [--rsa] [--owner-auth AUTH] [-f]\n"
	"Create a restricted signing key (an attestation key) under the SRK "
	"and\n"
	"print its name.  ECC P-256 with ECDSA-SHA256 by default.\n"
	"  -o AKBLOB  write the key (TSS2 PRIVATE KEY PEM, loadable under "
	"the SRK)\n"
	"  --pub PEM  also write its public key (PEM) for the verifier\n"
	"  --tpm-public FILE  also write its TPM2B_PUBLIC (tpm2_create -u "
	"format):\n"
	"             checkquote -k then checks the key's attributes and\n"
	"             qualifiedSigner, not only the signature\n"
	"  --name FILE  also write its name (binary, as tpm2_readpublic -n)\n"
	"  --rsa      RSA-2048 with RSASSA-SHA256 instead\n"
	"  --owner-auth AUTH  owner auth, needed to create the SRK when no "
	"persistent\n"
	"             one exists and the owner has an auth value\n"
	"  -f         replace existing output files\n"
	"  --srk-auth AUTH  TPM 1.2: the SRK's value (default: the well-known\n"
	"             secret, as tpm_takeownership -z)\n"
	"On a TPM 1.2: TPM_MakeIdentity (no Privacy CA: the AIK quotes at "
	"once)\n"
	"makes an RSA-2048 AIK with the owner value (--owner-auth; SHA-1 of\n"
	"each AUTH, as tpm-tools makes it from a password; the well-known\n"
	"secret by default).  AKBLOB is its TPM_KEY, as tpm_mkaik writes it;\n"
	"--pub works as on a TPM 2.0; prints the SHA-1 of its TPM_PUBKEY.\n"
	"--tpm-public and --name are TPM 2.0's.\n";

enum { O_PUB = 256, O_RSA, O_OWNER, O_TPMPUB, O_NAME, O_SRKAUTH };
static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{"pub", required_argument, NULL, O_PUB},
	{"tpm-public", required_argument, NULL, O_TPMPUB},
	{"name", required_argument, NULL, O_NAME},
	{"rsa", no_argument, NULL, O_RSA},
	{"owner-auth", required_argument, NULL, O_OWNER},
	{"force", no_argument, NULL, 'f'},
	{"srk-auth", required_argument, NULL, O_SRKAUTH},
	{NULL, 0, NULL, 0}
};

/* TPM 1.2: TPM_MakeIdentity (job/tpm12quote.h), the blob, the public key,
 * the key's SHA-1. */
static int akcreate12(struct ctx *c, struct tpm *t,
		      const struct key_outs *ko, const struct authval *oa,
		      const char *srk_s)
{
	struct tpm12_aik *aik = calloc(1, sizeof(*aik));
	uint8_t owner[20], srk[20], h[20];
	struct authval sv;
	char hex[41], *pem = NULL;
	size_t pn;
	int rc = 0;

	if (!aik)
		return ctx_usage(c, "out of memory");
	if (srk_s && auth_parse(srk_s, &sv, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	tpm12_auth_value(oa, owner);
	tpm12_auth_value(srk_s ? &sv : NULL, srk);
	if (srk_s)
		auth_wipe(&sv);
	if (tpm12_make_identity(t, srk, owner, aik)) {
		if (c->e.code == EX_AUTH)
			err_hint(&c->e, "%s", c->e.rc == 0x1d ?
				 "give the owner value with --owner-auth (the "
				 "failure counts toward the dictionary-attack "
				 "lockout)" : "give the SRK value with "
				 "--srk-auth");
		rc = ctx_fail(c);
		goto done;
	}
	if (ko->pub && pk_pem_rsa(aik->pub.pub, aik->pub.publen,
			       tpm12_rsa_exponent(&aik->pub.parms), &pem,
			       &pn)) {
		err_set(&c->e, EX_FAIL, "cannot encode the AIK's public key "
			"as PEM");
		rc = ctx_fail(c);
		goto done;
	}
	if (file_write_atomic(ko->key, aik->blob, aik->bloblen,
			      ko->flags | OUT_SECRET, &c->e) ||
	    (ko->pub && file_write_atomic(ko->pub, pem, pn, ko->flags,
					  &c->e))) {
		rc = ctx_fail(c);
		goto done;
	}
	quote12_key_hash(&aik->pub, h);
	hex_encode(h, 20, hex);
	printf("%s\n", hex);
done:
	explicit_bzero(owner, sizeof(owner));
	explicit_bzero(srk, sizeof(srk));
	explicit_bzero(aik, sizeof(*aik));
	free(aik);
	free(pem);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *owner_s = NULL, *srk_s = NULL;
	struct key_outs ko = { .key = NULL };
	struct tpm2_public *pub = NULL;
	struct ak_blob *blob = NULL;
	struct authval oa = { .n = 0 };
	int rsa = 0, o, rc = 0, fam = 0;
	char name[2 * TPM2_NAME_MAX + 1];
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'o': ko.key = optarg; break;
		case O_PUB: ko.pub = optarg; break;
		case O_TPMPUB: ko.tpm_public = optarg; break;
		case O_NAME: ko.name = optarg; break;
		case O_RSA: rsa = 1; break;
		case O_OWNER: owner_s = optarg; break;
		case 'f': ko.flags |= OUT_FORCE; break;
		case O_SRKAUTH: srk_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		return rc;
	if (!ko.key)
		return ctx_usage(c, "-o AKBLOB is required");
	if (owner_s && auth_parse(owner_s, &oa, &c->e))
		return ctx_fail(c);
	if ((rc = ctx_outs_new(c, ko.flags,
			       (const char *const[]){ ko.key, ko.pub,
						      ko.tpm_public, ko.name },
			       4)))
		return rc;
	/* Step 1: the family, which decides the job (a TPM 1.2 makes an AIK
	 * with TPM_MakeIdentity).  Known already (a device, or an SRK pin's
	 * salted session, where a 1.2 is a usage error), or asked only for
	 * --srk-auth; else the 2.0 job's first command tells it: a 1.2
	 * refuses it having done nothing. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    (srk_s ? !(fam = tpm_family_confirm(t, TPM_FAMILY_12)) :
	     ((fam = tpm_family_known(t)), 0))) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 2: the AK, made under the SRK. */
	if (fam != TPM_FAMILY_12) {
		if (srk_s) {
			rc = ctx_usage(c, "--srk-auth is for a TPM 1.2 (a TPM "
				       "2.0's standard SRK has no value)");
			goto done;
		}
		pub = malloc(sizeof(*pub));
		blob = malloc(sizeof(*blob));
		if (!pub || !blob) {
			rc = ctx_usage(c, "out of memory");
			goto done;
		}
		rc = ak_create(t, rsa, oa.v, oa.n, blob, pub);
		if (tpm_answered_12(t, rc, fam))
			fam = TPM_FAMILY_12;
		else if (rc)
			goto fail;
	}
	if (fam == TPM_FAMILY_12) {
		if (ko.tpm_public || ko.name)
			rc = ctx_usage(c, "this TPM is a TPM 1.2: --tpm-public "
				       "and --name are TPM 2.0's (its AIK blob "
				       "holds the public key)");
		else
			rc = akcreate12(c, t, &ko, owner_s ? &oa : NULL,
				       srk_s);
		goto done;
	}
	/* Step 3: its files, and its name. */
	if (key_blob_write(&ko, blob, pub, &c->e))
		goto fail;
	hex_encode(pub->name, pub->namelen, name);
	printf("%s\n", name);
	goto done;
fail:
	rc = ctx_fail(c);
done:
	auth_wipe(&oa);
	if (blob)
		explicit_bzero(blob, sizeof(*blob));
	free(blob);
	free(pub);
	return rc;
}

const struct applet applet_akcreate = {
	"akcreate", "create an attestation key (restricted signing key)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
