/* checkquote: verify a quote against an AK public key; no TPM needed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "job/quotecheck.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: checkquote -k AK [-n NONCE_HEX] [-p SELECTION] [--json]\n"
	"                  [--srk-name HEX | --srk-pub FILE]\n"
	"                  [--eventlog FILE] [--imalog FILE]\n"
	"                  (QUOTE | --msg F --sig F --pcrs F)\n"
	"Verify a quote without a TPM: the signature with the AK's public "
	"key,\n"
	"magic TPM_GENERATED, type ATTEST_QUOTE, the nonce, the PCR "
	"selection,\n"
	"and that the PCR values hash to the quoted digest.  Prints the "
	"verified\n"
	"PCRs in pcrread's format; any failure exits 1 naming the check.\n"
	"  -k AK      the AK: its TPM2B_PUBLIC (akcreate --tpm-public, "
	"tpm2_create\n"
	"             -u, tpm2_readpublic -o) or its blob (akcreate -o): "
	"then it must\n"
	"             be fixedTPM, fixedParent, sensitiveDataOrigin, "
	"restricted, sign,\n"
	"             and sign with its own scheme; or a bare public key "
	"(PEM or DER:\n"
	"             akcreate --pub, tpm2_readpublic -f pem), which says "
	"neither\n"
	"  --srk-name HEX  the attesting TPM's SRK name (takeown printed "
	"it): the\n"
	"             quote's qualifiedSigner must be this AK under it\n"
	"  --srk-pub FILE  the same from its public key (takeown --srk-pub)"
	"\n"
	"  -n HEX     the nonce the quote must answer (without it the nonce "
	"is\n"
	"             not checked and a warning is printed)\n"
	"  -p SEL     the PCR selection the quote must cover, e.g. "
	"sha256:0-7,10\n"
	"  --msg F    tpm2_quote -m: the TPMS_ATTEST\n"
	"  --sig F    tpm2_quote -s: the TPMT_SIGNATURE\n"
	"  --pcrs F   tpm2_quote -o: the PCR values\n"
	"  --eventlog FILE  also check that this TCG boot event log replays "
	"to the\n"
	"             quoted values of the PCRs it extends\n"
	"  --imalog FILE  likewise for an IMA log (binary_runtime_"
	"measurements),\n"
	"             replayed in each quoted bank it can be\n"
	"  --json     print the PCRs as {\"sha256\": {\"7\": \"hex\"}}\n"
	"A TPM 1.2 quote (no TPM needed either): QUOTE from quote on a 1.2 "
	"(TPM_Quote\n"
	"or TPM_Quote2), or tpm_getquote's two files: --sig OUT --pcrs PCRFILE"
	"\n"
	"(its -p file) with -n, its nonce (its TPM_QUOTE_INFO2 is rebuilt: "
	"3 select\n"
	"bytes, locality 0).  -k: the AIK's blob (akcreate -o, tpm_mkaik's "
	"BLOB),\n"
	"tpm_mkaik's PUB file, a TPM_PUBKEY, or the RSA key in PEM/DER "
	"(akcreate\n"
	"--pub).  Checked: the PKCS#1 v1.5 SHA-1 signature over "
	"TPM_QUOTE_INFO or\n"
	"TPM_QUOTE_INFO2, the nonce (20 bytes, any other length hashed with "
	"SHA-1),\n"
	"the selection (-p 0,7 or sha1:0,7), the composite hash of the "
	"values.\n";

static const char no_nonce[] = "tpmbox checkquote: warning: no -n given, "
	"the nonce was not checked (the quote may be a replay)\n";

/* The 1.2 job's values, printed. */
static int checkquote12(struct ctx *c, const struct quotecheck *o, int json)
{
	struct pcr_vals *v = malloc(sizeof(*v));
	int rc;

	if (!v)
		return ctx_usage(c, "out of memory");
	if (quotecheck12(o, v, &c->e)) {
		rc = ctx_fail(c);
	} else {
		if (!o->nonce_hex)
			fprintf(stderr, "%s", no_nonce);
		rc = ctx_print_pcrs(c, v, json);
	}
	free(v);
	return rc;
}

