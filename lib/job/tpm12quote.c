/* TPM 1.2 attestation: TPM_MakeIdentity, TPM_Quote, TPM_Quote2
 * (job/tpm12quote.h). */
#include <stdlib.h>
#include <string.h>

#include "base/auth.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "job/tpm.h"
#include "job/tpm12quote.h"
#include "tpm12/cmd.h"
#include "tpm12/da.h"
#include "tpm12/key.h"
#include "tpm12/pcr.h"
#include "tpm12/session.h"
#include "tpm2/pcr.h"

static const uint8_t wks[20];	/* the well-known secret */

int tpm12_aik_check(const struct tpm12_key *k, const char *what,
		    struct tberr *e)
{
	if (k->usage != TPM12_KEY_IDENTITY)
		return err_set(e, EX_FAIL, "%s: not an attestation identity "
			       "key (usage 0x%04x, not TPM_KEY_IDENTITY "
			       "0x0012)", what, k->usage);
	if (k->parms.alg != TPM12_ALG_RSA || k->publen < 128 ||
	    k->parms.sig_scheme != TPM12_SS_RSASSAPKCS1v15_SHA1 ||
	    !tpm12_rsa_exponent(&k->parms))
		return err_set(e, EX_FAIL, "%s: not an RSA key signing with "
			       "PKCS#1 v1.5 SHA-1", what);
	return 0;
}

/* The idKeyParams: what tpm_mkaik asks for. */
static void aik_params(struct tpm12_key *k)
{
	memset(k, 0, sizeof(*k));
	k->ver[0] = 1;
	k->ver[1] = 1;
	k->usage = TPM12_KEY_IDENTITY;
	k->auth_usage = TPM12_AUTH_NEVER;
	tpm12_key_parms_rsa(&k->parms, 2048, TPM12_ES_NONE,
			    TPM12_SS_RSASSAPKCS1v15_SHA1);
}

/* End both sessions after a MakeIdentity (flushing what the TPM kept),
 * keeping the first error. */
static int end2(struct tpm *t, struct tpm12_sess *a, struct tpm12_sess *b,
		int rc)
{
	struct tberr keep = *t->e;
	int kept = a->active || b->active;

	tpm12_sess_end(t, a);
	tpm12_sess_end(t, b);
	if (rc) {
		*t->e = keep;
		return rc;
	}
	if (kept)
		return err_set(t->e, EX_IO, "TPM_MakeIdentity: the TPM kept a "
			       "session it was asked to end");
	return 0;
}

