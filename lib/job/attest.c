#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/verify.h"
#include "fmt/quote12.h"
#include "fmt/tpmkey.h"
#include "job/attest.h"
#include "job/key.h"
#include "job/tpm.h"
#include "tpm2/cmd.h"
#include "tpm2/policy.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

#define AK_ATTRS (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | \
	TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | \
	TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT)

void ak_template(struct tpm2_public *p, int rsa)
{
	memset(p, 0, sizeof(*p));
	p->type = rsa ? TPM2_ALG_RSA : TPM2_ALG_ECC;
	p->name_alg = TPM2_ALG_SHA256;
	p->attrs = AK_ATTRS;
	p->sym_alg = TPM2_ALG_NULL;
	p->scheme = rsa ? TPM2_ALG_RSASSA : TPM2_ALG_ECDSA;
	p->scheme_hash = TPM2_ALG_SHA256;
	p->kdf = TPM2_ALG_NULL;
	p->rsa_bits = 2048;
	p->curve = TPM2_ECC_NIST_P256;
	tpm2_public_finish(p);
}

int ak_check_public(const struct tpm2_public *p, struct tberr *e)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} need[] = {
		{ TPMA_OBJECT_FIXEDTPM, "fixedTPM" },
		{ TPMA_OBJECT_FIXEDPARENT, "fixedParent" },
		{ TPMA_OBJECT_SENSITIVEDATAORIGIN, "sensitiveDataOrigin" },
		{ TPMA_OBJECT_RESTRICTED, "restricted" },
		{ TPMA_OBJECT_SIGN_ENCRYPT, "sign" },
	};
	size_t i;

	/* A key the TPM made and can never export or let anyone import:
	 * only then does its signature over a quote say "this TPM". */
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!(p->attrs & need[i].bit))
			return err_set(e, EX_FAIL, "AK: not an attestation "
				       "key: %s is not set (attributes "
				       "0x%08x; an AK must be fixedTPM, "
				       "fixedParent, sensitiveDataOrigin, "
				       "restricted, sign)", need[i].name,
				       p->attrs);
	if (p->attrs & TPMA_OBJECT_DECRYPT)
		return err_set(e, EX_FAIL, "AK: not an attestation key: it "
			       "is also a decryption key (attributes 0x%08x)",
			       p->attrs);
	if (!((p->type == TPM2_ALG_ECC && p->scheme == TPM2_ALG_ECDSA) ||
	      (p->type == TPM2_ALG_RSA && p->scheme == TPM2_ALG_RSASSA)) ||
	    !hash_supported(p->scheme_hash))
		return err_set(e, EX_FAIL, "AK: signing scheme 0x%04x/"
			       "0x%04x is not ECDSA or RSASSA with a SHA hash",
			       p->scheme, p->scheme_hash);
	return 0;
}

int ak_blob_encode(const struct ak_blob *k, char **pem, size_t *n,
		   struct tberr *e)
{
	struct tpmkey t;
	int rc;

	memset(&t, 0, sizeof(t));
	t.type = TPMKEY_LOADABLE;
	t.empty_auth = k->empty_auth;
	t.parent = k->parent;
	if (k->publen > sizeof(t.pub) || k->privlen > sizeof(t.priv))
		return err_set(e, EX_FAIL, "AKBLOB: key too large to encode");
	memcpy(t.pub, k->pub, k->publen);
	t.publen = k->publen;
	memcpy(t.priv, k->priv, k->privlen);
	t.privlen = k->privlen;
	if (k->pol.pcr) {
		struct tb b;

		tb_init(&b, t.policy[0].body, sizeof(t.policy[0].body));
		policy_pcr_marshal(&b, &k->pol.sel, k->pol.digest,
				   k->pol.dlen);
		if (tb_err(&b))
			return err_set(e, EX_FAIL, "KEY: policy too large");
		t.policy[0].cc = TPM2_CC_PolicyPCR;
		t.policy[0].len = b.len;
		t.npolicy = 1;
	}
	if (k->pol.authvalue)
		t.policy[t.npolicy++].cc = TPM2_CC_PolicyAuthValue;
	rc = tpmkey_encode(&t, pem, n, "AKBLOB", e);
	explicit_bzero(&t, sizeof(t));
	return rc;
}

/* An AK has no policy: a key file with one is keycreate -p's. */
static int ak_no_policy(const struct ak_blob *k, struct tberr *e)
{
	if (k->pol.pcr || k->pol.authvalue)
		return err_set(e, EX_FAIL, "AKBLOB: an attestation key has no "
			       "policy (this is a key made with keycreate -p)");
	return 0;
}

int ak_blob_decode(const uint8_t *text, size_t n, struct ak_blob *k,
		   struct tberr *e)
{
	if (key_file_decode(text, n, k, "AKBLOB", e))
		return e->code;
	return ak_no_policy(k, e);
}

