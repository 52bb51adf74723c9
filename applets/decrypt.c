/* decrypt: open what was encrypted to a key that lives in the TPM. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct key_loaded *k = key_loaded_new();
	uint8_t *ct = NULL, pt[512];
	size_t cn = 0, pn = 0;
	int flags = 0, rc = 0;
	struct tpm *t;
	const struct ctx_opt opts[] = {
		{ 'k', &keyf, NULL, 0 }, { 'i', &in, NULL, 0 },
		{ 'o', &out, NULL, 0 }, { O_AUTH, &auth_s, NULL, 0 },
		{ 'f', NULL, &flags, OUT_FORCE }, { 0, NULL, NULL, 0 }
	};

	if (!k) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	if ((rc = ctx_getopt(c, argc, argv, shortopts, longopts, opts)))
		goto done;
	if (!keyf) {
		rc = ctx_usage(c, "-k KEY.pem is required");
		goto done;
	}
	if ((rc = ctx_out_new(c, flags, out)))
		goto done;
	if (auth_s && auth_parse(auth_s, &auth, &c->e))
		goto fail;

	/* Step 1: the key file and the ciphertext. */
	if (key_file_read(keyf, &k->blob, "KEY", &c->e) ||
	    file_read(in, 512, &ct, &cn, &c->e))
		goto fail;
	/* Step 2: loaded under the SRK, the key decrypts. */
	if (!(t = ctx_tpm(c)) || key_open(t, k))
		goto fail;
	rc = key_decrypt(t, k->handle, &k->pub, k->pol, auth.v, auth.n,
			 TPM2_ALG_SHA256, ct, cn, pt, sizeof(pt), &pn);
	key_close(k);
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
	key_loaded_free(k);
	free(ct);
	return rc;
}

const struct applet applet_decrypt = {
	"decrypt", "decrypt with an RSA key that lives in the TPM (OAEP)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