int tpm12_make_identity(struct tpm *t, const uint8_t srk[20],
			const uint8_t owner[20], struct tpm12_aik *out)
{
	static uint8_t in[40 + TPM12_KEYBLOB_MAX];
	struct tpm12_call c = { .ord = TPM12_ORD_MakeIdentity };
	struct tpm12_sess ss, os;
	struct tpm12_key params;
	uint8_t enc[20];
	uint32_t blen;
	struct tb b, r;
	int rc;

	memset(&ss, 0, sizeof(ss));
	if ((rc = tpm12_oiap(t, srk, &ss)))
		return rc;
	if ((rc = tpm12_osap(t, TPM12_ET_OWNER, TPM12_KH_OWNER, owner, &os)))
		return end2(t, &ss, &os, rc);
	/* identityAuth: the new key's usage value, ADIP under the owner's
	 * OSAP secret; labelPrivCADigest: any 20 bytes without a CA. */
	tpm12_adip(&os, wks, enc);
	aik_params(&params);
	tb_init(&b, in, sizeof(in));
	tb_put_bytes(&b, enc, 20);
	tb_put_bytes(&b, wks, 20);
	tpm12_put_key(&b, &params);
	if (tb_err(&b))
		return end2(t, &ss, &os, err_set(t->e, EX_FAIL,
			    "TPM_MakeIdentity: parameters too large"));
	c.in = in;
	c.inlen = b.len;
	c.na = 2;
	c.auth[0] = &ss;	/* the SRK's, then the owner's */
	c.auth[1] = &os;
	ss.cont = 0;
	os.cont = 0;
	rc = tpm12_call(t, &c);
	explicit_bzero(in, b.len);
	explicit_bzero(enc, sizeof(enc));
	if (rc == EX_AUTH && t->e->rc == 0x1d)
		err_set(t->e, EX_AUTH, "TPM_MakeIdentity: the owner value is "
			"wrong (TPM_AUTH2FAIL)");
	else if (rc == EX_AUTH && t->e->rc == 0x01)
		err_set(t->e, EX_AUTH, "TPM_MakeIdentity: the SRK value is "
			"wrong (TPM_AUTHFAIL)");
	if (rc)
		return end2(t, &ss, &os, rc);
	/* idKey, identityBindingSize, identityBinding: nothing more. */
	memset(out, 0, sizeof(*out));
	tb_init_read(&r, c.out, c.outlen);
	tpm12_get_key(&r, &out->key);
	out->bloblen = r.pos;
	blen = tb_get_u32(&r);
	if (!tb_err(&r) && blen <= tb_left(&r))
		tb_skip(&r, blen);
	if (tb_err(&r) || blen > c.outlen || tb_left(&r) ||
	    out->bloblen > sizeof(out->blob))
		return end2(t, &ss, &os, err_set(t->e, EX_IO,
			    "TPM_MakeIdentity: malformed response"));
	memcpy(out->blob, c.out, out->bloblen);
	if (tpm12_aik_check(&out->key, "TPM_MakeIdentity", t->e)) {
		t->e->code = EX_IO;
		return end2(t, &ss, &os, EX_IO);
	}
	out->pub.parms = out->key.parms;
	out->pub.publen = out->key.publen;
	memcpy(out->pub.pub, out->key.pub, out->key.publen);
	return end2(t, &ss, &os, 0);
}

/* Send the quote command with or without the usage authorization. */
static int send_quote(struct tpm *t, const struct tpm12_key *k,
		      struct tpm12_call *c)
{
	if (k->auth_usage == TPM12_AUTH_NEVER)
		return tpm12_call(t, c);
	return tpm12_call_oiap(t, wks, c);
}

/* TPM_Quote: pcrData (TPM_PCR_COMPOSITE), sigSize, sig. */
static int parse_quote1(struct tpm *t, const struct tpm12_call *c,
			const struct tpm12_pcr_sel *asked,
			const uint8_t nonce[20], struct quote12 *q)
{
	struct tb r;
	uint32_t vsize, slen;
	size_t i, start;
	uint8_t h[20];

	tb_init_read(&r, c->out, c->outlen);
	start = r.pos;
	tpm12_get_pcr_sel(&r, &q->sel);
	vsize = tb_get_u32(&r);
	if (tb_err(&r) || q->sel.mask != asked->mask ||
	    q->sel.size != asked->size)
		return err_set(t->e, EX_IO, "TPM_Quote: malformed response "
			       "(not the PCRs asked for)");
	for (q->nvals = 0, i = 0; i < 32; i++)
		q->nvals += q->sel.mask >> i & 1;
	if (vsize != q->nvals * TPM12_SHA1)
		return err_set(t->e, EX_IO, "TPM_Quote: malformed response "
			       "(%u bytes of values for %zu PCRs)", vsize,
			       q->nvals);
	for (i = 0; i < q->nvals; i++)
		tb_get_bytes(&r, q->vals[i], TPM12_SHA1);
	hash_buf(TPM2_ALG_SHA1, c->out + start, r.pos - start, h);
	slen = tb_get_u32(&r);
	if (tb_err(&r) || slen == 0 || slen > sizeof(q->sig) ||
	    slen != tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_Quote: malformed response "
			       "(signature)");
	q->siglen = slen;
	tb_get_bytes(&r, q->sig, slen);
	tpm12_quote_info(h, nonce, q->info);
	q->infolen = TPM12_QUOTE_INFO_SIZE;
	return 0;
}

