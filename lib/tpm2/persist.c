/* Persistent objects: see include/tpm2/persist.h. */
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/tpm2const.h"
#include "tpm2/cmd.h"
#include "tpm2/ek.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/persist.h"

static int evict(struct tpm *t, const char *owner_spec, uint32_t obj,
		 const struct tpm2_public *pub, uint32_t handle)
{
	struct nv_auth na;
	int rc;

	if ((rc = nv_hier_auth_begin(t, &na, TPM2_RH_OWNER, owner_spec, 0)))
		return rc;
	rc = tpm2_evict(t, &na.a, obj, pub->name, pub->namelen, handle);
	auth_wipe(&na.v);
	if (rc == EX_AUTH)
		err_set(t->e, EX_AUTH, "the owner auth value is wrong%s",
			owner_spec ? "" : " or missing (give --owner-auth)");
	return rc;
}

int tpm2_persist(struct tpm *t, const char *owner_spec, uint32_t obj,
		 const struct tpm2_public *pub, uint32_t handle, int force,
		 int *already)
{
	struct tpm2_public *cur = calloc(1, sizeof(*cur));
	char hx[2 * TPM2_NAME_MAX + 1];
	int rc;

	*already = 0;
	if (!cur)
		return err_set(t->e, EX_FAIL, "out of memory");
	rc = tpm2_readpublic(t, handle, cur);
	if (rc == 0 && cur->namelen == pub->namelen &&
	    !memcmp(cur->name, pub->name, pub->namelen)) {
		*already = 1;
		goto out;
	}
	if (rc == 0 && !force) {
		hex_encode(cur->name, cur->namelen, hx);
		rc = err_set(t->e, EX_FAIL, "0x%08x holds another object (%s, "
			     "name %s)", handle, tpm2_object_kind(cur), hx);
		err_hint(t->e, "evict it first ('tpmbox evict 0x%08x') or "
			 "replace it with --force", handle);
		goto out;
	}
	if (rc == 0 && (rc = evict(t, owner_spec, handle, cur, handle)))
		goto out;
	if (rc && rc != EX_NOENT)
		goto out;
	err_clear(t->e);
	rc = evict(t, owner_spec, obj, pub, handle);
out:
	free(cur);
	return rc;
}

int tpm2_unpersist(struct tpm *t, const char *owner_spec, uint32_t handle,
		   const struct tpm2_public *pub)
{
	return evict(t, owner_spec, handle, pub, handle);
}

const char *tpm2_object_kind(const struct tpm2_public *pub)
{
	int rsa;

	if (tpm2_srk_matches(pub, &rsa))
		return rsa ? "the standard RSA SRK" : "the standard ECC SRK";
	if (tpm2_ek_matches(pub, &rsa))
		return rsa ? "the RSA EK" : "the ECC EK";
	if (pub->type == TPM2_ALG_KEYEDHASH)
		return "sealed data or an HMAC key";
	if ((pub->attrs & TPMA_OBJECT_RESTRICTED) &&
	    (pub->attrs & TPMA_OBJECT_SIGN_ENCRYPT))
		return "an attestation key";
	if ((pub->attrs & TPMA_OBJECT_RESTRICTED) &&
	    (pub->attrs & TPMA_OBJECT_DECRYPT))
		return "a storage key";
	if (pub->attrs & TPMA_OBJECT_SIGN_ENCRYPT)
		return "a signing key";
	return "a key";
}
