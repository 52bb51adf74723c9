/* akcreate: make an attestation key under the SRK. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "auth.h"
#include "file.h"
#include "hex.h"
#include "tpm2/attest.h"
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
	"  -f         replace existing output files\n";

enum { O_PUB = 256, O_RSA, O_OWNER, O_TPMPUB, O_NAME };
static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{"pub", required_argument, NULL, O_PUB},
	{"tpm-public", required_argument, NULL, O_TPMPUB},
	{"name", required_argument, NULL, O_NAME},
	{"rsa", no_argument, NULL, O_RSA},
	{"owner-auth", required_argument, NULL, O_OWNER},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *out = NULL, *pubf = NULL, *owner_s = NULL;
	const char *tpubf = NULL, *namef = NULL, *outs[4];
	struct tpm2_public *pub = NULL;
	struct ak_blob *blob = NULL;
	struct authval oa = { .n = 0 };
	int rsa = 0, flags = 0, o, rc = 0, i;
	char *pem = NULL, *ppem = NULL, name[2 * TPM2_NAME_MAX + 1];
	size_t pn, ppn;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'o': out = optarg; break;
		case O_PUB: pubf = optarg; break;
		case O_TPMPUB: tpubf = optarg; break;
		case O_NAME: namef = optarg; break;
		case O_RSA: rsa = 1; break;
		case O_OWNER: owner_s = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind < argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	if (!out)
		return ctx_usage(c, "-o AKBLOB is required");
	if (owner_s && auth_parse(owner_s, &oa, &c->e))
		return ctx_fail(c);
	/* Refuse before the TPM does any work. */
	outs[0] = out;
	outs[1] = pubf;
	outs[2] = tpubf;
	outs[3] = namef;
	for (i = 0; i < 4 && !(flags & OUT_FORCE); i++)
		if (outs[i] && strcmp(outs[i], "-") &&
		    access(outs[i], F_OK) == 0)
			return ctx_usage(c, "%s exists (use -f to replace "
					 "it)", outs[i]);
	pub = malloc(sizeof(*pub));
	blob = malloc(sizeof(*blob));
	if (!pub || !blob) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	if (!(t = ctx_tpm(c)) ||
	    ak_create(t, rsa, oa.v, oa.n, blob, pub) ||
	    ak_blob_encode(blob, &pem, &pn, &c->e) ||
	    (pubf && ak_pub_pem(pub, &ppem, &ppn, &c->e)) ||
	    file_write_atomic(out, pem, pn, flags | OUT_SECRET, &c->e) ||
	    (pubf && file_write_atomic(pubf, ppem, ppn, flags, &c->e)) ||
	    (tpubf && file_write_atomic(tpubf, blob->pub, blob->publen,
					flags, &c->e)) ||
	    (namef && file_write_atomic(namef, pub->name, pub->namelen,
					flags, &c->e))) {
		rc = ctx_fail(c);
		goto done;
	}
	hex_encode(pub->name, pub->namelen, name);
	printf("%s\n", name);
done:
	auth_wipe(&oa);
	if (blob)
		explicit_bzero(blob, sizeof(*blob));
	if (pem)
		explicit_bzero(pem, pn);
	free(blob);
	free(pub);
	free(pem);
	free(ppem);
	return rc;
}

const struct applet applet_akcreate = {
	"akcreate", "create an attestation key (restricted signing key)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
