/* keyimport: a private key made elsewhere, wrapped for this TPM (or, with
 * --to, for another one) and taken in under the SRK. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "fmt/tpmkey.h"
#include "fmt/x509.h"
#include "job/attest.h"
#include "job/key.h"
#include "job/keyimport.h"
#include "job/tpm.h"
#include "tpm2/dup.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: keyimport -i PRIVATE.pem -o KEY.pem [--usage sign|decrypt] "
	"[--auth AUTH]\n"
	"                 [--pub PUB.pem] [--to SRKPUB] [--owner-auth AUTH] "
	"[--tofu] [-f]\n"
	"       keyimport -i IMPORTABLE.pem -o KEY.pem [--pub PUB.pem] [-f]\n"
	"Wrap a private key (PEM: PKCS#8, PKCS#1 RSA or SEC 1 EC; RSA 2048 "
	"or 3072,\n"
	"EC P-256 or P-384) for this TPM and take it in under the SRK "
	"(TPM2_Import).\n"
	"KEY.pem is a loadable TSS2 PRIVATE KEY (parent 0x40000001) that "
	"only this\n"
	"TPM can use; the name of the key is printed.  PRIVATE.pem is left "
	"as it\n"
	"was: it still holds the key, and destroying it is yours to do.\n"
	"  -i FILE    the private key, or an importable key file (--to)\n"
	"  -o KEY.pem  write the key file (mode 0600, atomic)\n"
	"  --usage sign|decrypt  what the key may do (default sign; decrypt: "
	"RSA)\n"
	"  --auth AUTH  the key's auth value (default: none)\n"
	"  --pub PUB.pem  also write its public key (SubjectPublicKeyInfo "
	"PEM)\n"
	"  --to SRKPUB  no TPM here: wrap the key for the TPM whose SRK public "
	"key\n"
	"             this is (PEM as takeown --srk-pub writes it, or "
	"TPM2B_PUBLIC);\n"
	"             KEY.pem is then an importable key, which keyimport -i "
	"takes in\n"
	"             on that TPM\n"
	"  --owner-auth AUTH  owner auth, needed to create the SRK when no "
	"persistent\n"
	"             one exists and the owner has an auth value\n"
	"  --tofu     wrap to the SRK the TPM shows although none is pinned "
	"(with no\n"
	"             pin an interposer on the bus could show its own key "
	"and take\n"
	"             the private key; pin with --srk-pub or TPMBOX_SRK)\n"
	"  -f         replace existing output files\n";

enum { O_USAGE = 256, O_AUTH, O_PUB, O_TO, O_OWNER, O_TOFU };
static const char shortopts[] = "i:o:f";
static const struct option longopts[] = {
	{"usage", required_argument, NULL, O_USAGE},
	{"auth", required_argument, NULL, O_AUTH},
	{"pub", required_argument, NULL, O_PUB},
	{"to", required_argument, NULL, O_TO},
	{"owner-auth", required_argument, NULL, O_OWNER},
	{"tofu", no_argument, NULL, O_TOFU},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

struct job {
	struct privkey key;
	struct tpm2_public pub;
	uint8_t sens[TPM2_SENSITIVE_MAX];
	size_t senslen;
	struct tpm2_dup dup;
	struct tpm2_private priv;
	int empty_auth;		/* an importable file's */
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *in = NULL, *to = NULL, *auth_s = NULL, *owner_s = NULL;
	struct key_outs ko = { .key = NULL };
	struct authval auth = { .n = 0 }, owner = { .n = 0 };
	struct tpm2_public *target = NULL;
	struct job *j = calloc(1, sizeof(*j));
	int o, usage = KEY_USE_SIGN, tofu = 0, rc = 0, imported = 0;
	int empty_auth;
	uint8_t *text = NULL;
	size_t tn = 0, pn = 0;
	char *pem = NULL, name[2 * TPM2_NAME_MAX + 1];
	struct tpm *t;

	if (!j)
		return ctx_usage(c, "out of memory");
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'i': in = optarg; break;
		case 'o': ko.key = optarg; break;
		case O_USAGE:
			if (!(usage = key_usage_parse(optarg))) {
				rc = ctx_usage(c, "--usage: sign or decrypt, "
					       "not '%s'", optarg);
				goto done;
			}
			break;
		case O_AUTH: auth_s = optarg; break;
		case O_PUB: ko.pub = optarg; break;
		case O_TO: to = optarg; break;
		case O_OWNER: owner_s = optarg; break;
		case O_TOFU: tofu = 1; break;
		case 'f': ko.flags |= OUT_FORCE; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		goto done;
	if (!in || !ko.key) {
		rc = ctx_usage(c, "-i PRIVATE.pem and -o KEY.pem are required");
		goto done;
	}
	if ((rc = ctx_outs_new(c, ko.flags,
			       (const char *const[]){ ko.key, ko.pub }, 2)))
		goto done;
	if ((auth_s && auth_parse(auth_s, &auth, &c->e)) ||
	    (owner_s && auth_parse(owner_s, &owner, &c->e)))
		goto fail;

	/* Step 1: the key, as a TPM object and its sensitive part; or a
	 * key another keyimport wrapped for this TPM. */
	if (file_read(in, 64 * 1024, &text, &tn, &c->e))
		goto fail;
	imported = tn > 0 && memmem(text, tn, "-----BEGIN " TPMKEY_LABEL,
				    sizeof("-----BEGIN " TPMKEY_LABEL) - 1);
	if (imported && (to || auth_s)) {
		rc = ctx_usage(c, "-i is an importable key already: --to and "
			       "--auth were given when it was made");
		goto done;
	}
	if (imported ? key_importable_decode(text, tn, &j->pub, &j->dup,
					     &j->empty_auth, &c->e) :
	    (x509_read_private((const char *)text, tn, &j->key, &c->e) ||
	     key_object_make(&j->key, usage, auth.v, auth.n, &j->pub,
			     j->sens, &j->senslen, &c->e)))
		goto fail;
	empty_auth = imported ? j->empty_auth : auth.n == 0;

	/* Step 2a (--to): wrapped for the other TPM's SRK; no TPM here. */
	if (to) {
		if (!(target = calloc(1, sizeof(*target)))) {
			rc = ctx_usage(c, "out of memory");
			goto done;
		}
		if (srk_pub_read(to, target, 0, "--to", &c->e) ||
		    tpm2_dup_wrap(target, &j->pub, j->sens, j->senslen, 0,
				  &j->dup, &c->e) ||
		    key_file_encode(&j->pub, NULL, &j->dup, empty_auth, &pem,
				    &pn, &c->e))
			goto fail;
	} else {
		/* Step 2b: into this TPM, under the SRK the pin names. */
		if (!(t = ctx_tpm(c)) || tpm_trust_begin(t))
			goto fail;
		if (!imported && !tofu &&
		    tpm2_trust_kind(t) != TRUST_PINNED) {
			err_set(&c->e, EX_USAGE, "no SRK is pinned: the "
				"private key would be wrapped to whatever key "
				"the bus shows");
			err_hint(&c->e, "pin it (--srk-pub FILE, which "
				 "takeown --srk-pub writes, or TPMBOX_SRK), "
				 "or accept that with --tofu");
			rc = ctx_fail(c);
			goto done;
		}
		if (key_import(t, &j->pub, imported ? NULL : j->sens,
			       j->senslen, &j->dup, owner.n ? owner.v : NULL,
			       owner.n, &j->priv) ||
		    key_file_encode(&j->pub, &j->priv, NULL, empty_auth, &pem,
				    &pn, &c->e))
			goto fail;
	}

	/* Step 3: the files; the key's name. */
	if (key_outs_write(&ko, pem, pn, &j->pub, &c->e))
		goto fail;
	hex_encode(j->pub.name, j->pub.namelen, name);
	printf("%s\n", name);
	goto done;
fail:
	rc = ctx_fail(c);
done:
	auth_wipe(&auth);
	auth_wipe(&owner);
	if (text) {
		explicit_bzero(text, tn);
		free(text);
	}
	if (pem)
		explicit_bzero(pem, pn);
	free(pem);
	free(target);
	privkey_free(&j->key);
	explicit_bzero(j, sizeof(*j));
	free(j);
	return rc;
}

const struct applet applet_keyimport = {
	"keyimport", "wrap a private key for this TPM (or another) and take "
	"it in", APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
