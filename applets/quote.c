/* quote: sign PCR values with an attestation key (TPM2_Quote). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/auth.h"
#include "base/file.h"
#include "fmt/quote.h"
#include "fmt/quote12.h"
#include "job/attest.h"
#include "job/tpm.h"
#include "job/tpm12quote.h"
#include "tpm2/pcr.h"

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

/* The command line, for either family's steps. */
struct req {
	const char *keyf, *selstr, *outs[4], *owner_s, *srk_s;
	struct authval oa;	/* --owner-auth parsed */
	uint8_t nonce[64];	/* -n (have_nonce) */
	size_t nonce_len;
	int have_nonce, quote1, flags, verbose;
};

/* TPM 1.2: the AIK (a TPM_KEY) loaded under the SRK, TPM_Quote2 or
 * TPM_Quote (job/tpm12quote.h), the files. */
static int quote12(struct ctx *c, struct tpm *t, const struct req *o,
		   const uint8_t *kb, size_t kn, int is12)
{
	struct tpm12_quote_req r = {
		kb, kn, o->keyf, o->selstr, o->have_nonce ? o->nonce : NULL,
		o->nonce_len, o->srk_s, o->quote1
	};
	struct quote12 *q;
	struct pcr_vals *v;
	int rc = 0;

	if (o->owner_s)
		return ctx_usage(c, "this TPM is a TPM 1.2: --owner-auth is "
				 "TPM 2.0's (the AIK loads under the SRK with "
				 "--srk-auth)");
	if (!is12) {
		ak_wrong_family(o->keyf, 0, &c->e);
		return ctx_fail(c);
	}
	q = malloc(sizeof(*q));
	v = malloc(sizeof(*v));
	if (!q || !v) {
		rc = ctx_usage(c, "out of memory");
	} else if (tpm12_aik_quote(t, &r, q) ||
		   tpm12_quote_write(q, o->outs[0], o->outs[1], o->outs[2],
				     o->outs[3], o->flags, &c->e)) {
		rc = ctx_fail(c);
	} else if (o->verbose) {
		quote12_pcr_vals(q, v);
		rc = ctx_print_pcrs(c, v, 0);
	}
	free(q);
	free(v);
	return rc;
}

/* TPM 2.0: the AK blob loaded, TPM2_Quote (job/attest.h), the files. */
static int quote20(struct ctx *c, struct tpm *t, const struct req *o,
		   const struct ak_blob *blob, int is12, int fam,
		   struct pcr_sel *sel, int bare)
{
	struct quote *q;
	int rc = 0;

	if (o->quote1 || o->srk_s)
		return ctx_usage(c, "%s is for a TPM 1.2", o->quote1 ?
				 "--quote1" : "--srk-auth");
	if ((bare && pcr_sel_parse(o->selstr, sel, &c->e)) ||
	    (is12 && ak_wrong_family(o->keyf, 1, &c->e)))
		return ctx_fail(c);
	if (!(q = malloc(sizeof(*q))))
		return ctx_usage(c, "out of memory");
	if (ak_quote_blob(t, blob, o->keyf, o->oa.v, o->oa.n, fam, o->nonce,
			  o->nonce_len, sel, q) ||
	    ak_quote_write(q, o->outs[0], o->outs[1], o->outs[2], o->outs[3],
			   o->flags, &c->e))
		rc = ctx_fail(c);
	else if (o->verbose)
		rc = ctx_print_pcrs(c, &q->vals, 0);
	free(q);
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct req o = { .flags = 0 };
	const char *nonce_hex = NULL;
	struct pcr_sel sel;
	struct ak_blob blob;
	uint8_t *kb = NULL;
	size_t kn = 0;
	int opt, rc = 0, bare, is12 = 0, fam = 0;
	struct tpm *t;

	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'k': o.keyf = optarg; break;
		case 'p': o.selstr = optarg; break;
		case 'n': nonce_hex = optarg; break;
		case 'o': o.outs[0] = optarg; break;
		case O_MSG: o.outs[1] = optarg; break;
		case O_SIG: o.outs[2] = optarg; break;
		case O_PCRS: o.outs[3] = optarg; break;
		case O_OWNER: o.owner_s = optarg; break;
		case 'f': o.flags |= OUT_FORCE; break;
		case 'v': o.verbose = 1; break;
		case O_QUOTE1: o.quote1 = 1; break;
		case O_SRKAUTH: o.srk_s = optarg; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if ((rc = ctx_no_operands(c, argc, argv)))
		return rc;
	if (!o.keyf)
		return ctx_usage(c, "-k AKBLOB is required");
	if (!o.outs[0] && !o.outs[1] && !o.outs[2] && !o.outs[3])
		return ctx_usage(c, "-o QUOTE (or --msg/--sig/--pcrs) is "
				 "required");
	if ((o.have_nonce = nonce_hex != NULL) &&
	    quote_nonce_parse(nonce_hex, 0, o.nonce, &o.nonce_len, &c->e))
		return ctx_fail(c);
	/* A bare list (0,7) is sha1's on a TPM 1.2: parsed once the family
	 * is known; a 2.0 refuses it there as here. */
	bare = o.selstr && !strchr(o.selstr, ':') && strcmp(o.selstr, "all");
	if ((!bare && pcr_sel_parse(o.selstr ? o.selstr : "sha256:all", &sel,
				    &c->e)) ||
	    (o.owner_s && auth_parse(o.owner_s, &o.oa, &c->e)))
		return ctx_fail(c);
	if ((rc = ctx_outs_new(c, o.flags, o.outs, 4)))
		goto done;

	/* Step 1: the key, checked before the TPM is touched (a TPM 1.2's
	 * AIK, a TPM_KEY, once the family is known). */
	if (ak_quote_key_read(o.keyf, &kb, &kn, &blob, &is12, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 2: the family decides the job.  Known already (a device, or
	 * an SRK pin's salted session, where a 1.2 is a usage error), or
	 * asked for a 1.2 AIK or a bare PCR list (and asked again when a
	 * 2.0 answers: tpm_family_confirm); for a 2.0 AK the 2.0 job's
	 * first command tells it. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    ((is12 || bare) ? !(fam = tpm_family_confirm(t, TPM_FAMILY_12)) :
	     ((fam = tpm_family_known(t)), 0))) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 3: that family's quote, the files. */
	rc = fam == TPM_FAMILY_12 ? quote12(c, t, &o, kb, kn, is12) :
	     quote20(c, t, &o, &blob, is12, fam, &sel, bare);
done:
	auth_wipe(&o.oa);
	explicit_bzero(&blob, sizeof(blob));
	if (kb)
		explicit_bzero(kb, kn);
	free(kb);
	return rc;
}

const struct applet applet_quote = {
	"quote", "quote PCRs with an attestation key (TPM2_Quote)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
