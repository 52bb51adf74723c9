/* TPM 1.2 key loading and flushing (tpm12/key.h). */
#include <string.h>

#include "tpm12/cmd.h"
#include "tpm12/key.h"
#include "tpm12/session.h"

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
	struct tpm12_call c = { .ord = TPM12_ORD_FlushSpecific };
	struct tberr keep = *t->e;
	uint8_t in[8];
	struct tb b;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, handle);
	tb_put_u32(&b, TPM12_RT_KEY);
	c.in = in;
	c.inlen = b.len;
	rc = tpm12_call(t, &c);
	if (rc == 0 && c.outlen)
		rc = err_set(t->e, EX_IO, "TPM_FlushSpecific: unexpected "
			     "bytes in the response");
	if (rc && keep.code)
		*t->e = keep;
	return rc;
}
