/* unbind: open what bind encrypted to a key that lives in the TPM. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "fmt/x509.h"
#include "job/attest.h"
#include "job/bind.h"
#include "job/key.h"
#include "job/tpm.h"
#include "tpm2/rc.h"

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

/* The loaded key, as bind_decrypt's cms_oaep_fn asks for it. */
struct tpmkey_dec {
	struct tpm *t;
	uint32_t key;
	const struct tpm2_public *pub;
	struct tpm2_session *pol;
	const struct authval *auth;
};

static int tpm_oaep(void *ctx, uint16_t hash, const uint8_t *ct,
		    size_t ctlen, uint8_t *out, size_t cap, size_t *outlen)
{
	struct tpmkey_dec *d = ctx;

	if (ctlen != d->pub->rsa_nlen)
		return 1;	/* made for a key of another size */
	if (!key_decrypt(d->t, d->key, d->pub, d->pol, d->auth->v, d->auth->n,
			 hash, ct, ctlen, out, cap, outlen))
		return 0;
	/* not this key's padding (key_decrypt's exit 4 with the TPM's
	 * code); anything else (a wrong auth, the transport) stops. */
	if (d->t->e->code == EX_AUTH && (rc_base(d->t->e->rc) ==
	    TPM2_RC_VALUE || d->t->e->rc == TPM2_RC_FAILURE)) {
		err_clear(d->t->e);
		return 1;
	}
	return -1;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyf = NULL, *in = "-", *out = "-", *auth_s = NULL;
	struct authval auth = { .n = 0 };
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct ak_blob *blob = calloc(1, sizeof(*blob));
	struct tpmkey_dec d;
	struct pubkey k;
	uint8_t *text = NULL, *ct = NULL, *pt = NULL;
	size_t tn = 0, cn = 0, pn = 0, kn = 0;
	char *kpem = NULL;
	uint32_t key = 0;
	struct tpm2_session *pol = NULL;
	int o, flags = 0, rc = 0;
	struct tpm *t;

	memset(&k, 0, sizeof(k));
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

	/* Step 1: the key file and what bind wrote. */
	if (file_read(keyf, 64 * 1024, &text, &tn, &c->e) ||
	    key_file_decode(text, tn, blob, "KEY", &c->e) ||
	    file_read(in, BIND_MAX, &ct, &cn, &c->e))
		goto fail;
	/* Step 2: the key loaded under the SRK; its public half names the
	 * recipient. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    key_load(t, blob, NULL, 0, &key, pub, &pol))
		goto fail;
	d = (struct tpmkey_dec){ t, key, pub, pol, &auth };
	rc = ak_pub_pem(pub, &kpem, &kn, &c->e);
	if (!rc)
		rc = x509_read_public(kpem, kn, &k, &c->e);
	/* Step 3: the TPM opens the block or the CMS message's key. */
	if (!rc)
		rc = bind_decrypt(&k, ct, cn, tpm_oaep, &d, &pt, &pn, &c->e);
	key_flush(t, key, pol);
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
	if (blob)
		explicit_bzero(blob, sizeof(*blob));
	if (text)
		explicit_bzero(text, tn);
	pubkey_free(&k);
	free(kpem);
	free(pt);
	free(text);
	free(ct);
	free(blob);
	free(pub);
	return rc;
}

const struct applet applet_unbind = {
	"unbind", "open what bind encrypted to a key in the TPM",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
