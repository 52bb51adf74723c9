/* Keys that live in the TPM: see include/job/key.h. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/file.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/verify.h"
#include "fmt/sshkey.h"
#include "fmt/tpmkey.h"
#include "job/key.h"
#include "job/tpm.h"
#include "tpm2/cmd.h"
#include "tpm2/policy.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

#define KEY_ATTRS (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | \
	TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH)

void key_template(struct tpm2_public *p, int rsa, int bits, int usage)
{
	memset(p, 0, sizeof(*p));
	p->type = rsa ? TPM2_ALG_RSA : TPM2_ALG_ECC;
	p->name_alg = TPM2_ALG_SHA256;
	p->attrs = KEY_ATTRS | (usage == KEY_USE_DECRYPT ?
				TPMA_OBJECT_DECRYPT :
				TPMA_OBJECT_SIGN_ENCRYPT);
	p->sym_alg = TPM2_ALG_NULL;
	p->scheme = TPM2_ALG_NULL;
	p->kdf = TPM2_ALG_NULL;
	p->rsa_bits = (uint16_t)(rsa ? bits : 2048);
	p->curve = TPM2_ECC_NIST_P256;
	tpm2_public_finish(p);
}

/* The ECC SRK the keys live under (as AKs do): how 0 the persisted one
 * or today's template, 1 today's template made even when one is
 * persisted, 2 the zero-filled one an older tpmbox made. */
static int srk(struct tpm *t, const uint8_t *owner, size_t ownerlen, int how,
	       struct tpm2_srk *k)
{
	struct srk_want w;

	memset(&w, 0, sizeof(w));
	w.exact = 1;
	w.transient = how == 1;
	w.older = how == 2;
	w.owner = owner;
	w.ownerlen = owner ? ownerlen : 0;
	return tpm2_srk_find(t, &w, k);
}

/* The key file says parent 0x40000001: the key the H-2 template derives
 * (what tpm2-openssl, systemd and the others load it under).  A persisted
 * SRK an older tpmbox made from its zero-filled template is another key:
 * then the key is made under today's, made for it (two commands more).
 * With a pin, k is the pinned key: today's would be it or be refused, so
 * k is kept without asking. */
static int ecosystem_parent(struct tpm *t, const uint8_t *owner,
			    size_t ownerlen, struct tpm2_srk *k)
{
	struct tpm2_srk *today;
	int rc;

	if (k->transient || tpm_trust_pinned(t))
		return 0;	/* made now: today's template; or pinned */
	if (!(today = calloc(1, sizeof(*today))))
		return err_set(t->e, EX_FAIL, "out of memory");
	if ((rc = srk(t, owner, ownerlen, 1, today))) {
		/* no pin to refuse it: a failure is the TPM's (or an
		 * answer's that failed its HMAC), not a choice */
		tpm2_srk_put(t, today);
		free(today);
		return rc;
	} else if (today->pub.namelen == k->pub.namelen &&
		   !memcmp(today->pub.name, k->pub.name, k->pub.namelen)) {
		tpm2_srk_put(t, today);
	} else {
		tpm2_srk_put(t, k);
		*k = *today;
	}
	free(today);
	return 0;
}

