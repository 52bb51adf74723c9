/* unbind: open what bind encrypted to a key that lives in the TPM. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "job/bind.h"
#include "job/key.h"

#define BIND_MAX ((64u << 20) + 4096)

static const char usage[] =
	"usage: unbind -k KEY.pem [-i FILE] [--auth AUTH] [-o OUT] [-f]\n"
	"Open what bind encrypted to this TPM's RSA key: one RSA-OAEP block "
	"or a CMS\n"
	"AuthEnvelopedData (openssl cms -encrypt -aes-256-gcm with an "
	"RSA-OAEP\n"
	"recipient, DER).  The key's answer is encrypted on the bus.\n"
	"  -k KEY.pem  the key file (keycreate --rsa --usage decrypt)\n"
	"  -i FILE    what bind wrote (default stdin)\n"
	"  --auth AUTH  the key's auth value\n"
	"  -o OUT     write the data here (mode 0600; default stdout)\n"
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
	uint8_t *ct = NULL, *pt = NULL;
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

	/* Step 1: the key file and what bind wrote. */
	if (key_file_read(keyf, &k->blob, "KEY", &c->e) ||
	    file_read(in, BIND_MAX, &ct, &cn, &c->e))
		goto fail;
	/* Step 2: the key loaded under the SRK. */
	if (!(t = ctx_tpm(c)) || key_open(t, k))
		goto fail;
	/* Step 3: the TPM opens the block or the CMS message's key; the
	 * key's public half names the recipient. */
	rc = bind_open(k, auth.v, auth.n, ct, cn, &pt, &pn, &c->e);
	key_close(k);
	if (rc)
		goto fail;
	/* Step 4: the data, a secret. */
	if (file_write_atomic(out, pt, pn, flags | OUT_SECRET, &c->e))
		goto fail;
	goto done;
fail:
	rc = ctx_fail(c);
done:
	if (pt)
		explicit_bzero(pt, pn);
	auth_wipe(&auth);
	key_loaded_free(k);
	free(pt);
	free(ct);
	return rc;
}

const struct applet applet_unbind = {
	"unbind", "open what bind encrypted to a key in the TPM",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
