/* ekcert: the EK certificate(s) the manufacturer put in NV (TCG EK
 * Credential Profile 2.x), checked against the EK itself and, with
 * --ca, against a CA the user trusts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "crypto/x509crt.h"
#include "job/ekcert.h"
#include "tpm2/cap.h"
#include "tpm2/ek.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: ekcert [--rsa | --ecc | --all] [-o FILE] [-f] [--ca FILE|DIR]"
	" [--json]\n"
	"Read the EK certificate from NV (0x01c00002 L-1 RSA, 0x01c0000a L-2\n"
	"ECC, 0x01c00012..0x01c0001e H-1..H-7), print its subject, issuer,\n"
	"serial, validity and template, and check that its public key is the\n"
	"EK's (the EK made from that template, or persisted).\n"
	"  --rsa      the first RSA certificate found\n"
	"  --ecc      the first ECC certificate found\n"
	"  --all      every certificate found (default: the first found)\n"
	"  -o FILE    write the certificate (DER, as found, header and\n"
	"             padding taken off) to FILE (atomic)\n"
	"  -f         replace FILE if it exists\n"
	"  --ca FILE|DIR  verify the chain to a CA: a PEM file (several\n"
	"             certificates allowed), a DER file or a directory of\n"
	"             them; the CA certificates in NV (0x01c00100..0x01c001ff)\n"
	"             help as intermediates\n"
	"  --json     print JSON\n"
	"Exit 6 when NV holds no EK certificate (for an Intel or AMD firmware\n"
	"TPM the hint gives the manufacturer's online location); exit 1 when\n"
	"a certificate's key is not the EK or the chain does not verify.\n";

static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{ "rsa", no_argument, NULL, 'r' },
	{ "ecc", no_argument, NULL, 'e' },
	{ "all", no_argument, NULL, 'a' },
	{ "ca", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 }
};

enum { SEL_FIRST, SEL_RSA, SEL_ECC, SEL_ALL };

/* One certificate found and checked. */
struct found {
	const struct ekcert_slot *s;
	uint8_t *nv;
	size_t nvlen, off, len;
	struct crt_info ci;
	int how;
	char anchor[256];
};

static const char *whence(const struct ekcert_slot *s, int how)
{
	static char at[40];

	if (how == EK_PERSISTED) {
		snprintf(at, sizeof(at), "persisted at 0x%08x",
			 s->tmpl >= EKT_H1 ?
			 TPM2_EK_HIGH_HANDLE(s->tmpl - EKT_H1 + 1) :
			 s->rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE);
		return at;
	}
	return how == EK_NV_TEMPLATE ? "made from the template in NV" :
	       "made from the TCG template";
}

static void print_text(const struct found *f, int ca)
{
	printf("0x%08x: EK certificate, template %s (%s)\n", f->s->index,
	       f->s->name, f->s->key);
	printf("  subject: %s\n  issuer: %s\n  serial: %s\n",
	       f->ci.subject, f->ci.issuer, f->ci.serial);
	printf("  valid: %s to %s\n", f->ci.not_before, f->ci.not_after);
	printf("  key: the EK's (%s)\n", whence(f->s, f->how));
	if (ca)
		printf("  CA: verified up to %s\n", f->anchor);
}

static void print_json(const struct found *f, size_t n, int ca)
{
	size_t i;

	printf("{\"certificates\":[");
	for (i = 0; i < n; i++) {
		printf("%s{\"index\":\"0x%08x\",\"template\":\"%s\","
		       "\"key\":\"%s\",\"subject\":", i ? "," : "",
		       f[i].s->index, f[i].s->name, f[i].s->key);
		ctx_json_str(f[i].ci.subject);
		printf(",\"issuer\":");
		ctx_json_str(f[i].ci.issuer);
		printf(",\"serial\":\"%s\",\"not_before\":\"%s\","
		       "\"not_after\":\"%s\",\"ek\":\"%s\",\"ek_matches\":true",
		       f[i].ci.serial, f[i].ci.not_before, f[i].ci.not_after,
		       whence(f[i].s, f[i].how));
		if (ca) {
			printf(",\"ca\":");
			ctx_json_str(f[i].anchor);
		}
		printf("}");
	}
	printf("]}\n");
}

/* No certificate in NV: exit 6, with the manufacturer's online location
 * when the TPM is Intel's or AMD's. */
