#include <string.h>

#include "tpm12/cmd.h"
#include "tpm12/pcr.h"

static int digest_out(struct tpm *t, const struct tpm12_call *c,
		      uint8_t out[20])
{
	struct tb r;
	uint8_t d[20];

	tb_init_read(&r, c->out, c->outlen);
	tb_get_bytes(&r, d, 20);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "%s: malformed response (%zu "
			       "bytes, a 20-byte digest expected)",
			       tpm12_ord_name(c->ord), c->outlen);
	if (out)
		memcpy(out, d, 20);
	return 0;
}

int tpm12_pcr_read(struct tpm *t, uint32_t pcr, uint8_t out[20])
{
	struct tpm12_call c = { .ord = TPM12_ORD_PcrRead };
	uint8_t in[4];
	struct tb b;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, pcr);
	c.in = in;
	c.inlen = b.len;
	if ((rc = tpm12_call(t, &c)))
		return rc;
	return digest_out(t, &c, out);
}

int tpm12_pcr_extend(struct tpm *t, uint32_t pcr, const uint8_t digest[20],
		     uint8_t new[20])
{
	struct tpm12_call c = { .ord = TPM12_ORD_Extend };
	uint8_t in[24];
	struct tb b;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, pcr);
	tb_put_bytes(&b, digest, 20);
	c.in = in;
	c.inlen = b.len;
	if ((rc = tpm12_call(t, &c)))
		return rc;
	return digest_out(t, &c, new);
}
