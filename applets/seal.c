/* seal: seal a secret to this TPM under the SRK, with a PCR and/or
 * password policy, into a PEM blob (docs/blob-format.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/tty.h"
#include "fmt/keyfile.h"
#include "job/escrow.h"
#include "job/sealing.h"
#include "job/sealing12.h"
#include "job/tpm.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: seal [-p SELECTION[=VALUES]]... [-P PCRFILE]... "
	"[--authorized-by PUBKEY [--bank BANK]] [--auth AUTH] "
	"[--owner-auth AUTH] [--escrow RECIPIENT]... [--escrow-out PREFIX] "
	"[--recovery-code-out FILE] [--recovery-code] [--to SRKPUB | "
	"--to-ek EKPUB] [--srk-auth AUTH] [--format tpm-tools] [-f] "
	"-o BLOB [FILE]\n"
	"Seal FILE (or stdin; 1 byte to 64 MiB) to this TPM under the SRK at\n"
	"0x81000001 (created from the standard template when none is\n"
	"persisted).  Unseal needs this TPM, the same PCR values and the\n"
	"password.  The secret crosses the bus encrypted (salted session).\n"
	"  -p SELECTION[=VALUES]  PolicyPCR over these PCRs, e.g. sha256:0,7\n"
	"             (their current values) or sha256:7=HEX (given values,\n"
	"             one HEX per PCR, comma-separated; banks joined by +)\n"
	"  -P PCRFILE  PCR values in pcrread's text format: the values for\n"
	"             -p's PCRs, or alone the selection and values to seal to\n"
	"  Several -p (each with its values, or the current ones), or several\n"
	"             -P (over one -p's selection, or their own): the blob\n"
	"             unseals in any of these states, up to 8 (PolicyOR)\n"
	"  --authorized-by PUBKEY  unseal needs a PCR policy signed by this\n"
	"             key (PEM RSA-2048/3072 or EC P-256; systemd-measure sign\n"
	"             or tpmbox policysign): unseal --signature SIG.json\n"
	"  --bank BANK  the PCR bank the signed policies are for (sha256)\n"
	"  --auth AUTH  also require this password (PolicyAuthValue; counts\n"
	"             toward dictionary-attack lockout when wrong)\n"
	"  --owner-auth AUTH  owner password, to create the SRK when none is\n"
	"             persisted\n"
	"  --escrow RECIPIENT  also make an escrow copy that RECIPIENT opens\n"
	"             without this TPM (repeatable; any one opens it): a file\n"
	"             with a PEM certificate or public key (RSA >= 2048 or EC\n"
	"             P-256/P-384: CMS for openssl cms -decrypt), or an age\n"
	"             recipient age1... or a file of them (for age -d); the\n"
	"             copies travel in the blob (tpmbox recover)\n"
	"  --escrow-out PREFIX  also write the copies as PREFIX.cms (PEM) and\n"
	"             PREFIX.age\n"
	"  --recovery-code-out FILE  also make a random recovery code (48\n"
	"             digits, 8 checked groups) that opens one more escrow\n"
	"             copy, and write it to FILE (mode 0600)\n"
	"  --recovery-code  the same, shown once on the terminal (with\n"
	"             --recovery-code-out too: the same code)\n"
	"  --to SRKPUB  seal for another TPM, with no TPM here: SRKPUB is its\n"
	"             SRK public (PEM from takeown --srk-pub, or a\n"
	"             TPM2B_PUBLIC); give every PCR value (-p SEL=VALUES or\n"
	"             -P); unseal on that TPM imports the blob\n"
	"  --to-ek EKPUB  the same under its endorsement key (PEM or\n"
	"             TPM2B_PUBLIC of the TCG template): survives a clear\n"
	"  On a TPM 1.2: one PCR state of sha1 PCRs (-p 0,7 or sha1:0,7),\n"
	"             no --authorized-by, --to or --to-ek; the data key is\n"
	"             sealed with TPM_Sealx under the SRK (masked on the bus\n"
	"             with a key from the SRK value: secret only when that\n"
	"             value is)\n"
	"  --srk-auth AUTH  the 1.2 SRK's value (default: the well-known\n"
	"             one, as tpm_takeownership -z)\n"
	"  --format tpm-tools  (1.2) write tpm_sealdata's file, which\n"
	"             tpm_unsealdata -z opens (a new TPM key each time; no\n"
	"             --auth)\n"
	"  -o BLOB    write the sealed blob here (PEM, mode 0600, atomic)\n"
	"  -f         replace an existing BLOB\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

static const char shortopts[] = "p:P:o:f";
static const struct option longopts[] = {
	{ "auth", required_argument, NULL, 'a' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ "escrow", required_argument, NULL, 'E' },
	{ "escrow-out", required_argument, NULL, 'X' },
	{ "recovery-code-out", required_argument, NULL, 'K' },
	{ "recovery-code", no_argument, NULL, 'C' },
	{ "to", required_argument, NULL, 'T' },
	{ "to-ek", required_argument, NULL, 'N' },
	{ "authorized-by", required_argument, NULL, 'Z' },
	{ "bank", required_argument, NULL, 'B' },
	{ "srk-auth", required_argument, NULL, 'S' },
	{ "format", required_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

/* A bare PCR list ("0,7", "7=HEX") names a TPM 1.2's one bank: the
 * family decides.  On a 1.2 each becomes "sha1:..." in bare[] (freed by
 * the caller); on a 2.0 it is a usage error. */