int ak_blob_read(const char *path, struct ak_blob *k, struct tberr *e)
{
	if (key_file_read(path, k, "AKBLOB", e))
		return e->code;
	return ak_no_policy(k, e);
}

int ak_pub_pem(const struct tpm2_public *p, char **pem, size_t *n,
	       struct tberr *e)
{
	int r;

	if (p->type == TPM2_ALG_ECC && p->curve == TPM2_ECC_NIST_P256)
		r = pk_pem_p256(p->ecc_x, p->ecc_xlen, p->ecc_y, p->ecc_ylen,
				pem, n);
	else if (p->type == TPM2_ALG_ECC && p->curve == TPM2_ECC_NIST_P384)
		r = pk_pem_p384(p->ecc_x, p->ecc_xlen, p->ecc_y, p->ecc_ylen,
				pem, n);
	else if (p->type == TPM2_ALG_ECC && p->curve == TPM2_ECC_NIST_P521)
		r = pk_pem_p521(p->ecc_x, p->ecc_xlen, p->ecc_y, p->ecc_ylen,
				pem, n);
	else if (p->type == TPM2_ALG_RSA)
		r = pk_pem_rsa(p->rsa_n, p->rsa_nlen, p->rsa_exp, pem, n);
	else
		return err_set(e, EX_FAIL, "AK public key: only P-256, P-384, "
			       "P-521 and RSA keys are exported");
	if (r)
		return err_set(e, EX_FAIL, "AK public key: cannot encode it "
			       "as PEM");
	return 0;
}

int ak_create(struct tpm *t, int rsa, const uint8_t *owner_auth,
	      size_t owner_authlen, struct ak_blob *b,
	      struct tpm2_public *pub)
{
	struct tpm2_public tmpl;
	int rc;

	/* A key made under the ECC SRK in the session salted to it (its
	 * HMAC proves the TPM made it), compared with the template. */
	ak_template(&tmpl, rsa);
	if ((rc = key_create(t, &tmpl, NULL, 0, owner_auth, owner_authlen,
			     "attestation key", b, pub)))
		return rc;
	if (ak_check_public(pub, t->e)) {
		explicit_bzero(b, sizeof(*b));
		return err_set(t->e, EX_FAIL, "TPM2_Create: the key made is "
			       "not the attestation key asked for");
	}
	return 0;
}

int ak_load(struct tpm *t, const struct ak_blob *b, const uint8_t *owner_auth,
	    size_t owner_authlen, uint32_t *handle, struct tpm2_public *pub)
{
	struct tb r;
	int rc;

	tb_init_read(&r, b->pub, b->publen);
	if (tpm2_public_get2b(&r, pub, t->e) || ak_check_public(pub, t->e))
		return err_prefix(t->e, "AKBLOB");
	rc = key_load_as(t, b, owner_auth, owner_authlen, 0, handle, pub,
			 NULL);
	if (rc && t->e->rc && t->e->hint[0])
		err_hint(t->e, "the AK was made under another SRK (a cleared "
			 "TPM or another machine)");
	return rc;
}

int tpm2_quote(struct tpm *t, uint32_t key, const uint8_t *nonce,
	       size_t nlen, const struct pcr_sel *sel, uint8_t *attest,
	       size_t *alen, uint8_t *sig, size_t *slen)
{
	struct tpm2_call c = { .cc = TPM2_CC_Quote };
	struct tpm2_auth a;
	uint8_t p[256];
	struct tb b, r;
	struct quote_sig s;
	size_t n, at;

	tb_init(&b, p, sizeof(p));
	tb_put_tpm2b(&b, nonce, nlen);		/* qualifyingData */
	tb_put_u16(&b, TPM2_ALG_NULL);		/* inScheme: the key's */
	pcr_sel_marshal(&b, sel);
	if (tb_err(&b))
		return err_set(t->e, EX_USAGE, "TPM2_Quote: nonce or "
			       "selection too large");
	tpm2_auth_pw(&a, NULL, 0);
	c.nh = 1;
	c.h[0] = key;
	c.na = 1;
	c.auth[0] = &a;
	c.params = p;
	c.plen = b.len;
	if (tpm2_call(t, &c))
		return t->e->code;
	tb_init_read(&r, c.rparams, c.rplen);
	n = tb_get_tpm2b(&r, attest, QUOTE_ATTEST_MAX);
	at = r.pos;
	if (tb_err(&r))
		return err_set(t->e, EX_IO, "TPM2_Quote: malformed quoted");
	*alen = n;
	*slen = c.rplen - at;
	if (*slen > QUOTE_SIG_MAX ||
	    quote_sig_parse(c.rparams + at, *slen, &s, t->e))
		return err_set(t->e, EX_IO, "TPM2_Quote: malformed signature "
			       "in the response");
	memcpy(sig, c.rparams + at, *slen);
	return 0;
}

