/* Sealing to this TPM and unsealing from it: the steps seal, unseal and
 * reseal share (include/sealing.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "escrow.h"
#include "file.h"
#include "hex.h"
#include "pcrfile.h"
#include "sealing.h"
#include "tpm2/cmd.h"
#include "tpm2/dup.h"
#include "tpm2/ek.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"
#include "tty.h"

/* ---- sealing ---- */

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
static int parse_pcr_arg(struct seal_spec *s, const char *arg, char *sel_out,
			 size_t cap, struct tberr *e)
{
	char buf[4096], *part, *save = NULL;

	if (strlen(arg) >= sizeof(buf) || strlen(arg) >= cap)
		return err_set(e, EX_USAGE, "-p: selection too long");
	strcpy(buf, arg);
	sel_out[0] = '\0';
	s->ngiven = 0;
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
		if (pcr_sel_parse(part, &one, e) || one.n != 1 ||
		    one.b[0].all || one.all)
			return err_set(e, EX_USAGE, "-p: '%s' cannot take "
				       "values (name one bank and its PCRs)",
				       part);
		for (idx = 0; idx < 32; idx++)
			if (one.b[0].mask >> idx & 1)
				idxs[ni++] = idx;
		for (h = strtok_r(eq + 1, ",", &hsave); h;
		     h = strtok_r(NULL, ",", &hsave), nv++) {
			struct pcr_val *v = &s->given[s->ngiven];
			long n;

			if (nv >= ni)
				return err_set(e, EX_USAGE, "-p: more values "
					       "than PCRs in '%s'", part);
			n = hex_decode(h, v->d, sizeof(v->d));
			if (n < 0 || (size_t)n != hash_size(one.b[0].alg))
				return err_set(e, EX_USAGE, "-p: '%s' is not "
					       "%zu bytes of hex for %s:%u", h,
					       hash_size(one.b[0].alg),
					       alg_name(one.b[0].alg),
					       idxs[nv]);
			v->alg = one.b[0].alg;
			v->idx = (uint8_t)idxs[nv];
			v->len = (uint8_t)n;
			s->ngiven++;
		}
		if (nv != ni)
			return err_set(e, EX_USAGE, "-p: '%s' selects %d PCRs "
				       "but gives %d values", part, ni, nv);
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

/* PCRFILE in pcrread's text format. */
static int read_pcrfile(struct seal_spec *s, const char *path, int alone,
			struct tberr *e)
{
	uint8_t *txt, *z;
	size_t tl;
	int rc;

	if (file_read(path, 1 << 20, &txt, &tl, e))
		return e->code;
	/* A NUL would end the text early and hide the lines after it:
	 * refuse it rather than seal to less. */
	if (memchr(txt, 0, tl)) {
		size_t off = (size_t)((uint8_t *)memchr(txt, 0, tl) - txt);

		free(txt);
		return err_set(e, EX_USAGE, "PCRFILE %s has a NUL byte at "
			       "offset %zu", path, off);
	}
	if (!(z = realloc(txt, tl + 1))) {
		free(txt);
		return err_set(e, EX_USAGE, "out of memory");
	}
	txt = z;
	txt[tl] = '\0';
	rc = pcr_parse_text((char *)txt, &s->file, e);
	free(txt);
	if (rc)
		return e->code;
	if (s->file.n == 0 && alone)
		return err_set(e, EX_USAGE, "PCRFILE %s has no values", path);
	s->have_file = 1;
	return 0;
}

int seal_spec_parse(struct seal_spec *s, const char *pcrarg,
		    const char *pcrfile, const char *authspec,
		    const char *ownerspec, struct tberr *e)
{
	char selstr[4096];

	memset(s, 0, sizeof(*s));
	if (pcrarg && parse_pcr_arg(s, pcrarg, selstr, sizeof(selstr), e))
		return EX_USAGE;
	if ((authspec && auth_parse(authspec, &s->auth, e)) ||
	    (ownerspec && auth_parse(ownerspec, &s->owner, e)))
		return e->code;
	if (pcrfile && read_pcrfile(s, pcrfile, !pcrarg, e))
		return e->code;
	if (pcrarg && pcr_sel_parse(selstr, &s->ps.sel, e))
		return e->code;
	if (!pcrarg && pcrfile)
		sel_from_file(&s->file, &s->ps.sel);
	s->ps.halg = TPM2_ALG_SHA256;
	s->ps.has_pcr = pcrarg || pcrfile;
	s->ps.auth = authspec != NULL;
	return 0;
}

void seal_spec_wipe(struct seal_spec *s)
{
	auth_wipe(&s->auth);
	auth_wipe(&s->owner);
}

/* Fill the policy's values in selection order: given, file, else the
 * TPM's current value. */
static int pcr_values(struct tpm *t, struct seal_spec *s, struct tberr *e)
{
	struct policy_spec *ps = &s->ps;
	struct pcr_vals cur;
	int i, need_tpm = 0, k = 0;
	unsigned idx;

	for (i = 0; i < ps->sel.n; i++)
		for (idx = 0; idx < 32; idx++)
			if ((ps->sel.b[i].mask >> idx & 1) &&
			    !find_val(s->given, s->ngiven, ps->sel.b[i].alg,
				      idx)) {
				if (s->have_file && !find_val(s->file.v,
						s->file.n, ps->sel.b[i].alg,
						idx))
					return err_set(e, EX_USAGE, "PCRFILE "
						       "has no value for "
						       "%s:%u", alg_name(ps->
						       sel.b[i].alg), idx);
				if (!s->have_file)
					need_tpm = 1;
			}
	if (need_tpm && !t)
		return err_set(e, EX_USAGE, "-p: give the values of every PCR "
			       "(SEL=VALUES, or -P PCRFILE): the TPM the blob "
			       "is for is not here to read them");
	if (need_tpm && tpm2_pcr_read(t, &ps->sel, &cur))
		return e->code;
	for (i = 0; i < ps->sel.n; i++)
		for (idx = 0; idx < 32; idx++) {
			uint16_t alg = ps->sel.b[i].alg;
			const struct pcr_val *v;

			if (!(ps->sel.b[i].mask >> idx & 1))
				continue;
			v = find_val(s->given, s->ngiven, alg, idx);
			if (!v && s->have_file)
				v = find_val(s->file.v, s->file.n, alg, idx);
			if (!v)
				v = find_val(cur.v, cur.n, alg, idx);
			if (!v)
				return err_set(e, EX_FAIL, "the TPM did not "
					       "return %s:%u", alg_name(alg),
					       idx);
			ps->vals.v[k++] = *v;
		}
	ps->vals.n = k;
	return policy_check_vals(&ps->sel, &ps->vals, e);
}

int seal_state_given(const char *pcrarg, const char *pcrfile,
		     struct pcr_sel *sel, struct pcr_vals *vals,
		     struct tberr *e)
{
	struct seal_spec *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return err_set(e, EX_FAIL, "out of memory");
	rc = seal_spec_parse(s, pcrarg, pcrfile, NULL, NULL, e);
	if (!rc && pcrarg && s->ngiven != pcr_sel_count(&s->ps.sel))
		rc = err_set(e, EX_USAGE, "-p: give the value of every PCR "
			     "(SEL=VALUES): there is no TPM to read them");
	if (!rc)
		rc = pcr_values(NULL, s, e);
	if (!rc) {
		*sel = s->ps.sel;
		*vals = s->ps.vals;
	}
	free(s);
	return rc;
}

/* The sealed object's template for policy ps. */
static int make_template(const struct policy_spec *ps,
			 struct tpm2_public *tmpl, struct tberr *e)
{
	memset(tmpl, 0, sizeof(*tmpl));
	tmpl->type = TPM2_ALG_KEYEDHASH;
	tmpl->name_alg = TPM2_ALG_SHA256;
	tmpl->attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT;
	if (!ps->auth)
		tmpl->attrs |= TPMA_OBJECT_NODA;
	if (ps->has_pcr || ps->auth) {
		tmpl->attrs |= TPMA_OBJECT_ADMINWITHPOLICY;
		tmpl->policylen = policy_compute(ps, tmpl->policy);
		if (!tmpl->policylen)
			return err_set(e, EX_FAIL, "computing the policy "
				       "failed");
	} else {
		/* No policy: the empty password authorizes unseal. */
		tmpl->attrs |= TPMA_OBJECT_USERWITHAUTH;
	}
	tmpl->scheme = TPM2_ALG_NULL;
	if (tpm2_public_finish(tmpl))
		return err_set(e, EX_FAIL, "building the template failed");
	return 0;
}

/* The blob's fields from the created object. */
static int fill_keyfile(struct keyfile *k, const struct seal_spec *s,
			const struct tpm2_srk *srk, int rsa,
			const struct tpm2_public *tmpl,
			const struct tpm2_public *pub,
			const struct tpm2_private *priv, const uint8_t *key,
			const uint8_t *data, size_t dlen, struct tberr *e)
{
	const struct policy_spec *ps = &s->ps;

	k->empty_auth = !ps->auth;
	k->auth = ps->auth;
	k->rsa_parent = rsa;
	k->parent = srk->transient ? KEYFILE_PARENT_OWNER : KEYFILE_PARENT_SRK;
	k->pub[0] = (uint8_t)(pub->rawlen >> 8);
	k->pub[1] = (uint8_t)pub->rawlen;
	memcpy(k->pub + 2, pub->raw, pub->rawlen);
	k->publen = pub->rawlen + 2;
	k->priv[0] = (uint8_t)(priv->n >> 8);
	k->priv[1] = (uint8_t)priv->n;
	memcpy(k->priv + 2, priv->b, priv->n);
	k->privlen = priv->n + 2;
	k->has_pcr = ps->has_pcr;
	if (ps->has_pcr) {
		k->sel = ps->sel;
		k->vals = ps->vals;
		k->pcrdigestlen = policy_pcr_digest(ps->halg, &ps->vals,
						    k->pcrdigest);
	}
	memcpy(k->parent_name, srk->pub.name, srk->pub.namelen);
	k->parent_namelen = srk->pub.namelen;
	k->policy_alg = ps->halg;
	memcpy(k->policy, tmpl->policy, tmpl->policylen);
	k->policylen = tmpl->policylen;
	k->mode = KEYFILE_DIRECT;
	if (dlen > KEYFILE_SEALED_MAX) {
		k->mode = KEYFILE_GCM;
		k->ctlen = dlen;
		if (!(k->ct = malloc(dlen)) ||
		    rng_bytes(k->iv, sizeof(k->iv)) ||
		    aes_gcm_encrypt(key, k->iv, sizeof(k->iv), k->pub,
				    k->publen, data, dlen, k->ct, k->tag))
			return err_set(e, EX_FAIL, "encrypting the data "
				       "failed");
	}
	return 0;
}

/* The SRK a blob goes under (tpm2_srk_find), with the hint for the one
 * refusal a user can mend here. */
static int find_parent(struct tpm *t, const struct srk_want *want,
		       struct tpm2_srk *srk, struct tberr *e)
{
	if (!tpm2_srk_find(t, want, srk))
		return 0;
	if (e->code == EX_AUTH)
		err_hint(e, "no SRK is persisted at 0x81000001 and making one "
			 "needs the owner password: give --owner-auth, or "
			 "persist it once with 'tpmbox takeown'");
	return e->code;
}


int seal_blob(struct tpm *t, struct seal_spec *s, const uint8_t *data,
	      size_t dlen, char **pem, size_t *pemlen, struct tberr *e)
{
	struct tpm2_srk *srk = calloc(1, sizeof(*srk));
	struct keyfile *k = calloc(1, sizeof(*k));
	struct tpm2_public tmpl, pub;
	struct tpm2_private priv;
	struct tpm2_session *ss;
	struct srk_want want;
	struct tpm2_auth a;
	struct pcr_sel alloc;
	unsigned npcrs;
	uint8_t key[32];
	int rsa = 0, rc = 0;

	*pem = NULL;
	if (!srk || !k) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	/* The parent first: the persisted SRK (checked against the pin), or
	 * the same key made afresh.  Everything after runs in one session
	 * salted to it, so every answer below carries the TPM's HMAC. */
	memset(&want, 0, sizeof(want));
	want.owner = s->owner.n ? s->owner.v : NULL;
	want.ownerlen = s->owner.n;
	if (find_parent(t, &want, srk, e)) {
		rc = e->code;
		goto out;
	}
	if (srk->found_other) {
		rc = err_set(e, EX_FAIL, "0x81000001 holds a key that is not "
			     "a standard SRK; refusing to seal under it");
		err_hint(e, "evict it (it may have been put there to catch "
			 "secrets) and run takeown");
		goto out;
	}
	tpm2_srk_matches(&srk->pub, &rsa);
	if (tpm2_trust_start(t, srk->handle, &srk->pub)) {
		rc = e->code;
		goto out;
	}
	/* The PCRs: the bank list, the count and the values all come back
	 * HMACed, so the policy digest computed here from them is the
	 * TPM's. */
	if (s->ps.has_pcr &&
	    (tpm2_pcr_banks(t, &alloc, &npcrs) ||
	     pcr_sel_resolve(&s->ps.sel, &alloc, npcrs, e) ||
	     pcr_values(t, s, e))) {
		rc = e->code;
		goto out;
	}
	if ((rc = make_template(&s->ps, &tmpl, e)))
		goto out;

	/* What is sealed: the data, or a fresh AES-256-GCM key for it. */
	if (dlen > KEYFILE_SEALED_MAX && rng_bytes(key, sizeof(key))) {
		rc = err_set(e, EX_FAIL, "no random bytes for the data key");
		goto out;
	}
	/* The secret goes encrypted in the salted session, which also
	 * authorizes the SRK (empty value). */
	ss = tpm2_trust_session(t);
	tpm2_session_set_flags(ss, SESS_ENC_CMD);
	tpm2_session_use(ss, &a, NULL, 0);
	if (tpm2_create(t, srk->handle, srk->pub.name, srk->pub.namelen, &a,
			&tmpl, s->auth.v, s->auth.n,
			dlen > KEYFILE_SEALED_MAX ? key : data,
			dlen > KEYFILE_SEALED_MAX ? sizeof(key) : dlen, &priv,
			&pub)) {
		rc = e->code;
		goto out;
	}
	tpm_wipe(t);
	if (!tpm2_public_same_template(&pub, &tmpl)) {
		rc = err_set(e, EX_FAIL, "TPM2_Create: the created object is "
			     "not the one asked for");
		goto out;
	}

	/* The blob. */
	if ((rc = fill_keyfile(k, s, srk, rsa, &tmpl, &pub, &priv, key, data,
			       dlen, e)))
		goto out;
	rc = keyfile_encode(k, pem, pemlen, e);
out:
	/* Flush on every path; a flush error does not hide the first one.
	 * The session goes with the TPM connection. */
	if (srk)
		tpm2_srk_put(t, srk);
	free(srk);
	explicit_bzero(key, sizeof(key));
	if (k)
		keyfile_free(k);
	free(k);
	return rc;
}

int seal_blob_to(const struct tpm2_public *parent, struct seal_spec *s,
		 const uint8_t *data, size_t dlen, char **pem, size_t *pemlen,
		 struct tberr *e)
{
	struct keyfile *k = calloc(1, sizeof(*k));
	struct tpm2_dup *dup = calloc(1, sizeof(*dup));
	struct tpm2_srk srk;
	struct tpm2_public tmpl;
	struct tpm2_private none;
	uint8_t key[32], sens[TPM2_SENSITIVE_MAX];
	size_t senslen = 0;
	int i, rsa = 0, rc;

	*pem = NULL;
	if (!k || !dup) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	/* No TPM here: every PCR named with its value, no "all". */
	for (i = 0; i <= s->ps.sel.n; i++)
		if (s->ps.sel.all ||
		    (i < s->ps.sel.n && s->ps.sel.b[i].all)) {
			rc = err_set(e, EX_USAGE, "-p: name the PCRs and give "
				     "their values; 'all' needs the TPM the "
				     "blob is for");
			goto out;
		}
	if (s->ps.has_pcr && (rc = pcr_values(NULL, s, e)))
		goto out;
	/* The object: the seal template, but movable to its new parent
	 * (TPM2_Import refuses fixedTPM and fixedParent). */
	if ((rc = make_template(&s->ps, &tmpl, e)))
		goto out;
	tmpl.attrs &= ~(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT);
	if (dlen > KEYFILE_SEALED_MAX && rng_bytes(key, sizeof(key))) {
		rc = err_set(e, EX_FAIL, "no random bytes for the data key");
		goto out;
	}
	if ((rc = tpm2_sealed_make(&tmpl, s->auth.v, s->auth.n,
				   dlen > KEYFILE_SEALED_MAX ? key : data,
				   dlen > KEYFILE_SEALED_MAX ? sizeof(key) :
				   dlen, sens, &senslen, e)) ||
	    (rc = tpm2_dup_wrap(parent, &tmpl, sens, senslen, dup, e)))
		goto out;
	/* The blob: an importable key under the target's SRK or EK. */
	memset(&srk, 0, sizeof(srk));
	srk.handle = KEYFILE_PARENT_SRK;
	srk.pub = *parent;
	if (!tpm2_srk_matches(parent, &rsa))
		tpm2_ek_matches(parent, &rsa);
	memset(&none, 0, sizeof(none));
	if ((rc = fill_keyfile(k, s, &srk, rsa, &tmpl, &tmpl, &none, key,
			       data, dlen, e)))
		goto out;
	k->priv[0] = (uint8_t)(dup->priv.n >> 8);
	k->priv[1] = (uint8_t)dup->priv.n;
	memcpy(k->priv + 2, dup->priv.b, dup->priv.n);
	k->privlen = dup->priv.n + 2;
	memcpy(k->seed, dup->seed, dup->seedlen);
	k->seedlen = dup->seedlen;
	if (tpm2_ek_matches(parent, NULL))
		k->parent = KEYFILE_PARENT_EK;
	rc = keyfile_encode(k, pem, pemlen, e);
out:
	explicit_bzero(key, sizeof(key));
	explicit_bzero(sens, sizeof(sens));
	if (dup)
		explicit_bzero(dup, sizeof(*dup));
	free(dup);
	if (k)
		keyfile_free(k);
	free(k);
	return rc;
}

int seal_write(struct escrow *esc, char **pem, size_t *pemlen,
	       const char *out, const char *escrow_out, const char *code_out,
	       int show_code, int force, struct tberr *e)
{
	int f = force ? OUT_FORCE : 0;
	char msg[256];
	int rc;

	if (escrow_append(esc, pem, pemlen, e) ||
	    (escrow_out && escrow_write_files(esc, escrow_out,
					      OUT_SECRET | f, e)) ||
	    (code_out && escrow_write_code(esc, code_out, f, e)) ||
	    file_write_atomic(out, *pem, *pemlen, OUT_SECRET | f, e))
		return e->code;
	if (!show_code)
		return 0;
	/* The code, once, where only the person at the terminal sees it. */
	snprintf(msg, sizeof(msg), "Recovery code for %.120s (shown once: "
		 "write it down):\n\n    %s\n", out, escrow_code(esc));
	rc = tty_show(msg, e);
	explicit_bzero(msg, sizeof(msg));
	return rc;
}

/* ---- unsealing ---- */

#define RC_VALUE 0x084u
#define RC_PCR_CHANGED 0x128u
/* Runs of the policy before TPM_RC_PCR_CHANGED is given up on. */
#define PCR_CHANGED_TRIES 5

static void name_hex(const uint8_t *p, size_t n, char *out, size_t cap)
{
	if (2 * n + 1 > cap)
		n = (cap - 1) / 2;
	hex_encode(p, n, out);
}

/* After PolicyPCR refused: say which PCRs differ from the sealed values. */
static int pcr_mismatch(struct tpm *t, const struct keyfile *k,
			struct tberr *e)
{
	struct pcr_vals cur;
	char list[512] = "";
	int i, j, nd = 0;

	if (tpm2_pcr_read(t, &k->sel, &cur) == 0) {
		for (i = 0; i < k->vals.n; i++) {
			const struct pcr_val *s = &k->vals.v[i];

			for (j = 0; j < cur.n; j++)
				if (cur.v[j].alg == s->alg &&
				    cur.v[j].idx == s->idx)
					break;
			if (j < cur.n && cur.v[j].len == s->len &&
			    !memcmp(cur.v[j].d, s->d, s->len))
				continue;
			if (strlen(list) < sizeof(list) - 32)
				snprintf(list + strlen(list), sizeof(list) -
					 strlen(list), "%s%s:%u", nd ? ", " : "",
					 alg_name(s->alg), s->idx);
			nd++;
		}
	}
	err_set(e, EX_AUTH, "the PCRs do not have the values this blob was "
		"sealed to%s%s%s", nd ? " (" : "", nd ? list : "",
		nd ? " differ)" : "");
	err_hint(e, "compare with 'tpmbox pcrread'; reseal for the new state "
		 "(tpmbox reseal; seal -P PCRFILE seals to predicted values)");
	return EX_AUTH;
}

int unseal_check(struct unseal_job *j, const char *name, const char *text,
		 size_t n, int have_auth, struct tberr *e)
{
	struct keyfile *k = &j->k;
	struct tb b;

	memset(j, 0, sizeof(*j));
	j->name = name;
	if (keyfile_decode(text, n, k, e))
		return err_prefix(e, "%s", name);
	tb_init_read(&b, k->pub, k->publen);
	if (tpm2_public_get2b(&b, &j->pub, e) || tb_left(&b))
		return err_set(e, EX_FAIL, "%s: blob: bad public area", name);
	if (j->pub.type != TPM2_ALG_KEYEDHASH ||
	    j->pub.policylen != k->policylen ||
	    memcmp(j->pub.policy, k->policy, k->policylen))
		return err_set(e, EX_FAIL, "%s: blob: the sealed object's "
			       "policy is not the recorded one", name);
	j->priv.n = k->privlen - 2;
	memcpy(j->priv.b, k->priv + 2, j->priv.n);
	/* Asking the TPM would count a failure toward lockout. */
	if (k->auth && !have_auth)
		return err_set(e, EX_AUTH, "%s is sealed with a password: "
			       "give --auth", name);
	if (!k->auth && have_auth)
		return err_set(e, EX_USAGE, "%s was sealed without a "
			       "password; drop --auth", name);
	return 0;
}

/* The policy, then TPM2_Unseal, in session s.  Another process extending
 * any PCR in between (IMA extends PCR 10 all the time) makes the TPM
 * answer TPM_RC_PCR_CHANGED: run the policy again, a bounded number of
 * times. */
static int policy_unseal(struct tpm *t, struct unseal_job *j,
			 struct tpm2_session *s, uint32_t obj,
			 const struct authval *auth, uint8_t *secret,
			 size_t cap, size_t *slen, struct tberr *e)
{
	struct keyfile *k = &j->k;
	struct tpm2_auth a;
	int tries;

	for (tries = 1;; tries++) {
		uint32_t b;

		if (tries > 1 &&
		    tpm2_policy_restart(t, tpm2_session_handle(s)))
			return e->code;
		if (k->has_pcr && tpm2_policy_pcr(t, tpm2_session_handle(s),
						  k->pcrdigest,
						  k->pcrdigestlen, &k->sel)) {
			if (rc_base(e->rc) == RC_VALUE)
				pcr_mismatch(t, k, e);
			return e->code;
		}
		if (k->auth) {
			if (tpm2_policy_authvalue(t, tpm2_session_handle(s)))
				return e->code;
			tpm2_session_policy_auth(s, SESS_POLICY_AUTHVALUE);
			/* The TPM keys the response encryption with
			 * sessionKey || authValue once the session
			 * authorizes the object. */
			tpm2_session_enc_auth(s, 1);
		}
		tpm2_session_use(s, &a, auth ? auth->v : NULL,
				 auth ? auth->n : 0);
		if (tpm2_unseal(t, obj, j->pub.name, j->pub.namelen, &a,
				secret, cap, slen) == 0)
			return 0;
		b = rc_base(e->rc);
		if (b == RC_PCR_CHANGED && tries < PCR_CHANGED_TRIES) {
			err_clear(e);
			continue;
		}
		if (b == 0x08e || b == 0x0a2) {	/* AUTH_FAIL, BAD_AUTH */
			err_set(e, EX_AUTH, "the password is wrong (the PCRs "
				"match)");
			err_hint(e, "each wrong password counts toward "
				 "dictionary-attack lockout (tpmbox info shows "
				 "the counter)");
		} else if (b == RC_PCR_CHANGED) {
			err_set(e, EX_AUTH, "the PCRs kept changing during "
				"unseal (TPM_RC_PCR_CHANGED %d times in a row)",
				tries);
			err_hint(e, "something extends PCRs without pause; "
				 "try again");
		} else if (b == 0x09d) {	/* POLICY_FAIL */
			err_set(e, EX_AUTH, "the policy is not satisfied: the "
				"PCRs changed during unseal");
		}
		return err_prefix(e, "%s", j->name);
	}
}

int unseal_run(struct tpm *t, struct unseal_job *j,
	       const struct authval *auth, const struct authval *owner,
	       uint8_t **out, size_t *outlen, struct tberr *e)
{
	struct keyfile *k = &j->k;
	struct tpm2_srk *srk = calloc(1, sizeof(*srk));
	struct tpm2_session *s = NULL, *es = NULL;
	struct srk_want want;
	struct tpm2_auth pa;
	int ek = k->parent == KEYFILE_PARENT_EK;
	uint8_t secret[128], *plain = NULL;
	size_t slen = 0;
	uint32_t obj = 0;
	int rc = 0;

	*out = NULL;
	if (!srk)
		return err_set(e, EX_FAIL, "out of memory");
	/* The parent: the SRK this blob names, nothing else (and the
	 * pinned one, when a pin is set). */
	memset(&want, 0, sizeof(want));
	want.rsa = k->rsa_parent;
	want.owner = owner && owner->n ? owner->v : NULL;
	want.ownerlen = owner ? owner->n : 0;
	if (ek ? tpm2_ek_find(t, k->rsa_parent, srk) :
	    find_parent(t, &want, srk, e)) {
		rc = e->code;
		goto out;
	}
	if (srk->found_other) {
		rc = err_set(e, EX_FAIL, "0x81000001 holds a key that is not "
			     "a standard SRK: refusing to unseal (someone may "
			     "have replaced the SRK to catch the secret)");
		err_hint(e, "check it with tpm2_readpublic -c 0x81000001");
		goto out;
	}
	if (srk->pub.namelen != k->parent_namelen ||
	    memcmp(srk->pub.name, k->parent_name, k->parent_namelen)) {
		char have[2 * TPM2_NAME_MAX + 1], wanted[2 * TPM2_NAME_MAX + 1];

		name_hex(srk->pub.name, srk->pub.namelen, have, sizeof(have));
		name_hex(k->parent_name, k->parent_namelen, wanted,
			 sizeof(wanted));
		rc = ek ?
		     err_set(e, EX_FAIL, "%s was sealed for another EK "
			     "(recorded name %s, this TPM's %s): it is for "
			     "another TPM", j->name, wanted, have) :
		     err_set(e, EX_FAIL, "%s was sealed under another SRK "
			     "(recorded name %s, this TPM's %s %s): it comes "
			     "from another TPM, or the SRK was replaced",
			     j->name, wanted, srk->transient ? "template SRK" :
			     "SRK at 0x81000001", have);
		err_hint(e, "a blob only unseals on the TPM and owner "
			 "hierarchy it was sealed on");
		goto out;
	}

	/* The parent's authorization: the SRK's empty value, or the EK's
	 * policy (PolicySecret with the endorsement hierarchy), once per
	 * command. */
	tpm2_auth_pw(&pa, NULL, 0);
	/* Sealed here with --to: the TPM takes the object in first (the
	 * answer is a private area for Load, whose name check below holds
	 * whatever an interposer does to it). */
	if (k->seedlen &&
	    ((ek && tpm2_ek_auth(t, &es, &pa)) ||
	     tpm2_import(t, srk->handle, srk->pub.name, srk->pub.namelen,
			 &pa, &j->pub, &j->priv, k->seed, k->seedlen,
			 &j->priv))) {
		rc = err_prefix(e, "%s: the TPM refused to import the blob "
				"sealed for it (damaged blob?)", j->name);
		goto out;
	}
	if ((ek && tpm2_ek_auth(t, &es, &pa)) ||
	    tpm2_load(t, srk->handle, srk->pub.name, srk->pub.namelen, &pa,
		      &j->priv, &j->pub, &obj)) {
		rc = err_prefix(e, "%s: loading the sealed object (damaged "
				"blob?)", j->name);
		goto out;
	}
	if (es) {
		tpm2_session_flush(t, es);
		es = NULL;
	}
	/* The session: salted to the SRK, response encrypted. */
	if (tpm2_session_start(t, (k->has_pcr || k->auth) ? TPM2_SE_POLICY :
			       TPM2_SE_HMAC, srk->handle, &srk->pub,
			       TPM2_RH_NULL, NULL, 0, SESS_ENC_RSP, &s) ||
	    policy_unseal(t, j, s, obj, auth, secret, sizeof(secret), &slen,
			  e)) {
		rc = e->code;
		goto out;
	}
	/* The session ended with the command (continueSession clear). */
	if (k->mode == KEYFILE_GCM) {
		if (slen != 32 || !(plain = malloc(k->ctlen ? k->ctlen : 1)) ||
		    aes_gcm_decrypt(secret, k->iv, sizeof(k->iv), k->pub,
				    k->publen, k->ct, k->ctlen, plain,
				    k->tag)) {
			if (plain)
				explicit_bzero(plain, k->ctlen);
			free(plain);
			rc = err_set(e, EX_FAIL, "%s: the encrypted data fails "
				     "its integrity check (damaged or altered "
				     "blob)", j->name);
			goto out;
		}
		*out = plain;
		*outlen = k->ctlen;
	} else {
		if (!(plain = malloc(slen ? slen : 1))) {
			rc = err_set(e, EX_FAIL, "out of memory");
			goto out;
		}
		memcpy(plain, secret, slen);
		*out = plain;
		*outlen = slen;
	}
out:
	if (s)
		tpm2_session_flush(t, s);
	if (es)
		tpm2_session_flush(t, es);
	if (obj)
		tpm2_flush(t, obj);
	tpm2_srk_put(t, srk);
	tpm_wipe(t);
	explicit_bzero(secret, sizeof(secret));
	free(srk);
	return rc;
}

void unseal_job_free(struct unseal_job *j)
{
	keyfile_free(&j->k);
	explicit_bzero(j, sizeof(*j));
}
