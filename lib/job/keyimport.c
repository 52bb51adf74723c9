/* Keys made elsewhere, taken into the TPM: see include/job/keyimport.h. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/tpm2const.h"
#include "crypto/ecdh.h"
#include "fmt/tpmkey.h"
#include "job/keyimport.h"
#include "tpm2/cmd.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

/* The magnitude of a big-endian integer: leading zero bytes dropped. */
static const uint8_t *mag(const uint8_t *p, size_t n, size_t *out)
{
	while (n && !*p) {
		p++;
		n--;
	}
	*out = n;
	return p;
}

/* Left-pad v[0..n) with zeros to w bytes into out; -1 when longer. */
static int pad(const uint8_t *v, size_t n, uint8_t *out, size_t w)
{
	v = mag(v, n, &n);
	if (n > w)
		return -1;
	memset(out, 0, w - n);
	memcpy(out + w - n, v, n);
	return 0;
}

static int rsa_object(const struct privkey *k, struct tpm2_public *pub,
		      uint8_t *prime, size_t *primelen, struct tberr *e)
{
	const uint8_t *n, *x;
	size_t nlen, elen, plen, i;
	uint32_t exp = 0;

	if (!rsa_priv_check(&k->rsa))
		return err_set(e, EX_USAGE, "the private key is not a valid "
			       "RSA key");
	n = mag(k->rsa.n, k->rsa.nlen, &nlen);
	if (nlen != 256 && nlen != 384)
		return err_set(e, EX_USAGE, "an RSA key of %zu bits: a TPM "
			       "takes 2048 or 3072", nlen * 8);
	x = mag(k->rsa.e, k->rsa.elen, &elen);
	if (elen > 4)
		return err_set(e, EX_USAGE, "the RSA key's public exponent "
			       "is larger than a TPM's 32 bits");
	for (i = 0; i < elen; i++)
		exp = exp << 8 | x[i];
	pub->type = TPM2_ALG_RSA;
	pub->rsa_bits = (uint16_t)(nlen * 8);
	pub->rsa_exp = exp == 65537 ? 0 : exp;	/* 0: the default 65537 */
	memcpy(pub->rsa_n, n, nlen);
	pub->rsa_nlen = nlen;
	/* the sensitive part: one prime, half the modulus long */
	plen = nlen / 2;
	if (pad(k->rsa.p, k->rsa.plen, prime, plen))
		return err_set(e, EX_USAGE, "the RSA key's prime is longer "
			       "than half its modulus");
	*primelen = plen;
	return 0;
}

static int ecc_object(const struct privkey *k, int usage,
		      struct tpm2_public *pub, uint8_t *d, size_t *dlen,
		      struct tberr *e)
{
	size_t w = ec_bytes(k->curve);
	uint8_t q[EC_POINT_MAX];

	if (usage != KEY_USE_SIGN)
		return err_set(e, EX_USAGE, "--usage decrypt is for RSA keys "
			       "(an ECC key here signs)");
	if (!w || (k->curve != EC_NIST_P256 && k->curve != EC_NIST_P384))
		return err_set(e, EX_USAGE, "an EC key on another curve than "
			       "P-256 or P-384");
	if (pad(k->d, k->dlen, d, w) || ec_public(k->curve, d, w, q))
		return err_set(e, EX_USAGE, "the private key is not a valid "
			       "EC key");
	pub->type = TPM2_ALG_ECC;
	pub->curve = k->curve == EC_NIST_P256 ? TPM2_ECC_NIST_P256 :
		     TPM2_ECC_NIST_P384;
	pub->kdf = TPM2_ALG_NULL;
	memcpy(pub->ecc_x, q + 1, w);
	memcpy(pub->ecc_y, q + 1 + w, w);
	pub->ecc_xlen = pub->ecc_ylen = w;
	*dlen = w;
	return 0;
}