/* TPM_Quote2: pcrData (TPM_PCR_INFO_SHORT), versionInfoSize (0: none
 * asked), sigSize, sig.  *digest gets digestAtRelease. */
static int parse_quote2(struct tpm *t, const struct tpm12_call *c,
			const struct tpm12_pcr_sel *asked,
			const uint8_t nonce[20], struct quote12 *q)
{
	struct tpm12_pcr_info info;
	uint32_t vlen, slen;
	struct tb r, b;

	tb_init_read(&r, c->out, c->outlen);
	tpm12_get_pcr_info(&r, TPM12_PCR_INFO_SHORT, &info);
	vlen = tb_get_u32(&r);
	slen = tb_get_u32(&r);
	if (tb_err(&r) || vlen != 0 || slen == 0 || slen > sizeof(q->sig) ||
	    slen != tb_left(&r) || info.release.mask != asked->mask ||
	    info.release.size != asked->size)
		return err_set(t->e, EX_IO, "TPM_Quote2: malformed response");
	q->siglen = slen;
	tb_get_bytes(&r, q->sig, slen);
	q->sel = info.release;
	tb_init(&b, q->info, sizeof(q->info));
	tpm12_put_quote_info2(&b, nonce, &info, NULL, 0);
	if (tb_err(&b))
		return err_set(t->e, EX_IO, "TPM_Quote2: malformed response");
	q->infolen = b.len;
	return 0;
}

/* Quote2's values: read now, they must hash to digestAtRelease.  1 when
 * they do not (a PCR changed after the quote). */
static int quote2_values(struct tpm *t, struct quote12 *q)
{
	struct quote12_info i;
	uint8_t h[20];
	size_t n = 0;
	int p, rc;

	for (p = 0; p < 32; p++) {
		if (!(q->sel.mask >> p & 1))
			continue;
		if ((rc = tpm12_pcr_read(t, (uint32_t)p, q->vals[n])))
			return -rc;
		n++;
	}
	q->nvals = n;
	if (quote12_info_parse(q->info, q->infolen, &i, t->e) ||
	    tpm12_pcr_composite_hash(&q->sel,
				     (const uint8_t (*)[TPM12_SHA1])q->vals,
				     n, h))
		return -EX_IO;
	return memcmp(h, i.digest, 20) != 0;
}

int tpm12_quote(struct tpm *t, uint32_t handle, const struct tpm12_key *k,
		const uint8_t nonce[TPM12_SHA1], uint32_t mask, int quote2,
		struct quote12 *q)
{
	uint8_t in[4 + 20 + 2 + TPM12_PCR_SELECT_MAX + 1];
	struct tpm12_pcr_sel sel;
	struct tpm12_pubkey pub;
	int tries, rc;

	if (!mask || mask >> 24)
		return err_set(t->e, EX_USAGE, "a TPM 1.2 quote covers 1 to 24 "
			       "PCRs (0-23)");
	/* 3 select bytes, as TrouSerS sends them: the TPM's 24 PCRs. */
	tpm12_pcr_sel_set(&sel, mask, 3);
	memset(&pub, 0, sizeof(pub));
	pub.parms = k->parms;
	pub.publen = k->publen;
	memcpy(pub.pub, k->pub, k->publen);
	for (tries = 0; tries < 3; tries++) {
		struct tpm12_call c = { .ord = quote2 ? TPM12_ORD_Quote2 :
					TPM12_ORD_Quote };
		struct tb b;

		memset(q, 0, sizeof(*q));
		tb_init(&b, in, sizeof(in));
		tb_put_u32(&b, handle);
		tb_put_bytes(&b, nonce, TPM12_SHA1);
		tpm12_put_pcr_sel(&b, &sel);
		if (quote2)
			tb_put_u8(&b, 0);	/* addVersion FALSE */
		c.in = in;
		c.inlen = b.len;
		c.in_handles = 4;
		if ((rc = send_quote(t, k, &c)))
			return rc;
		/* c.out lives in the response buffer: parse it now. */
		if (!quote2) {
			if ((rc = parse_quote1(t, &c, &sel, nonce, q)))
				return rc;
		} else {
			if ((rc = parse_quote2(t, &c, &sel, nonce, q)))
				return rc;
			if ((rc = quote2_values(t, q)) < 0)
				return -rc;
			if (rc)
				continue;	/* extended in between */
		}
		if (quote12_sig_verify(&pub, q->info, q->infolen, q->sig,
				       q->siglen, t->e)) {
			err_prefix(t->e, "%s: the quote does not verify with "
				   "the AIK's public key (a changed answer)",
				   tpm12_ord_name(c.ord));
			t->e->code = EX_IO;
			return EX_IO;
		}
		return 0;
	}
	return err_set(t->e, EX_FAIL, "TPM_Quote2: the PCRs changed after "
		       "each of 3 quotes (values read after it no longer "
		       "hash to the quoted digest)");
}

