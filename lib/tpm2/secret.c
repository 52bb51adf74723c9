/* A secret encrypted to a TPM key: see include/tpm2/secret.h. */
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/ecc.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "crypto/rsa.h"
#include "tpm2/object.h"
#include "tpm2/secret.h"

static int ecc_secret(const struct tpm2_public *k, const char *label,
		      uint8_t *secret, size_t d, struct tb *enc,
		      const char *what, struct tberr *e)
{
	uint8_t ex[P256_BYTES], ey[P256_BYTES], z[P256_BYTES];
	size_t at;
	int rc;

	if (k->curve != TPM2_ECC_NIST_P256 ||
	    ecc_p256_ephemeral(k->ecc_x, k->ecc_xlen, k->ecc_y, k->ecc_ylen,
			       ex, ey, z))
		return err_set(e, EX_FAIL, "%s is not a valid NIST P-256 key",
			       what);
	/* Part 1, C.6.1: KDFe(nameAlg, Z, label, Qe.x, Qk.x). */
	rc = kdfe(k->name_alg, z, sizeof(z), label, ex, sizeof(ex), k->ecc_x,
		  k->ecc_xlen, secret, d * 8);
	explicit_bzero(z, sizeof(z));
	if (rc)
		return err_set(e, EX_FAIL, "KDFe failed");
	at = tb_reserve16(enc);
	tb_put_tpm2b(enc, ex, sizeof(ex));
	tb_put_tpm2b(enc, ey, sizeof(ey));
	tb_patch16(enc, at);
	return 0;
}

static int rsa_secret(const struct tpm2_public *k, const char *label,
		      uint8_t *secret, size_t d, struct tb *enc,
		      const char *what, struct tberr *e)
{
	uint8_t ct[512];
	size_t ctlen;

	/* Part 1, B.10.3: the label with its terminating NUL. */
	if (rng_bytes(secret, d) ||
	    rsa_oaep_encrypt(k->rsa_n, k->rsa_nlen, k->rsa_exp, k->name_alg,
			     label, strlen(label) + 1, secret, d, ct,
			     &ctlen)) {
		explicit_bzero(secret, d);
		return err_set(e, EX_FAIL, "%s: RSA-OAEP encryption failed",
			       what);
	}
	tb_put_tpm2b(enc, ct, ctlen);
	return 0;
}

int tpm2_secret_make(const struct tpm2_public *k, const char *label,
		     uint8_t *secret, size_t *secretlen, struct tb *enc,
		     const char *what, struct tberr *e)
{
	size_t d = hash_size(k->name_alg);
	int rc;

	*secretlen = 0;
	if (!d || d > TPM2_SECRET_MAX || !hash_supported(k->name_alg))
		return err_set(e, EX_FAIL, "%s's name algorithm is not "
			       "supported", what);
	if (!(k->attrs & TPMA_OBJECT_DECRYPT) ||
	    !(k->attrs & TPMA_OBJECT_RESTRICTED))
		return err_set(e, EX_FAIL, "%s is not a restricted decryption "
			       "key", what);
	if (k->type == TPM2_ALG_ECC)
		rc = ecc_secret(k, label, secret, d, enc, what, e);
	else if (k->type == TPM2_ALG_RSA)
		rc = rsa_secret(k, label, secret, d, enc, what, e);
	else
		return err_set(e, EX_FAIL, "%s is neither RSA nor ECC", what);
	if (rc == 0)
		*secretlen = d;
	return rc;
}
