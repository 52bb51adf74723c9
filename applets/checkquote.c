/* checkquote: verify a quote against an AK public key; no TPM needed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "fmt/pcrfile.h"
#include "fmt/quote.h"
#include "fmt/quote12.h"
#include "job/attest.h"
#include "log/eventlog.h"
#include "log/imalog.h"
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

#define IN_MAX (1u << 20)

/* A log that cannot be replayed fails its check (exit 1); a missing or
 * unreadable one keeps its own code (6, 3). */
static int log_fail(struct ctx *c, const char *check)
{
	if (c->e.code == EX_FAIL &&
	    !strstr(c->e.msg, "check failed"))
		err_prefix(&c->e, "%s check failed", check);
	return ctx_fail(c);
}

static int slurp(struct ctx *c, const char *path, uint8_t **p, size_t *n)
{
	if (file_read(path, IN_MAX, p, n, &c->e)) {
		err_prefix(&c->e, "%s", path);
		return ctx_fail(c);
	}
	return 0;
}

/* The IMA list against the quoted values: the quote was taken before the
 * list was read, and the kernel appends before it extends, so a prefix of
 * the list must replay to them, in each quoted bank, with the bank's own
 * template digests or SHA-1 ones zero-padded (see log/imalog.h).  Entries
 * beyond that prefix are named on stderr: the quote does not cover them. */
static int check_ima(struct ctx *c, const struct quote *q, const char *imaf)
{
	struct imalog log;
	uint8_t *buf;
	size_t len;
	int i, same = 0, rc = 0;

	if (file_read(imaf, IMA_MAX_FILE, &buf, &len, &c->e)) {
		err_prefix(&c->e, "%s", imaf);
		return log_fail(c, "IMA log");
	}
	if (imalog_parse(buf, len, &log, &c->e)) {
		free(buf);
		err_prefix(&c->e, "%s", imaf);
		return log_fail(c, "IMA log");
	}
	for (i = 0; i < q->sel.n && !rc; i++) {
		uint16_t bank = q->sel.b[i].alg;
		struct ima_match m;

		if (!imalog_bank_ok(bank) || !hash_supported(bank))
			continue;
		if (imalog_match(&log, bank, &q->vals, &m, &c->e)) {
			rc = log_fail(c, "IMA log");
			break;
		}
		if (!m.compared)
			continue;
		if (!m.matched) {
			err_set(&c->e, EX_FAIL, "IMA log check failed: no "
				"prefix of the list replays to the quoted %s "
				"values (with %s or zero-padded SHA-1 template "
				"digests)", alg_name(bank), alg_name(bank));
			rc = ctx_fail(c);
			break;
		}
		same++;
		if (m.how == IMA_DIGEST_SHA1_PADDED || m.upto < log.n)
			fprintf(stderr, "checkquote: IMA log, %s: %s%u of %u "
				"entries match the quote%s\n", alg_name(bank),
				m.how == IMA_DIGEST_SHA1_PADDED ?
				"SHA-1 template digests zero-padded; " : "",
				m.upto, log.n, m.upto < log.n ?
				" (the rest, beyond it, came after the quote "
				"and are not covered)" : "");
	}
	if (!rc && !same) {
		err_set(&c->e, EX_FAIL, "IMA log check failed: the log "
			"extends none of the quoted PCRs");
		rc = ctx_fail(c);
	}
	imalog_free(&log);
	free(buf);
	return rc;
}

/* The logs replay to the quoted values (after the quote itself passed). */
static int check_logs(struct ctx *c, const struct quote *q, const char *evlf,
		      const char *imaf)
{
	struct pcr_vals *r;

	if (evlf) {
		if (!(r = malloc(sizeof(*r))))
			return ctx_usage(c, "out of memory");
		if (eventlog_replay_file(evlf, r, &c->e) ||
		    quote_match_replay(&q->vals, r, "event log", &c->e)) {
			free(r);
			return log_fail(c, "event log");
		}
		free(r);
	}
	return imaf ? check_ima(c, q, imaf) : 0;
}

