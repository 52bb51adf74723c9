/* quote: sign PCR values with an attestation key (TPM2_Quote). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "fmt/pcrfile.h"
#include "fmt/quote.h"
#include "fmt/quote12.h"
#include "job/attest.h"
#include "job/tpm.h"
#include "job/tpm12quote.h"
#include "tpm12/da.h"
#include "tpm12/key.h"
#include "tpm12/session.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: quote -k AKBLOB [-p SELECTION] [-n NONCE_HEX] -o QUOTE\n"
	"             [--msg F] [--sig F] [--pcrs F] [--owner-auth AUTH] [-f] "
	"[-v]\n"
	"Quote PCRs with an attestation key from akcreate: the TPM signs "
	"their\n"
	"digest and the nonce.  checkquote (or tpm2_checkquote with --msg, "
	"--sig,\n"
	"--pcrs) verifies the result.\n"
	"  -k AKBLOB  the attestation key (akcreate -o)\n"
	"  -p SEL     PCRs to quote, e.g. sha256:0-7,10 (default sha256:all)"
	"\n"
	"  -n HEX     the verifier's nonce (qualifying data, up to 64 bytes)\n"
	"  -o QUOTE   write attestation, signature and PCR values in one file"
	"\n"
	"  --msg F    write the TPMS_ATTEST (tpm2_quote -m format)\n"
	"  --sig F    write the TPMT_SIGNATURE (tpm2_quote -s format)\n"
	"  --pcrs F   write the PCR values (tpm2_quote -o format)\n"
	"  --owner-auth AUTH  owner auth, needed to recreate the SRK when no "
	"persistent\n"
	"             one exists and the owner has an auth value\n"
	"  -f         replace existing output files\n"
	"  -v         print the quoted PCR values in pcrread's format\n"
	"  --quote1   TPM 1.2: TPM_Quote instead of TPM_Quote2\n"
	"  --srk-auth AUTH  TPM 1.2: the SRK's value, to load the AIK "
	"(default:\n"
	"             the well-known secret, as tpm-tools' -z)\n"
	"On a TPM 1.2: the AIK is akcreate's or tpm_mkaik's blob; TPM_Quote2 "
	"by\n"
	"default (its PCR values read after it and checked against the "
	"quoted\n"
	"digest); the sha1 bank only (-p 0,7 or sha1:0,7; default "
	"sha1:all);\n"
	"the nonce is 20 bytes, any other length is hashed with SHA-1 first."
	"\n"
	"-o writes tpmbox's 1.2 QUOTE file, --msg the signed TPM_QUOTE_INFO"
	"(2),\n"
	"--sig the bare signature and --pcrs the values as N=HEX lines (the "
	"two\n"
	"files tpm_getquote writes).  --owner-auth is TPM 2.0's.\n";

enum { O_MSG = 256, O_SIG, O_PCRS, O_OWNER, O_QUOTE1, O_SRKAUTH };
static const char shortopts[] = "k:p:n:o:fv";
static const struct option longopts[] = {
	{"msg", required_argument, NULL, O_MSG},
	{"sig", required_argument, NULL, O_SIG},
	{"pcrs", required_argument, NULL, O_PCRS},
	{"owner-auth", required_argument, NULL, O_OWNER},
	{"force", no_argument, NULL, 'f'},
	{"quote1", no_argument, NULL, O_QUOTE1},
	{"srk-auth", required_argument, NULL, O_SRKAUTH},
	{NULL, 0, NULL, 0}
};

/* What quote12 needs from the command line. */
struct q12 {
	const uint8_t *kb;
	size_t kn;
	const char *keyf, *selstr, *out, *msgf, *sigf, *pcrsf, *srk_s;
	const uint8_t *nonce;
	size_t nonce_len;
	int have_nonce, quote1, flags, verbose;
};

/* TPM 1.2: the AIK (a TPM_KEY) loaded under the SRK, TPM_Quote2 or
 * TPM_Quote (job/tpm12quote.h), the files. */