enum { O_MSG = 256, O_SIG, O_PCRS, O_JSON, O_EVL, O_IMA, O_SRKN, O_SRKP };
static const char shortopts[] = "k:n:p:";
static const struct option longopts[] = {
	{"msg", required_argument, NULL, O_MSG},
	{"sig", required_argument, NULL, O_SIG},
	{"pcrs", required_argument, NULL, O_PCRS},
	{"json", no_argument, NULL, O_JSON},
	{"eventlog", required_argument, NULL, O_EVL},
	{"imalog", required_argument, NULL, O_IMA},
	{"srk-name", required_argument, NULL, O_SRKN},
	{"srk-pub", required_argument, NULL, O_SRKP},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	struct quotecheck q = { 0 };
	struct quotecheck_result r;
	const char *srkn = NULL, *srkp = NULL;
	struct srk_pin pin;
	int json = 0, o, rc;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': q.key = optarg; break;
		case 'n': q.nonce_hex = optarg; break;
		case 'p': q.sel = optarg; break;
		case O_MSG: q.msg = optarg; break;
		case O_SIG: q.sig = optarg; break;
		case O_PCRS: q.pcrs = optarg; break;
		case O_JSON: json = 1; break;
		case O_EVL: q.eventlog = optarg; break;
		case O_IMA: q.imalog = optarg; break;
		case O_SRKN: srkn = optarg; break;
		case O_SRKP: srkp = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind < argc)
		q.quote = argv[optind++];
	if ((rc = ctx_no_operands(c, argc, argv)))
		return rc;
	if (!q.key)
		return ctx_usage(c, "-k AK is required");
	/* A TPM 1.2 quote: tpmbox's 1.2 file, or tpm_getquote's signature
	 * and PCR file (no --msg: its TPM_QUOTE_INFO2 is rebuilt). */
	if ((q.quote && !q.msg && !q.sig && !q.pcrs &&
	     quotecheck_is12(q.quote)) ||
	    (!q.quote && !q.msg && q.sig && q.pcrs)) {
		if (srkn || srkp || q.eventlog || q.imalog)
			return ctx_usage(c, "%s is not for a TPM 1.2 quote",
					 srkn ? "--srk-name" : srkp ?
					 "--srk-pub" : q.eventlog ?
					 "--eventlog" : "--imalog");
		if (q.nonce_hex && !*q.nonce_hex)
			return ctx_usage(c, "empty nonce given with -n");
		return checkquote12(c, &q, json);
	}
	if (srkn && srkp)
		return ctx_usage(c, "give --srk-name or --srk-pub, not both");
	/* The verifier's knowledge of the attester's SRK: options only (a
	 * TPMBOX_SRK in this environment names this machine's SRK). */
	memset(&pin, 0, sizeof(pin));
	if ((srkn && srk_pin_name(&pin, srkn, "--srk-name", &c->e)) ||
	    (srkp && srk_pin_pub(&pin, srkp, "--srk-pub", &c->e)))
		return ctx_fail(c);
	q.pin = &pin;
	if (q.quote && (q.msg || q.sig || q.pcrs))
		return ctx_usage(c, "give QUOTE or --msg/--sig/--pcrs, not "
				 "both");
	if (!q.quote && !(q.msg && q.sig && q.pcrs))
		return ctx_usage(c, "give QUOTE, or all of --msg, --sig and "
				 "--pcrs");
	/* -n "" (an unset shell variable) would silently accept only a
	 * nonce-less quote: say what was meant instead. */
	if (q.nonce_hex && !*q.nonce_hex)
		return ctx_usage(c, "empty nonce given with -n (omit -n to "
				 "skip the nonce check)");

	rc = quotecheck2(&q, &r, &c->e);
	if (r.notes)
		fputs(r.notes, stderr);
	if (rc) {
		rc = ctx_fail(c);
	} else {
		if (!q.nonce_hex)
			fprintf(stderr, "%s", no_nonce);
		if (r.ak_public && !pin.set)
			fprintf(stderr, "tpmbox checkquote: warning: no "
				"--srk-name or --srk-pub given, "
				"qualifiedSigner was checked only for its "
				"algorithm (not that it names this AK under "
				"the attesting TPM's SRK)\n");
		rc = ctx_print_pcrs(c, &r.q->vals, json);
	}
	quotecheck_free(&r);
	return rc;
}

const struct applet applet_checkquote = {
	"checkquote", "verify a quote (no TPM needed)", APPLET_USAGE(usage),
	run, shortopts, longopts, 0
};