int key_usage_parse(const char *s)
{
	if (!strcmp(s, "sign"))
		return KEY_USE_SIGN;
	if (!strcmp(s, "decrypt"))
		return KEY_USE_DECRYPT;
	return 0;
}

int key_object_make(const struct privkey *k, int usage, const uint8_t *auth,
		    size_t authlen, struct tpm2_public *pub, uint8_t *sens,
		    size_t *senslen, struct tberr *e)
{
	uint8_t secret[256];	/* an RSA-4096 prime or an EC scalar */
	size_t slen = 0;
	struct tb b;
	int rc;

	*senslen = 0;
	memset(pub, 0, sizeof(*pub));
	pub->name_alg = TPM2_ALG_SHA256;
	/* Not fixedTPM, fixedParent or sensitiveDataOrigin: the key was
	 * made outside and a copy of it exists. */
	pub->attrs = TPMA_OBJECT_USERWITHAUTH |
		     (usage == KEY_USE_DECRYPT ? TPMA_OBJECT_DECRYPT :
		      TPMA_OBJECT_SIGN_ENCRYPT);
	pub->sym_alg = TPM2_ALG_NULL;
	pub->scheme = TPM2_ALG_NULL;
	if (authlen > 32)
		return err_set(e, EX_USAGE, "--auth: at most 32 bytes (the "
			       "size of a SHA-256 digest)");
	rc = k->type == KEY_RSA ? rsa_object(k, pub, secret, &slen, e) :
	     k->type == KEY_EC ? ecc_object(k, usage, pub, secret, &slen, e) :
	     err_set(e, EX_USAGE, "neither an RSA nor an EC key");
	if (rc)
		goto out;
	if (tpm2_public_finish(pub)) {
		rc = err_set(e, EX_FAIL, "the key's public area is too large");
		goto out;
	}
	/* TPMT_SENSITIVE: sensitiveType, authValue, seedValue (none: not a
	 * parent), sensitive */
	tb_init(&b, sens, TPM2_SENSITIVE_MAX);
	tb_put_u16(&b, pub->type);
	tb_put_tpm2b(&b, auth, authlen);
	tb_put_tpm2b(&b, NULL, 0);
	tb_put_tpm2b(&b, secret, slen);
	if (tb_err(&b)) {
		tb_wipe(&b);
		rc = err_set(e, EX_USAGE, "the key is too large for a TPM "
			     "object");
		goto out;
	}
	*senslen = b.len;
out:
	explicit_bzero(secret, sizeof(secret));
	return rc;
}

int key_import(struct tpm *t, const struct tpm2_public *obj,
	       const uint8_t *sens, size_t senslen,
	       const struct tpm2_dup *dup, const uint8_t *owner,
	       size_t ownerlen, struct tpm2_private *priv)
{
	struct tpm2_srk *k = calloc(1, sizeof(*k));
	struct tpm2_dup *mine = calloc(1, sizeof(*mine));
	struct tpm2_session *s;
	struct srk_want w;
	struct tpm2_auth a;
	int rc;

	if (!k || !mine) {
		rc = err_set(t->e, EX_FAIL, "out of memory");
		goto out;
	}
	memset(&w, 0, sizeof(w));
	w.exact = 1;		/* keys live under the ECC SRK, as AKs */
	w.owner = owner;
	w.ownerlen = owner ? ownerlen : 0;
	/* The answer comes back in the session salted to that SRK: its
	 * HMAC says the TPM took the key in. */
	if ((rc = tpm2_srk_find(t, &w, k)) ||
	    (rc = tpm2_trust_start(t, k->handle, &k->pub)))
		goto out;
	/* Made here: the inner wrapper too, its key sent as TPM2_Import's
	 * first parameter, encrypted by that session. */
	if (sens && (rc = tpm2_dup_wrap(&k->pub, obj, sens, senslen, 1, mine,
					t->e)))
		goto out;
	if (!sens)
		*mine = *dup;
	s = tpm2_trust_session(t);
	tpm2_session_set_flags(s, mine->innerlen ? SESS_ENC_CMD : 0);
	tpm2_session_use(s, &a, NULL, 0);
	rc = tpm2_import(t, k->handle, k->pub.name, k->pub.namelen, &a, obj,
			 &mine->priv, mine->seed, mine->seedlen, mine->inner,
			 mine->innerlen, priv);
	tpm2_session_set_flags(s, 0);
	if (rc && !sens && t->e->rc)
		err_hint(t->e, "the key was wrapped for another TPM's SRK, or "
			 "the file is damaged");
out:
	if (k)
		tpm2_srk_put(t, k);
	if (mine)
		explicit_bzero(mine, sizeof(*mine));
	free(k);
	free(mine);
	return rc;
}

