/* activatecredential: get back the secret makecredential (or
 * tpm2_makecredential, or a Keylime verifier) wrapped for this TPM's EK
 * and the AK of an akcreate blob. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "fmt/credfile.h"
#include "job/attest.h"
#include "job/cred.h"

static const char usage[] =
	"usage: activatecredential -k AKBLOB -i BLOB [-o SECRET] [-f]\n"
	"Get back the secret in a credential BLOB (makecredential,\n"
	"tpm2_makecredential): TPM2_ActivateCredential with the AK of AKBLOB\n"
	"(akcreate) and this TPM's EK (persisted at 0x81010001/2, else made\n"
	"from the TCG template), the answer encrypted on the bus.  Exit 4\n"
	"when BLOB is not for this AK and EK; nothing is written then.\n"
	"  -k AKBLOB  the AK (akcreate -o)\n"
	"  -i BLOB    the credential (tpm2-tools' file format)\n"
	"  -o SECRET  write the secret here (atomic, mode 0600; default\n"
	"             stdout)\n"
	"  -f         replace an existing SECRET\n";

static const char shortopts[] = "k:i:o:f";

static int run(struct ctx *c, int argc, char **argv)
{
	const char *akf = NULL, *in = NULL, *out = "-";
	uint8_t secret[TPM2_CRED_MAX];
	size_t sn = 0;
	struct ak_blob blob;
	struct credfile cf;
	struct tpm *t;
	int o, flags = OUT_SECRET, rc = 0;

	while ((o = getopt(argc, argv, shortopts)) != -1) {
		switch (o) {
		case 'k': akf = optarg; break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc || !akf || !in)
		return ctx_usage(c, "-k AKBLOB and -i BLOB are required (and "
				 "no operands)");
	/* Step 1: both files, checked before the TPM is touched. */
	if (ak_blob_read(akf, &blob, &c->e) ||
	    cred_file_read(in, &cf, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 2: the activation; step 3: the secret written. */
	if (!(t = ctx_tpm(c)) || tpm2_activate(t, &blob, &cf, secret, &sn) ||
	    file_write_atomic(out, secret, sn, flags, &c->e))
		rc = ctx_fail(c);
done:
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(&blob, sizeof(blob));
	return rc;
}

const struct applet applet_activatecredential = {
	"activatecredential", "get back a credential's secret with an AK and "
	"this TPM's EK", APPLET_USAGE(usage), run, shortopts, NULL, APPLET_PIN
};
