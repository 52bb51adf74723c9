/* The outer wrapper: see include/tpm2/wrap.h. */
#include <string.h>

#include "base/buf.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/sym.h"
#include "tpm2/object.h"
#include "tpm2/secret.h"
#include "tpm2/wrap.h"

int tpm2_wrap_outer(const struct tpm2_public *k, const char *label,
		    const uint8_t *name, size_t namelen, const uint8_t *in,
		    size_t inlen, uint8_t *out, size_t cap, size_t *outlen,
		    uint8_t *seed, size_t *seedlen, const char *what,
		    struct tberr *e)
{
	static const uint8_t zero[64];
	uint8_t sd[TPM2_SECRET_MAX], symkey[32], hmackey[64], iv[AES_BLOCK];
	size_t sdlen, d = hash_size(k->name_alg), encat;
	struct tb b, s;
	struct hmac_ctx *h;
	int rc = EX_FAIL;

	*outlen = *seedlen = 0;
	if (k->sym_alg != TPM2_ALG_AES || k->sym_mode != TPM2_ALG_CFB ||
	    (k->sym_bits != 128 && k->sym_bits != 256))
		return err_set(e, EX_FAIL, "%s is not a storage key with "
			       "AES-CFB", what);
	if (!d || d > sizeof(zero) || 2 + d + inlen > cap)
		return err_set(e, EX_FAIL, "%s: the wrapped data is too "
			       "large", what);
	tb_init(&s, seed, TPM2_ENC_SECRET_MAX);
	if (tpm2_secret_make(k, label, sd, &sdlen, &s, what, e))
		return EX_FAIL;
	if (kdfa(k->name_alg, sd, sdlen, "STORAGE", name, namelen, NULL, 0,
		 symkey, k->sym_bits) ||
	    kdfa(k->name_alg, sd, sdlen, "INTEGRITY", NULL, 0, NULL, 0,
		 hmackey, d * 8)) {
		err_set(e, EX_FAIL, "KDFa failed");
		goto out;
	}
	tb_init(&b, out, cap);
	tb_put_u16(&b, (uint16_t)d);
	tb_put_bytes(&b, zero, d);	/* the HMAC, filled in last */
	encat = b.len;
	tb_put_bytes(&b, in, inlen);
	memset(iv, 0, sizeof(iv));
	if (tb_err(&b) ||
	    aes_cfb(symkey, k->sym_bits / 8, iv, out + encat, b.len - encat,
		    0)) {
		err_set(e, EX_FAIL, "AES-CFB failed");
		goto out;
	}
	if (!(h = hmac_new(k->name_alg, hmackey, d))) {
		err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	hmac_update(h, out + encat, b.len - encat);
	hmac_update(h, name, namelen);
	hmac_final(h, out + 2);
	*outlen = b.len;
	*seedlen = s.len;
	rc = 0;
out:
	explicit_bzero(sd, sizeof(sd));
	explicit_bzero(symkey, sizeof(symkey));
	explicit_bzero(hmackey, sizeof(hmackey));
	if (rc)
		explicit_bzero(out, cap);
	return rc;
}