int tpm12_aik_quote(struct tpm *t, const struct tpm12_quote_req *r,
		    struct quote12 *q)
{
	struct tpm12_key *key = malloc(sizeof(*key));
	uint8_t nonce[20] = { 0 }, srk[20];
	struct pcr_sel sel, alloc;
	struct authval sv;
	uint32_t mask = 0, h = 0;
	unsigned npcrs;
	int rc = 0, i;

	memset(srk, 0, sizeof(srk));
	if (!key) {
		rc = err_set(t->e, EX_USAGE, "out of memory");
		goto done;
	}
	/* The key, the selection, the nonce. */
	if (tpm12_key_parse(r->key, r->keylen, key, r->keyf, t->e) ||
	    tpm12_aik_check(key, r->keyf, t->e) ||
	    tpm_pcr_parse(t, r->sel ? r->sel : "sha1:all", &sel) ||
	    tpm_pcr_banks(t, &alloc, &npcrs) ||
	    tpm_pcr_resolve(t, &sel, &alloc, npcrs)) {
		rc = t->e->code ? t->e->code : EX_FAIL;
		goto done;
	}
	for (i = 0; i < sel.n; i++)
		mask |= sel.b[i].mask;
	if (r->nonce)
		quote12_nonce(r->nonce, r->nonce_len, nonce);
	if (r->srk_auth) {
		if (auth_parse(r->srk_auth, &sv, t->e)) {
			rc = t->e->code ? t->e->code : EX_FAIL;
			goto done;
		}
		tpm12_auth_value(&sv, srk);
		auth_wipe(&sv);
	}
	/* Load, quote, flush. */
	if (tpm12_loadkey2(t, TPM12_KH_SRK, srk, key, &h)) {
		if (t->e->code == EX_AUTH)
			err_hint(t->e, "give the SRK value with --srk-auth");
		rc = t->e->code ? t->e->code : EX_FAIL;
		goto done;
	}
	rc = tpm12_quote(t, h, key, nonce, mask, !r->quote1, q);
	tpm12_flush_key(t, h);
done:
	explicit_bzero(srk, sizeof(srk));
	free(key);
	return rc;
}

int tpm12_quote_write(const struct quote12 *q, const char *out,
		      const char *msgf, const char *sigf, const char *pcrsf,
		      int flags, struct tberr *e)
{
	uint8_t *qf = NULL;
	char *pt = NULL;
	size_t qn, pn;
	int rc = 0;

	if ((out && (quote12_file_write(q, &qf, &qn, e) ||
		     file_write_atomic(out, qf, qn, flags, e))) ||
	    (msgf && file_write_atomic(msgf, q->info, q->infolen, flags, e)) ||
	    (sigf && file_write_atomic(sigf, q->sig, q->siglen, flags, e)) ||
	    (pcrsf && (quote12_pcrs_text(q, &pt, &pn, e) ||
		       file_write_atomic(pcrsf, pt, pn, flags, e))))
		rc = e->code ? e->code : EX_FAIL;
	free(qf);
	free(pt);
	return rc;
}
