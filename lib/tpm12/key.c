/* TPM 1.2 keys: made, loaded and flushed (tpm12/key.h). */
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/cmd.h"
#include "tpm12/key.h"
#include "tpm12/session.h"

uint16_t tpm12_key_entity(uint32_t handle)
{
	return handle == TPM12_KH_SRK ? TPM12_ET_SRK : TPM12_ET_KEYHANDLE;
}

int tpm12_create_wrap_key(struct tpm *t, uint32_t parent,
			  const uint8_t parentauth[20],
			  const struct tpm12_key *info,
			  const uint8_t usageauth[20], struct tpm12_key *out)
{
	struct tpm12_call c = {
		.ord = TPM12_ORD_CreateWrapKey, .in_handles = 4, .na = 1,
	};
	uint8_t in[4 + 40 + 2 * TPM12_RSA_MAX + 256], pad[20];
	struct tpm12_sess s;
	struct hash_ctx *h;
	struct tb b;
	int rc, i;

	if ((rc = tpm12_osap(t, tpm12_key_entity(parent), parent, parentauth,
			     &s)))
		return rc;
	if (tpm12_sess_odd(&s))
		return tpm12_sess_end_keep(t, &s, err_set(t->e, EX_FAIL,
				"no random bytes for a nonce"));
	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, parent);
	/* dataUsageAuth: ADIP with nonceEven; dataMigrationAuth (unused
	 * for a non-migratable key) with nonceOdd (Part 3, 10.4). */
	tpm12_adip(&s, usageauth, pad);
	tb_put_bytes(&b, pad, 20);
	h = hash_new(TPM2_ALG_SHA1);
	hash_update(h, s.key, 20);
	hash_update(h, s.nonce_odd, 20);
	hash_final(h, pad);
	for (i = 0; i < 20; i++)
		pad[i] ^= usageauth[i];
	tb_put_bytes(&b, pad, 20);
	explicit_bzero(pad, sizeof(pad));
	tpm12_put_key(&b, info);
	if (tb_err(&b))
		return tpm12_sess_end_keep(t, &s, err_set(t->e, EX_FAIL,
				"TPM_CreateWrapKey: bad template"));
	c.in = in;
	c.inlen = b.len;
	c.auth[0] = &s;
	s.cont = 0;
	rc = tpm12_call(t, &c);
	explicit_bzero(in, sizeof(in));
	if (rc)
		return tpm12_sess_end_keep(t, &s, rc);
	if (s.active)
		return tpm12_sess_end_keep(t, &s, err_set(t->e, EX_IO,
				"TPM_CreateWrapKey: the TPM kept a session it "
				"was asked to end"));
	explicit_bzero(&s, sizeof(s));
	if (tpm12_key_parse(c.out, c.outlen, out, "TPM_CreateWrapKey", t->e))
		return t->e->code;
	if (out->usage != info->usage || out->is12 != info->is12 ||
	    out->publen == 0 || out->enclen == 0)
		return err_set(t->e, EX_IO, "TPM_CreateWrapKey: the key "
			       "returned is not the one asked for");
	return 0;
}

int tpm12_loadkey2(struct tpm *t, uint32_t parent, const uint8_t
		   parent_auth[20], const struct tpm12_key *k,
		   uint32_t *handle)
{
	static uint8_t in[4 + 2 * TPM12_RSA_MAX + 256];
	struct tpm12_call c = { .ord = TPM12_ORD_LoadKey2 };
	struct tb b, r;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, parent);
	tpm12_put_key(&b, k);
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "TPM_LoadKey2: key too large");
	c.in = in;
	c.inlen = b.len;
	/* parentHandle and the returned inkeyHandle stay out of the
	 * parameter digests (Part 3, 10.5). */
	c.in_handles = 4;
	c.out_handles = 4;
	rc = tpm12_call_oiap(t, parent_auth, &c);
	explicit_bzero(in, b.len);
	if (rc)
		return rc;
	tb_init_read(&r, c.out, c.outlen);
	*handle = tb_get_u32(&r);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_LoadKey2: malformed response");
	return 0;
}

int tpm12_flush_key(struct tpm *t, uint32_t handle)
{
	struct tberr keep = *t->e;
	int rc = tpm12_flush(t, handle, TPM12_RT_KEY);

	if (rc && keep.code)
		*t->e = keep;
	return rc;
}