static int none_found(struct ctx *c, struct tpm *t, int sel)
{
	struct tpm2_public *ek = calloc(1, sizeof(*ek));
	uint32_t manuf = 0;
	char url[160];
	int how, rsa = sel != SEL_ECC;

	err_set(&c->e, EX_NOENT, "no EK certificate in NV%s",
		sel == SEL_RSA ? " for an RSA EK" :
		sel == SEL_ECC ? " for an ECC EK" : "");
	if (ek && tpm2_getprop(t, TPM2_PT_MANUFACTURER, &manuf) == 0 &&
	    (manuf == TPM_MANUF_INTC || manuf == TPM_MANUF_AMD ||
	     manuf == 0x414d4420u)) {
		struct tberr keep = c->e;

		if (tpm2_ek_public(t, rsa, ek, &how) == 0 &&
		    ekcert_vendor_url(manuf, ek, url, sizeof(url)) == 0) {
			c->e = keep;
			err_hint(&c->e, "a firmware TPM: its manufacturer "
				 "publishes it at %s", url);
		} else {
			c->e = keep;
		}
	}
	free(ek);
	return ctx_fail(c);
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *out = NULL, *ca = NULL;
	struct crtset *cas = NULL, *nvchain = NULL;
	struct found f[16];
	struct tpm2_public *ek = calloc(1, sizeof(*ek));
	size_t nf = 0, i, nchain;
	int o, sel = SEL_FIRST, json = 0, flags = 0, rc = 0;
	struct tpm *t;

	memset(f, 0, sizeof(f));
	if (!ek)
		return ctx_usage(c, "out of memory");
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'r': sel = SEL_RSA; break;
		case 'e': sel = SEL_ECC; break;
		case 'a': sel = SEL_ALL; break;
		case 'o': out = optarg; break;
		case 'f': flags |= OUT_FORCE; break;
		case 'c': ca = optarg; break;
		case 'j': json = 1; break;
		default: rc = ctx_usage(c, "unknown option"); goto done;
		}
	}
	if (optind != argc) {
		rc = ctx_usage(c, "no operands expected");
		goto done;
	}
	if (out && sel == SEL_ALL) {
		rc = ctx_usage(c, "-o writes one certificate: give --rsa or "
			       "--ecc, not --all");
		goto done;
	}

	/* Step 1: the CA the user trusts, before the TPM is asked. */
	if (ca && (!(cas = crtset_new()) || !(nvchain = crtset_new()))) {
		rc = ctx_usage(c, "out of memory");
		goto done;
	}
	if (ca && ekcert_ca_load(ca, cas, &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}

	/* Step 2: the certificate indices NV holds, as selected. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t)) {
		rc = ctx_fail(c);
		goto done;
	}
	for (i = 0; i < ekcert_nslots && nf < 16; i++) {
		const struct ekcert_slot *s = &ekcert_slots[i];

		if ((sel == SEL_RSA && !s->rsa) || (sel == SEL_ECC && s->rsa))
			continue;
		rc = ekcert_read_index(t, s->index, &f[nf].nv, &f[nf].nvlen);
		if (rc == EX_NOENT) {
			err_clear(&c->e);
			rc = 0;
			continue;
		}
		if (rc) {
			rc = ctx_fail(c);
			goto done;
		}
		f[nf++].s = s;
		if (sel != SEL_ALL)
			break;
	}
	if (!nf) {
		rc = none_found(c, t, sel);
		goto done;
	}

	/* Step 3: the CA certificates NV holds, for the chain. */
	if (ca && ekcert_read_chain(t, nvchain, &nchain)) {
		rc = ctx_fail(c);
		goto done;
	}

	/* Step 4: each certificate read, its key checked against the EK,
	 * its chain verified. */
	for (i = 0; i < nf; i++) {
		struct found *x = &f[i];

		if (ekcert_der(x->nv, x->nvlen, &x->off, &x->len, &c->e) ||
		    crt_parse(x->nv + x->off, x->len, &x->ci, &c->e)) {
			err_prefix(&c->e, "NV index 0x%08x", x->s->index);
			rc = ctx_fail(c);
			goto done;
		}
		if (ekcert_ek(t, x->s, ek, &x->how)) {
			rc = ctx_fail(c);
			goto done;
		}
		if (!ekcert_key_is(x->nv + x->off + x->ci.spki_off,
				   x->ci.spki_len, ek)) {
			err_set(&c->e, EX_FAIL, "the certificate at 0x%08x "
				"is not this TPM's: its public key is not the "
				"EK of template %s (%s)", x->s->index,
				x->s->name, whence(x->s, x->how));
			rc = ctx_fail(c);
			goto done;
		}
		if (ca && crt_verify(x->nv + x->off, x->len, cas, nvchain,
				     x->anchor, sizeof(x->anchor), &c->e)) {
			err_prefix(&c->e, "the certificate at 0x%08x does not "
				   "verify to a CA in %s", x->s->index, ca);
			rc = ctx_fail(c);
			goto done;
		}
	}

	/* Step 5: the report, and the file. */
	if (out && file_write_atomic(out, f[0].nv + f[0].off, f[0].len, flags,
				     &c->e)) {
		rc = ctx_fail(c);
		goto done;
	}
	if (json)
		print_json(f, nf, ca != NULL);
	else
		for (i = 0; i < nf; i++)
			print_text(&f[i], ca != NULL);
done:
	for (i = 0; i < nf; i++)
		free(f[i].nv);
	crtset_free(cas);
	crtset_free(nvchain);
	free(ek);
	return rc;
}

const struct applet applet_ekcert = {
	"ekcert", "the EK certificate in NV, checked against the EK and a CA",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
