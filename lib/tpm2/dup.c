/* Duplication done on the host: see include/tpm2/dup.h. */
#include <string.h>

#include "base/buf.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "tpm2/cmd.h"
#include "tpm2/dup.h"
#include "tpm2/wrap.h"

#define SEAL_DATA_MAX 128	/* MAX_SYM_DATA: a TPM2B_SENSITIVE_DATA */

int tpm2_sealed_make(struct tpm2_public *pub, const uint8_t *auth,
		     size_t authlen, const uint8_t *data, size_t n,
		     uint8_t *sens, size_t *senslen, struct tberr *e)
{
	size_t d = hash_size(pub->name_alg);
	uint8_t obf[64];
	struct hash_ctx *h;
	struct tb b;

	*senslen = 0;
	if (pub->type != TPM2_ALG_KEYEDHASH || !d || d > sizeof(obf) ||
	    !hash_supported(pub->name_alg))
		return err_set(e, EX_FAIL, "sealed object: not a keyed-hash "
			       "object with a supported name algorithm");
	if (n == 0 || n > SEAL_DATA_MAX || authlen > d)
		return err_set(e, EX_FAIL, "sealed object: %zu data bytes "
			       "(1 to %d) or a %zu-byte auth value (at most "
			       "%zu)", n, SEAL_DATA_MAX, authlen, d);
	if (rng_bytes(obf, d))
		return err_set(e, EX_FAIL, "no random numbers");
	/* unique = H_nameAlg(seedValue || data) */
	if (!(h = hash_new(pub->name_alg))) {
		explicit_bzero(obf, sizeof(obf));
		return err_set(e, EX_FAIL, "out of memory");
	}
	hash_update(h, obf, d);
	hash_update(h, data, n);
	hash_final(h, pub->unique);
	pub->uniquelen = d;
	if (tpm2_public_finish(pub)) {
		explicit_bzero(obf, sizeof(obf));
		return err_set(e, EX_FAIL, "sealed object: public area too "
			       "large");
	}
	/* TPMT_SENSITIVE: sensitiveType, authValue, seedValue, sensitive */
	tb_init(&b, sens, TPM2_SENSITIVE_MAX);
	tb_put_u16(&b, TPM2_ALG_KEYEDHASH);
	tb_put_tpm2b(&b, auth, authlen);
	tb_put_tpm2b(&b, obf, d);
	tb_put_tpm2b(&b, data, n);
	explicit_bzero(obf, sizeof(obf));
	if (tb_err(&b)) {
		tb_wipe(&b);
		return err_set(e, EX_FAIL, "sealed object: sensitive area "
			       "too large");
	}
	*senslen = b.len;
	return 0;
}

/* The inner wrapper (Part 1, 23.3.2.3) over the TPM2B_SENSITIVE in
 * b[0..len): innerIntegrity = H_nameAlg(TPM2B_SENSITIVE || name), then
 * TPM2B_DIGEST(innerIntegrity) || TPM2B_SENSITIVE encrypted with
 * AES-128-CFB under a fresh key (IV zero), written back to b. */
static int inner_wrap(const struct tpm2_public *obj, uint8_t *b, size_t cap,
		      size_t *len, struct tpm2_dup *out, struct tberr *e)
{
	static const uint8_t iv[AES_BLOCK];
	size_t d = hash_size(obj->name_alg);
	struct hash_ctx *h;

	if (!d || *len + 2 + d > cap || !(h = hash_new(obj->name_alg)))
		return err_set(e, EX_FAIL, "duplication: no inner wrapper for "
			       "this object");
	hash_update(h, b, *len);
	hash_update(h, obj->name, obj->namelen);
	memmove(b + 2 + d, b, *len);
	b[0] = (uint8_t)(d >> 8);
	b[1] = (uint8_t)d;
	hash_final(h, b + 2);
	*len += 2 + d;
	out->innerlen = sizeof(out->inner);
	if (rng_bytes(out->inner, out->innerlen) ||
	    aes_cfb(out->inner, out->innerlen, iv, b, *len, 0))
		return err_set(e, EX_FAIL, "duplication: no random key for "
			       "the inner wrapper");
	return 0;
}