int key_file_encode(const struct tpm2_public *pub,
		    const struct tpm2_private *priv, const struct tpm2_dup *dup,
		    int empty_auth, char **pem, size_t *n, struct tberr *e)
{
	struct tpmkey *f = calloc(1, sizeof(*f));
	struct tb b;
	int rc;

	if (!f)
		return err_set(e, EX_FAIL, "out of memory");
	f->type = dup ? TPMKEY_IMPORTABLE : TPMKEY_LOADABLE;
	f->empty_auth = empty_auth;
	f->parent = TPM2_RH_OWNER;
	tb_init(&b, f->pub, sizeof(f->pub));
	tb_put_tpm2b(&b, pub->raw, pub->rawlen);
	f->publen = b.len;
	tb_init(&b, f->priv, sizeof(f->priv));
	if (dup) {
		tb_put_tpm2b(&b, dup->priv.b, dup->priv.n);
		memcpy(f->secret, dup->seed, dup->seedlen);
		f->secretlen = dup->seedlen;
	} else {
		tb_put_tpm2b(&b, priv->b, priv->n);
	}
	f->privlen = b.len;
	rc = tb_err(&b) ? err_set(e, EX_FAIL, "KEY: the key is too large to "
				  "encode") :
	     tpmkey_encode(f, pem, n, "KEY", e);
	explicit_bzero(f, sizeof(*f));
	free(f);
	return rc;
}

int key_importable_decode(const uint8_t *text, size_t n,
			  struct tpm2_public *pub, struct tpm2_dup *dup,
			  int *empty_auth, struct tberr *e)
{
	struct tpmkey *f = calloc(1, sizeof(*f));
	struct tb r;
	int rc = 0;

	if (!f)
		return err_set(e, EX_FAIL, "out of memory");
	if (tpmkey_decode((const char *)text, n, f, "-i", e)) {
		rc = e->code;
		goto out;
	}
	if (f->type != TPMKEY_IMPORTABLE) {
		rc = err_set(e, EX_USAGE, "-i: a TSS2 key that is not "
			     "importable: it is in a TPM already");
		goto out;
	}
	if (f->parent != TPM2_RH_OWNER || f->npolicy) {
		rc = err_set(e, EX_USAGE, "-i: an importable key for another "
			     "parent than the SRK, or with a policy");
		goto out;
	}
	tb_init_read(&r, f->pub, f->publen);
	if (tpm2_public_get2b(&r, pub, e) || tb_left(&r)) {
		rc = err_set(e, EX_FAIL, "-i: malformed public area");
		goto out;
	}
	tb_init_read(&r, f->priv, f->privlen);
	dup->priv.n = tb_get_tpm2b(&r, dup->priv.b, sizeof(dup->priv.b));
	if (tb_err(&r) || tb_left(&r) || f->secretlen > sizeof(dup->seed)) {
		rc = err_set(e, EX_FAIL, "-i: malformed duplicate");
		goto out;
	}
	memcpy(dup->seed, f->secret, f->secretlen);
	dup->seedlen = f->secretlen;
	*empty_auth = f->empty_auth;
out:
	explicit_bzero(f, sizeof(*f));
	free(f);
	return rc;
}
