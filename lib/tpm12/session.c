#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "tpm12/cmd.h"
#include "tpm12/session.h"

#define SHA1 TPM2_ALG_SHA1

void tpm12_param_digest(uint32_t a, uint32_t b, int two, const uint8_t *p,
			size_t n, uint8_t out[20])
{
	struct hash_ctx *h = hash_new(SHA1);
	uint8_t hdr[8];
	struct tb w;

	tb_init(&w, hdr, sizeof(hdr));
	tb_put_u32(&w, a);
	if (two)
		tb_put_u32(&w, b);
	hash_update(h, hdr, w.len);
	hash_update(h, p, n);
	hash_final(h, out);
}

void tpm12_auth_hmac(const uint8_t key[20], const uint8_t digest[20],
		     const uint8_t even[20], const uint8_t odd[20],
		     uint8_t cont, uint8_t out[20])
{
	struct hmac_ctx *h = hmac_new(SHA1, key, 20);

	hmac_update(h, digest, 20);
	hmac_update(h, even, 20);
	hmac_update(h, odd, 20);
	hmac_update(h, &cont, 1);
	hmac_final(h, out);
}

void tpm12_osap_secret(const uint8_t auth[20], const uint8_t even[20],
		       const uint8_t odd[20], uint8_t out[20])
{
	struct hmac_ctx *h = hmac_new(SHA1, auth, 20);

	hmac_update(h, even, 20);
	hmac_update(h, odd, 20);
	hmac_final(h, out);
}

void tpm12_adip(const struct tpm12_sess *s, const uint8_t newauth[20],
		uint8_t enc[20])
{
	struct hash_ctx *h = hash_new(SHA1);
	uint8_t pad[20];
	int i;

	hash_update(h, s->key, 20);
	hash_update(h, s->nonce_even, 20);
	hash_final(h, pad);
	for (i = 0; i < 20; i++)
		enc[i] = newauth[i] ^ pad[i];
	explicit_bzero(pad, sizeof(pad));
}

int tpm12_sess_odd(struct tpm12_sess *s)
{
	if (rng_bytes(s->nonce_odd, 20))
		return -1;
	s->odd_ready = 1;
	return 0;
}

int tpm12_sess_put(struct tpm12_sess *s, const uint8_t digest[20],
		   struct tb *b)
{
	uint8_t mac[20];

	if (!s->odd_ready && rng_bytes(s->nonce_odd, 20))
		return -1;
	s->odd_ready = 0;
	tpm12_auth_hmac(s->key, digest, s->nonce_even, s->nonce_odd, s->cont,
			mac);
	tb_put_u32(b, s->handle);
	tb_put_bytes(b, s->nonce_odd, 20);
	tb_put_u8(b, s->cont);
	tb_put_bytes(b, mac, 20);
	explicit_bzero(mac, sizeof(mac));
	return 0;
}

int tpm12_sess_check(struct tpm12_sess *s, const uint8_t digest[20],
		     const uint8_t *trailer, const char *what,
		     struct tberr *e)
{
	uint8_t mac[20], diff = 0;
	uint8_t cont = trailer[20];
	int i;

	tpm12_auth_hmac(s->key, digest, trailer, s->nonce_odd, cont, mac);
	for (i = 0; i < 20; i++)
		diff |= (uint8_t)(mac[i] ^ trailer[21 + i]);
	explicit_bzero(mac, sizeof(mac));
	if (diff || cont > 1) {
		/* The TPM may still hold the session; it is not trusted. */
		return err_set(e, EX_IO, "%s: the response's authorization "
			       "HMAC does not verify (a damaged response or "
			       "an interposer); nothing was used", what);
	}
	memcpy(s->nonce_even, trailer, 20);
	if (!cont)
		s->active = 0;
	return 0;
}

int tpm12_oiap(struct tpm *t, const uint8_t auth[20], struct tpm12_sess *s)
{
	struct tpm12_call c = { .ord = TPM12_ORD_OIAP };
	struct tb r;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = tpm12_call(t, &c)))
		return rc;
	tb_init_read(&r, c.out, c.outlen);
	s->handle = tb_get_u32(&r);
	tb_get_bytes(&r, s->nonce_even, 20);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_OIAP: malformed response");
	memcpy(s->key, auth, 20);
	s->active = 1;
	s->cont = 1;
	return 0;
}

