/* bind: encrypt data on the host so that only one TPM's key opens it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "job/bind.h"

#define BIND_MAX (64u << 20)

static const char usage[] =
	"usage: bind --pub PUB.pem [-i FILE] [-o OUT] [-f]\n"
	"Encrypt data to an RSA key that lives in a TPM (keycreate --rsa "
	"--usage\n"
	"decrypt --pub PUB.pem), so that only that TPM opens it (unbind).  "
	"No TPM is\n"
	"needed.  Up to one RSA-OAEP block (SHA-256; 190 bytes for RSA "
	"2048) is that\n"
	"block alone; more is a CMS AuthEnvelopedData (DER, AES-256-GCM) "
	"whose key\n"
	"is RSA-OAEP to PUB, as openssl cms -decrypt reads it.\n"
	"  --pub PUB.pem  the key's public half (PEM public key or "
	"certificate)\n"
	"  -i FILE    the data (default stdin; at most 64 MiB)\n"
	"  -o OUT     write the result here (atomic; default stdout)\n"
	"  -f         replace an existing OUT\n";

enum { O_PUB = 256 };
static const char shortopts[] = "i:o:f";
static const struct option longopts[] = {
	{"pub", required_argument, NULL, O_PUB},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *pubf = NULL, *in = "-", *out = "-";
	uint8_t *data = NULL, *ct = NULL;
	size_t dn = 0, cn = 0;
	struct pubkey k;
	int o, flags = 0, rc = 0;

	memset(&k, 0, sizeof(k));
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case O_PUB: pubf = optarg; break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		goto done;
	if (!pubf) {
		rc = ctx_usage(c, "--pub PUB.pem is required");
		goto done;
	}
	if ((rc = ctx_out_new(c, flags, out)))
		goto done;
	/* Step 1: the key and the data. */
	if (bind_pub_read(pubf, &k, &c->e) ||
	    file_read(in, BIND_MAX, &data, &dn, &c->e))
		goto fail;
	/* Step 2: encrypted to the key, written. */
	if (bind_encrypt(&k, data, dn, &ct, &cn, &c->e) ||
	    file_write_atomic(out, ct, cn, flags, &c->e))
		goto fail;
	goto done;
fail:
	rc = ctx_fail(c);
done:
	if (data)
		explicit_bzero(data, dn);
	pubkey_free(&k);
	free(data);
	free(ct);
	return rc;
}

const struct applet applet_bind = {
	"bind", "encrypt data that only one TPM's key opens (no TPM needed)",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