/* Whether path holds tpmbox's TPM 1.2 quote file (errors are left to the
 * reader proper). */
static int is_quote12(const char *path)
{
	struct tberr e;
	uint8_t *p;
	size_t n;
	int r;

	memset(&e, 0, sizeof(e));
	if (file_read(path, IN_MAX, &p, &n, &e))
		return 0;
	r = quote12_file_is(p, n);
	free(p);
	return r;
}

/* -p for a 1.2 quote: the sha1 bank only, a bare list meaning it. */
static int sel12(struct ctx *c, const char *s, uint32_t *mask)
{
	struct pcr_sel sel;
	char buf[256];
	int i;

	if (!strchr(s, ':') && strcmp(s, "all")) {
		if (strlen(s) > sizeof(buf) - 6)
			return ctx_usage(c, "bad PCR selection '%s'", s);
		snprintf(buf, sizeof(buf), "sha1:%s", s);
		s = buf;
	} else if (!strcmp(s, "all")) {
		s = "sha1:all";
	}
	if (pcr_sel_parse(s, &sel, &c->e))
		return ctx_fail(c);
	*mask = 0;
	for (i = 0; i < sel.n; i++) {
		if (sel.b[i].alg != TPM2_ALG_SHA1)
			return ctx_usage(c, "PCR bank %s: the quote is from a "
					 "TPM 1.2, which has only the sha1 "
					 "bank", alg_name(sel.b[i].alg));
		*mask |= sel.b[i].all ? 0xffffff : sel.b[i].mask;
	}
	return 0;
}

/* A TPM 1.2 quote: tpmbox's file or tpm_getquote's two files (fmt/quote12.h). */
struct cq12 {
	const char *keyf, *nonce_hex, *selstr, *quotef, *sigf, *pcrsf;
	int json;
};