int tpm2_dup_wrap(const struct tpm2_public *parent,
		  const struct tpm2_public *obj, const uint8_t *sens,
		  size_t senslen, int inner, struct tpm2_dup *out,
		  struct tberr *e)
{
	uint8_t in[2 + 64 + 2 + TPM2_SENSITIVE_MAX];
	struct tb b;
	int rc;

	memset(out, 0, sizeof(*out));
	if (obj->attrs & (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			  TPMA_OBJECT_ENCRYPTEDDUPLICATION))
		return err_set(e, EX_FAIL, "duplication: the object is fixed "
			       "to its TPM or parent, or asks for an inner "
			       "wrapper");
	/* The TPM2B_SENSITIVE, under the inner wrapper when asked, then
	 * under the outer one. */
	tb_init(&b, in, sizeof(in));
	tb_put_tpm2b(&b, sens, senslen);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "duplication: sensitive area too "
			       "large");
	rc = 0;
	if (inner)
		rc = inner_wrap(obj, in, sizeof(in), &b.len, out, e);
	if (!rc)
		rc = tpm2_wrap_outer(parent, "DUPLICATE", obj->name,
				     obj->namelen, in, b.len, out->priv.b,
				     sizeof(out->priv.b), &out->priv.n,
				     out->seed, &out->seedlen,
				     "duplication: the parent key", e);
	explicit_bzero(in, sizeof(in));
	return rc;
}

int tpm2_import(struct tpm *t, uint32_t parent, const uint8_t *parent_name,
		size_t parent_namelen, struct tpm2_auth *pa,
		const struct tpm2_public *obj, const struct tpm2_private *dup,
		const uint8_t *seed, size_t seedlen, const uint8_t *inner,
		size_t innerlen, struct tpm2_private *priv)
{
	uint8_t pbuf[2 + 32 + 2 + TPM2_PUBLIC_MAX + 2 + TPM2_PRIVATE_MAX +
		     TPM2_ENC_SECRET_MAX + 6];
	struct tpm2_call c = {0};
	struct tpm2_auth tmp;
	struct tb b, r;
	int rc;

	/* encryptionKey (the inner wrapper's, or empty), objectPublic,
	 * duplicate, inSymSeed (already a TPM2B), symmetricAlg (AES-128-CFB
	 * with an inner wrapper, else NULL) */
	tb_init(&b, pbuf, sizeof(pbuf));
	tb_put_tpm2b(&b, inner, innerlen);
	tb_put_tpm2b(&b, obj->raw, obj->rawlen);
	tb_put_tpm2b(&b, dup->b, dup->n);
	tb_put_bytes(&b, seed, seedlen);
	if (innerlen) {
		tb_put_u16(&b, TPM2_ALG_AES);
		tb_put_u16(&b, (uint16_t)(8 * innerlen));
		tb_put_u16(&b, TPM2_ALG_CFB);
	} else {
		tb_put_u16(&b, TPM2_ALG_NULL);
	}
	if (tb_err(&b))
		return err_set(t->e, EX_USAGE, "TPM2_Import: parameters too "
			       "large");
	if (!pa) {
		tpm2_auth_pw(&tmp, NULL, 0);
		pa = &tmp;
	}
	c.cc = TPM2_CC_Import;
	c.nh = 1;
	c.h[0] = parent;
	c.name[0].p = parent_name;
	c.name[0].n = parent_name ? parent_namelen : 0;
	c.na = 1;
	c.auth[0] = pa;
	c.params = pbuf;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	priv->n = tb_get_tpm2b(&r, priv->b, sizeof(priv->b));
	if (tb_err(&r) || tb_left(&r) || priv->n == 0)
		return err_set(t->e, EX_IO, "TPM2_Import: malformed response "
			       "(outPrivate)");
	return 0;
}