int key_create(struct tpm *t, const struct tpm2_public *tmpl,
	       const uint8_t *auth, size_t authlen, const uint8_t *owner,
	       size_t ownerlen, const char *what, struct ak_blob *b,
	       struct tpm2_public *pub)
{
	struct tpm2_srk *k = calloc(1, sizeof(*k));
	struct tpm2_private priv;
	struct tpm2_session *s;
	struct tpm2_auth a;
	struct tb w;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!k)
		return err_set(t->e, EX_FAIL, "out of memory");
	/* The session salted to the SRK: the auth value goes encrypted
	 * (inSensitive is the first parameter), the answer is HMACed. */
	if ((rc = srk(t, owner, ownerlen, 0, k)) ||
	    (rc = tpm2_trust_start(t, k->handle, &k->pub)) ||
	    (rc = ecosystem_parent(t, owner, ownerlen, k))) {
		tpm2_srk_put(t, k);
		free(k);
		return rc;
	}
	s = tpm2_trust_session(t);
	tpm2_session_set_flags(s, SESS_ENC_CMD);
	tpm2_session_use(s, &a, NULL, 0);
	/* Create is the session's last command: the TPM ends it. */
	tpm2_trust_last_for(t, &a);
	rc = tpm2_create(t, k->handle, k->pub.name, k->pub.namelen, &a, tmpl,
			 auth, authlen, NULL, 0, &priv, pub);
	tpm2_session_set_flags(s, 0);
	/* The parent the file names: the persistent handle that holds the
	 * H-2 SRK (takeown's 0x81000001), so that a loader uses it as it is
	 * (tpm2-openssl would run CreatePrimary on every load of a key that
	 * names 0x40000001); 0x40000001 when it was made for this key. */
	b->parent = k->transient ? TPM2_RH_OWNER : k->handle;
	tpm2_srk_put(t, k);
	free(k);
	if (rc)
		return rc;
	if (!tpm2_public_same_template(pub, tmpl)) {
		explicit_bzero(&priv, sizeof(priv));
		return err_set(t->e, EX_FAIL, "TPM2_Create: the key made is "
			       "not the %s asked for", what);
	}
	b->empty_auth = authlen == 0;
	tb_init(&w, b->pub, sizeof(b->pub));
	tb_put_tpm2b(&w, pub->raw, pub->rawlen);
	b->publen = w.len;
	tb_init(&w, b->priv, sizeof(b->priv));
	tb_put_tpm2b(&w, priv.b, priv.n);
	b->privlen = w.len;
	explicit_bzero(&priv, sizeof(priv));
	if (tb_err(&w))
		return err_set(t->e, EX_FAIL, "TPM2_Create: private part too "
			       "large");
	return 0;
}

/* The policy entries keycreate -p writes: PolicyPCR (its parameters:
 * TPM2B pcrDigest, TPML_PCR_SELECTION), then PolicyAuthValue (empty);
 * either alone; nothing else. */
static int policy_decode(const struct tpmkey *t, struct key_policy *p,
			 const char *what, struct tberr *e)
{
	int i;

	for (i = 0; i < t->npolicy; i++) {
		uint32_t cc = t->policy[i].cc;
		struct tb r;

		if (i == 0 && cc == TPM2_CC_PolicyPCR) {
			tb_init_read(&r, t->policy[i].body, t->policy[i].len);
			p->dlen = tb_get_tpm2b(&r, p->digest,
					       sizeof(p->digest));
			if (pcr_sel_unmarshal(&r, &p->sel) || tb_left(&r) ||
			    tb_err(&r) || p->dlen != 32 ||
			    pcr_sel_count(&p->sel) == 0)
				return err_set(e, EX_FAIL, "%s: a damaged "
					       "PolicyPCR entry", what);
			p->pcr = 1;
		} else if (cc == TPM2_CC_PolicyAuthValue &&
			   !p->authvalue && t->policy[i].len == 0) {
			p->authvalue = 1;
		} else {
			return err_set(e, EX_FAIL, "%s: policy command 0x%x is "
				       "not supported (keys take PolicyPCR, "
				       "then PolicyAuthValue)", what, cc);
		}
	}
	return 0;
}

int key_file_decode(const uint8_t *text, size_t n, struct ak_blob *k,
		    const char *what, struct tberr *e)
{
	struct tpmkey t;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((rc = tpmkey_decode((const char *)text, n, &t, what, e)))
		goto out;
	if (t.type != TPMKEY_LOADABLE) {
		rc = err_set(e, EX_FAIL, "%s: not a loadable key (OID "
			     "2.23.133.10.1.3): a sealed blob is no key", what);
		goto out;
	}
	if ((rc = policy_decode(&t, &k->pol, what, e)))
		goto out;
	if (t.parent != TPM2_RH_OWNER && (t.parent >> 24) != 0x81) {
		rc = err_set(e, EX_FAIL, "%s: parent 0x%08x is neither "
			     "the owner hierarchy nor persistent", what,
			     t.parent);
		goto out;
	}
	if (t.publen > sizeof(k->pub) || t.privlen > sizeof(k->priv)) {
		rc = err_set(e, EX_FAIL, "%s: key too large", what);
		goto out;
	}
	k->parent = t.parent;
	k->empty_auth = t.empty_auth;
	memcpy(k->pub, t.pub, t.publen);
	k->publen = t.publen;
	memcpy(k->priv, t.priv, t.privlen);
	k->privlen = t.privlen;
out:
	explicit_bzero(&t, sizeof(t));
	return rc;
}

