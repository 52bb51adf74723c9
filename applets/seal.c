/* seal: seal a secret to this TPM under the SRK, with a PCR and/or
 * password policy, into a PEM blob (docs/blob-format.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "auth.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "escrow.h"
#include "file.h"
#include "hex.h"
#include "keyfile.h"
#include "pcrfile.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"
#include "tty.h"

static const char usage[] =
	"usage: seal [-p SELECTION[=VALUES]] [-P PCRFILE] [--auth AUTH] "
	"[--owner-auth AUTH] [--escrow RECIPIENT]... [--escrow-out PREFIX] "
	"[--recovery-code-out FILE] [--recovery-code] [-f] -o BLOB [FILE]\n"
	"Seal FILE (or stdin; 1 byte to 64 MiB) to this TPM under the SRK at\n"
	"0x81000001 (created from the standard template when none is\n"
	"persisted).  Unseal needs this TPM, the same PCR values and the\n"
	"password.  The secret crosses the bus encrypted (salted session).\n"
	"  -p SELECTION[=VALUES]  PolicyPCR over these PCRs, e.g. sha256:0,7\n"
	"             (their current values) or sha256:7=HEX (given values,\n"
	"             one HEX per PCR, comma-separated; banks joined by +)\n"
	"  -P PCRFILE  PCR values in pcrread's text format: the values for\n"
	"             -p's PCRs, or alone the selection and values to seal to\n"
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
	"  -o BLOB    write the sealed blob here (PEM, mode 0600, atomic)\n"
	"  -f         replace an existing BLOB\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

/* PCR values given with '=' in -p. */
struct given {
	int n;
	struct pcr_val v[TPM2_MAX_BANKS * 32];
};

static const struct pcr_val *find_val(const struct pcr_val *v, int n,
				      uint16_t alg, unsigned idx)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].alg == alg && v[i].idx == idx)
			return &v[i];
	return NULL;
}

/* Split "sha256:0,7=H0,H7+sha1:1" into a selection string without
 * values (sel_out) and the given values. */
static int parse_pcr_arg(struct ctx *c, const char *arg, char *sel_out,
			 size_t cap, struct given *g)
{
	char buf[4096], *part, *save = NULL;

	if (strlen(arg) >= sizeof(buf) || strlen(arg) >= cap)
		return ctx_usage(c, "-p: selection too long");
	strcpy(buf, arg);
	sel_out[0] = '\0';
	g->n = 0;
	for (part = strtok_r(buf, "+", &save); part;
	     part = strtok_r(NULL, "+", &save)) {
		char *eq = strchr(part, '='), *h, *hsave = NULL;
		struct pcr_sel one;
		unsigned idx, idxs[32];
		int ni = 0, nv = 0;

		if (eq)
			*eq = '\0';
		if (sel_out[0])
			strcat(sel_out, "+");
		strcat(sel_out, part);
		if (!eq)
			continue;
		if (pcr_sel_parse(part, &one, &c->e) || one.n != 1 ||
		    one.b[0].all || one.all)
			return ctx_usage(c, "-p: '%s' cannot take values (name "
					 "one bank and its PCRs)", part);
		for (idx = 0; idx < 32; idx++)
			if (one.b[0].mask >> idx & 1)
				idxs[ni++] = idx;
		for (h = strtok_r(eq + 1, ",", &hsave); h;
		     h = strtok_r(NULL, ",", &hsave), nv++) {
			struct pcr_val *v = &g->v[g->n];
			long n;

			if (nv >= ni)
				return ctx_usage(c, "-p: more values than PCRs "
						 "in '%s'", part);
			n = hex_decode(h, v->d, sizeof(v->d));
			if (n < 0 || (size_t)n != hash_size(one.b[0].alg))
				return ctx_usage(c, "-p: '%s' is not %zu bytes "
						 "of hex for %s:%u", h,
						 hash_size(one.b[0].alg),
						 alg_name(one.b[0].alg),
						 idxs[nv]);
			v->alg = one.b[0].alg;
			v->idx = (uint8_t)idxs[nv];
			v->len = (uint8_t)n;
			g->n++;
		}
		if (nv != ni)
			return ctx_usage(c, "-p: '%s' selects %d PCRs but "
					 "gives %d values", part, ni, nv);
	}
	return 0;
}

/* The selection and values from a PCR file alone (bank order as first
 * seen). */
