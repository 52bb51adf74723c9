/* policysign: sign a PCR policy for PolicyAuthorize, with no TPM, into
 * systemd's signed-policy JSON (include/fmt/polsig.h), the file
 * `systemd-measure sign` writes and `unseal --signature` reads. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "crypto/ecdh.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/sign.h"
#include "fmt/polsig.h"
#include "fmt/x509.h"
#include "job/sealing.h"
#include "tpm2/policy.h"

static const char usage[] =
	"usage: policysign -k SIGNER.key (-p SEL=VALUES | -P PCRFILE) "
	"[--bank BANK] [--append] [-f] -o SIG.json\n"
	"Sign the PolicyPCR digest of these PCR values (SHA-256 policy hash,\n"
	"from an all-zero start) with SIGNER.key, for objects sealed with\n"
	"seal --authorized-by; write it as systemd's signed-policy JSON\n"
	"(what systemd-measure sign writes; unseal --signature reads it).\n"
	"No TPM is needed.\n"
	"  -k SIGNER.key  PEM private key, not encrypted: RSA 2048 to 4096\n"
	"             bits (PKCS#1 or PKCS#8; RSASSA-PKCS1-v1_5, SHA-256) or\n"
	"             EC P-256 (SEC 1 or PKCS#8; ECDSA, SHA-256, DER); - is\n"
	"             stdin\n"
	"  -p SEL=VALUES  the PCRs of one bank and their values, e.g.\n"
	"             sha256:11=HEX or sha256:7,11=HEX7,HEX11 (PCRs 0-23)\n"
	"  -P PCRFILE  the values in pcrread's text format (pcrread,\n"
	"             pcrpredict): every PCR of the bank that it lists\n"
	"  --bank BANK  the PCR bank: sha1, sha256 (default), sha384, sha512\n"
	"  --append   add the entry to SIG.json (made when missing), keeping\n"
	"             its entries; one for the same bank, PCRs, key and\n"
	"             policy is replaced\n"
	"  -o SIG.json  write here (atomic; - is stdout)\n"
	"  -f         replace an existing SIG.json (without --append)\n";

static const char shortopts[] = "k:p:P:o:f";
static const struct option longopts[] = {
	{ "bank", required_argument, NULL, 'b' },
	{ "append", no_argument, NULL, 'A' },
	{ NULL, 0, NULL, 0 }
};

/* Big-endian magnitude without leading zeros. */
static void trim(const uint8_t **p, size_t *n)
{
	while (*n && !**p) {
		(*p)++;
		(*n)--;
	}
}

/* The signer: an RSA key of 2048..4096 bits or a P-256 key, and its
 * fingerprint as systemd writes it (pkfp). */
static int signer_check(struct privkey *k, uint8_t pkfp[32],
			struct tberr *e)
{
	if (k->type == KEY_RSA) {
		const uint8_t *n = k->rsa.n, *eb = k->rsa.e;
		size_t nl = k->rsa.nlen, el = k->rsa.elen, bits, i;
		uint32_t ev = 0;

		trim(&n, &nl);
		trim(&eb, &el);
		if (!rsa_priv_check(&k->rsa) || !nl || el > 4)
			return err_set(e, EX_USAGE, "not a valid RSA "
				       "private key");
		for (bits = nl * 8; !(n[0] >> (bits - 1) % 8 & 1); bits--)
			;
		if (bits < 2048 || bits > 4096)
			return err_set(e, EX_USAGE, "an RSA key of %zu bits; "
				       "RSA signing keys here have 2048 to "
				       "4096 bits", bits);
		for (i = 0; i < el; i++)
			ev = ev << 8 | eb[i];
		if (pk_fingerprint(1, n, nl, NULL, 0, ev, pkfp))
			return err_set(e, EX_FAIL, "fingerprinting the key "
				       "failed");
		return 0;
	}
	if (k->curve != EC_NIST_P256)
		return err_set(e, EX_USAGE, "an EC key on P-384; EC signing "
			       "keys here are on P-256");
	{
		uint8_t q[1 + 2 * 32];
		int r = ec_public(EC_NIST_P256, k->d, k->dlen, q) ||
			pk_fingerprint(0, q + 1, 32, q + 33, 32, 0, pkfp);

		if (r)
			return err_set(e, EX_USAGE, "not a valid P-256 "
				       "private key");
	}
	return 0;
}

/* The signer read from path: its private key and fingerprint (pkfp);
 * the text read is wiped. */
static int signer_read(const char *path, struct privkey *k, uint8_t pkfp[32],
		       struct tberr *e)
{
	uint8_t *text = NULL;
	size_t n = 0;
	int rc;

	if (!(rc = file_read(path, 1 << 20, &text, &n, e)) &&
	    (x509_read_private((const char *)text, n, k, e) ||
	     signer_check(k, pkfp, e)))
		rc = e->code;
	if (text)
		explicit_bzero(text, n);
	free(text);
	return rc;
}

/* The state signed for: one bank's PCRs (0..23) and their values, every
 * one given. */
static int pcr_state(const char *pcrarg, const char *pcrfile, uint16_t bank,
		     struct pcr_sel *sel, struct pcr_vals *v, struct tberr *e)
{
	int i, k;