static int quote12(struct ctx *c, struct tpm *t, const struct q12 *o)
{
	struct tpm12_key *key = malloc(sizeof(*key));
	struct quote12 *q = malloc(sizeof(*q));
	struct pcr_vals *v = malloc(sizeof(*v));
	uint8_t nonce[20] = { 0 }, srk[20], *qf = NULL;
	struct pcr_sel sel, alloc;
	struct authval sv;
	uint32_t mask = 0, h = 0;
	unsigned npcrs;
	char *pt = NULL;
	size_t qn, pn;
	int rc = 0, i;

	memset(srk, 0, sizeof(srk));
	if (!key || !q || !v) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	/* Step 1: the key, the selection, the nonce. */
	if (tpm12_key_parse(o->kb, o->kn, key, o->keyf, &c->e) ||
	    tpm12_aik_check(key, o->keyf, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	if (tpm_pcr_parse(t, o->selstr ? o->selstr : "sha1:all", &sel) ||
	    tpm_pcr_banks(t, &alloc, &npcrs) ||
	    tpm_pcr_resolve(t, &sel, &alloc, npcrs)) {
		rc = ctx_fail(c);
		goto done;
	}
	for (i = 0; i < sel.n; i++)
		mask |= sel.b[i].mask;
	if (o->have_nonce)
		quote12_nonce(o->nonce, o->nonce_len, nonce);
	if (o->srk_s) {
		if (auth_parse(o->srk_s, &sv, &c->e)) {
			rc = ctx_fail(c);
			goto done;
		}
		tpm12_auth_value(&sv, srk);
		auth_wipe(&sv);
	}
	/* Step 2: load, quote, flush. */
	if (tpm12_loadkey2(t, TPM12_KH_SRK, srk, key, &h)) {
		if (c->e.code == EX_AUTH)
			err_hint(&c->e, "give the SRK value with --srk-auth");
		rc = ctx_fail(c);
		goto done;
	}
	rc = tpm12_quote(t, h, key, nonce, mask, !o->quote1, q);
	tpm12_flush_key(t, h);
	if (rc) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 3: the files. */
	if ((o->out && (quote12_file_write(q, &qf, &qn, &c->e) ||
			file_write_atomic(o->out, qf, qn, o->flags, &c->e))) ||
	    (o->msgf && file_write_atomic(o->msgf, q->info, q->infolen,
					  o->flags, &c->e)) ||
	    (o->sigf && file_write_atomic(o->sigf, q->sig, q->siglen,
					  o->flags, &c->e)) ||
	    (o->pcrsf && (quote12_pcrs_text(q, &pt, &pn, &c->e) ||
			  file_write_atomic(o->pcrsf, pt, pn, o->flags,
					    &c->e)))) {
		rc = ctx_fail(c);
		goto done;
	}
	if (o->verbose) {
		quote12_pcr_vals(q, v);
		rc = ctx_print_pcrs(c, v, 0);
	}
done:
	explicit_bzero(srk, sizeof(srk));
	free(key);
	free(q);
	free(v);
	free(qf);
	free(pt);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyf = NULL, *selstr = NULL, *nonce_hex = NULL;
	const char *out = NULL, *msgf = NULL, *sigf = NULL, *pcrsf = NULL;
	const char *owner_s = NULL, *outs[4], *srk_s = NULL;
	struct authval oa = { .n = 0 };
	struct tpm2_public pub;
	struct pcr_sel sel, alloc;
	struct ak_blob blob;
	struct quote *q = NULL;
	uint8_t nonce[64], *kb = NULL, *qf = NULL, *pf = NULL;
	size_t kn, qn, pn;
	int flags = 0, verbose = 0, quote1 = 0, o, i, rc = 0, bare, is12;
	int fam = 0;
	long nn = 0;
	uint32_t h = 0;
	unsigned npcrs;
	struct tpm *t;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': keyf = optarg; break;
		case 'p': selstr = optarg; break;
		case 'n': nonce_hex = optarg; break;
		case 'o': out = optarg; break;
		case O_MSG: msgf = optarg; break;
		case O_SIG: sigf = optarg; break;
		case O_PCRS: pcrsf = optarg; break;
		case O_OWNER: owner_s = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		case 'v': verbose = 1; break;
		case O_QUOTE1: quote1 = 1; break;
		case O_SRKAUTH: srk_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind < argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	if (!keyf)
		return ctx_usage(c, "-k AKBLOB is required");
	if (!out && !msgf && !sigf && !pcrsf)
		return ctx_usage(c, "-o QUOTE (or --msg/--sig/--pcrs) is "
				 "required");
	if (nonce_hex) {
		nn = hex_decode(nonce_hex, nonce, sizeof(nonce));
		if (nn < 0)
			return ctx_usage(c, "bad nonce '%s' (hex, at most 64 "
					 "bytes)", nonce_hex);
	}
	/* A bare list (0,7) is sha1's on a TPM 1.2: parsed once the family
	 * is known; a 2.0 refuses it there as here. */
	bare = selstr && !strchr(selstr, ':') && strcmp(selstr, "all");
	if (!bare && pcr_sel_parse(selstr ? selstr : "sha256:all", &sel,
				   &c->e))
		return ctx_fail(c);
	if (owner_s && auth_parse(owner_s, &oa, &c->e))
		return ctx_fail(c);
	outs[0] = out;
	outs[1] = msgf;
	outs[2] = sigf;
	outs[3] = pcrsf;
	for (i = 0; i < 4 && !(flags & OUT_FORCE); i++)
		if (outs[i] && strcmp(outs[i], "-") && access(outs[i], F_OK)
		    == 0) {
			rc = ctx_usage(c, "%s exists (use -f to replace it)",
				       outs[i]);
			goto done;
		}

	/* Step 1: the key, checked before the TPM is touched (a TPM 1.2's
	 * AIK, a TPM_KEY, once the family is known). */
	if (file_read(keyf, 64 * 1024, &kb, &kn, &c->e)) {
		err_prefix(&c->e, "%s", keyf);
		rc = ctx_fail(c);
		goto done;
	}
	is12 = kn >= 4 && ((kb[0] == 1 && kb[1] == 1 && !kb[2] && !kb[3]) ||
			   (!kb[0] && kb[1] == 0x28));
	if (!is12 && ak_blob_decode(kb, kn, &blob, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	/* The family decides the job.  Known already (a device, or an SRK
	 * pin's salted session, where a 1.2 is a usage error), or asked for
	 * a 1.2 AIK or a bare PCR list; for a 2.0 AK the 2.0 job's first
	 * command tells it. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    (!(fam = tpm_family_known(t)) && (is12 || bare) &&
	     !(fam = tpm_family(t)))) {
		rc = ctx_fail(c);
		goto done;
	}
	if (fam == TPM_FAMILY_12) {
		struct q12 q12 = {
			kb, kn, keyf, selstr, out, msgf, sigf, pcrsf, srk_s,
			nonce, (size_t)nn, nonce_hex != NULL, quote1, flags,
			verbose
		};

		if (owner_s)
			rc = ctx_usage(c, "this TPM is a TPM 1.2: "
				       "--owner-auth is TPM 2.0's (the AIK "
				       "loads under the SRK with --srk-auth)");
		else if (!is12)
			rc = ctx_usage(c, "%s is a TPM 2.0 attestation key, "
				       "and this TPM is a TPM 1.2 (its AIKs "
				       "come from akcreate on it, or "
				       "tpm_mkaik)", keyf);
		else
			rc = quote12(c, t, &q12);
		goto done;
	}
	if (quote1 || srk_s) {
		rc = ctx_usage(c, "%s is for a TPM 1.2", quote1 ? "--quote1" :
			       "--srk-auth");
		goto done;
	}
	if (bare && pcr_sel_parse(selstr, &sel, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	if (is12) {
		rc = ctx_usage(c, "%s is a TPM 1.2 AIK (a TPM_KEY), and this "
			       "TPM is a TPM 2.0", keyf);
		goto done;
	}
	/* Step 2: the selection against this TPM's banks, load, quote. */
	if (!(q = malloc(sizeof(*q)))) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	if ((rc = tpm2_pcr_banks(t, &alloc, &npcrs)) &&
	    tpm_answered_12(t, rc, fam)) {
		rc = ctx_usage(c, "%s is a TPM 2.0 attestation key, and this "
			       "TPM is a TPM 1.2 (its AIKs come from akcreate "
			       "on it, or tpm_mkaik)", keyf);
		goto done;
	}
	if (rc || pcr_sel_resolve(&sel, &alloc, npcrs, &c->e) ||
	    ak_load(t, &blob, oa.v, oa.n, &h, &pub)) {
		rc = ctx_fail(c);
		goto done;
	}
	rc = ak_quote(t, h, &pub, nonce, (size_t)nn, &sel, q);
	tpm2_flush(t, h);
	if (rc) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 3: the files. */
	if ((out && (quote_file_write(q, &qf, &qn, &c->e) ||
		     file_write_atomic(out, qf, qn, flags, &c->e))) ||
	    (msgf && file_write_atomic(msgf, q->attest, q->attest_len, flags,
				       &c->e)) ||
	    (sigf && file_write_atomic(sigf, q->sig, q->sig_len, flags,
				       &c->e)) ||
	    (pcrsf && (quote_tools_pcrs_write(&q->sel, &q->vals, &pf, &pn,
					      &c->e) ||
		       file_write_atomic(pcrsf, pf, pn, flags, &c->e)))) {
		rc = ctx_fail(c);
		goto done;
	}
	if (verbose) {
		char *text = pcr_format_text(&q->vals);

		if (!text) {
			rc = ctx_usage(c, "out of memory");
			goto done;
		}
		fputs(text, stdout);
		free(text);
	}
done:
	auth_wipe(&oa);
	explicit_bzero(&blob, sizeof(blob));
	if (kb)
		explicit_bzero(kb, kn);
	free(kb);
	free(qf);
	free(pf);
	free(q);
	return rc;
}

const struct applet applet_quote = {
	"quote", "quote PCRs with an attestation key (TPM2_Quote)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
