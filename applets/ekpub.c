/* ekpub: the endorsement key's public key, as the TCG EK Credential
 * Profile defines the EK (persisted, NV template, or the L-1/L-2
 * template), for seal --to-ek, makecredential and a verifier. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/pk.h"
#include "job/attest.h"
#include "tpm2/ek.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: ekpub [--rsa | --ecc | --template L-1|L-2|H-1|H-2|H-3|H-6|H-7]"
	" [-o PEM] "
	"[--pub FILE]\n             [--name] [-f]\n"
	"Write the endorsement key's public key (PEM) to stdout or PEM: the\n"
	"EK persisted at 0x81010001 (RSA) / 0x81010002 (ECC), else the key\n"
	"made from the template in NV (0x01c00004 / 0x01c0000c, with its\n"
	"nonce), else from the TCG template L-1 (RSA-2048) / L-2 (P-256).\n"
	"  --rsa      the RSA EK (the default)\n"
	"  --ecc      the ECC (NIST P-256) EK\n"
	"  --template T  L-1 (= --rsa), L-2 (= --ecc), or a high range EK\n"
	"             (PolicyB, empty unique): H-1 RSA-2048, H-2 P-256, H-3\n"
	"             P-384, H-4 P-521, H-6 RSA-3072, H-7 RSA-4096 (not\n"
	"             H-5, SM2: SM3-256 names); the one persisted\n"
	"             beside its certificate (H-3: 0x81010016, as swtpm_setup\n"
	"             does), else made\n"
	"  -o PEM     write the PEM here (atomic)\n"
	"  --pub FILE  also write its TPM2B_PUBLIC (tpm2_createek -u format)\n"
	"  --name     print its name (hex) and where it came from\n"
	"  -f         replace existing files\n";

static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{ "rsa", no_argument, NULL, 'r' },
	{ "ecc", no_argument, NULL, 'e' },
	{ "pub", required_argument, NULL, 'p' },
	{ "name", no_argument, NULL, 'n' },
	{ "template", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 }
};

static const char *const whence[] = {
	"", "persisted", "made from the TCG template",
	"made from the template in NV"
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *out = "-", *pubf = NULL;
	struct tpm2_public *ek = calloc(1, sizeof(*ek));
	int o, rsa = 1, high = 0, name = 0, flags = 0, how = 0, rc = 0;
	char *pem = NULL, hx[2 * TPM2_NAME_MAX + 1];
	uint8_t b2[2 + TPM2_PUBLIC_MAX];
	size_t pemlen;
	struct tpm *t;

	if (!ek)
		return ctx_usage(c, "out of memory");
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'r': rsa = 1; high = 0; break;
		case 'e': rsa = 0; high = 0; break;
		case 't':
			high = 0;
			rsa = !strcmp(optarg, "L-1");
			if (optarg[0] == 'H' && optarg[1] == '-' &&
			    optarg[2] >= '1' && optarg[2] <= '7' && !optarg[3])
				high = optarg[2] - '0';
			if (high == 5) {
				rc = ctx_usage(c, "template 'H-5': SM2, whose "
					       "names are SM3-256 hashes tpmbox "
					       "does not compute");
				goto done;
			}
			if (high == 4 && !pk_has_p521()) {
				rc = ctx_usage(c, "template 'H-4': this build "
					       "has no NIST P-521 (make tiny "
					       "leaves it out)");
				goto done;
			}
			if ((high && tpm2_ek_template_high(ek, high)) ||
			    (!high && !rsa && strcmp(optarg, "L-2"))) {
				rc = ctx_usage(c, "template '%s': L-1, L-2, H-1, "
					       "H-2, H-3, H-4, H-6 or H-7",
					       optarg);
				goto done;
			}
			break;
		case 'o': out = optarg; break;
		case 'p': pubf = optarg; break;
		case 'n': name = 1; break;
		case 'f': flags |= OUT_FORCE; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if (optind != argc) {
		rc = ctx_usage(c, "no operands expected");
		goto done;
	}
	/* Step 1: the EK, its answers HMACed in the process session. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    (high ? tpm2_ek_public_high(t, high, ek, &how) :
	     tpm2_ek_public(t, rsa, ek, &how))) {
		rc = ctx_fail(c);
		goto done;
	}
	/* Step 2: its public key and the files. */
	if (ak_pub_pem(ek, &pem, &pemlen, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	b2[0] = (uint8_t)(ek->rawlen >> 8);
	b2[1] = (uint8_t)ek->rawlen;
	memcpy(b2 + 2, ek->raw, ek->rawlen);
	if ((pubf && file_write_atomic(pubf, b2, ek->rawlen + 2, flags,
				       &c->e)) ||
	    file_write_atomic(out, pem, pemlen, flags, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	if (name) {
		hex_encode(ek->name, ek->namelen, hx);
		printf("%s (%s", hx, whence[how]);
		if (how == EK_PERSISTED)
			printf(" at 0x%08x", high ? TPM2_EK_HIGH_HANDLE(high) :
			       rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE);
		printf(")\n");
	}
done:
	free(pem);
	free(ek);
	return rc;
}

const struct applet applet_ekpub = {
	"ekpub", "the endorsement key's public key (TCG EK templates)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