static int checkquote12(struct ctx *c, const struct cq12 *o)
{
	struct quote12 *q = malloc(sizeof(*q));
	struct pcr_vals *v = malloc(sizeof(*v));
	struct tpm12_pubkey *k = malloc(sizeof(*k));
	struct quote12_want w = { 0 };
	uint8_t raw[64], nonce[20], *key = NULL, *a = NULL, *b = NULL;
	size_t keylen, al, bl;
	long nn;
	int rc = 0, aik;

	if (!q || !v || !k) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	if (o->nonce_hex) {
		nn = hex_decode(o->nonce_hex, raw, sizeof(raw));
		if (nn <= 0) {
			rc = ctx_usage(c, "bad nonce '%s' (hex, at most 64 "
				       "bytes)", o->nonce_hex);
			goto out;
		}
		quote12_nonce(raw, (size_t)nn, nonce);
		w.nonce = nonce;
	} else if (!o->quotef) {
		rc = ctx_usage(c, "tpm_getquote's signature covers its nonce: "
			       "give it with -n (the hex of its nonce file)");
		goto out;
	}
	if (o->selstr && (rc = sel12(c, o->selstr, &w.mask)))
		goto out;
	w.has_mask = o->selstr != NULL;
	if ((rc = slurp(c, o->keyf, &key, &keylen)))
		goto out;
	if (quote12_key_load(key, keylen, k, &aik, &c->e)) {
		err_prefix(&c->e, "%s", o->keyf);
		rc = ctx_fail(c);
		goto out;
	}
	w.key = k;
	if (o->quotef) {
		if ((rc = slurp(c, o->quotef, &a, &al)))
			goto out;
		if (quote12_file_read(a, al, q, &c->e)) {
			err_prefix(&c->e, "%s", o->quotef);
			rc = ctx_fail(c);
			goto out;
		}
	} else {
		if ((rc = slurp(c, o->sigf, &a, &al)) ||
		    (rc = slurp(c, o->pcrsf, &b, &bl)))
			goto out;
		if (quote12_from_getquote(a, al, (const char *)b, bl, nonce, q,
					  &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
	}
	if (quote12_check(q, &w, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (!o->nonce_hex)
		fprintf(stderr, "tpmbox checkquote: warning: no -n given, the "
			"nonce was not checked (the quote may be a replay)\n");
	quote12_pcr_vals(q, v);
	rc = ctx_print_pcrs(c, v, o->json);
out:
	free(q);
	free(v);
	free(k);
	free(key);
	free(a);
	free(b);
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
	const char *keyf = NULL, *nonce_hex = NULL, *selstr = NULL;
	const char *msgf = NULL, *sigf = NULL, *pcrsf = NULL, *quotef = NULL;
	const char *evlf = NULL, *imaf = NULL, *srkn = NULL, *srkp = NULL;
	struct tpm2_public *ak = NULL;
	struct srk_pin pin;
	uint8_t qn[TPM2_NAME_MAX];
	char *pem = NULL;
	size_t pemlen;
	int kind;
	uint8_t nonce[68], *key = NULL, *m = NULL, *s = NULL, *p = NULL;
	size_t keylen, ml, sl, pl;
	struct quote_want w = { 0 };
	struct pcr_sel want;
	struct quote *q = NULL;
	int json = 0, o, i, rc = 0;
	long nn = 0;

	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'k': keyf = optarg; break;
		case 'n': nonce_hex = optarg; break;
		case 'p': selstr = optarg; break;
		case O_MSG: msgf = optarg; break;
		case O_SIG: sigf = optarg; break;
		case O_PCRS: pcrsf = optarg; break;
		case O_JSON: json = 1; break;
		case O_EVL: evlf = optarg; break;
		case O_IMA: imaf = optarg; break;
		case O_SRKN: srkn = optarg; break;
		case O_SRKP: srkp = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind < argc)
		quotef = argv[optind++];
	if (optind < argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	if (!keyf)
		return ctx_usage(c, "-k AK is required");
	/* A TPM 1.2 quote: tpmbox's 1.2 file, or tpm_getquote's signature
	 * and PCR file (no --msg: its TPM_QUOTE_INFO2 is rebuilt). */
	if ((quotef && !msgf && !sigf && !pcrsf && is_quote12(quotef)) ||
	    (!quotef && !msgf && sigf && pcrsf)) {
		struct cq12 o12 = {
			keyf, nonce_hex, selstr, quotef, sigf, pcrsf, json
		};

		if (srkn || srkp || evlf || imaf)
			return ctx_usage(c, "%s is not for a TPM 1.2 quote",
					 srkn ? "--srk-name" : srkp ?
					 "--srk-pub" : evlf ? "--eventlog" :
					 "--imalog");
		if (nonce_hex && !*nonce_hex)
			return ctx_usage(c, "empty nonce given with -n");
		return checkquote12(c, &o12);
	}
	if (srkn && srkp)
		return ctx_usage(c, "give --srk-name or --srk-pub, not both");
	/* The verifier's knowledge of the attester's SRK: options only (a
	 * TPMBOX_SRK in this environment names this machine's SRK). */
	memset(&pin, 0, sizeof(pin));
	if ((srkn && srk_pin_name(&pin, srkn, "--srk-name", &c->e)) ||
	    (srkp && srk_pin_pub(&pin, srkp, "--srk-pub", &c->e)))
		return ctx_fail(c);
	if (quotef && (msgf || sigf || pcrsf))
		return ctx_usage(c, "give QUOTE or --msg/--sig/--pcrs, not "
				 "both");
	if (!quotef && !(msgf && sigf && pcrsf))
		return ctx_usage(c, "give QUOTE, or all of --msg, --sig and "
				 "--pcrs");
	/* -n "" (an unset shell variable) would silently accept only a
	 * nonce-less quote: say what was meant instead. */
	if (nonce_hex && !*nonce_hex)
		return ctx_usage(c, "empty nonce given with -n (omit -n to "
				 "skip the nonce check)");
	if (nonce_hex) {
		nn = hex_decode(nonce_hex, nonce, 64);
		if (nn < 0)
			return ctx_usage(c, "bad nonce '%s' (hex, at most 64 "
					 "bytes)", nonce_hex);
		w.nonce = nonce;
		w.nonce_len = (size_t)nn;
	}
	if (selstr) {
		if (pcr_sel_parse(selstr, &want, &c->e))
			return ctx_fail(c);
		if (want.all)
			return ctx_usage(c, "name the banks in -p, e.g. "
					 "sha256:all");
		for (i = 0; i < want.n; i++)
			if (want.b[i].all)
				want.b[i].mask = 0xffffff;
		w.sel = &want;
	}

	if ((rc = slurp(c, keyf, &key, &keylen)))
		goto out;
	w.key = key;
	w.keylen = keylen;
	/* An AK's public area (blob or TPM2B_PUBLIC) says what kind of key
	 * it is and what the TPM calls it; a bare key says neither. */
	if (!(ak = malloc(sizeof(*ak)))) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	kind = ak_pub_load(key, keylen, ak, &c->e);
	if (kind >= 0) {
		err_prefix(&c->e, "%s", keyf);
		rc = ctx_fail(c);
		goto out;
	}
	if (kind != AK_PUB_NONE) {
		if (ak_pub_pem(ak, &pem, &pemlen, &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
		w.key = (const uint8_t *)pem;
		w.keylen = pemlen;
		w.name = ak->name;
		w.namelen = ak->namelen;
		w.scheme = ak->scheme;
		w.scheme_hash = ak->scheme_hash;
		if (pin.set) {
			w.parent_qnlen = ak_srk_qn(pin.name, pin.namelen, qn);
			w.parent_qn = qn;
		}
	} else if (pin.set) {
		rc = ctx_usage(c, "--srk-name/--srk-pub need the AK's "
			       "TPM2B_PUBLIC or blob in -k, not a bare key");
		goto out;
	}
	if (!(q = malloc(sizeof(*q)))) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	if (quotef) {
		if ((rc = slurp(c, quotef, &m, &ml)))
			goto out;
		if (quote_file_read(m, ml, q, &c->e)) {
			err_prefix(&c->e, "%s", quotef);
			rc = ctx_fail(c);
			goto out;
		}
	} else {
		if ((rc = slurp(c, msgf, &m, &ml)) ||
		    (rc = slurp(c, sigf, &s, &sl)) ||
		    (rc = slurp(c, pcrsf, &p, &pl)))
			goto out;
		if (quote_from_tools(m, ml, s, sl, p, pl, q, &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
	}
	if (quote_check(q, &w, &c->e)) {
		if (strncmp(c->e.msg, "public key", 10) == 0)
			err_prefix(&c->e, "%s", keyf);
		rc = ctx_fail(c);
		goto out;
	}
	if ((evlf || imaf) && (rc = check_logs(c, q, evlf, imaf)))
		goto out;
	if (!nonce_hex)
		fprintf(stderr, "tpmbox checkquote: warning: no -n given, the "
			"nonce was not checked (the quote may be a replay)\n");
	if (kind != AK_PUB_NONE && !pin.set)
		fprintf(stderr, "tpmbox checkquote: warning: no --srk-name "
			"or --srk-pub given, qualifiedSigner was checked only "
			"for its algorithm (not that it names this AK under "
			"the attesting TPM's SRK)\n");
	rc = ctx_print_pcrs(c, &q->vals, json);
out:
	free(ak);
	free(pem);
	free(key);
	free(m);
	free(s);
	free(p);
	free(q);
	return rc;
}

const struct applet applet_checkquote = {
	"checkquote", "verify a quote (no TPM needed)", APPLET_USAGE(usage),
	run, shortopts, longopts, 0
};
