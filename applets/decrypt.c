/* decrypt: open what was encrypted to a key that lives in the TPM. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "job/key.h"
#include "job/tpm.h"

static const char usage[] =
	"usage: decrypt -k KEY.pem [-i CIPHERTEXT] [--auth AUTH] [-o OUT] "
	"[-f]\n"
	"Decrypt with an RSA key that lives in the TPM (keycreate --rsa "
	"--usage decrypt,\n"
	"keyimport --usage decrypt): RSA-OAEP with SHA-256 and no label, as\n"
	"openssl pkeyutl -encrypt -pkeyopt rsa_padding_mode:oaep -pkeyopt\n"
	"rsa_oaep_md:sha256 makes it.  The plaintext is encrypted on the bus.\n"
	"  -k KEY.pem  the key file\n"
	"  -i CIPHERTEXT  the ciphertext (default stdin)\n"
	"  --auth AUTH  the key's auth value\n"
	"  -o OUT     write the plaintext here (mode 0600; default stdout)\n"
	"  -f         replace an existing OUT\n";

enum { O_AUTH = 256 };
static const char shortopts[] = "k:i:o:f";
static const struct option longopts[] = {
	{"auth", required_argument, NULL, O_AUTH},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyf = NULL, *in = "-", *out = "-", *auth_s = NULL;
	struct authval auth = { .n = 0 };
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct ak_blob *blob = calloc(1, sizeof(*blob));
	uint8_t *text = NULL, *ct = NULL, pt[512];
	size_t tn = 0, cn = 0, pn = 0;
	uint32_t key = 0;
	struct tpm2_session *pol = NULL;
	int o, flags = 0, rc = 0;
	struct tpm *t;

	if (!pub || !blob) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': keyf = optarg; break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case O_AUTH: auth_s = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if (optind < argc) {
		rc = ctx_usage(c, "unexpected argument '%s'", argv[optind]);
		goto done;
	}
	if (!keyf) {
		rc = ctx_usage(c, "-k KEY.pem is required");
		goto done;
	}
	if (strcmp(out, "-") && !(flags & OUT_FORCE) &&
	    access(out, F_OK) == 0) {
		rc = ctx_usage(c, "%s exists (use -f to replace it)", out);
		goto done;
	}
	if (auth_s && auth_parse(auth_s, &auth, &c->e))
		goto fail;

	/* Step 1: the key file and the ciphertext. */
	if (file_read(keyf, 64 * 1024, &text, &tn, &c->e) ||
	    key_file_decode(text, tn, blob, "KEY", &c->e) ||
	    file_read(in, 512, &ct, &cn, &c->e))
		goto fail;
	/* Step 2: loaded under the SRK, the key decrypts. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    key_load(t, blob, NULL, 0, &key, pub, &pol))
		goto fail;
	rc = key_decrypt(t, key, pub, pol, auth.v, auth.n, TPM2_ALG_SHA256, ct,
			 cn, pt, sizeof(pt), &pn);
	key_flush(t, key, pol);
	if (rc)
		goto fail;
	/* Step 3: the plaintext, a secret. */
	if (file_write_atomic(out, pt, pn, flags | OUT_SECRET, &c->e))
		goto fail;
	goto done;
fail:
	rc = ctx_fail(c);
done:
	explicit_bzero(pt, sizeof(pt));
	auth_wipe(&auth);
	if (blob)
		explicit_bzero(blob, sizeof(*blob));
	if (text)
		explicit_bzero(text, tn);
	free(text);
	free(ct);
	free(blob);
	free(pub);
	return rc;
}

const struct applet applet_decrypt = {
	"decrypt", "decrypt with an RSA key that lives in the TPM (OAEP)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
