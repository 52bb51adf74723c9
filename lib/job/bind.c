/* Binding: data only one TPM's RSA key opens (include/job/bind.h). */
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/tpm2const.h"
#include "crypto/rsa.h"
#include "job/attest.h"
#include "job/bind.h"
#include "job/key.h"
#include "tpm2/cmd.h"
#include "tpm2/rc.h"

#define OAEP_SHA256_OVERHEAD (2 * 32 + 2)	/* RFC 8017 7.1.1 */

size_t bind_block_max(const struct pubkey *k)
{
	return k->nlen > OAEP_SHA256_OVERHEAD ?
	       k->nlen - OAEP_SHA256_OVERHEAD : 0;
}

static int usable(const struct pubkey *k, uint32_t *ev, struct tberr *e)
{
	size_t bits = pubkey_rsa_bits(k);

	if (k->type != KEY_RSA)
		return err_set(e, EX_USAGE, "PUB is not an RSA key: binding "
			       "is RSA-OAEP (keycreate --rsa --usage "
			       "decrypt)");
	if (bits < 2048 || bits > 4096)
		return err_set(e, EX_USAGE, "PUB has %zu bits: binding takes "
			       "an RSA key of 2048 to 4096 bits", bits);
	if (pubkey_rsa_exp(k, ev))
		return err_set(e, EX_USAGE, "PUB's RSA exponent is longer "
			       "than 32 bits");
	return 0;
}

int bind_encrypt(const struct pubkey *k, const uint8_t *data, size_t len,
		 uint8_t **out, size_t *outlen, struct tberr *e)
{
	struct cms_rcpt r;
	uint32_t ev;

	*out = NULL;
	if (usable(k, &ev, e))
		return e->code;
	if (len > bind_block_max(k)) {
		memset(&r, 0, sizeof(r));
		r.key = k;
		return cms_encrypt(&r, 1, data, len, out, outlen, e);
	}
	if (!(*out = malloc(k->nlen)))
		return err_set(e, EX_FAIL, "out of memory");
	if (rsa_oaep_encrypt(k->n, k->nlen, ev, TPM2_ALG_SHA256, NULL, 0,
			     data, len, *out, outlen)) {
		free(*out);
		*out = NULL;
		return err_set(e, EX_USAGE, "RSA-OAEP encryption to PUB "
			       "failed (not a valid RSA key)");
	}
	return 0;
}

int bind_decrypt(const struct pubkey *k, const uint8_t *in, size_t len,
		 cms_oaep_fn dec, void *ctx, uint8_t **out, size_t *outlen,
		 struct tberr *e)
{
	struct cms_msg *m;
	uint8_t block[512];
	size_t n = 0;
	uint32_t ev;
	int r;

	*out = NULL;
	if (usable(k, &ev, e))
		return e->code;
	if (len == k->nlen) {
		r = dec(ctx, TPM2_ALG_SHA256, in, len, block, sizeof(block),
			&n);
		if (r > 0)
			return err_set(e, EX_AUTH, "the key does not open it: "
				       "it was made for another key, or it "
				       "is damaged");
		if (r == 0 && !(*out = malloc(n ? n : 1)))
			r = err_set(e, EX_FAIL, "out of memory");
		if (r == 0) {
			memcpy(*out, block, n);
			*outlen = n;
		}
		explicit_bzero(block, sizeof(block));
		return r;
	}
	if (!(m = malloc(sizeof(*m))))
		return err_set(e, EX_FAIL, "out of memory");
	r = cms_parse(in, len, m, e);
	if (r)
		r = err_prefix(e, "neither one %zu-byte RSA-OAEP block nor a "
			       "CMS message", k->nlen);
	else
		r = cms_open_oaep(m, k, dec, ctx, out, outlen, e);
	free(m);
	return r;
}

int bind_pub_read(const char *path, struct pubkey *k, struct tberr *e)
{
	uint8_t *text = NULL;
	size_t n = 0;
	int rc;

	if (!(rc = file_read(path, 64 * 1024, &text, &n, e)))
		rc = x509_read_public((const char *)text, n, k, e);
	free(text);
	return rc;
}

/* The loaded key and its value, as bind_decrypt's cms_oaep_fn asks for
 * them. */
struct tpm_dec {
	struct key_loaded *k;
	const uint8_t *auth;
	size_t authlen;
};

static int tpm_oaep(void *ctx, uint16_t hash, const uint8_t *ct,
		    size_t ctlen, uint8_t *out, size_t cap, size_t *outlen)
{
	struct tpm_dec *d = ctx;
	struct tpm *t = d->k->t;

	if (ctlen != d->k->pub.rsa_nlen)
		return 1;	/* made for a key of another size */
	if (!key_decrypt(t, d->k->handle, &d->k->pub, d->k->pol, d->auth,
			 d->authlen, hash, ct, ctlen, out, cap, outlen))
		return 0;
	/* not this key's padding (key_decrypt's exit 4 with the TPM's
	 * code); anything else (a wrong auth, the transport) stops. */
	if (t->e->code == EX_AUTH && (rc_base(t->e->rc) == TPM2_RC_VALUE ||
				      t->e->rc == TPM2_RC_FAILURE)) {
		err_clear(t->e);
		return 1;
	}
	return -1;
}

int bind_open(struct key_loaded *k, const uint8_t *auth, size_t authlen,
	      const uint8_t *in, size_t len, uint8_t **out, size_t *outlen,
	      struct tberr *e)
{
	struct tpm_dec d = { k, auth, authlen };
	struct pubkey pk;
	char *pem = NULL;
	size_t pn = 0;
	int rc;

	*out = NULL;
	memset(&pk, 0, sizeof(pk));
	rc = ak_pub_pem(&k->pub, &pem, &pn, e);
	if (!rc)
		rc = x509_read_public(pem, pn, &pk, e);
	if (!rc)
		rc = bind_decrypt(&pk, in, len, tpm_oaep, &d, out, outlen, e);
	pubkey_free(&pk);
	free(pem);
	return rc;
}
