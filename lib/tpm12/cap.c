#include <string.h>

#include "tpm12/cap.h"
#include "tpm12/cmd.h"

int tpm12_getcap(struct tpm *t, uint32_t area, uint32_t sub,
		 const uint8_t **resp, size_t *n)
{
	struct tpm12_call c = { .ord = TPM12_ORD_GetCapability };
	uint8_t in[12];
	struct tb b, r;
	uint32_t size;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, area);
	/* Areas without a sub-capability take an empty one. */
	if (area == TPM12_CAP_NV_LIST || area == TPM12_CAP_VERSION_VAL) {
		tb_put_u32(&b, 0);
	} else {
		tb_put_u32(&b, 4);
		tb_put_u32(&b, sub);
	}
	c.in = in;
	c.inlen = b.len;
	if ((rc = tpm12_call(t, &c)))
		return rc;
	tb_init_read(&r, c.out, c.outlen);
	size = tb_get_u32(&r);
	*resp = tb_get_ref(&r, size);
	*n = size;
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_GetCapability(0x%x, 0x%x): "
			       "malformed response", area, sub);
	return 0;
}

int tpm12_getprop(struct tpm *t, uint32_t prop, uint32_t *v)
{
	const uint8_t *p;
	size_t n;
	int rc;

	if ((rc = tpm12_getcap(t, TPM12_CAP_PROPERTY, prop, &p, &n)))
		return rc;
	if (n == 1)
		*v = p[0];
	else if (n == 4)
		*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		     (uint32_t)p[2] << 8 | p[3];
	else
		return err_set(t->e, EX_IO, "TPM_GetCapability(property "
			       "0x%x): %zu bytes, 1 or 4 expected", prop, n);
	return 0;
}

/* A structure of a tag and BOOLs: the BOOL at position i (1-based after
 * the tag), checked against the size. */
static int flag_at(const uint8_t *p, size_t n, uint16_t tag, size_t i,
		   int *out)
{
	if (n < 2 + i || ((uint16_t)(p[0] << 8 | p[1])) != tag ||
	    p[1 + i] > 1)
		return -1;
	*out = p[1 + i];
	return 0;
}

int tpm12_force_clear_disabled(struct tpm *t, int *disabled)
{
	const uint8_t *p;
	size_t n;
	int rc;

	/* TPM_STCLEAR_FLAGS: tag 0x0020, deactivated, disableForceClear */
	if ((rc = tpm12_getcap(t, TPM12_CAP_FLAG, TPM12_CAP_FLAG_VOLATILE,
			       &p, &n)))
		return rc;
	if (flag_at(p, n, 0x0020, 2, disabled))
		return err_set(t->e, EX_IO, "TPM_GetCapability(FLAG_VOLATILE)"
			       ": malformed TPM_STCLEAR_FLAGS");
	return 0;
}

int tpm12_info(struct tpm *t, struct tpm12_info *in)
{
	const uint8_t *p;
	struct tb r;
	size_t n;
	int rc;

	memset(in, 0, sizeof(*in));
	/* TPM_CAP_VERSION_INFO: tag 0x0030, TPM_VERSION, specLevel,
	 * errataRev, tpmVendorID, vendorSpecificSize, vendorSpecific. */
	if ((rc = tpm12_getcap(t, TPM12_CAP_VERSION_VAL, 0, &p, &n)))
		return rc;
	tb_init_read(&r, p, n);
	if (tb_get_u16(&r) != 0x0030)
		tb_fail(&r);
	tb_get_bytes(&r, in->version, 4);
	in->spec_level = tb_get_u16(&r);
	in->errata_rev = tb_get_u8(&r);
	tb_get_bytes(&r, in->vendor_id, 4);
	tb_skip(&r, tb_get_u16(&r));
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_GetCapability(VERSION_VAL): "
			       "malformed TPM_CAP_VERSION_INFO");
	if ((rc = tpm12_getprop(t, TPM12_CAP_PROP_MANUFACTURER,
				&in->manufacturer)))
		return rc;
	if ((rc = tpm12_owned(t, &in->owner)) ||
	    (rc = tpm12_getprop(t, TPM12_CAP_PROP_PCR, &in->npcrs)) ||
	    (rc = tpm12_getprop(t, TPM12_CAP_PROP_MAX_KEYS, &in->max_keys)) ||
	    (rc = tpm12_getprop(t, TPM12_CAP_PROP_KEYS, &in->free_keys)) ||
	    (rc = tpm12_getprop(t, TPM12_CAP_PROP_MAX_AUTHSESS,
				&in->max_sessions)))
		return rc;
	/* TPM_PERMANENT_FLAGS (tag 0x001f): disable, ownership,
	 * deactivated, ... nvLocked is the 16th BOOL. */
	if ((rc = tpm12_getcap(t, TPM12_CAP_FLAG, TPM12_CAP_FLAG_PERMANENT,
			       &p, &n)))
		return rc;
	if (flag_at(p, n, 0x001f, 1, &in->disabled) ||
	    flag_at(p, n, 0x001f, 3, &in->deactivated) ||
	    flag_at(p, n, 0x001f, 16, &in->nv_locked))
		return err_set(t->e, EX_IO, "TPM_GetCapability(FLAG_PERMANENT)"
			       ": malformed TPM_PERMANENT_FLAGS");
	/* TPM_STCLEAR_FLAGS (tag 0x0020): deactivated first. */
	if ((rc = tpm12_getcap(t, TPM12_CAP_FLAG, TPM12_CAP_FLAG_VOLATILE,
			       &p, &n)))
		return rc;
	if (flag_at(p, n, 0x0020, 1, &in->temp_deactivated))
		return err_set(t->e, EX_IO, "TPM_GetCapability(FLAG_VOLATILE)"
			       ": malformed TPM_STCLEAR_FLAGS");
	/* Loaded keys: TPM_KEY_HANDLE_LIST, a UINT16 count and handles. */
	if ((rc = tpm12_getcap(t, TPM12_CAP_HANDLE, 1, &p, &n)))
		return rc;
	tb_init_read(&r, p, n);
	in->nkeys = tb_get_u16(&r);
	tb_skip(&r, in->nkeys * 4);
	if (tb_err(&r) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM_GetCapability(HANDLE): "
			       "malformed TPM_KEY_HANDLE_LIST");
	return tpm12_nv_list(t, in->nv, &in->nnv);
}

int tpm12_owned(struct tpm *t, int *owned)
{
	uint32_t v;
	int rc;

	if ((rc = tpm12_getprop(t, TPM12_CAP_PROP_OWNER, &v)))
		return rc;
	if (v > 1)
		return err_set(t->e, EX_IO, "TPM_GetCapability(PROP_OWNER): "
			       "0x%x is not a BOOL", v);
	*owned = (int)v;
	return 0;
}

int tpm12_nv_list(struct tpm *t, uint32_t nv[TPM12_NV_MAX], size_t *count)
{
	const uint8_t *p;
	struct tb r;
	size_t n, i;
	int rc;

	/* UINT32s filling the response. */
	if ((rc = tpm12_getcap(t, TPM12_CAP_NV_LIST, 0, &p, &n)))
		return rc;
	if (n % 4 || n / 4 > TPM12_NV_MAX)
		return err_set(t->e, EX_IO, "TPM_GetCapability(NV_LIST): "
			       "%zu bytes, not a list of at most %d indices",
			       n, TPM12_NV_MAX);
	tb_init_read(&r, p, n);
	for (i = 0; i < n / 4; i++)
		nv[i] = tb_get_u32(&r);
	*count = n / 4;
	return 0;
}