int key_file_read(const char *path, struct ak_blob *k, const char *what,
		  struct tberr *e)
{
	uint8_t *text = NULL;
	size_t n = 0;
	int rc;

	if (!(rc = file_read(path, KEY_FILE_MAX, &text, &n, e)))
		rc = key_file_decode(text, n, k, what, e);
	if (text)
		explicit_bzero(text, n);
	free(text);
	return rc;
}

/* TPM_RC_INTEGRITY (a format-one code: a parameter's or handle's) */
static int integrity(uint32_t rc)
{
	return (rc & 0x80) && (rc & 0x3f) == 0x1f;
}

/* The key's policy on a policy session salted to its parent k (loaded):
 * PolicyPCR with the values the key was made for (exit 4 when the PCRs
 * differ now), then PolicyAuthValue. */
static int policy_start(struct tpm *t, const struct ak_blob *b,
			const struct tpm2_srk *k, struct tpm2_session **pol)
{
	uint32_t h;
	int rc;

	if (!pol)
		return err_set(t->e, EX_FAIL, "KEY has a policy, which this "
			       "use of it cannot satisfy");
	if ((rc = tpm2_session_start(t, TPM2_SE_POLICY, k->handle, &k->pub,
				     TPM2_RH_NULL, NULL, 0, 0, pol)))
		return rc;
	h = tpm2_session_handle(*pol);
	if (b->pol.pcr && tpm2_policy_pcr(t, h, b->pol.digest, b->pol.dlen,
					  &b->pol.sel)) {
		rc = rc_base(t->e->rc) == TPM2_RC_VALUE ?
		     err_set(t->e, EX_AUTH, "KEY: the PCRs are not in the "
			     "state the key was made for (its PolicyPCR "
			     "fails)") : t->e->code;
		goto fail;
	}
	if (b->pol.authvalue) {
		if ((rc = tpm2_policy_authvalue(t, h)))
			goto fail;
		tpm2_session_policy_auth(*pol, SESS_POLICY_AUTHVALUE);
		tpm2_session_enc_auth(*pol, 1);
	}
	return 0;
fail:
	tpm2_session_flush(t, *pol);
	*pol = NULL;
	return rc;
}

/* policy_start for a key just loaded at *handle (flushed when it fails). */
static int loaded_policy(struct tpm *t, const struct ak_blob *b,
			 const struct tpm2_srk *k, uint32_t *handle,
			 struct tpm2_session **pol)
{
	int rc = policy_start(t, b, k, pol);

	if (rc) {
		struct tberr keep = *t->e;

		tpm2_flush(t, *handle);
		*handle = 0;
		*t->e = keep;
	}
	return rc;
}

int key_load_as(struct tpm *t, const struct ak_blob *b, const uint8_t *owner,
		size_t ownerlen, int salt, uint32_t *handle,
		struct tpm2_public *pub, struct tpm2_session **pol)
{
	int with_pol = b->pol.pcr || b->pol.authvalue;
	struct tpm2_srk *k = calloc(1, sizeof(*k));
	struct tpm2_private priv;
	int rc, how, persisted = 0, not_child = 0;
	struct tb r;

