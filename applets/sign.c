/* sign: sign a digest with a key that lives in the TPM. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "job/key.h"

static const char usage[] =
	"usage: sign -k KEY.pem [-d DIGEST_HEX | -i FILE] [--scheme "
	"ecdsa|rsassa|rsapss]\n"
	"            [--auth AUTH] [-o SIG] [-f]\n"
	"Sign with a key that lives in the TPM (keycreate, keyimport).  The\n"
	"signature is checked with the key's public part before it is "
	"written: DER\n"
	"(ECDSA-Sig-Value) for ECDSA, the raw signature for RSA; openssl "
	"verifies\n"
	"both (openssl dgst -sha256 -verify PUB.pem -signature SIG FILE).\n"
	"  -k KEY.pem  the key file\n"
	"  -d DIGEST_HEX  the digest to sign: SHA-256, SHA-384 or SHA-512 "
	"sized\n"
	"  -i FILE    hash FILE with SHA-256 and sign that (stdin: -; the "
	"default)\n"
	"  --scheme S  ecdsa for ECC keys; rsassa (PKCS#1 v1.5, the "
	"default) or\n"
	"             rsapss for RSA keys\n"
	"  --auth AUTH  the key's auth value\n"
	"  -o SIG     write the signature here (default stdout)\n"
	"  -f         replace an existing SIG\n";

enum { O_SCHEME = 256, O_AUTH };
static const char shortopts[] = "k:d:i:o:f";
static const struct option longopts[] = {
	{"scheme", required_argument, NULL, O_SCHEME},
	{"auth", required_argument, NULL, O_AUTH},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

/* --scheme: the signature scheme, 0 for an unknown word. */
static uint16_t scheme_parse(const char *s)
{
	if (!strcmp(s, "ecdsa"))
		return TPM2_ALG_ECDSA;
	if (!strcmp(s, "rsassa"))
		return TPM2_ALG_RSASSA;
	if (!strcmp(s, "rsapss"))
		return TPM2_ALG_RSAPSS;
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyf = NULL, *dhex = NULL, *in = NULL, *out = "-";
	const char *scheme_s = NULL, *auth_s = NULL;
	struct authval auth = { .n = 0 };
	struct key_loaded *k = key_loaded_new();
	struct quote_sig *sig = calloc(1, sizeof(*sig));
	uint8_t digest[64], *data = NULL, der[600];
	size_t dlen = 0, n = 0, dn;
	uint16_t scheme = 0;
	int o, flags = 0, rc = 0;
	struct tpm *t;

	if (!k || !sig) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': keyf = optarg; break;
		case 'd': dhex = optarg; break;
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case O_SCHEME: scheme_s = optarg; break;
		case O_AUTH: auth_s = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		goto done;
	if (!keyf || (dhex && in)) {
		rc = ctx_usage(c, "-k KEY.pem is required, with -d or -i (not "
			       "both)");
		goto done;
	}
	if (scheme_s && !(scheme = scheme_parse(scheme_s))) {
		rc = ctx_usage(c, "--scheme: ecdsa, rsassa or rsapss, not "
			       "'%s'", scheme_s);
		goto done;
	}
	if (dhex) {
		long l = hex_decode(dhex, digest, sizeof(digest));

		if (l != 32 && l != 48 && l != 64) {
			rc = ctx_usage(c, "-d: a SHA-256, SHA-384 or SHA-512 "
				       "digest in hex (64, 96 or 128 hex "
				       "digits)");
			goto done;
		}
		dlen = (size_t)l;
	}
	if ((rc = ctx_out_new(c, flags, out)))
		goto done;
	if (auth_s && auth_parse(auth_s, &auth, &c->e))
		goto fail;

	/* Step 1: the key file, and what to sign. */
	if (key_file_read(keyf, &k->blob, "KEY", &c->e))
		goto fail;
	if (!dhex) {
		if (file_read(in ? in : "-", (size_t)1 << 30, &data, &n,
			      &c->e))
			goto fail;
		hash_buf(TPM2_ALG_SHA256, data, n, digest);
		dlen = 32;
	}
	/* Step 2: loaded under the SRK, it signs; the signature is
	 * checked with its public part. */
	if (!(t = ctx_tpm(c)) || key_open(t, k))
		goto fail;
	if (!scheme)
		scheme = k->pub.type == TPM2_ALG_ECC ? TPM2_ALG_ECDSA :
			 TPM2_ALG_RSASSA;
	rc = key_sign(t, k->handle, &k->pub, k->pol, auth.v, auth.n, scheme,
		      digest, dlen, sig);
	key_close(k);
	if (rc)
		goto fail;
	/* Step 3: written as openssl reads it. */
	if (key_sig_encode(sig, der, sizeof(der), &dn)) {
		err_set(&c->e, EX_FAIL, "the signature is too large");
		goto fail;
	}
	if (file_write_atomic(out, der, dn, flags, &c->e))
		goto fail;
	goto done;
fail:
	rc = ctx_fail(c);
done:
	auth_wipe(&auth);
	key_loaded_free(k);
	free(data);
	free(sig);
	return rc;
}

const struct applet applet_sign = {
	"sign", "sign a digest with a key that lives in the TPM",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