static void sel_from_file(const struct pcr_vals *f, struct pcr_sel *sel)
{
	int i, j;

	memset(sel, 0, sizeof(*sel));
	for (i = 0; i < f->n; i++) {
		for (j = 0; j < sel->n && sel->b[j].alg != f->v[i].alg; j++)
			;
		if (j == sel->n) {
			if (sel->n == TPM2_MAX_BANKS)
				continue;
			sel->b[sel->n++].alg = f->v[i].alg;
		}
		sel->b[j].mask |= 1u << f->v[i].idx;
	}
}

/* Fill the policy's values in selection order: given, file, else the
 * TPM's current value. */
static int pcr_values(struct ctx *c, struct tpm *t, struct policy_spec *ps,
		      const struct given *g, const struct pcr_vals *file,
		      int have_file)
{
	struct pcr_vals cur;
	int i, need_tpm = 0, k = 0;
	unsigned idx;

	for (i = 0; i < ps->sel.n; i++)
		for (idx = 0; idx < 32; idx++)
			if ((ps->sel.b[i].mask >> idx & 1) &&
			    !find_val(g->v, g->n, ps->sel.b[i].alg, idx)) {
				if (have_file && !find_val(file->v, file->n,
						ps->sel.b[i].alg, idx))
					return ctx_usage(c, "PCRFILE has no "
							 "value for %s:%u",
							 alg_name(ps->sel.b[i]
								  .alg), idx);
				if (!have_file)
					need_tpm = 1;
			}
	if (need_tpm && tpm2_pcr_read(t, &ps->sel, &cur))
		return ctx_fail(c);
	for (i = 0; i < ps->sel.n; i++)
		for (idx = 0; idx < 32; idx++) {
			uint16_t alg = ps->sel.b[i].alg;
			const struct pcr_val *v;

			if (!(ps->sel.b[i].mask >> idx & 1))
				continue;
			v = find_val(g->v, g->n, alg, idx);
			if (!v && have_file)
				v = find_val(file->v, file->n, alg, idx);
			if (!v)
				v = find_val(cur.v, cur.n, alg, idx);
			if (!v)
				return err_set(&c->e, EX_FAIL, "the TPM did "
					       "not return %s:%u",
					       alg_name(alg), idx),
				       ctx_fail(c);
			ps->vals.v[k++] = *v;
		}
	ps->vals.n = k;
	if (policy_check_vals(&ps->sel, &ps->vals, &c->e))
		return ctx_fail(c);
	return 0;
}