	if (seal_state_given(pcrarg, pcrfile, sel, v, e))
		return e->code;
	if (pcrfile) {
		/* pcrread lists every bank: keep the one signed for */
		for (i = 0; i < sel->n && sel->b[i].alg != bank; i++)
			;
		if (i == sel->n)
			return err_set(e, EX_USAGE, "-P %s has no %s values",
				       pcrfile, polsig_bank_name(bank));
		sel->b[0] = sel->b[i];
		sel->n = 1;
		for (i = k = 0; i < v->n; i++)
			if (v->v[i].alg == bank)
				v->v[k++] = v->v[i];
		v->n = k;
	} else {
		if (sel->all || sel->n != 1 || sel->b[0].all)
			return err_set(e, EX_USAGE, "-p must name the PCRs of "
				       "one bank (%s, the --bank)",
				       polsig_bank_name(bank));
		if (sel->b[0].alg != bank)
			return err_set(e, EX_USAGE, "-p names the %s bank but "
				       "--bank is %s", alg_name(sel->b[0].alg),
				       polsig_bank_name(bank));
	}
	if (sel->b[0].mask >> 24)
		return err_set(e, EX_USAGE, "PCRs above 23 cannot be signed "
			       "for (systemd's format has 0-23)");
	return policy_check_vals(sel, v, e);
}

/* The existing file for --append (none yet: an empty one). */
static int read_existing(const char *path, struct polsig *p,
			 struct tberr *e)
{
	uint8_t *text;
	size_t n;
	int rc;

	if (file_read(path, 1 << 20, &text, &n, e)) {
		if (e->code != EX_NOENT)
			return e->code;
		err_clear(e);
		p->n = 0;
		return 0;
	}
	rc = polsig_parse((const char *)text, n, path, p, e);
	free(text);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyfile = NULL, *pcrarg = NULL, *pcrfile = NULL;
	const char *out = NULL;
	struct pcr_vals *vals = calloc(1, sizeof(*vals));
	struct pcr_sel sel;
	struct polsig *ps = calloc(1, sizeof(*ps));
	struct polsig_entry en;
	struct privkey k = { 0 };
	uint8_t digest[32];
	size_t n;
	char *text = NULL;
	uint16_t bank = TPM2_ALG_SHA256;
	int o, force = 0, append = 0, rc = 0;

	if (!vals || !ps) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': keyfile = optarg; break;
		case 'p':
		case 'P':
			if (pcrarg || pcrfile) {
				rc = ctx_usage(c, "one -p or -P: an entry "
					       "signs one state");
				goto out;
			}
			*(o == 'p' ? &pcrarg : &pcrfile) = optarg;
			break;
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		case 'A': append = 1; break;
		case 'b':
			if (!(bank = polsig_bank(optarg))) {
				rc = ctx_usage(c, "--bank: unknown bank '%s' "
					       "(sha1, sha256, sha384, "
					       "sha512)", optarg);
				goto out;
			}
			break;
		default: rc = ctx_usage(c, "unknown option"); goto out;
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		goto out;
	if (!keyfile || !out || !pcrarg == !pcrfile) {
		rc = ctx_usage(c, "give -k SIGNER.key, -o SIG.json and one of "
			       "-p SEL=VALUES or -P PCRFILE");
		goto out;
	}
	if (append && strcmp(out, "-") == 0) {
		rc = ctx_usage(c, "--append needs -o FILE, not stdout");
		goto out;
	}
	if (strcmp(keyfile, "-") == 0 && pcrfile && strcmp(pcrfile, "-") == 0) {
		rc = ctx_usage(c, "the key and PCRFILE cannot both be stdin");
		goto out;
	}

	/* The state signed for: its PolicyPCR digest (pol). */
	memset(&en, 0, sizeof(en));
	if (pcr_state(pcrarg, pcrfile, bank, &sel, vals, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	en.bank = bank;
	en.pcrs = sel.b[0].mask;
	/* PolicyPCR from an all-zero start: H(0 || CC || pcrs || H(values)) */
	if (policy_pcr_digest(TPM2_ALG_SHA256, vals, digest) != 32 ||
	    policy_update_pcr(TPM2_ALG_SHA256, en.pol, &sel, digest, 32)) {
		rc = ctx_usage(c, "computing the policy digest failed");
		goto out;
	}

	/* The signer and its fingerprint (pkfp). */
	if (signer_read(keyfile, &k, en.pkfp, &c->e)) {
		err_prefix(&c->e, "-k %s", keyfile);
		if (strstr(c->e.hint, "tpmbox recover -k -"))
			err_hint(&c->e, "give it decrypted on stdin: openssl "
				 "pkey -in KEY | tpmbox policysign -k - ...");
		rc = ctx_fail(c);
		goto out;
	}

	/* The signature over SHA-256(pol) (sig). */
	if (hash_buf(TPM2_ALG_SHA256, en.pol, sizeof(en.pol), digest) ||
	    (k.type == KEY_RSA ?
	     sign_rsa_pkcs1(&k.rsa, TPM2_ALG_SHA256, digest, sizeof(digest),
			    en.sig, sizeof(en.sig), &en.siglen) :
	     sign_ecdsa(k.curve, k.d, k.dlen, digest, sizeof(digest), en.sig,
			sizeof(en.sig), &en.siglen))) {
		err_set(&c->e, EX_FAIL, "signing failed");
		rc = ctx_fail(c);
		goto out;
	}

	/* The file: the entry alone, or added to the file's entries. */
	if ((append && read_existing(out, ps, &c->e)) ||
	    polsig_put(ps, &en, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (polsig_format(ps, &text, &n)) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	if (file_write_atomic(out, text, n, append || force ? OUT_FORCE : 0,
			      &c->e))
		rc = ctx_fail(c);
out:
	privkey_free(&k);
	free(text);
	free(vals);
	free(ps);
	return rc;
}

const struct applet applet_policysign = {
	"policysign", "sign a PCR policy for seal --authorized-by (no TPM)",
	APPLET_USAGE(usage), run, shortopts, longopts, 0
};