	if (!k)
		return err_set(t->e, EX_FAIL, "out of memory");
	tb_init_read(&r, b->priv, b->privlen);
	priv.n = tb_get_tpm2b(&r, priv.b, sizeof(priv.b));
	if (tb_err(&r)) {
		free(k);
		return err_set(t->e, EX_FAIL, "KEY: malformed private part");
	}
	/* 0x40000001, or the handle takeown persists it at: the SRK found
	 * and checked as always (the pin, its template), not a public area
	 * taken on trust. */
	if (b->parent == TPM2_RH_OWNER || b->parent == TPM2_SRK_HANDLE) {
		rc = srk(t, owner, ownerlen, 0, k);
		persisted = !k->transient;
	} else {
		k->handle = b->parent;
		rc = tpm2_readpublic(t, k->handle, &k->pub);
	}
	if (rc == 0 && salt)
		rc = tpm2_trust_start(t, k->handle, &k->pub);
	if (rc == 0) {
		rc = tpm2_load(t, k->handle, k->pub.name, k->pub.namelen, NULL,
			       &priv, pub, handle);
		not_child = rc && integrity(t->e->rc);
		if (rc == 0 && with_pol)
			rc = loaded_policy(t, b, k, handle, pol);
	}
	tpm2_srk_put(t, k);
	/* Parent 0x40000001, and TPM2_Load says the key is no child of the
	 * SRK used (its integrity check failed): it may come from before
	 * tpmbox derived the ecosystem's SRK (H-2, empty unique), under an
	 * SRK an older tpmbox persisted or made from the zero-filled
	 * template.  Try today's template (when the persisted one was
	 * used), then the older one; only this failure costs the extra
	 * commands. */
	for (how = persisted ? 1 : 2; rc && not_child &&
	     b->parent == TPM2_RH_OWNER && how <= 2; how++) {
		struct tberr keep = *t->e;

		if (srk(t, owner, ownerlen, how, k) == 0 &&
		    tpm2_load(t, k->handle, k->pub.name, k->pub.namelen,
			      NULL, &priv, pub, handle) == 0)
			rc = with_pol ? loaded_policy(t, b, k, handle, pol) : 0;
		else
			*t->e = keep;
		tpm2_srk_put(t, k);
	}
	free(k);
	explicit_bzero(&priv, sizeof(priv));
	if (rc && (rc == EX_AUTH || rc == EX_FAIL) && t->e->rc &&
	    rc_base(t->e->rc) != TPM2_RC_VALUE)	/* not the PolicyPCR's */
		err_hint(t->e, "the key was made under another SRK (a cleared "
			 "TPM or another machine)");
	return rc;
}

int key_load(struct tpm *t, const struct ak_blob *b, const uint8_t *owner,
	     size_t ownerlen, uint32_t *handle, struct tpm2_public *pub,
	     struct tpm2_session **pol)
{
	struct tb r;

	tb_init_read(&r, b->pub, b->publen);
	if (tpm2_public_get2b(&r, pub, t->e) || tb_left(&r))
		return err_prefix(t->e, "KEY");
	if ((pub->type != TPM2_ALG_RSA && pub->type != TPM2_ALG_ECC) ||
	    (pub->attrs & TPMA_OBJECT_RESTRICTED))
		return err_set(t->e, EX_FAIL, "KEY: not a key for sign or "
			       "decrypt (a restricted key or a %s object)",
			       pub->type == TPM2_ALG_KEYEDHASH ? "sealed" :
			       "symmetric");
	if (pol)
		*pol = NULL;
	return key_load_as(t, b, owner, ownerlen, 1, handle, pub, pol);
}

/* The key's value authorizes it in the process session (salted to the
 * parent): never on the bus, and the answer is HMACed. */
static void key_auth(struct tpm *t, struct tpm2_call *c, uint32_t key,
		     const struct tpm2_public *pub, const uint8_t *auth,
		     size_t authlen, struct tpm2_session *pol,
		     struct tpm2_auth *a, int flags)
{
	/* a key with a policy: its policy session, salted to the parent */
	struct tpm2_session *s = pol ? pol : tpm2_trust_session(t);

	if (!s) {	/* key_load starts it: never without */
		tpm2_auth_pw(a, NULL, 0);
		c->na = 0;
		return;
	}
	tpm2_session_set_flags(s, flags);
	tpm2_session_use(s, a, auth, authlen);
	c->nh = 1;
	c->h[0] = key;
	c->name[0].p = pub->name;
	c->name[0].n = pub->namelen;
	c->na = 1;
	c->auth[0] = a;
}

static uint16_t hash_of_size(size_t n)
{
	return n == 32 ? TPM2_ALG_SHA256 : n == 48 ? TPM2_ALG_SHA384 :
	       n == 64 ? TPM2_ALG_SHA512 : 0;
}

