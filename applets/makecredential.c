/* makecredential: TPM2_MakeCredential done on the host, with no TPM: a
 * secret for the TPM with this EK, bound to the name of the key (an AK)
 * that must be in it to get the secret back (activatecredential). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "fmt/credfile.h"
#include "job/cred.h"
#include "tpm2/object.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: makecredential --ek EKPUB --name AKNAME [-i SECRET] -o BLOB "
	"[-f]\n"
	"Wrap SECRET (1 to 64 bytes; stdin without -i) for the TPM whose\n"
	"endorsement key is EKPUB, bound to the key named AKNAME, as\n"
	"TPM2_MakeCredential does, with no TPM at all.  Only that TPM, with\n"
	"that key loaded, opens it (activatecredential).  The file is\n"
	"tpm2-tools' (tpm2_activatecredential -i reads it).\n"
	"  --ek EKPUB   the EK's public key: PEM (on the TCG template L-1 or\n"
	"             L-2) or TPM2B_PUBLIC (tpm2_createek -u)\n"
	"  --name AKNAME  the AK's name: hex (as akcreate prints it) or a\n"
	"             file holding it (akcreate --name, tpm2_readpublic -n)\n"
	"  -i SECRET  the secret (default stdin)\n"
	"  -o BLOB    write the credential here (atomic)\n"
	"  -f         replace an existing BLOB\n";

static const char shortopts[] = "i:o:f";
static const struct option longopts[] = {
	{ "ek", required_argument, NULL, 'E' },
	{ "name", required_argument, NULL, 'N' },
	{ NULL, 0, NULL, 0 }
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *ekf = NULL, *namearg = NULL, *in = "-", *out = NULL;
	uint8_t name[TPM2_NAME_MAX], *secret = NULL, blob[CREDFILE_MAX];
	size_t namelen, slen = 0, bn;
	struct tpm2_public *ek = calloc(1, sizeof(*ek));
	struct credfile cf;
	int o, flags = 0, rc = 0;

	if (!ek)
		return ctx_usage(c, "out of memory");
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'E': ekf = optarg; break;
		case 'N': namearg = optarg; break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if (optind != argc || !ekf || !namearg || !out) {
		rc = ctx_usage(c, "--ek, --name and -o are required (and no "
			       "operands)");
		goto done;
	}
	/* Step 1: the EK and the name, then the secret. */
	if (srk_pub_read(ekf, ek, 1, "--ek", &c->e) ||
	    tpm2_name_arg(namearg, name, &namelen, "--name", &c->e) ||
	    file_read(in, TPM2_CRED_MAX + 1, &secret, &slen, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 2: wrapped for the EK, bound to the name; written. */
	if (tpm2_make_credential(ek, name, namelen, secret, slen, &cf,
				 &c->e) ||
	    credfile_encode(&cf, blob, &bn) ||
	    file_write_atomic(out, blob, bn, flags, &c->e))
		rc = ctx_fail(c);
done:
	if (secret) {
		explicit_bzero(secret, slen);
		free(secret);
	}
	free(ek);
	return rc;
}

const struct applet applet_makecredential = {
	"makecredential", "wrap a secret for a TPM's EK and an AK in it "
	"(no TPM needed)", APPLET_USAGE(usage), run, shortopts, longopts, 0
};
