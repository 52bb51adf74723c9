#include <string.h>

#include "base/tpm2const.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"

/* One call; returns moreData in *more (may be NULL). */
static int getcap(struct tpm *t, uint32_t cap, uint32_t prop,
		  uint32_t count, uint8_t *buf, size_t bufcap, size_t *len,
		  int *more)
{
	uint8_t pb[12];
	struct tpm2_call c = { .cc = TPM2_CC_GetCapability };
	struct tb b, r;
	uint8_t m;
	int rc;

	tb_init(&b, pb, sizeof(pb));
	tb_put_u32(&b, cap);
	tb_put_u32(&b, prop);
	tb_put_u32(&b, count);
	c.params = pb;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	m = tb_get_u8(&r);
	if (tb_get_u32(&r) != cap || tb_err(&r) || m > 1)
		return err_set(t->e, EX_IO, "TPM2_GetCapability: malformed "
			       "response");
	*len = tb_left(&r);
	if (*len > bufcap)
		return err_set(t->e, EX_IO, "TPM2_GetCapability: response "
			       "too large");
	memcpy(buf, r.p + r.pos, *len);
	if (more)
		*more = m;
	return 0;
}

int tpm2_getcap_raw(struct tpm *t, uint32_t cap, uint32_t prop,
		    uint32_t count, uint8_t *buf, size_t bufcap, size_t *len)
{
	return getcap(t, cap, prop, count, buf, bufcap, len, NULL);
}

int tpm2_getprop(struct tpm *t, uint32_t prop, uint32_t *val)
{
	uint8_t buf[64];
	size_t len = 0;
	struct tb r;
	uint32_t n;
	int rc;

	if ((rc = getcap(t, TPM2_CAP_TPM_PROPERTIES, prop, 1, buf,
			 sizeof(buf), &len, NULL)))
		return rc;
	tb_init_read(&r, buf, len);
	n = tb_get_u32(&r);
	if (n != 1 || tb_get_u32(&r) != prop) {
		return err_set(t->e, EX_FAIL, "the TPM does not report "
			       "property 0x%x", prop);
	}
	*val = tb_get_u32(&r);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_GetCapability: malformed "
			       "property list");
	return 0;
}

int tpm2_gethandles(struct tpm *t, uint32_t first, uint32_t *out,
		    size_t cap, size_t *n)
{
	uint8_t buf[TPM_BUF_SIZE];
	uint32_t type = first & 0xff000000u, next = first;
	size_t len = 0;
	int more = 1, rc;

	*n = 0;
	while (more) {
		struct tb r;
		uint32_t cnt, i, h = 0, k = 0;

		if ((rc = getcap(t, TPM2_CAP_HANDLES, next, 254, buf,
				 sizeof(buf), &len, &more)))
			return rc;
		tb_init_read(&r, buf, len);
		cnt = tb_get_u32(&r);
		if (cnt > 254 || cnt * 4 != tb_left(&r))
			return err_set(t->e, EX_IO, "TPM2_GetCapability: "
				       "malformed handle list");
		for (i = 0; i < cnt; i++) {
			h = tb_get_u32(&r);
			/* Loaded sessions (TPM_HT_LOADED_SESSION) are listed
			 * with their own type, 0x03 for a policy session:
			 * ordered within the type asked for. */
			k = h;
			if (type == 0x02000000u && (h >> 24) == 0x03)
				k = type | (h & 0xffffffu);
			if ((k & 0xff000000u) != type || k < next)
				return err_set(t->e, EX_IO, "TPM2_GetCapability:"
					       " handle 0x%08x out of order",
					       h);
			if (*n == cap)
				return err_set(t->e, EX_FAIL, "the TPM lists "
					       "more than %zu handles of type "
					       "0x%02x; tpmbox handles at most "
					       "that many", cap, type >> 24);
			out[(*n)++] = h;
		}
		if (cnt == 0 || k == 0xffffffffu || (k + 1) >> 24 != type >> 24)
			break;
		next = k + 1;
	}
	return 0;
}

int tpm2_has_command(struct tpm *t, uint32_t cc, int *yes)
{
	uint8_t buf[64];
	size_t len = 0;
	struct tb r;
	int rc;

	if ((rc = getcap(t, TPM2_CAP_COMMANDS, cc, 1, buf, sizeof(buf), &len,
			 NULL)))
		return rc;
	tb_init_read(&r, buf, len);
	*yes = tb_get_u32(&r) >= 1 && (tb_get_u32(&r) & 0xffff) == cc;
	return 0;
}

int tpm2_getprops(struct tpm *t, uint32_t first, uint32_t count,
		  struct tpm2_prop *out, size_t cap, size_t *n)
{
	uint8_t buf[TPM_BUF_SIZE];
	uint32_t next = first, end = first + count;
	size_t len = 0;
	int more = 1, rc;

	*n = 0;
	while (more && next < end) {
		struct tb r;
		uint32_t cnt, i, p = 0;

		if ((rc = getcap(t, TPM2_CAP_TPM_PROPERTIES, next, end - next,
				 buf, sizeof(buf), &len, &more)))
			return rc;
		tb_init_read(&r, buf, len);
		cnt = tb_get_u32(&r);
		if (cnt > 256 || (size_t)cnt * 8 != tb_left(&r))
			return err_set(t->e, EX_IO, "TPM2_GetCapability: "
				       "malformed property list");
		for (i = 0; i < cnt; i++) {
			p = tb_get_u32(&r);
			if (p < next)
				return err_set(t->e, EX_IO, "TPM2_GetCapability:"
					       " property 0x%x out of order",
					       p);
			if (p >= end)
				break;
			if (*n < cap) {
				out[*n].prop = p;
				out[*n].val = tb_get_u32(&r);
				(*n)++;
			} else {
				tb_skip(&r, 4);
			}
		}
		if (cnt == 0 || p >= end)
			break;
		next = p + 1;
	}
	return 0;
}

int tpm2_prop_find(const struct tpm2_prop *p, size_t n, uint32_t prop,
		   uint32_t *val)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].prop == prop) {
			*val = p[i].val;
			return 1;
		}
	return 0;
}
