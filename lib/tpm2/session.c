/* Authorization sessions (TPM 2.0 Part 1, 19; Part 3, 11.1): session key
 * from KDFa, salting by ECDH (KDFe) or RSA-OAEP, command and response
 * HMACs over cpHash/rpHash with rolling nonces, AES-128-CFB parameter
 * encryption.  Session hash: SHA-256. */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/rc.h"
#include "tpm2/secret.h"
#include "tpm2/session.h"

#define SESS_HASH	TPM2_ALG_SHA256
#define SESS_DLEN	32
#define SYM_BITS	128

struct tpm2_session {
	uint32_t handle;
	int type;
	int flags;
	int policy_mode;
	int enc_auth;
	uint32_t bind;
	uint8_t key[SESS_DLEN];		/* sessionKey */
	size_t keylen;
	uint8_t nonce_caller[SESS_DLEN];
	uint8_t nonce_tpm[64];
	size_t ntpm;
	/* per call (tpm2_session_use) */
	int has_auth;
	uint8_t auth[64];
	size_t authlen;
	int rsp_override;
	uint8_t rsp_auth[64];
	size_t rsp_authlen;
	uint8_t attrs;			/* sent in the last command */
	int sent_empty_hmac;
};

static size_t trim_zeros(const uint8_t *v, size_t n)
{
	while (n && v[n - 1] == 0)
		n--;
	return n;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

size_t tpm2_phash(uint16_t alg, int response, uint32_t rc, uint32_t cc,
		  const struct tpm2_name *names, int nnames,
		  const uint8_t *params, size_t plen, uint8_t *out)
{
	struct hash_ctx *h = hash_new(alg);
	uint8_t w[4];
	int i;

	if (!h)
		return 0;
	if (response) {
		put_be32(w, rc);
		hash_update(h, w, 4);
	}
	put_be32(w, cc);
	hash_update(h, w, 4);
	for (i = 0; names && i < nnames; i++)
		hash_update(h, names[i].p, names[i].n);
	if (plen)
		hash_update(h, params, plen);
	hash_final(h, out);
	return hash_size(alg);
}

/* Index of session s in the call's authorizations, -1 if absent. */
static int sess_index(const struct tpm2_session *s,
		      const struct tpm2_call *c)
{
	int i;

	for (i = 0; i < c->na; i++)
		if (c->auth[i]->sess == s)
			return i;
	return -1;
}

/* Whether the session authorizes a handle of this call (an audit use
 * authorizes nothing, whatever the session was last used for). */
static int authorizes(const struct tpm2_session *s,
		      const struct tpm2_call *c, int idx)
{
	return s->has_auth && idx >= 0 && idx < c->nh && idx < c->na &&
	       !c->auth[idx]->audit;
}

/* The authValue part of the command HMAC key. */
static int hmac_uses_auth(const struct tpm2_session *s,
			  const struct tpm2_call *c, int idx)
{
	if (!authorizes(s, c, idx))
		return 0;
	if (s->type == TPM2_SE_POLICY)
		return s->policy_mode == SESS_POLICY_AUTHVALUE;
	return !(s->bind != TPM2_RH_NULL && c->h[idx] == s->bind);
}

/* sessionKey || authValue (if used) into k; returns its length. */
static size_t hmac_key(const struct tpm2_session *s, int with_auth,
		       const uint8_t *auth, size_t authlen, uint8_t *k)
{
	size_t n = s->keylen;

	memcpy(k, s->key, s->keylen);
	if (with_auth) {
		memcpy(k + n, auth, authlen);
		n += authlen;
	}
	return n;
}

/* AES-128-CFB over the first parameter (a TPM2B: its size field stays in
 * clear).  newer/older: nonceCaller/nonceTPM for a command, the reverse
 * for a response. */
static int crypt_param(struct tpm2_session *s, int with_auth, uint8_t *p,
		       size_t plen, const uint8_t *newer, size_t nnewer,
		       const uint8_t *older, size_t nolder, int decrypt,
		       uint32_t cc, struct tberr *e)
{
	uint8_t k[SESS_DLEN + 64], kiv[SYM_BITS / 8 + AES_BLOCK];
	size_t kn, sz;
	int rc;

	if (plen < 2 || (sz = ((size_t)p[0] << 8) | p[1]) > plen - 2)
		return err_set(e, EX_FAIL, "%s: parameter encryption needs a "
			       "sized first parameter", tpm2_cc_name(cc));
	kn = hmac_key(s, with_auth, s->auth, s->authlen, k);
	rc = kdfa(SESS_HASH, k, kn, "CFB", newer, nnewer, older, nolder, kiv,
		  sizeof(kiv) * 8);
	if (!rc)
		rc = aes_cfb(kiv, SYM_BITS / 8, kiv + SYM_BITS / 8, p + 2, sz,
			     decrypt);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(kiv, sizeof(kiv));
	if (rc)
		return err_set(e, EX_FAIL, "%s: parameter encryption failed",
			       tpm2_cc_name(cc));
	return 0;
}

static int enc_with_auth(const struct tpm2_session *s,
			 const struct tpm2_call *c, int idx)
{
	return authorizes(s, c, idx) && s->enc_auth;
}

/* The nonceTPM of other sessions that encrypt, for session 0's HMAC
 * (Part 1, 19.6.5: nonceDecrypt, nonceEncrypt). */
static void extra_nonces(const struct tpm2_session *s,
			 const struct tpm2_call *c, int idx,
			 struct hmac_ctx *h);

static int sess_cmd(void *sp, struct tpm2_call *c, int phase, struct tb *out,
		    struct tberr *e)
{
	struct tpm2_session *s = sp;
	int idx = sess_index(s, c);
	uint8_t cp[SESS_DLEN], k[SESS_DLEN + 64], mac[SESS_DLEN], hn[3][4];
	struct tpm2_name names[3];
	size_t kn;
	int i;

	if (idx < 0)
		return err_set(e, EX_FAIL, "%s: session not in the call",
			       tpm2_cc_name(c->cc));
	if (phase == 0) {
		if (rng_bytes(s->nonce_caller, SESS_DLEN))
			return err_set(e, EX_FAIL, "no random numbers");
		s->attrs = c->auth[idx]->last ? 0 :
			   TPMA_SESSION_CONTINUESESSION;
		if (c->auth[idx]->audit) {
			/* Only there for the response HMAC (and maybe to
			 * encrypt the response's first parameter). */
			s->attrs |= TPMA_SESSION_AUDIT;
			if (c->auth[idx]->audit_enc)
				s->attrs |= TPMA_SESSION_ENCRYPT;
			return 0;
		}
		if (s->flags & SESS_ENC_CMD)
			s->attrs |= TPMA_SESSION_DECRYPT;
		if (s->flags & SESS_ENC_RSP)
			s->attrs |= TPMA_SESSION_ENCRYPT;
		if (s->flags & SESS_ENC_CMD)
			return crypt_param(s, enc_with_auth(s, c, idx),
					   c->params, c->plen,
					   s->nonce_caller, SESS_DLEN,
					   s->nonce_tpm, s->ntpm, 0, c->cc, e);
		return 0;
	}
	/* cpHash over the names: given ones, else the handle itself
	 * (permanent handles, PCRs and sessions are their own names). */
	for (i = 0; i < c->nh && i < 3; i++) {
		names[i] = c->name[i];
		if (!names[i].n) {
			put_be32(hn[i], c->h[i]);
			names[i].p = hn[i];
			names[i].n = 4;
		}
	}
	tpm2_phash(SESS_HASH, 0, 0, c->cc, names, i, c->params, c->plen, cp);
	tb_put_u32(out, s->handle);
	tb_put_tpm2b(out, s->nonce_caller, SESS_DLEN);
	tb_put_u8(out, s->attrs);
	s->sent_empty_hmac = 0;
	if (s->type == TPM2_SE_POLICY &&
	    s->policy_mode == SESS_POLICY_PASSWORD) {
		tb_put_tpm2b(out, s->auth, s->authlen);
		return 0;
	}
	kn = hmac_key(s, hmac_uses_auth(s, c, idx), s->auth, s->authlen, k);
	if (kn == 0) {
		/* No key at all: the TPM accepts an empty HMAC. */
		tb_put_u16(out, 0);
		s->sent_empty_hmac = 1;
		return 0;
	}
	{
		struct hmac_ctx *h = hmac_new(SESS_HASH, k, kn);

		explicit_bzero(k, sizeof(k));
		if (!h)
			return err_set(e, EX_FAIL, "no HMAC-SHA-256");
		hmac_update(h, cp, sizeof(cp));
		hmac_update(h, s->nonce_caller, SESS_DLEN);
		hmac_update(h, s->nonce_tpm, s->ntpm);
		extra_nonces(s, c, idx, h);
		hmac_update(h, &s->attrs, 1);
		hmac_final(h, mac);
	}
	tb_put_tpm2b(out, mac, sizeof(mac));
	return 0;
}

static int sess_rsp(void *sp, struct tpm2_call *c, struct tb *in,
		    struct tberr *e);

static void extra_nonces(const struct tpm2_session *s,
			 const struct tpm2_call *c, int idx,
			 struct hmac_ctx *h)
{
	const struct tpm2_session *dec = NULL, *enc = NULL;
	int i;

	if (idx != 0 || !authorizes(s, c, idx))
		return;
	for (i = 1; i < c->na; i++) {
		const struct tpm2_session *o = c->auth[i]->sess;

		if (c->auth[i]->rsp_auth != sess_rsp || !o)
			continue;
		if (o->attrs & TPMA_SESSION_DECRYPT)
			dec = o;
		if (o->attrs & TPMA_SESSION_ENCRYPT)
			enc = o;
	}
	if (dec)
		hmac_update(h, dec->nonce_tpm, dec->ntpm);
	if (enc && enc != dec)
		hmac_update(h, enc->nonce_tpm, enc->ntpm);
}

static int ct_differ(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d != 0;
}

static int sess_rsp(void *sp, struct tpm2_call *c, struct tb *in,
		    struct tberr *e)
{
	struct tpm2_session *s = sp;
	int idx = sess_index(s, c), with_auth, i, last = -1;
	uint8_t nonce[64], attrs, mac[64], want[SESS_DLEN];
	uint8_t rp[SESS_DLEN], k[SESS_DLEN + 64];
	const uint8_t *auth;
	size_t nn, mn, kn, authlen;

	nn = tb_get_tpm2b(in, nonce, sizeof(nonce));
	attrs = tb_get_u8(in);
	mn = tb_get_tpm2b(in, mac, sizeof(mac));
	if (tb_err(in) || tb_left(in) || nn < 16)
		return err_set(e, EX_IO, "%s: malformed session in the "
			       "response", tpm2_cc_name(c->cc));
	tpm2_phash(SESS_HASH, 1, 0, c->cc, NULL, 0, c->rparams, c->rplen, rp);
	/* The response key: the authValue is left out for a policy session
	 * without PolicyAuthValue and for the entity the session is bound
	 * to; a changed authValue counts with its new value. */
	auth = s->rsp_override ? s->rsp_auth : s->auth;
	authlen = s->rsp_override ? s->rsp_authlen : s->authlen;
	with_auth = hmac_uses_auth(s, c, idx);
	kn = hmac_key(s, with_auth, auth, authlen, k);
	if (s->type == TPM2_SE_POLICY &&
	    (s->policy_mode == SESS_POLICY_PASSWORD ||
	     (kn == 0 && s->sent_empty_hmac))) {
		if (mn != 0)
			goto bad;
	} else {
		struct hmac_ctx *h = hmac_new(SESS_HASH, k, kn);

		if (!h) {
			explicit_bzero(k, sizeof(k));
			return err_set(e, EX_FAIL, "no HMAC-SHA-256");
		}
		hmac_update(h, rp, sizeof(rp));
		hmac_update(h, nonce, nn);
		hmac_update(h, s->nonce_caller, SESS_DLEN);
		hmac_update(h, &attrs, 1);
		hmac_final(h, want);
		if (mn != SESS_DLEN || ct_differ(mac, want, SESS_DLEN))
			goto bad;
	}
	explicit_bzero(k, sizeof(k));
	memcpy(s->nonce_tpm, nonce, nn);
	s->ntpm = nn;
	/* Sent without continueSession, and answered: the TPM ended it. */
	if (!(s->attrs & TPMA_SESSION_CONTINUESESSION))
		s->handle = 0;
	/* Decrypt once every session has checked the encrypted bytes: the
	 * last of our sessions in the call does it. */
	for (i = 0; i < c->na; i++)
		if (c->auth[i]->rsp_auth == sess_rsp)
			last = i;
	if (idx != last)
		return 0;
	for (i = 0; i < c->na; i++) {
		struct tpm2_session *o = c->auth[i]->sess;

		if (c->auth[i]->rsp_auth != sess_rsp ||
		    !(o->attrs & TPMA_SESSION_ENCRYPT))
			continue;
		return crypt_param(o, enc_with_auth(o, c, i), c->rparams,
				   c->rplen, o->nonce_tpm, o->ntpm,
				   o->nonce_caller, SESS_DLEN, 1, c->cc, e);
	}
	return 0;
bad:
	explicit_bzero(k, sizeof(k));
	return err_set(e, EX_FAIL, "%s: the response HMAC does not verify: "
		       "the response was altered on the way or does not come "
		       "from the TPM that holds the session",
		       tpm2_cc_name(c->cc));
}

int tpm2_session_start(struct tpm *t, int type, uint32_t salt_handle,
		       const struct tpm2_public *salt_pub, uint32_t bind,
		       const uint8_t *bind_auth, size_t bind_authlen,
		       int flags, struct tpm2_session **out)
{
	uint8_t pbuf[2 + SESS_DLEN + 2 + 512 + 16], salt[TPM2_SECRET_MAX], kin[64 + 64];
	struct tpm2_call c = {0};
	struct tpm2_session *s;
	size_t saltlen = 0, kinlen = 0;
	struct tb b, r;
	int rc;

	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return err_set(t->e, EX_FAIL, "out of memory");
	s->type = type;
	s->flags = flags;
	s->bind = bind;
	s->enc_auth = type != TPM2_SE_POLICY;
	if (rng_bytes(s->nonce_caller, SESS_DLEN)) {
		free(s);
		return err_set(t->e, EX_FAIL, "no random numbers");
	}
	tb_init(&b, pbuf, sizeof(pbuf));
	tb_put_tpm2b(&b, s->nonce_caller, SESS_DLEN);
	if (salt_pub) {
		rc = tpm2_secret_make(salt_pub, "SECRET", salt, &saltlen,
				      &b, "TPM2_StartAuthSession: the salt key",
				      t->e);
		if (rc) {
			free(s);
			return rc;
		}
	} else {
		tb_put_u16(&b, 0);
		salt_handle = TPM2_RH_NULL;
	}
	tb_put_u8(&b, (uint8_t)type);
	tb_put_u16(&b, TPM2_ALG_AES);
	tb_put_u16(&b, SYM_BITS);
	tb_put_u16(&b, TPM2_ALG_CFB);
	tb_put_u16(&b, SESS_HASH);
	c.cc = TPM2_CC_StartAuthSession;
	c.nh = 2;
	c.h[0] = salt_handle;
	c.h[1] = bind;
	c.params = pbuf;
	c.plen = b.len;
	c.nrh = 1;
	if (tb_err(&b)) {
		rc = err_set(t->e, EX_FAIL, "TPM2_StartAuthSession: command "
			     "too large");
		goto fail;
	}
	if ((rc = tpm2_call(t, &c)))
		goto fail;
	s->handle = c.rh;
	tb_init_read(&r, c.rparams, c.rplen);
	s->ntpm = tb_get_tpm2b(&r, s->nonce_tpm, sizeof(s->nonce_tpm));
	if (tb_err(&r) || tb_left(&r) || s->ntpm < 16) {
		rc = err_set(t->e, EX_IO, "TPM2_StartAuthSession: malformed "
			     "response");
		tpm2_flush(t, s->handle);
		goto fail;
	}
	/* sessionKey = KDFa(hash, bind authValue || salt, "ATH", nonceTPM,
	 * nonceCaller, digest bits); empty when both are. */
	if (bind != TPM2_RH_NULL && bind_auth) {
		kinlen = trim_zeros(bind_auth, bind_authlen);
		if (kinlen > 64)
			kinlen = 64;
		memcpy(kin, bind_auth, kinlen);
	}
	memcpy(kin + kinlen, salt, saltlen);
	kinlen += saltlen;
	if (kinlen) {
		if (kdfa(SESS_HASH, kin, kinlen, "ATH", s->nonce_tpm, s->ntpm,
			 s->nonce_caller, SESS_DLEN, s->key, SESS_DLEN * 8)) {
			rc = err_set(t->e, EX_FAIL, "KDFa failed");
			tpm2_flush(t, s->handle);
			goto fail;
		}
		s->keylen = SESS_DLEN;
	}
	explicit_bzero(kin, sizeof(kin));
	explicit_bzero(salt, sizeof(salt));
	*out = s;
	return 0;
fail:
	explicit_bzero(kin, sizeof(kin));
	explicit_bzero(salt, sizeof(salt));
	explicit_bzero(pbuf, sizeof(pbuf));
	tpm2_session_free(s);
	return rc;
}

void tpm2_session_use(struct tpm2_session *s, struct tpm2_auth *a,
		      const uint8_t *authval, size_t n)
{
	memset(a, 0, sizeof(*a));
	a->handle = s->handle;
	a->sess = s;
	a->cmd_auth = sess_cmd;
	a->rsp_auth = sess_rsp;
	s->has_auth = authval != NULL;
	n = authval ? trim_zeros(authval, n) : 0;
	if (n > sizeof(s->auth))
		n = sizeof(s->auth);
	explicit_bzero(s->auth, sizeof(s->auth));
	if (n)
		memcpy(s->auth, authval, n);
	s->authlen = n;
	s->rsp_override = 0;
}

void tpm2_session_audit(struct tpm2_session *s, struct tpm2_auth *a,
			int enc_rsp)
{
	memset(a, 0, sizeof(*a));
	a->handle = s->handle;
	a->sess = s;
	a->cmd_auth = sess_cmd;
	a->rsp_auth = sess_rsp;
	a->audit = 1;
	a->audit_enc = enc_rsp;
}

int tpm2_session_in_call(const struct tpm2_session *s,
			 const struct tpm2_call *c)
{
	return sess_index(s, c) >= 0;
}

void tpm2_auth_rsp_value(struct tpm2_auth *a, const uint8_t *v, size_t n)
{
	struct tpm2_session *s;

	if (!a || a->rsp_auth != sess_rsp || !(s = a->sess))
		return;
	n = v ? trim_zeros(v, n) : 0;
	if (n > sizeof(s->rsp_auth))
		n = sizeof(s->rsp_auth);
	if (n)
		memcpy(s->rsp_auth, v, n);
	s->rsp_authlen = n;
	s->rsp_override = 1;
}

void tpm2_session_set_flags(struct tpm2_session *s, int flags)
{
	s->flags = flags;
}

void tpm2_session_policy_auth(struct tpm2_session *s, int mode)
{
	s->policy_mode = mode;
}

void tpm2_session_enc_auth(struct tpm2_session *s, int yes)
{
	s->enc_auth = yes;
}

void tpm2_auth_last(struct tpm2_auth *a)
{
	a->last = 1;
}

uint32_t tpm2_session_handle(const struct tpm2_session *s)
{
	return s->handle;
}

size_t tpm2_session_nonce_tpm(const struct tpm2_session *s,
			      const uint8_t **p)
{
	*p = s->nonce_tpm;
	return s->ntpm;
}

void tpm2_session_free(struct tpm2_session *s)
{
	if (!s)
		return;
	explicit_bzero(s, sizeof(*s));
	free(s);
}

int tpm2_session_flush(struct tpm *t, struct tpm2_session *s)
{
	int rc = 0;

	if (!s)
		return 0;
	if (s->handle) {
		struct tberr keep = *t->e;

		rc = tpm2_flush(t, s->handle);
		/* A session the TPM already dropped is not an error; an
		 * earlier error message is kept. */
		if (rc == EX_NOENT || (rc && keep.code)) {
			rc = rc == EX_NOENT ? 0 : rc;
			*t->e = keep;
		}
	}
	tpm2_session_free(s);
	return rc;
}