int tpm12_osap(struct tpm *t, uint16_t etype, uint32_t evalue,
	       const uint8_t auth[20], struct tpm12_sess *s)
{
	struct tpm12_call c = { .ord = TPM12_ORD_OSAP };
	uint8_t in[2 + 4 + 20], odd_osap[20];
	struct tb b, r;
	int rc;

	memset(s, 0, sizeof(*s));
	if (rng_bytes(odd_osap, 20))
		return err_set(t->e, EX_FAIL, "TPM_OSAP: no random bytes");
	tb_init(&b, in, sizeof(in));
	tb_put_u16(&b, etype);
	tb_put_u32(&b, evalue);
	tb_put_bytes(&b, odd_osap, 20);
	c.in = in;
	c.inlen = b.len;
	if ((rc = tpm12_call(t, &c)))
		return rc;
	tb_init_read(&r, c.out, c.outlen);
	s->handle = tb_get_u32(&r);
	tb_get_bytes(&r, s->nonce_even, 20);
	tb_get_bytes(&r, s->nonce_even_osap, 20);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_OSAP: malformed response");
	s->active = 1;
	s->osap = 1;
	s->cont = 1;
	tpm12_osap_secret(auth, s->nonce_even_osap, odd_osap, s->key);
	return 0;
}

int tpm12_sess_end(struct tpm *t, struct tpm12_sess *s)
{
	int rc = 0;

	if (s->active)
		rc = tpm12_flush(t, s->handle, TPM12_RT_AUTH);
	explicit_bzero(s, sizeof(*s));
	return rc;
}

int tpm12_sess_end_keep(struct tpm *t, struct tpm12_sess *s, int rc)
{
	struct tberr keep = *t->e;

	tpm12_sess_end(t, s);
	*t->e = keep;
	return rc;
}

int tpm12_sess_last(struct tpm *t, struct tpm12_sess *s, int rc,
		    const char *name)
{
	/* A refused command ends the session on the TPM (tpm12_call marks
	 * it); keep the refusal, not a flush's error. */
	if (rc)
		return tpm12_sess_end_keep(t, s, rc);
	if (s->active) {
		/* Asked to end the session, the TPM kept it: not a 1.2's
		 * answer.  Flushing it would also overwrite the answer. */
		tpm12_sess_end(t, s);
		return err_set(t->e, EX_IO, "%s%sthe TPM kept a session it "
			       "was asked to end", name ? name : "",
			       name ? ": " : "");
	}
	explicit_bzero(s, sizeof(*s));
	return 0;
}

int tpm12_call_oiap(struct tpm *t, const uint8_t auth[20],
		    struct tpm12_call *c)
{
	unsigned flushed = t->nflushed;
	struct tpm12_sess s;
	int rc, again = 0;

	do {
		if ((rc = tpm12_oiap(t, auth, &s)))
			return rc;
		c->na = 1;
		c->auth[0] = &s;
		s.cont = 0;
		rc = tpm12_call(t, c);
		c->auth[0] = NULL;
		rc = tpm12_sess_last(t, &s, rc, tpm12_ord_name(c->ord));
		/* Out of room, and leftovers were flushed (tpm12_call):
		 * once more, in a new session (the failure ended this
		 * one). */
	} while (rc && (c->rc == TPM12_NOSPACE || c->rc == TPM12_RESOURCES) &&
		 t->nflushed != flushed && !again++);
	return rc;
}

int tpm12_call_oiap_bare(struct tpm *t, const uint8_t auth[20],
			 uint32_t ord)
{
	struct tpm12_call c = { .ord = ord };
	int rc;

	if ((rc = tpm12_call_oiap(t, auth, &c)))
		return rc;
	if (c.outlen)
		return err_set(t->e, EX_IO, "%s: malformed response",
			       tpm12_ord_name(ord));
	return 0;
}