int key_sign(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
	     struct tpm2_session *pol, const uint8_t *auth, size_t authlen,
	     uint16_t scheme,
	     const uint8_t *digest, size_t dlen, struct quote_sig *sig)
{
	struct tpm2_call c = { .cc = TPM2_CC_Sign };
	uint16_t hash = hash_of_size(dlen);
	struct tpm2_auth a;
	struct vkey *vk = NULL;
	uint8_t p[128];
	uint8_t *der = NULL;
	size_t derlen = 0;
	struct tb b;
	int rc;

	if (!hash)
		return err_set(t->e, EX_USAGE, "a digest of %zu bytes: "
			       "SHA-256, SHA-384 or SHA-512 (32, 48 or 64)",
			       dlen);
	/* The sign attribute decides; a key may also decrypt (tpm2-openssl's
	 * genpkey keys do both, with a NULL scheme that inScheme fills). */
	if (!(pub->attrs & TPMA_OBJECT_SIGN_ENCRYPT))
		return err_set(t->e, EX_USAGE, "KEY is a decryption key: it "
			       "does not sign");
	if ((scheme == TPM2_ALG_ECDSA) != (pub->type == TPM2_ALG_ECC))
		return err_set(t->e, EX_USAGE, "--scheme %s does not go with "
			       "an %s key", scheme == TPM2_ALG_ECDSA ?
			       "ecdsa" : scheme == TPM2_ALG_RSAPSS ? "rsapss" :
			       "rsassa", pub->type == TPM2_ALG_ECC ? "ECC" :
			       "RSA");
	/* digest, inScheme, validation (a NULL ticket: the key is not
	 * restricted, so the TPM need not have hashed the data itself) */
	tb_init(&b, p, sizeof(p));
	tb_put_tpm2b(&b, digest, dlen);
	tb_put_u16(&b, scheme);
	tb_put_u16(&b, hash);
	tb_put_u16(&b, TPM2_ST_HASHCHECK);
	tb_put_u32(&b, TPM2_RH_NULL);
	tb_put_u16(&b, 0);
	key_auth(t, &c, key, pub, auth, authlen, pol, &a, 0);
	if (!c.na)
		return err_set(t->e, EX_FAIL, "TPM2_Sign: no session salted "
			       "to the key's parent");
	c.params = p;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	if (quote_sig_parse(c.rparams, c.rplen, sig, t->e))
		return err_prefix(t->e, "TPM2_Sign");
	if (sig->alg != scheme || sig->hash != hash)
		return err_set(t->e, EX_FAIL, "TPM2_Sign: a signature of "
			       "another scheme than asked for");
	/* The signature must verify as the relying party will check it. */
	rc = pub->type == TPM2_ALG_ECC ?
	     (pub->curve == TPM2_ECC_NIST_P384 ? pk_der_p384 : pk_der_p256)
		(pub->ecc_x, pub->ecc_xlen, pub->ecc_y, pub->ecc_ylen, &der,
		 &derlen) :
	     pk_der_rsa(pub->rsa_n, pub->rsa_nlen, pub->rsa_exp, &der,
			&derlen);
	if (rc || vkey_parse(der, derlen, &vk, t->e)) {
		free(der);
		return err_set(t->e, EX_FAIL, "KEY: its public key cannot be "
			       "read");
	}
	rc = vkey_verify(vk, sig->alg, sig->hash, digest, dlen, sig->r,
			 sig->rlen, sig->s, sig->slen, t->e);
	vkey_free(vk);
	free(der);
	return rc ? err_prefix(t->e, "TPM2_Sign: the signature returned "
			       "does not verify") : 0;
}

int key_decrypt(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
		struct tpm2_session *pol, const uint8_t *auth, size_t authlen,
		uint16_t hash,
		const uint8_t *ct, size_t ctlen, uint8_t *out, size_t cap,
		size_t *outlen)
{
	struct tpm2_call c = { .cc = TPM2_CC_RSA_Decrypt };
	uint8_t p[2 + 512 + 16];
	struct tpm2_auth a;
	struct tb b, r;
	size_t n;
	int rc;

	if (pub->type != TPM2_ALG_RSA || !(pub->attrs & TPMA_OBJECT_DECRYPT))
		return err_set(t->e, EX_USAGE, "KEY is not an RSA decryption "
			       "key");
	if (ctlen != pub->rsa_nlen)
		return err_set(t->e, EX_USAGE, "the ciphertext is %zu bytes; "
			       "this key's is %zu", ctlen, pub->rsa_nlen);
	/* cipherText, inScheme OAEP with hash, no label */
	tb_init(&b, p, sizeof(p));
	tb_put_tpm2b(&b, ct, ctlen);
	tb_put_u16(&b, TPM2_ALG_OAEP);
	tb_put_u16(&b, hash);
	tb_put_u16(&b, 0);
	/* the message comes back encrypted in the session */
	key_auth(t, &c, key, pub, auth, authlen, pol, &a, SESS_ENC_RSP);
	if (!c.na)
		return err_set(t->e, EX_FAIL, "TPM2_RSA_Decrypt: no session "
			       "salted to the key's parent");
	c.params = p;
	c.plen = b.len;
	rc = tpm2_call(t, &c);
	tpm2_session_set_flags(pol ? pol : tpm2_trust_session(t), 0);
	/* A padding that is not this key's: TPM_RC_VALUE (Part 3, 14.3),
	 * TPM_RC_FAILURE from libtpms before 0.10 (which stays usable). */
	if (rc && (rc_base(t->e->rc) == TPM2_RC_VALUE ||
		   t->e->rc == TPM2_RC_FAILURE))
		return err_set(t->e, EX_AUTH, "TPM2_RSA_Decrypt: the key does "
			       "not open it (made for another key, or "
			       "damaged; TPM rc 0x%03x)", t->e->rc);
	if (rc)
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	n = tb_get_tpm2b(&r, out, cap);
	tpm_wipe(t);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_RSA_Decrypt: malformed "
			       "response");
	*outlen = n;
	return 0;
}

