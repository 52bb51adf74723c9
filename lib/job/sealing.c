/* Sealing to this TPM and unsealing from it: the steps seal, unseal and
 * reseal share (include/job/sealing.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tty.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "fmt/pcrfile.h"
#include "fmt/polsig.h"
#include "job/escrow.h"
#include "job/sealing.h"
#include "tpm2/authorize.h"
#include "tpm2/cmd.h"
#include "tpm2/dup.h"
#include "tpm2/ek.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

/* ---- sealing ---- */

/* Split "sha256:0,7=H0,H7+sha1:1" into a selection string without
 * values (sel_out) and the given values. */
static int parse_pcr_arg(struct seal_branch *s, const char *arg,
			 char *sel_out, size_t cap, struct tberr *e)
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
static int read_pcrfile(struct seal_branch *s, const char *path, int alone,
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

int seal_opts_add(struct seal_opts *o, int opt, const char *arg,
		  struct tberr *e)
{
	int *n = opt == 'p' ? &o->npcr : &o->nfile;

	if (*n == POLICY_BRANCHES)
		return err_set(e, EX_USAGE, "-%c: at most %d of them (a blob "
			       "unseals in at most %d PCR states)", opt,
			       POLICY_BRANCHES, POLICY_BRANCHES);
	(opt == 'p' ? o->pcr : o->file)[(*n)++] = arg;
	return 0;
}

/* Branch i from pcrarg (may be NULL) and pcrfile (may be NULL). */
static int parse_branch(struct seal_spec *s, int i, const char *pcrarg,
			const char *pcrfile, struct tberr *e)
{
	struct seal_branch *in = &s->in[i];
	struct policy_branch *br = &s->ps.br[i];
	char selstr[4096];

	if (pcrarg && parse_pcr_arg(in, pcrarg, selstr, sizeof(selstr), e))
		return EX_USAGE;
	if (pcrfile && read_pcrfile(in, pcrfile, !pcrarg, e))
		return e->code;
	if (pcrarg && pcr_sel_parse(selstr, &br->sel, e))
		return e->code;
	if (!pcrarg && pcrfile)
		sel_from_file(&in->file, &br->sel);
	return 0;
}

int seal_spec_parse(struct seal_spec *s, const struct seal_opts *o,
		    struct tberr *e)
{
	int i, n;

	memset(s, 0, sizeof(*s));
	s->ps.halg = TPM2_ALG_SHA256;
	if ((o->authspec && auth_parse(o->authspec, &s->auth, e)) ||
	    (o->ownerspec && auth_parse(o->ownerspec, &s->owner, e)))
		return e->code;
	s->ps.auth = o->authspec != NULL;
	if (o->signer) {
		if (o->npcr || o->nfile)
			return err_set(e, EX_USAGE, "--authorized-by: the PCR "
				       "values come from the signed policies at "
				       "unseal; drop -p/-P");
		s->signer_bank = TPM2_ALG_SHA256;
		if (o->bank && !(s->signer_bank = alg_from_name(o->bank)))
			return err_set(e, EX_USAGE, "--bank: unknown PCR bank "
				       "'%s'", o->bank);
		if (signer_pub_read(o->signer, &s->signer, "--authorized-by",
				    e))
			return e->code;
		s->ps.authorize = 1;
		memcpy(s->ps.signer, s->signer.name, s->signer.namelen);
		s->ps.signerlen = s->signer.namelen;
		return 0;
	}
	if (o->bank)
		return err_set(e, EX_USAGE, "--bank goes with --authorized-by "
			       "(-p names its banks)");
	if (o->npcr > 1 && o->nfile)
		return err_set(e, EX_USAGE, "with several -p, each -p is one "
			       "PCR state: give its values in it (SEL=VALUES), "
			       "not with -P");
	n = o->npcr > 1 ? o->npcr : o->nfile ? o->nfile : o->npcr;
	for (i = 0; i < n; i++)
		if (parse_branch(s, i, o->npcr > 1 ? o->pcr[i] :
				 o->npcr ? o->pcr[0] : NULL,
				 o->nfile ? o->file[i] : NULL, e))
			return e->code;
	s->ps.nbranch = n;
	return 0;
}

void seal_spec_wipe(struct seal_spec *s)
{
	auth_wipe(&s->auth);
	auth_wipe(&s->owner);
}

/* Fill a branch's values in selection order: given, file, else the
 * TPM's current value. */
static int branch_values(struct tpm *t, const struct seal_branch *s,
			 struct policy_branch *ps, seal_pcr_reader rd,
			 struct tberr *e)
{
	struct pcr_vals cur;
	int i, need_tpm = 0, k = 0;
	unsigned idx;

	for (i = 0; i < ps->sel.n; i++)
		for (idx = 0; idx < 32; idx++)
			if ((ps->sel.b[i].mask >> idx & 1) &&
			    !pcr_val_find(s->given, s->ngiven,
					  ps->sel.b[i].alg, idx)) {
				if (s->have_file &&
				    !pcr_val_find(s->file.v, s->file.n,
						  ps->sel.b[i].alg, idx))
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
	if (need_tpm && rd(t, &ps->sel, &cur))
		return e->code;
	for (i = 0; i < ps->sel.n; i++)
		for (idx = 0; idx < 32; idx++) {
			uint16_t alg = ps->sel.b[i].alg;
			const struct pcr_val *v;

			if (!(ps->sel.b[i].mask >> idx & 1))
				continue;
			v = pcr_val_find(s->given, s->ngiven, alg, idx);
			if (!v && s->have_file)
				v = pcr_val_find(s->file.v, s->file.n, alg, idx);
			if (!v)
				v = pcr_val_find(cur.v, cur.n, alg, idx);
			if (!v)
				return err_set(e, EX_FAIL, "the TPM did not "
					       "return %s:%u", alg_name(alg),
					       idx);
			ps->vals.v[k++] = *v;
		}
	ps->vals.n = k;
	return policy_check_vals(&ps->sel, &ps->vals, e);
}

int seal_spec_values(struct tpm *t, struct seal_spec *s, seal_pcr_reader rd,
		     struct tberr *e)
{
	int i;

	for (i = 0; i < s->ps.nbranch; i++)
		if (branch_values(t, &s->in[i], &s->ps.br[i], rd, e))
			return e->code;
	return 0;
}

int seal_state_given(const char *pcrarg, const char *pcrfile,
		     struct pcr_sel *sel, struct pcr_vals *vals,
		     struct tberr *e)
{
	struct seal_spec *s = calloc(1, sizeof(*s));
	struct seal_opts o;
	int rc;

	if (!s)
		return err_set(e, EX_FAIL, "out of memory");
	memset(&o, 0, sizeof(o));
	if (pcrarg)
		o.pcr[o.npcr++] = pcrarg;
	if (pcrfile)
		o.file[o.nfile++] = pcrfile;
	rc = seal_spec_parse(s, &o, e);
	if (!rc && s->ps.nbranch != 1)
		rc = err_set(e, EX_USAGE, "give -p SEL=VALUES or -P PCRFILE");
	if (!rc && pcrarg &&
	    s->in[0].ngiven != pcr_sel_count(&s->ps.br[0].sel))
		rc = err_set(e, EX_USAGE, "-p: give the value of every PCR "
			     "(SEL=VALUES): there is no TPM to read them");
	if (!rc)
		rc = seal_spec_values(NULL, s, tpm2_pcr_read, e);
	if (!rc) {
		*sel = s->ps.br[0].sel;
		*vals = s->ps.br[0].vals;
	}
	free(s);
	return rc;
}

/* The sealed object's template for policy ps. */
static int make_template(const struct seal_spec *s,
			 struct tpm2_public *tmpl, struct tberr *e)
{
	const struct policy_spec *ps = &s->ps;

	memset(tmpl, 0, sizeof(*tmpl));
	tmpl->type = TPM2_ALG_KEYEDHASH;
	tmpl->name_alg = TPM2_ALG_SHA256;
	tmpl->attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT;
	if (!ps->auth)
		tmpl->attrs |= TPMA_OBJECT_NODA;
	if (ps->nbranch || ps->authorize || ps->auth) {
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
	if (s->hmac_hash) {
		/* totp: the data is the key of an HMAC the TPM computes */
		tmpl->attrs |= TPMA_OBJECT_SIGN_ENCRYPT;
		tmpl->scheme = TPM2_ALG_HMAC;
		tmpl->scheme_hash = s->hmac_hash;
	}
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
	int i;

	k->empty_auth = !ps->auth;
	k->auth = ps->auth;
	k->loadable = s->hmac_hash != 0;
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
	k->nbranch = ps->nbranch;
	for (i = 0; i < ps->nbranch; i++) {
		k->br[i].sel = ps->br[i].sel;
		k->br[i].vals = ps->br[i].vals;
		k->br[i].pcrdigestlen = policy_pcr_digest(ps->halg,
							  &ps->br[i].vals,
							  k->br[i].pcrdigest);
	}
	if (ps->authorize) {
		k->authorized = 1;
		k->signer_bank = s->signer_bank;
		k->signer[0] = (uint8_t)(s->signer.rawlen >> 8);
		k->signer[1] = (uint8_t)s->signer.rawlen;
		memcpy(k->signer + 2, s->signer.raw, s->signer.rawlen);
		k->signerlen = s->signer.rawlen + 2;
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

/* Whether srk is the key the blob recorded as its parent. */
static int name_is(const struct tpm2_srk *srk, const struct keyfile *k)
{
	return srk->pub.namelen == k->parent_namelen &&
	       memcmp(srk->pub.name, k->parent_name, k->parent_namelen) == 0;
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
	struct pcr_sel alloc = { 0 };
	unsigned npcrs = 0;
	uint8_t key[32];
	int i, rsa = 0, rc = 0;

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
	/* With a pin that holds the key: the session first, salted to it
	 * (the key itself then need not be asked for). */
	if (tpm2_trust_try_pinned(t) || find_parent(t, &want, srk, e)) {
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
	for (i = 0; i < s->ps.nbranch; i++)
		if (!pcr_sel_resolved(&s->ps.br[i].sel))
			break;
	/* Only a selection with "all" needs the banks first; one that
	 * names its PCRs is read as it is (the read names a missing bank
	 * or PCR). */
	if (i < s->ps.nbranch && tpm2_pcr_banks(t, &alloc, &npcrs)) {
		rc = e->code;
		goto out;
	}
	for (i = 0; i < s->ps.nbranch; i++)
		if (!pcr_sel_resolved(&s->ps.br[i].sel) &&
		    pcr_sel_resolve(&s->ps.br[i].sel, &alloc, npcrs, e)) {
			rc = e->code;
			goto out;
		}
	if ((rc = seal_spec_values(t, s, tpm2_pcr_read, e)))
		goto out;
	if ((rc = make_template(s, &tmpl, e)))
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
	/* Create is the session's last command: the TPM ends it. */
	tpm2_trust_last_for(t, &a);
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
	int b, i, rsa = 0, rc;

	*pem = NULL;
	if (!k || !dup) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	/* No TPM here: every PCR named with its value, no "all". */
	for (b = 0; b < s->ps.nbranch; b++) {
		const struct pcr_sel *sel = &s->ps.br[b].sel;

		for (i = 0; i <= sel->n; i++)
			if (sel->all || (i < sel->n && sel->b[i].all)) {
				rc = err_set(e, EX_USAGE, "-p: name the PCRs "
					     "and give their values; 'all' "
					     "needs the TPM the blob is for");
				goto out;
			}
	}
	if ((rc = seal_spec_values(NULL, s, tpm2_pcr_read, e)))
		goto out;
	/* The object: the seal template, but movable to its new parent
	 * (TPM2_Import refuses fixedTPM and fixedParent). */
	if ((rc = make_template(s, &tmpl, e)))
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
	    (rc = tpm2_dup_wrap(parent, &tmpl, sens, senslen, 0, dup, e)))
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

/* The PCRs of branch b that differ from cur, as "sha256:7, sha256:11"
 * into list; returns how many. */
int seal_branch_diff(const struct keyfile_branch *b,
		     const struct pcr_vals *cur, char *list, size_t cap)
{
	int i, j, nd = 0;

	list[0] = '\0';
	for (i = 0; i < b->vals.n; i++) {
		const struct pcr_val *s = &b->vals.v[i];

		for (j = 0; j < cur->n; j++)
			if (cur->v[j].alg == s->alg && cur->v[j].idx == s->idx)
				break;
		if (j < cur->n && cur->v[j].len == s->len &&
		    !memcmp(cur->v[j].d, s->d, s->len))
			continue;
		if (strlen(list) < cap - 32)
			snprintf(list + strlen(list), cap - strlen(list),
				 "%s%s:%u", nd ? ", " : "", alg_name(s->alg),
				 s->idx);
		nd++;
	}
	return nd;
}

/* The union of n selections (masks joined per bank). */
static void sel_union(struct pcr_sel *u, const struct pcr_sel *s)
{
	int i, j;

	for (i = 0; i < s->n; i++) {
		for (j = 0; j < u->n && u->b[j].alg != s->b[i].alg; j++)
			;
		if (j == u->n) {
			if (u->n == TPM2_MAX_BANKS)
				continue;
			u->b[u->n++].alg = s->b[i].alg;
		}
		u->b[j].mask |= s->b[i].mask;
	}
}

/* The current values of every PCR the blob's branches name (one read). */
static int read_branches(struct tpm *t, const struct keyfile *k,
			 struct pcr_vals *cur)
{
	struct pcr_sel u;
	int i;

	memset(&u, 0, sizeof(u));
	for (i = 0; i < k->nbranch; i++)
		sel_union(&u, &k->br[i].sel);
	return tpm2_pcr_read(t, &u, cur);
}

/* After PolicyPCR refused, or when no branch matches: say which PCRs
 * differ from the sealed values (for several states, from the closest
 * one). */
static int pcr_mismatch(struct tpm *t, const struct keyfile *k,
			struct tberr *e)
{
	struct pcr_vals *cur = malloc(sizeof(*cur));
	char list[512] = "", one[512];
	int i, nd = 0, best = -1, d;

	if (cur && read_branches(t, k, cur) == 0) {
		for (i = 0; i < k->nbranch; i++) {
			d = seal_branch_diff(&k->br[i], cur, one,
					     sizeof(one));
			if (best < 0 || d < nd) {
				best = i;
				nd = d;
				memcpy(list, one, sizeof(list));
			}
		}
	}
	free(cur);
	if (k->nbranch > 1 && nd)
		err_set(e, EX_AUTH, "the PCRs have none of the %d sets of "
			"values this blob was sealed to (closest: state %d, "
			"where %s differ)", k->nbranch, best + 1, list);
	else if (k->nbranch > 1)
		err_set(e, EX_AUTH, "the PCRs have none of the %d sets of "
			"values this blob was sealed to", k->nbranch);
	else
		err_set(e, EX_AUTH, "the PCRs do not have the values this blob "
			"was sealed to%s%s%s", nd ? " (" : "", nd ? list : "",
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
	    !(j->pub.attrs & TPMA_OBJECT_SIGN_ENCRYPT) != !k->loadable ||
	    (k->loadable && (j->pub.scheme != TPM2_ALG_HMAC ||
			     j->pub.scheme_hash != TPM2_ALG_SHA1)) ||
	    j->pub.policylen != k->policylen ||
	    memcmp(j->pub.policy, k->policy, k->policylen))
		return err_set(e, EX_FAIL, "%s: blob: the sealed object's "
			       "policy is not the recorded one", name);
	j->priv.n = k->privlen - 2;
	memcpy(j->priv.b, k->priv + 2, j->priv.n);
	if (k->authorized) {
		tb_init_read(&b, k->signer, k->signerlen);
		if (tpm2_public_get2b(&b, &j->signer, e) || tb_left(&b))
			return err_set(e, EX_FAIL, "%s: blob: bad signer key",
				       name);
	}
	/* Asking the TPM would count a failure toward lockout. */
	if (k->auth && !have_auth)
		return err_set(e, EX_AUTH, "%s is sealed with a password: "
			       "give --auth", name);
	if (!k->auth && have_auth)
		return err_set(e, EX_USAGE, "%s was sealed without a "
			       "password; drop --auth", name);
	return 0;
}

int signed_policies_read(const char *const *paths, int n,
			 const struct tpm2_public *signer, uint16_t bank,
			 const char *name, struct polsig *out,
			 struct tberr *e)
{
	struct polsig *all = calloc(1, sizeof(*all));
	uint8_t fp[32], *text = NULL;
	size_t tlen;
	int i, m, other_bank = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	if (!all)
		return err_set(e, EX_FAIL, "out of memory");
	if (signer_fingerprint(signer, fp))
		rc = err_set(e, EX_FAIL, "%s: bad signer key", name);
	for (i = 0; !rc && i < n; i++) {
		if (file_read(paths[i], 1 << 20, &text, &tlen, e) ||
		    polsig_parse((const char *)text, tlen, paths[i], all, e)) {
			rc = e->code;
			break;
		}
		free(text);
		text = NULL;
		for (m = 0; m < all->n; m++) {
			const struct polsig_entry *x = &all->e[m];

			if (memcmp(x->pkfp, fp, 32))
				continue;
			if (x->bank != bank) {
				other_bank = 1;
				continue;
			}
			if (out->n < POLSIG_MAX)
				out->e[out->n++] = *x;
		}
	}
	free(text);
	free(all);
	if (!rc && !out->n) {
		rc = err_set(e, EX_AUTH, "%s: no signed policy in %s%s is by "
			     "the key it was sealed to%s%s", name, paths[0],
			     n > 1 ? " and the others" : "",
			     other_bank ? " for the PCR bank " : "",
			     other_bank ? alg_name(bank) : "");
		err_hint(e, "the signatures must come from the key it was "
			 "sealed to (seal --authorized-by, "
			 "systemd-cryptenroll --tpm2-public-key)");
	}
	return rc;
}

int unseal_signatures(struct unseal_job *j, const char *const *paths, int n,
		      struct tberr *e)
{
	if (!(j->sigs = calloc(1, sizeof(*j->sigs))))
		return err_set(e, EX_FAIL, "out of memory");
	if (!j->k.authorized && n)
		return err_set(e, EX_USAGE, "%s was not sealed with "
			       "--authorized-by; drop --signature", j->name);
	if (j->k.authorized && !n)
		return err_set(e, EX_USAGE, "%s is sealed to policies signed "
			       "by a key (seal --authorized-by): give "
			       "--signature SIG.json", j->name);
	if (!n)
		return 0;
	return signed_policies_read(paths, n, &j->signer, j->k.signer_bank,
				    j->name, j->sigs, e);
}

/* A signed policy whose PCR values are the TPM's now: its PolicyPCR
 * branch (selection and values) in *br, the entry in *x. */
int signed_policy_pick(struct tpm *t, const struct polsig *sigs,
		       uint16_t bank, const char *name,
		       struct policy_branch *br,
		       const struct polsig_entry **x, struct tberr *e)
{
	struct pcr_vals *cur = malloc(sizeof(*cur));
	struct pcr_sel u;
	char sets[256] = "";
	uint8_t d[TPM2_MAX_DIGEST];
	int i, k, idx, rc = 0;

	if (!cur)
		return err_set(e, EX_FAIL, "out of memory");
	memset(&u, 0, sizeof(u));
	u.n = 1;
	u.b[0].alg = bank;
	for (i = 0; i < sigs->n; i++)
		u.b[0].mask |= sigs->e[i].pcrs;
	if (u.b[0].mask && tpm2_pcr_read(t, &u, cur)) {
		free(cur);
		return e->code ? e->code : EX_FAIL;
	}
	if (!u.b[0].mask)
		cur->n = 0;
	for (i = 0; i < sigs->n; i++) {
		const struct polsig_entry *s = &sigs->e[i];

		memset(br, 0, sizeof(*br));
		br->sel.n = 1;
		br->sel.b[0].alg = s->bank;
		br->sel.b[0].mask = s->pcrs;
		for (idx = 0; idx < 32; idx++) {
			if (!(s->pcrs >> idx & 1))
				continue;
			for (k = 0; k < cur->n && cur->v[k].idx != idx; k++)
				;
			if (k < cur->n)
				br->vals.v[br->vals.n++] = cur->v[k];
		}
		if (policy_branch_digest(TPM2_ALG_SHA256, br, d) == 32 &&
		    !memcmp(d, s->pol, 32)) {
			*x = s;
			goto out;
		}
		if (strlen(sets) < sizeof(sets) - 64) {
			snprintf(sets + strlen(sets), sizeof(sets) -
				 strlen(sets), "%s%s:", i ? "; " : "",
				 alg_name(s->bank));
			for (idx = 0, k = 0; idx < 32; idx++)
				if (s->pcrs >> idx & 1)
					snprintf(sets + strlen(sets),
						 sizeof(sets) - strlen(sets),
						 "%s%d", k++ ? "," : "", idx);
		}
	}
	rc = err_set(e, EX_AUTH, "%s: the PCRs match none of the %d signed "
		     "policies (their PCRs %s differ from every signed set of "
		     "values)", name, sigs->n, sets);
	err_hint(e, "get a signature for this state from whoever signs "
		 "(tpmbox policysign, systemd-measure sign)");
out:
	free(cur);
	return rc;
}

/* The signed policy the TPM checks: the signer loaded in the owner
 * hierarchy, its signature over SHA-256(pol || empty policyRef) verified
 * into *tk. */
int signed_policy_ticket(struct tpm *t, const struct tpm2_public *signer,
			 const struct polsig_entry *x, const char *name,
			 struct tpm2_ticket *tk, struct tberr *e)
{
	uint8_t ahash[32];
	uint32_t h = 0;
	int rc;

	if (!x || hash_buf(TPM2_ALG_SHA256, x->pol, sizeof(x->pol), ahash))
		return err_set(e, EX_FAIL, "hashing the policy failed");
	if (tpm2_load_external(t, signer, TPM2_RH_OWNER, &h))
		return err_prefix(e, "%s: loading the signer's key", name);
	rc = tpm2_verify_signature(t, h, signer->name, signer->namelen,
				   signer, ahash, sizeof(ahash), x->sig,
				   x->siglen, tk);
	if (rc)
		err_prefix(e, "%s", name);
	tpm2_flush(t, h);
	return rc;
}

/* The PCR part of the policy: PolicyPCR of the one branch; of the branch
 * the PCRs match, then PolicyOR; or of the signed policy, then
 * PolicyAuthorize. */
static int policy_pcrs(struct tpm *t, struct unseal_job *j, uint32_t sh,
		       const struct policy_branch *sbr,
		       const struct polsig_entry *x,
		       const struct tpm2_ticket *tk, struct tberr *e)
{
	struct keyfile *k = &j->k;
	uint8_t ds[POLICY_BRANCHES * 32], pd[TPM2_MAX_DIGEST];
	struct pcr_vals *cur;
	char diff[64];
	size_t n;
	int i, pick = 0, rc = 0;

	if (k->authorized) {
		n = policy_pcr_digest(TPM2_ALG_SHA256, &sbr->vals, pd);
		if (tpm2_policy_pcr(t, sh, pd, n, &sbr->sel))
			return rc_base(e->rc) == RC_VALUE ?
			       err_set(e, EX_AUTH, "%s: the PCRs changed during "
				       "unseal", j->name) : e->code;
		if (tpm2_policy_authorize(t, sh, x->pol, sizeof(x->pol),
					  j->signer.name, j->signer.namelen,
					  tk))
			return err_prefix(e, "%s: TPM2_PolicyAuthorize",
					  j->name);
		return 0;
	}
	if (k->nbranch > 1) {
		/* which state the TPM is in now: one read for them all */
		if (!(cur = malloc(sizeof(*cur))))
			return err_set(e, EX_FAIL, "out of memory");
		if (read_branches(t, k, cur)) {
			free(cur);
			return e->code;
		}
		for (pick = 0; pick < k->nbranch; pick++)
			if (!seal_branch_diff(&k->br[pick], cur, diff,
					      sizeof(diff)))
				break;
		free(cur);
		if (pick == k->nbranch)
			return pcr_mismatch(t, k, e);
	}
	if (k->nbranch &&
	    tpm2_policy_pcr(t, sh, k->br[pick].pcrdigest,
			    k->br[pick].pcrdigestlen, &k->br[pick].sel)) {
		if (rc_base(e->rc) == RC_VALUE)
			pcr_mismatch(t, k, e);
		return e->code;
	}
	if (k->nbranch > 1) {
		struct policy_branch *b = malloc(sizeof(*b));

		for (i = 0; b && i < k->nbranch; i++) {
			b->sel = k->br[i].sel;
			b->vals = k->br[i].vals;
			if (policy_branch_digest(k->policy_alg, b,
						 ds + i * 32) != 32)
				break;
		}
		if (!b || i < k->nbranch)
			rc = err_set(e, EX_FAIL, "computing the PolicyOR "
				     "branches failed");
		free(b);
		if (!rc && tpm2_policy_or(t, sh, ds, k->nbranch, 32))
			rc = err_prefix(e, "%s: TPM2_PolicyOR", j->name);
	}
	return rc;
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
	struct policy_branch *sbr = NULL;
	const struct polsig_entry *x = NULL;
	struct tpm2_ticket tk;
	struct tpm2_auth a;
	int tries;

	/* A signed policy: the one for the PCRs now, its signature checked
	 * by the TPM before the session runs it. */
	if (k->authorized) {
		if (!(sbr = malloc(sizeof(*sbr))))
			return err_set(e, EX_FAIL, "out of memory");
		if (signed_policy_pick(t, j->sigs, j->k.signer_bank, j->name,
				       sbr, &x, e) ||
		    signed_policy_ticket(t, &j->signer, x, j->name, &tk, e)) {
			free(sbr);
			return e->code;
		}
	}
	for (tries = 1;; tries++) {
		uint32_t b;

		if (tries > 1 &&
		    tpm2_policy_restart(t, tpm2_session_handle(s)))
			break;
		if (policy_pcrs(t, j, tpm2_session_handle(s), sbr, x, &tk, e))
			break;
		if (k->auth) {
			if (tpm2_policy_authvalue(t, tpm2_session_handle(s)))
				break;
			tpm2_session_policy_auth(s, SESS_POLICY_AUTHVALUE);
			/* The TPM keys the response encryption with
			 * sessionKey || authValue once the session
			 * authorizes the object. */
			tpm2_session_enc_auth(s, 1);
		}
		tpm2_session_use(s, &a, auth ? auth->v : NULL,
				 auth ? auth->n : 0);
		/* The session ends with Unseal (a refusal keeps it for the
		 * next try). */
		tpm2_auth_last(&a);
		if ((j->use ?
		     j->use(t, obj, j->pub.name, j->pub.namelen, &a,
			    j->use_in, j->use_inlen, secret, cap, slen) :
		     tpm2_unseal(t, obj, j->pub.name, j->pub.namelen, &a,
				 secret, cap, slen)) == 0) {
			free(sbr);
			return 0;
		}
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
		err_prefix(e, "%s", j->name);
		break;
	}
	free(sbr);
	return e->code;
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
	if (k->loadable != (j->use != NULL)) {
		free(srk);
		return err_set(e, EX_USAGE, k->loadable ?
			       "%s holds a TOTP key, not sealed data: use "
			       "'tpmbox totp show'" : "%s is sealed data, not "
			       "a TOTP key", j->name);
	}
	/* The parent: the SRK this blob names, nothing else (and the
	 * pinned one, when a pin is set). */
	memset(&want, 0, sizeof(want));
	want.rsa = k->rsa_parent;
	want.owner = owner && owner->n ? owner->v : NULL;
	want.ownerlen = owner ? owner->n : 0;
	/* With a pin that holds the SRK's key: the session first, salted to
	 * it, and the key not asked for (a key at 0x81000001 that is not
	 * the pinned one makes the Load below fail, and is named then). */
	if (!ek && tpm2_srk_session_pinned(t, (k->nbranch || k->authorized ||
					       k->auth) ? TPM2_SE_POLICY :
					   TPM2_SE_HMAC, SESS_ENC_RSP, &s)) {
		rc = e->code;
		goto out;
	}
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
	if (!ek && !name_is(srk, k)) {
		/* A blob sealed under the SRK an older tpmbox made (unique
		 * filled with zeros) when none was persisted: made again,
		 * for this blob only (2 more commands). */
		struct tpm2_srk *old = calloc(1, sizeof(*old));

		want.older = 1;
		if (old && tpm2_srk_find(t, &want, old) == 0 &&
		    name_is(old, k)) {
			tpm2_srk_put(t, srk);
			*srk = *old;
		} else {
			if (old)
				tpm2_srk_put(t, old);
			err_clear(e);
		}
		free(old);
	}
	if (!name_is(srk, k)) {
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
			 &pa, &j->pub, &j->priv, k->seed, k->seedlen, NULL,
			 0, &j->priv))) {
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
	if ((!s && tpm2_session_start(t, (k->nbranch || k->authorized ||
					  k->auth) ? TPM2_SE_POLICY :
				      TPM2_SE_HMAC, srk->handle, &srk->pub,
				      TPM2_RH_NULL, NULL, 0, SESS_ENC_RSP,
				      &s)) ||
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
	free(j->sigs);
	explicit_bzero(j, sizeof(*j));
}
