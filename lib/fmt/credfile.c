/* tpm2-tools' credential file: see include/fmt/credfile.h. */
#include <string.h>

#include "base/buf.h"
#include "fmt/credfile.h"

int credfile_encode(const struct credfile *c, uint8_t *out, size_t *n)
{
	struct tb b;

	*n = 0;
	if (c->idlen > sizeof(c->id) || c->secretlen < 2 ||
	    c->secretlen > sizeof(c->secret))
		return -1;
	tb_init(&b, out, CREDFILE_MAX);
	tb_put_u32(&b, CREDFILE_MAGIC);
	tb_put_u32(&b, CREDFILE_VERSION);
	tb_put_tpm2b(&b, c->id, c->idlen);
	tb_put_bytes(&b, c->secret, c->secretlen);
	if (tb_err(&b))
		return -1;
	*n = b.len;
	return 0;
}

int credfile_decode(const uint8_t *d, size_t n, struct credfile *c,
		    struct tberr *e)
{
	const uint8_t *s;
	struct tb b;
	size_t sn;

	memset(c, 0, sizeof(*c));
	tb_init_read(&b, d, n);
	if (tb_get_u32(&b) != CREDFILE_MAGIC || tb_err(&b))
		return err_set(e, EX_FAIL, "credential: not a credential file "
			       "(no 0xBADCC0DE magic)");
	if (tb_get_u32(&b) != CREDFILE_VERSION)
		return err_set(e, EX_FAIL, "credential: version is not 1");
	c->idlen = tb_get_tpm2b(&b, c->id, sizeof(c->id));
	sn = tb_get_tpm2b_ref(&b, &s);
	if (tb_err(&b) || c->idlen == 0 || sn == 0 ||
	    2 + sn > sizeof(c->secret))
		return err_set(e, EX_FAIL, "credential: truncated or "
			       "oversized credentialBlob or secret");
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "credential: %zu bytes after the "
			       "secret", tb_left(&b));
	c->secret[0] = (uint8_t)(sn >> 8);
	c->secret[1] = (uint8_t)sn;
	memcpy(c->secret + 2, s, sn);
	c->secretlen = 2 + sn;
	return 0;
}