void key_flush(struct tpm *t, uint32_t key, struct tpm2_session *pol)
{
	struct tberr keep = *t->e;

	if (pol)
		tpm2_session_flush(t, pol);
	if (key)
		tpm2_flush(t, key);
	*t->e = keep;
}

struct key_loaded *key_loaded_new(void)
{
	return calloc(1, sizeof(struct key_loaded));
}

int key_open(struct tpm *t, struct key_loaded *k)
{
	int rc;

	k->t = t;
	k->handle = 0;
	k->pol = NULL;
	if ((rc = tpm_trust_begin(t)) ||
	    (rc = key_load(t, &k->blob, NULL, 0, &k->handle, &k->pub,
			   &k->pol))) {
		k->handle = 0;
		k->pol = NULL;
	}
	return rc;
}

void key_close(struct key_loaded *k)
{
	if (k->t && (k->handle || k->pol))
		key_flush(k->t, k->handle, k->pol);
	k->handle = 0;
	k->pol = NULL;
}

void key_loaded_free(struct key_loaded *k)
{
	if (!k)
		return;
	key_close(k);
	explicit_bzero(k, sizeof(*k));
	free(k);
}

int key_outs_write(const struct key_outs *o, const char *pem, size_t pn,
		   const struct tpm2_public *pub, struct tberr *e)
{
	char *ppem = NULL, *ssh = NULL;
	size_t ppn = 0, sn = 0;
	uint8_t tpub[2 + TPM2_PUBLIC_MAX];	/* TPM2B_PUBLIC */
	struct tb w;
	int rc;

	tb_init(&w, tpub, sizeof(tpub));
	tb_put_tpm2b(&w, pub->raw, pub->rawlen);	/* rawlen fits */
	rc = (o->pub && ak_pub_pem(pub, &ppem, &ppn, e)) ||
	     (o->ssh && ssh_pub_line(pub, NULL, &ssh, &sn, e)) ||
	     file_write_atomic(o->key, pem, pn, o->flags | OUT_SECRET, e) ||
	     (o->pub && file_write_atomic(o->pub, ppem, ppn, o->flags, e)) ||
	     (o->ssh && file_write_atomic(o->ssh, ssh, sn, o->flags, e)) ||
	     (o->tpm_public && file_write_atomic(o->tpm_public, tpub, w.len,
						 o->flags, e)) ||
	     (o->name && file_write_atomic(o->name, pub->name, pub->namelen,
					   o->flags, e));
	free(ppem);
	free(ssh);
	return rc ? e->code : 0;
}

int key_blob_write(const struct key_outs *o, const struct ak_blob *b,
		   const struct tpm2_public *pub, struct tberr *e)
{
	char *pem = NULL;
	size_t pn = 0;
	int rc;

	if (!(rc = ak_blob_encode(b, &pem, &pn, e)))
		rc = key_outs_write(o, pem, pn, pub, e);
	if (pem)
		explicit_bzero(pem, pn);
	free(pem);
	return rc;
}

int key_sig_encode(const struct quote_sig *s, uint8_t *out, size_t cap,
		   size_t *n)
{
	struct tb b;

	tb_init(&b, out, cap);
	if (s->alg == TPM2_ALG_ECDSA)
		der_ecdsa_sig(&b, s->r, s->rlen, s->s, s->slen);
	else
		tb_put_bytes(&b, s->r, s->rlen);
	if (tb_err(&b))
		return -1;
	*n = b.len;
	return 0;
}