static int bare_lists(struct ctx *c, struct tpm *t, struct seal_opts *so,
		      char **bare)
{
	int i, fam;

	/* Options only a 1.2 takes: a 2.0 answer is asked again before
	 * they are called the user's mistake. */
	if (!(fam = tpm_family_confirm(t, TPM_FAMILY_12)))
		return ctx_fail(c);
	for (i = 0; i < so->npcr; i++) {
		if (strchr(so->pcr[i], ':') || strcmp(so->pcr[i], "all") == 0)
			continue;
		if (fam != TPM_FAMILY_12)
			return ctx_usage(c, "-p %s: name the PCR bank (e.g. "
					 "sha256:%s); a bare list is for a "
					 "TPM 1.2", so->pcr[i], so->pcr[i]);
		if (asprintf(&bare[i], "sha1:%s", so->pcr[i]) < 0) {
			bare[i] = NULL;
			return ctx_usage(c, "out of memory");
		}
		so->pcr[i] = bare[i];
	}
	return 0;
}

static int has_bare(const struct seal_opts *so)
{
	int i;

	for (i = 0; i < so->npcr; i++)
		if (!strchr(so->pcr[i], ':') && strcmp(so->pcr[i], "all"))
			return 1;
	return 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct seal_opts so;
	const char *out = NULL, *in = "-";
	const char *escrow_out = NULL, *code_out = NULL, *to = NULL;
	struct tpm2_public *target = NULL;
	struct escrow *esc = escrow_new();
	struct seal_spec *spec = calloc(1, sizeof(*spec));
	uint8_t *data = NULL;
	size_t dlen = 0, pemlen;
	char *pem = NULL;
	int o, force = 0, rc = 0;
	int show_code = 0, to_ek = 0, fam = 0, i;
	const char *srkspec = NULL, *format = NULL;
	struct authval srk = { .n = 0 };
	struct seal12_opts o12 = { .srk = NULL };
	char *bare[POLICY_BRANCHES] = { NULL };
	struct tpm *t = NULL;

	memset(&so, 0, sizeof(so));
	if (!spec || !esc) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'p':
		case 'P':
			if (seal_opts_add(&so, o, optarg, &c->e)) {
				rc = ctx_fail(c);
				goto out;
			}
			break;
		case 'Z': so.signer = optarg; break;
		case 'B': so.bank = optarg; break;
		case 'a': so.authspec = optarg; break;
		case 'O': so.ownerspec = optarg; break;
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		case 'E':
			if (escrow_add(esc, optarg, &c->e)) {
				rc = ctx_fail(c);
				goto out;
			}
			break;
		case 'X': escrow_out = optarg; break;
		case 'K': code_out = optarg; escrow_want_code(esc); break;
		case 'C': show_code = 1; escrow_want_code(esc); break;
		case 'T': to = optarg; to_ek = 0; break;
		case 'N': to = optarg; to_ek = 1; break;
		case 'S': srkspec = optarg; break;
		case 'F': format = optarg; break;
		default: rc = ctx_usage(c, "unknown option"); goto out;
		}
	}
	if (optind < argc)
		in = argv[optind++];
	if (optind != argc) {
		rc = ctx_usage(c, "one input FILE at most");
		goto out;
	}
	if (!out) {
		rc = ctx_usage(c, "-o BLOB is required");
		goto out;
	}
	if (strcmp(out, "-") == 0) {
		rc = ctx_usage(c, "-o needs a file name (the blob is written "
			       "atomically with mode 0600)");
		goto out;
	}
	if (escrow_out && !escrow_wanted(esc)) {
		rc = ctx_usage(c, "--escrow-out needs --escrow");
		goto out;
	}
	if (show_code && tty_check("--recovery-code", &c->e)) {
		err_hint(&c->e, "write it to a file with --recovery-code-out");
		rc = ctx_fail(c);
		goto out;
	}
	if (format && strcmp(format, "tpm-tools") && strcmp(format, "tpmbox")) {
		rc = ctx_usage(c, "--format: tpmbox or tpm-tools");
		goto out;
	}
	o12.tpmtools = format && strcmp(format, "tpm-tools") == 0;
	if ((o12.tpmtools || srkspec) && to) {
		rc = ctx_usage(c, "--srk-auth and --format tpm-tools are for "
			       "a TPM 1.2 here; --to and --to-ek seal for a "
			       "TPM 2.0");
		goto out;
	}
	if (o12.tpmtools && escrow_wanted(esc)) {
		rc = ctx_usage(c, "--format tpm-tools: tpm_unsealdata's file "
			       "has no room for escrow copies");
		goto out;
	}
	if (srkspec) {
		if (auth_parse(srkspec, &srk, &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
		o12.srk = &srk;
	}
	/* Options only a 1.2 takes: the family first (on a socket, one
	 * probe command). */
	if (!to && (has_bare(&so) || o12.tpmtools || srkspec)) {
		if (!(t = ctx_tpm(c)) || (rc = bare_lists(c, t, &so, bare)))
			goto fail_or_out;
		fam = tpm_family(t);
		if (fam != TPM_FAMILY_12) {
			rc = ctx_usage(c, "--srk-auth and --format tpm-tools "
				       "are for a TPM 1.2 (this one is a TPM "
				       "2.0)");
			goto out;
		}
	}
	if (seal_spec_parse(spec, &so, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* --to: the other TPM's SRK, read before anything is sealed. */
	if (to && so.ownerspec) {
		rc = ctx_usage(c, "--owner-auth is for this TPM; --to and "
			       "--to-ek seal for another one");
		goto out;
	}
	if (to && (!(target = calloc(1, sizeof(*target))) ||
		   srk_pub_read(to, target, to_ek, to_ek ? "--to-ek" : "--to",
				&c->e))) {
		rc = target ? ctx_fail(c) : ctx_usage(c, "out of memory");
		goto out;
	}

	/* The secret. */
	if (file_read(in, KEYFILE_DATA_MAX, &data, &dlen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (dlen == 0) {
		rc = ctx_usage(c, "nothing to seal: %s is empty",
			       strcmp(in, "-") ? in : "stdin");
		goto out;
	}
	/* The escrow copies, on the host, before the TPM sees anything. */
	if (escrow_wanted(esc) && escrow_make(esc, data, dlen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* Sealed on this TPM (or wrapped for the other one), then the blob
	 * with the copies, written.  A TPM of unknown family gets the 2.0
	 * job, whose first command a 1.2 refuses having done nothing. */
	if (target) {
		rc = seal_blob_to(target, spec, data, dlen, &pem, &pemlen,
				  &c->e);
	} else if (!t && !(t = ctx_tpm(c))) {
		rc = c->e.code;
	} else {
		if (!fam)
			fam = tpm_family_known(t);
		if (fam != TPM_FAMILY_12) {
			rc = seal_blob(t, spec, data, dlen, &pem, &pemlen,
				       &c->e);
			if (tpm_answered_12(t, rc, fam))
				fam = TPM_FAMILY_12;
		}
		if (fam == TPM_FAMILY_12)
			rc = seal12_blob(t, spec, &o12, data, dlen, &pem,
					 &pemlen, &c->e);
	}
	if (rc ||
	    seal_write(esc, &pem, &pemlen, out, escrow_out, code_out,
		       show_code, force, &c->e))
		rc = ctx_fail(c);
	goto out;
fail_or_out:
	if (!rc)
		rc = ctx_fail(c);
out:
	for (i = 0; i < POLICY_BRANCHES; i++)
		free(bare[i]);
	auth_wipe(&srk);
	if (data) {
		explicit_bzero(data, dlen);
		free(data);
	}
	if (spec)
		seal_spec_wipe(spec);
	free(spec);
	escrow_free(esc);
	free(target);
	free(pem);
	return rc;
}

const struct applet applet_seal = {
	"seal", "seal a secret to this TPM (PCR and/or password policy)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
