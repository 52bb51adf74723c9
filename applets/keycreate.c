/* keycreate: a signing or decryption key made in the TPM under the SRK,
 * which never leaves it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "job/attest.h"
#include "job/key.h"
#include "job/sealing.h"
#include "job/tpm.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: keycreate [--ecc | --rsa [--bits 2048|3072]] [--usage "
	"sign|decrypt]\n"
	"                 [--auth AUTH] [-p SELECTION[=VALUES]] -o KEY.pem\n"
	"                 [--pub PUB.pem] [--ssh-pub FILE] [-f]\n"
	"Create a key in the TPM under the SRK and print its name.  Its "
	"private part\n"
	"never leaves the TPM: KEY.pem (a loadable TSS2 PRIVATE KEY, parent\n"
	"0x81000001 where takeown persisted the SRK, else 0x40000001, as\n"
	"tpm2-openssl reads it) loads only in this TPM.\n"
	"  --ecc      NIST P-256 (the default)\n"
	"  --rsa      RSA, 2048 bits unless --bits 3072\n"
	"  --bits N   the RSA key's size: 2048 or 3072\n"
	"  --usage sign|decrypt  what the key does (default sign; decrypt: "
	"RSA,\n"
	"             OAEP)\n"
	"  --auth AUTH  the key's auth value (default: none)\n"
	"  -p SELECTION[=VALUES]  the key works only while these PCRs hold "
	"these\n"
	"             values (default: their values now), as seal -p: "
	"PolicyPCR,\n"
	"             then PolicyAuthValue with --auth; written in the key "
	"file\n"
	"  -o KEY.pem  write the key file (mode 0600, atomic)\n"
	"  --pub PUB.pem  also write the public key (SubjectPublicKeyInfo "
	"PEM)\n"
	"  --ssh-pub FILE  also write it as an OpenSSH public key line\n"
	"  --owner-auth AUTH  owner auth, needed to create the SRK when no "
	"persistent\n"
	"             one exists and the owner has an auth value\n"
	"  -f         replace existing output files\n";

enum { O_ECC = 256, O_RSA, O_BITS, O_USAGE, O_AUTH, O_PUB, O_SSH, O_OWNER };
static const char shortopts[] = "o:fp:";
static const struct option longopts[] = {
	{"ecc", no_argument, NULL, O_ECC},
	{"rsa", no_argument, NULL, O_RSA},
	{"bits", required_argument, NULL, O_BITS},
	{"usage", required_argument, NULL, O_USAGE},
	{"auth", required_argument, NULL, O_AUTH},
	{"pub", required_argument, NULL, O_PUB},
	{"ssh-pub", required_argument, NULL, O_SSH},
	{"owner-auth", required_argument, NULL, O_OWNER},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

/* -p: the PCR values (given, or read in the process session), the
 * policy digest into the template (no userWithAuth: only the policy
 * authorizes), and the policy as the key file states it. */
static int key_policy(struct tpm *t, struct seal_spec *ps, int authvalue,
		      struct tpm2_public *tmpl, struct key_policy *kp,
		      struct tberr *e)
{
	struct tpm2_session *s;
	size_t n;

	ps->ps.auth = authvalue;
	if (tpm2_trust_need(t, &s) ||
	    seal_spec_values(t, ps, tpm2_pcr_read, e))
		return e->code;
	n = policy_compute(&ps->ps, tmpl->policy);
	kp->dlen = policy_pcr_digest(TPM2_ALG_SHA256, &ps->ps.br[0].vals,
				     kp->digest);
	if (n != 32 || kp->dlen != 32)
		return err_set(e, EX_FAIL, "computing the key's policy failed");
	tmpl->policylen = n;
	tmpl->attrs &= ~TPMA_OBJECT_USERWITHAUTH;
	tpm2_public_finish(tmpl);
	kp->pcr = 1;
	kp->sel = ps->ps.br[0].sel;
	kp->authvalue = authvalue;
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *auth_s = NULL, *owner_s = NULL, *bits_s = NULL;
	struct key_outs ko = { .key = NULL };
	struct authval auth = { .n = 0 }, owner = { .n = 0 };
	struct tpm2_public *tmpl = calloc(1, sizeof(*tmpl));
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct ak_blob *blob = calloc(1, sizeof(*blob));
	struct seal_spec *ps = NULL;
	struct seal_opts so;
	struct key_policy kpol;
	int o, rsa = 0, ecc = 0, bits = 2048, usage = KEY_USE_SIGN, rc = 0;
	char name[2 * TPM2_NAME_MAX + 1];
	struct tpm *t;

