/* quote: sign PCR values with an attestation key (TPM2_Quote). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "auth.h"
#include "file.h"
#include "hex.h"
#include "pcrfile.h"
#include "quote.h"
#include "tpm2/attest.h"
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
	"  -v         print the quoted PCR values in pcrread's format\n";

enum { O_MSG = 256, O_SIG, O_PCRS, O_OWNER };
static const char shortopts[] = "k:p:n:o:fv";
static const struct option longopts[] = {
	{"msg", required_argument, NULL, O_MSG},
	{"sig", required_argument, NULL, O_SIG},
	{"pcrs", required_argument, NULL, O_PCRS},
	{"owner-auth", required_argument, NULL, O_OWNER},
	{"force", no_argument, NULL, 'f'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *keyf = NULL, *selstr = "sha256:all", *nonce_hex = NULL;
	const char *out = NULL, *msgf = NULL, *sigf = NULL, *pcrsf = NULL;
	const char *owner_s = NULL, *outs[4];
	struct authval oa = { .n = 0 };
	struct tpm2_public pub;
	struct pcr_sel sel, alloc;
	struct ak_blob blob;
	struct quote *q = NULL;
	uint8_t nonce[64], *kb = NULL, *qf = NULL, *pf = NULL;
	size_t kn, qn, pn;
	int flags = 0, verbose = 0, o, i, rc = 0;
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
	if (pcr_sel_parse(selstr, &sel, &c->e))
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

	/* Step 1: the key, checked before the TPM is touched. */
	if (file_read(keyf, 64 * 1024, &kb, &kn, &c->e)) {
		err_prefix(&c->e, "%s", keyf);
		rc = ctx_fail(c);
		goto done;
	}
	if (ak_blob_decode(kb, kn, &blob, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 2: the selection against this TPM's banks, load, quote. */
	if (!(q = malloc(sizeof(*q)))) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_pcr_banks(t, &alloc, &npcrs) ||
	    pcr_sel_resolve(&sel, &alloc, npcrs, &c->e) ||
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