/* The quote must verify as a verifier will check it: a damaged response
 * (the signature is not covered by anything the TPM could check for us)
 * fails here, not later at the verifier. */
static int quote_self_check(struct tpm *t, const struct tpm2_public *pub,
			    const uint8_t *nonce, size_t nlen,
			    const struct pcr_sel *sel, const struct quote *q)
{
	struct quote_want w;
	struct tberr ce;
	char *pem = NULL;
	size_t n;
	int rc;

	/* The key the blob holds (TPM2_Load checked the loaded object has
	 * its name), not what a ReadPublic answer says. */
	if ((rc = ak_pub_pem(pub, &pem, &n, t->e)))
		return rc;
	memset(&w, 0, sizeof(w));
	memset(&ce, 0, sizeof(ce));
	w.key = (const uint8_t *)pem;
	w.keylen = n;
	w.nonce = nonce;
	w.nonce_len = nlen;
	w.sel = sel;
	w.name = pub->name;	/* qualifiedSigner's algorithm and size */
	w.namelen = pub->namelen;
	w.scheme = pub->scheme;
	w.scheme_hash = pub->scheme_hash;
	rc = quote_check(q, &w, &ce);
	free(pem);
	if (rc)
		return err_set(t->e, EX_IO, "TPM2_Quote: the quote does not "
			       "verify (%s): a damaged response", ce.msg);
	return 0;
}

/* Whether the quote's pcrDigest is that of vals (d: scratch). */
static int quoted(const struct quote_attest *a, const struct quote_sig *s,
		  const struct pcr_vals *vals, uint8_t *d)
{
	return quote_pcr_digest(s->hash, vals, d) == 0 &&
	       a->digest_len == hash_size(s->hash) &&
	       memcmp(d, a->digest, a->digest_len) == 0;
}

int ak_quote(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
	     const uint8_t *nonce, size_t nlen, const struct pcr_sel *sel,
	     struct quote *q)
{
	struct quote_attest a;
	struct quote_sig s;
	uint8_t d[TPM2_MAX_DIGEST];
	int tries, rc;

	memset(q, 0, sizeof(*q));
	q->sel = *sel;
	/* The read is the process session's last use (Quote's answer is
	 * signed; a second read, should a PCR move, starts it again). */
	tpm2_trust_last(t);
	/* Each quote is held against the values read just before it and,
	 * when a PCR changed in between, those read just after it (which
	 * the next quote is held against in turn): two chances per quote
	 * for the same two commands a try.  Only while PCRs are being
	 * extended (IMA measuring as fast as files appear: make vmtest saw
	 * sixteen tries in a row lose the one-sided race once, over TIS). */
	if ((rc = tpm2_pcr_read(t, sel, &q->vals)))
		return rc;
	for (tries = 0; tries < 16; tries++) {
		if ((rc = tpm2_quote(t, key, nonce, nlen, sel, q->attest,
				     &q->attest_len, q->sig, &q->sig_len)))
			return rc;
		if (quote_attest_parse(q->attest, q->attest_len, &a, t->e) ||
		    quote_sig_parse(q->sig, q->sig_len, &s, t->e))
			return err_prefix(t->e, "TPM2_Quote");
		if (a.type != TPM2_ST_ATTEST_QUOTE ||
		    !quote_sel_equal(&a.sel, sel))
			return err_set(t->e, EX_IO, "TPM2_Quote: the TPM "
				       "quoted something else than asked");
		if (quoted(&a, &s, &q->vals, d))
			return quote_self_check(t, pub, nonce, nlen, sel, q);
		/* A PCR changed between the read and the quote: the values
		 * now may be the quoted ones. */
		if ((rc = tpm2_pcr_read(t, sel, &q->vals)))
			return rc;
		if (quoted(&a, &s, &q->vals, d))
			return quote_self_check(t, pub, nonce, nlen, sel, q);
	}
	return err_set(t->e, EX_FAIL, "TPM2_Quote: the PCRs kept changing "
		       "between reading and quoting them");
}

size_t ak_srk_qn(const uint8_t *srkname, size_t n, uint8_t *out)
{
	uint16_t alg = n >= 2 ? (uint16_t)(srkname[0] << 8 | srkname[1]) : 0;
	struct hash_ctx *h = hash_new(alg);
	uint8_t owner[4] = { 0x40, 0x00, 0x00, 0x01 };

	if (!h)
		return 0;
	/* Part 1, 16: QN(owner) is its handle; QN(SRK) = H(QN(owner) ||
	 * Name(SRK)). */
	out[0] = srkname[0];
	out[1] = srkname[1];
	hash_update(h, owner, 4);
	hash_update(h, srkname, n);
	hash_final(h, out + 2);
	return 2 + hash_size(alg);
}