static const char shortopts[] = "p:P:o:f";
static const struct option longopts[] = {
	{ "auth", required_argument, NULL, 'a' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ "escrow", required_argument, NULL, 'E' },
	{ "escrow-out", required_argument, NULL, 'X' },
	{ "recovery-code-out", required_argument, NULL, 'K' },
	{ "recovery-code", no_argument, NULL, 'C' },
	{ NULL, 0, NULL, 0 }
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *pcrarg = NULL, *pcrfile = NULL, *authspec = NULL;
	const char *ownerspec = NULL, *out = NULL, *in = "-";
	const char *escrow_out = NULL, *code_out = NULL;
	struct escrow *esc = escrow_new();
	char selstr[4096];
	struct authval auth = { .n = 0 }, owner = { .n = 0 };
	struct policy_spec ps;
	struct given *g = calloc(1, sizeof(*g));
	struct pcr_vals *file = calloc(1, sizeof(*file));
	struct pcr_sel alloc;
	unsigned npcrs;
	struct tpm2_public tmpl, pub;
	struct tpm2_private priv;
	struct tpm2_srk *srk = calloc(1, sizeof(*srk));
	struct srk_want want;
	struct tpm2_session *s;
	struct tpm2_auth a;
	struct keyfile *k = calloc(1, sizeof(*k));
	uint8_t *data = NULL, key[32];
	size_t dlen = 0, pemlen;
	char *pem = NULL;
	int o, force = 0, rsa = 0, rc = 0;
	int show_code = 0;
	struct tpm *t;

	memset(&ps, 0, sizeof(ps));
	if (!g || !file || !k || !srk || !esc) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'p': pcrarg = optarg; break;
		case 'P': pcrfile = optarg; break;
		case 'a': authspec = optarg; break;
		case 'O': ownerspec = optarg; break;
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
	if (pcrarg && parse_pcr_arg(c, pcrarg, selstr, sizeof(selstr), g)) {
		rc = EX_USAGE;
		goto out;
	}
	if ((authspec && auth_parse(authspec, &auth, &c->e)) ||
	    (ownerspec && auth_parse(ownerspec, &owner, &c->e))) {
		rc = ctx_fail(c);
		goto out;
	}
	if (pcrfile) {
		uint8_t *txt;
		size_t tl;

		if (file_read(pcrfile, 1 << 20, &txt, &tl, &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
		/* A NUL would end the text early and hide the lines
		 * after it: refuse it rather than seal to less. */
		if (memchr(txt, 0, tl)) {
			size_t off = (size_t)((uint8_t *)memchr(txt, 0, tl) -
					      txt);

			free(txt);
			rc = ctx_usage(c, "PCRFILE %s has a NUL byte at "
				       "offset %zu", pcrfile, off);
			goto out;
		}
		{
			uint8_t *z = realloc(txt, tl + 1);

			if (!z) {
				free(txt);
				rc = ctx_usage(c, "out of memory");
				goto out;
			}
			txt = z;
		}
		txt[tl] = '\0';
		rc = pcr_parse_text((char *)txt, file, &c->e);
		free(txt);
		if (rc) {
			rc = ctx_fail(c);
			goto out;
		}
		if (file->n == 0 && !pcrarg) {
			rc = ctx_usage(c, "PCRFILE %s has no values", pcrfile);
			goto out;
		}
	}
	if (pcrarg && pcr_sel_parse(selstr, &ps.sel, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (!pcrarg && pcrfile)
		sel_from_file(file, &ps.sel);
	ps.halg = TPM2_ALG_SHA256;
	ps.has_pcr = pcrarg || pcrfile;
	ps.auth = authspec != NULL;

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

	if (!(t = ctx_tpm(c))) {
		rc = ctx_fail(c);
		goto out;
	}
	/* The parent first: the persisted SRK (checked against the pin), or
	 * the same key made afresh.  Everything after runs in one session
	 * salted to it, so every answer below carries the TPM's HMAC. */
	memset(&want, 0, sizeof(want));
	want.owner = owner.n ? owner.v : NULL;
	want.ownerlen = owner.n;
	if (tpm2_srk_find(t, &want, srk)) {
		if (c->e.code == EX_AUTH)
			err_hint(&c->e, "no SRK is persisted at 0x81000001 "
				 "and making one needs the owner password: "
				 "give --owner-auth, or persist it once with "
				 "'tpmbox takeown'");
		rc = ctx_fail(c);
		goto out;
	}
	if (srk->found_other) {
		err_set(&c->e, EX_FAIL, "0x81000001 holds a key that is not "
			"a standard SRK; refusing to seal under it");
		err_hint(&c->e, "evict it (it may have been put there to "
			 "catch secrets) and run takeown");
		rc = ctx_fail(c);
		goto out;
	}
	tpm2_srk_matches(&srk->pub, &rsa);
	if (tpm2_trust_start(t, srk->handle, &srk->pub)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* The PCRs: the bank list, the count and the values all come back
	 * HMACed, so the policy digest computed here from them is the
	 * TPM's. */
	if (ps.has_pcr) {
		if (tpm2_pcr_banks(t, &alloc, &npcrs) ||
		    pcr_sel_resolve(&ps.sel, &alloc, npcrs, &c->e)) {
			rc = ctx_fail(c);
			goto out;
		}
		if ((rc = pcr_values(c, t, &ps, g, file, pcrfile != NULL)))
			goto out;
	}

	/* The sealed object's template. */
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.type = TPM2_ALG_KEYEDHASH;
	tmpl.name_alg = TPM2_ALG_SHA256;
	tmpl.attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT;
	if (!ps.auth)
		tmpl.attrs |= TPMA_OBJECT_NODA;
	if (ps.has_pcr || ps.auth) {
		tmpl.attrs |= TPMA_OBJECT_ADMINWITHPOLICY;
		tmpl.policylen = policy_compute(&ps, tmpl.policy);
		if (!tmpl.policylen) {
			err_set(&c->e, EX_FAIL, "computing the policy "
				     "failed");
			rc = ctx_fail(c);
			goto out;
		}
	} else {
		/* No policy: the empty password authorizes unseal. */
		tmpl.attrs |= TPMA_OBJECT_USERWITHAUTH;
	}
	tmpl.scheme = TPM2_ALG_NULL;
	if (tpm2_public_finish(&tmpl)) {
		err_set(&c->e, EX_FAIL, "building the template failed");
		rc = ctx_fail(c);
		goto out;
	}

	/* What is sealed: the data, or a fresh AES-256-GCM key for it. */
	if (dlen > KEYFILE_SEALED_MAX && rng_bytes(key, sizeof(key))) {
		err_set(&c->e, EX_FAIL, "no random bytes for the data "
			     "key");
		rc = ctx_fail(c);
		goto out;
	}
	/* The secret goes encrypted in the salted session, which also
	 * authorizes the SRK (empty value). */
	s = tpm2_trust_session(t);
	tpm2_session_set_flags(s, SESS_ENC_CMD);
	tpm2_session_use(s, &a, NULL, 0);
	if (tpm2_create(t, srk->handle, srk->pub.name, srk->pub.namelen, &a,
			&tmpl,
			auth.v, auth.n, dlen > KEYFILE_SEALED_MAX ? key : data,
			dlen > KEYFILE_SEALED_MAX ? sizeof(key) : dlen, &priv,
			&pub)) {
		rc = ctx_fail(c);
		goto out;
	}
	tpm_wipe(t);
	if (!tpm2_public_same_template(&pub, &tmpl)) {
		err_set(&c->e, EX_FAIL, "TPM2_Create: the created "
			     "object is not the one asked for");
		rc = ctx_fail(c);
		goto out;
	}

	/* The blob. */
	k->empty_auth = !ps.auth;
	k->auth = ps.auth;
	k->rsa_parent = rsa;
	k->parent = srk->transient ? KEYFILE_PARENT_OWNER : KEYFILE_PARENT_SRK;
	k->pub[0] = (uint8_t)(pub.rawlen >> 8);
	k->pub[1] = (uint8_t)pub.rawlen;
	memcpy(k->pub + 2, pub.raw, pub.rawlen);
	k->publen = pub.rawlen + 2;
	k->priv[0] = (uint8_t)(priv.n >> 8);
	k->priv[1] = (uint8_t)priv.n;
	memcpy(k->priv + 2, priv.b, priv.n);
	k->privlen = priv.n + 2;
	k->has_pcr = ps.has_pcr;
	if (ps.has_pcr) {
		k->sel = ps.sel;
		k->vals = ps.vals;
		k->pcrdigestlen = policy_pcr_digest(ps.halg, &ps.vals,
						    k->pcrdigest);
	}
	memcpy(k->parent_name, srk->pub.name, srk->pub.namelen);
	k->parent_namelen = srk->pub.namelen;
	k->policy_alg = ps.halg;
	memcpy(k->policy, tmpl.policy, tmpl.policylen);
	k->policylen = tmpl.policylen;
	k->mode = KEYFILE_DIRECT;
	if (dlen > KEYFILE_SEALED_MAX) {
		k->mode = KEYFILE_GCM;
		k->ctlen = dlen;
		if (!(k->ct = malloc(dlen)) ||
		    rng_bytes(k->iv, sizeof(k->iv)) ||
		    aes_gcm_encrypt(key, k->iv, sizeof(k->iv), k->pub,
				    k->publen, data, dlen, k->ct, k->tag)) {
			err_set(&c->e, EX_FAIL, "encrypting the data "
				     "failed");
			rc = ctx_fail(c);
			goto out;
		}
	}
	if (keyfile_encode(k, &pem, &pemlen, &c->e) ||
	    escrow_append(esc, &pem, &pemlen, &c->e) ||
	    (escrow_out && escrow_write_files(esc, escrow_out, OUT_SECRET |
					      (force ? OUT_FORCE : 0),
					      &c->e)) ||
	    (code_out && escrow_write_code(esc, code_out, force ? OUT_FORCE :
					   0, &c->e)) ||
	    file_write_atomic(out, pem, pemlen,
			      OUT_SECRET | (force ? OUT_FORCE : 0), &c->e))
		rc = ctx_fail(c);
	/* The code, once, where only the person at the terminal sees it. */
	if (!rc && show_code) {
		char msg[256];

		snprintf(msg, sizeof(msg), "Recovery code for %.120s (shown "
			 "once: write it down):\n\n    %s\n", out,
			 escrow_code(esc));
		if (tty_show(msg, &c->e))
			rc = ctx_fail(c);
		explicit_bzero(msg, sizeof(msg));
	}
out:
	/* Flush on every path; a flush error does not hide the first one.
	 * The session goes with the TPM connection. */
	if (srk && c->tpm)
		tpm2_srk_put(c->tpm, srk);
	free(srk);
	explicit_bzero(key, sizeof(key));
	if (data) {
		explicit_bzero(data, dlen);
		free(data);
	}
	auth_wipe(&auth);
	auth_wipe(&owner);
	if (k)
		keyfile_free(k);
	free(k);
	escrow_free(esc);
	free(pem);
	free(g);
	free(file);
	return rc;
}

const struct applet applet_seal = {
	"seal", "seal a secret to this TPM (PCR and/or password policy)",
	usage, run, shortopts, longopts, APPLET_PIN
};