	memset(&so, 0, sizeof(so));
	memset(&kpol, 0, sizeof(kpol));
	if (!tmpl || !pub || !blob) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case O_ECC: ecc = 1; break;
		case O_RSA: rsa = 1; break;
		case O_BITS: bits_s = optarg; break;
		case O_USAGE:
			if (!(usage = key_usage_parse(optarg))) {
				rc = ctx_usage(c, "--usage: sign or decrypt, "
					       "not '%s'", optarg);
				goto done;
			}
			break;
		case O_AUTH: auth_s = optarg; break;
		case 'o': ko.key = optarg; break;
		case O_PUB: ko.pub = optarg; break;
		case O_SSH: ko.ssh = optarg; break;
		case O_OWNER: owner_s = optarg; break;
		case 'f': ko.flags |= OUT_FORCE; break;
		case 'p':
			if (so.npcr) {
				rc = ctx_usage(c, "-p: one PCR state for a key");
				goto done;
			}
			if (seal_opts_add(&so, 'p', optarg, &c->e))
				goto fail;
			break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		goto done;
	if (!ko.key) {
		rc = ctx_usage(c, "-o KEY.pem is required");
		goto done;
	}
	if (rsa && ecc) {
		rc = ctx_usage(c, "--rsa or --ecc, not both");
		goto done;
	}
	if (bits_s) {
		if (!rsa || (strcmp(bits_s, "2048") && strcmp(bits_s, "3072"))) {
			rc = ctx_usage(c, "--bits is 2048 or 3072, for --rsa");
			goto done;
		}
		bits = atoi(bits_s);
	}
	if (usage == KEY_USE_DECRYPT && !rsa) {
		rc = ctx_usage(c, "--usage decrypt is for --rsa keys (OAEP)");
		goto done;
	}
	if ((rc = ctx_outs_new(c, ko.flags,
			       (const char *const[]){ ko.key, ko.pub, ko.ssh },
			       3)))
		goto done;
	if ((auth_s && auth_parse(auth_s, &auth, &c->e)) ||
	    (owner_s && auth_parse(owner_s, &owner, &c->e)))
		goto fail;
	if (auth.n > 32) {
		rc = ctx_usage(c, "--auth: at most 32 bytes");
		goto done;
	}

	if (so.npcr && (!(ps = calloc(1, sizeof(*ps))) ||
			seal_spec_parse(ps, &so, &c->e)))
		goto fail;

	/* Step 1: with -p, the policy: the PCR values given, or read in the
	 * session salted to the SRK. */
	key_template(tmpl, rsa, bits, usage);
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t))
		goto fail;
	if (ps && key_policy(t, ps, auth.n > 0, tmpl, &kpol, &c->e))
		goto fail;
	/* Step 2: the key, made in the TPM under the SRK. */
	if (key_create(t, tmpl, auth.v, auth.n, owner.n ? owner.v : NULL,
		       owner.n, "key", blob, pub))
		goto fail;
	blob->pol = kpol;
	/* Step 3: its files, and its name. */
	if (key_blob_write(&ko, blob, pub, &c->e))
		goto fail;
	hex_encode(pub->name, pub->namelen, name);
	printf("%s\n", name);
	goto done;
fail:
	rc = ctx_fail(c);
done:
	auth_wipe(&auth);
	auth_wipe(&owner);
	if (blob)
		explicit_bzero(blob, sizeof(*blob));
	if (ps)
		seal_spec_wipe(ps);
	free(ps);
	free(blob);
	free(pub);
	free(tmpl);
	return rc;
}

const struct applet applet_keycreate = {
	"keycreate", "create a signing or decryption key that lives in the "
	"TPM", APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