int ak_pub_load(const uint8_t *data, size_t n, struct tpm2_public *pub,
		struct tberr *e)
{
	struct ak_blob *b = malloc(sizeof(*b));
	struct tberr ignore;
	struct tb r;
	int rc;

	if (!b)
		return err_set(e, EX_FAIL, "out of memory");
	memset(&ignore, 0, sizeof(ignore));
	if (ak_blob_decode(data, n, b, &ignore) == 0) {
		tb_init_read(&r, b->pub, b->publen);
		rc = tpm2_public_get2b(&r, pub, e) ? EX_FAIL :
		     ak_check_public(pub, e);
		explicit_bzero(b, sizeof(*b));
		free(b);
		return rc ? rc : AK_PUB_BLOB;
	}
	free(b);
	if (n >= 2 && ((size_t)data[0] << 8 | data[1]) == n - 2 &&
	    tpm2_public_parse(data + 2, n - 2, pub, &ignore) == 0) {
		if ((rc = ak_check_public(pub, e)))
			return rc;
		return AK_PUB_TPM2B;
	}
	return AK_PUB_NONE;
}

int ak_wrong_family(const char *keyf, int is12, struct tberr *e)
{
	if (is12)
		return err_set(e, EX_USAGE, "%s is a TPM 1.2 AIK (a TPM_KEY), "
			       "and this TPM is a TPM 2.0", keyf);
	return err_set(e, EX_USAGE, "%s is a TPM 2.0 attestation key, and "
		       "this TPM is a TPM 1.2 (its AIKs come from akcreate on "
		       "it, or tpm_mkaik)", keyf);
}

int ak_quote_key_read(const char *path, uint8_t **data, size_t *n,
		      struct ak_blob *b, int *is12, struct tberr *e)
{
	*is12 = 0;
	if (file_read(path, KEY_FILE_MAX, data, n, e)) {
		err_prefix(e, "%s", path);
		return e->code ? e->code : EX_FAIL;
	}
	*is12 = quote12_is_tpm_key(*data, *n);
	if (!*is12 && ak_blob_decode(*data, *n, b, e))
		return e->code ? e->code : EX_FAIL;
	return 0;
}

int ak_quote_blob(struct tpm *t, const struct ak_blob *b, const char *keyf,
		  const uint8_t *owner_auth, size_t owner_authlen, int fam,
		  const uint8_t *nonce, size_t nlen, struct pcr_sel *sel,
		  struct quote *q)
{
	struct tpm2_public pub;
	struct pcr_sel alloc;
	unsigned npcrs;
	uint32_t h = 0;
	int rc;

	/* A selection with "all" against this TPM's banks (one named PCR
	 * by PCR needs no question: the read says what is missing).  The
	 * job's first command, which a TPM 1.2 refuses when the family was
	 * not known. */
	if (!pcr_sel_resolved(sel)) {
		if ((rc = tpm2_pcr_banks(t, &alloc, &npcrs)) &&
		    tpm_answered_12(t, rc, fam))
			return ak_wrong_family(keyf, 0, t->e);
		if (rc || pcr_sel_resolve(sel, &alloc, npcrs, t->e))
			return t->e->code ? t->e->code : EX_FAIL;
	}
	if ((rc = ak_load(t, b, owner_auth, owner_authlen, &h, &pub))) {
		if (tpm_answered_12(t, rc, fam))
			return ak_wrong_family(keyf, 0, t->e);
		return t->e->code ? t->e->code : EX_FAIL;
	}
	rc = ak_quote(t, h, &pub, nonce, nlen, sel, q);
	tpm2_flush(t, h);
	return rc;
}

int ak_quote_write(const struct quote *q, const char *out, const char *msgf,
		   const char *sigf, const char *pcrsf, int flags,
		   struct tberr *e)
{
	uint8_t *qf = NULL, *pf = NULL;
	size_t qn, pn;
	int rc = 0;

	if ((out && (quote_file_write(q, &qf, &qn, e) ||
		     file_write_atomic(out, qf, qn, flags, e))) ||
	    (msgf && file_write_atomic(msgf, q->attest, q->attest_len, flags,
				       e)) ||
	    (sigf && file_write_atomic(sigf, q->sig, q->sig_len, flags, e)) ||
	    (pcrsf && (quote_tools_pcrs_write(&q->sel, &q->vals, &pf, &pn,
					      e) ||
		       file_write_atomic(pcrsf, pf, pn, flags, e))))
		rc = e->code ? e->code : EX_FAIL;
	free(qf);
	free(pf);
	return rc;
}
