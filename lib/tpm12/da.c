/* TPM 1.2 dictionary-attack state and reset (tpm12/da.h). */
#include <stddef.h>
#include <string.h>

#include "base/auth.h"
#include "base/buf.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/da.h"
#include "tpm12/session.h"

#define TAG_DA_INFO		0x0037
#define TAG_DA_INFO_LIMITED	0x0038
#define TAG_DA_ACTION_TYPE	0x0039

int tpm12_da_parse(const uint8_t *p, size_t n, struct tpm12_da *d)
{
	struct tb r;
	uint16_t tag;
	uint8_t state;

	memset(d, 0, sizeof(*d));
	tb_init_read(&r, p, n);
	tag = tb_get_u16(&r);
	if (tag != TAG_DA_INFO && tag != TAG_DA_INFO_LIMITED)
		return -1;
	d->limited = tag == TAG_DA_INFO_LIMITED;
	state = tb_get_u8(&r);
	if (!d->limited) {
		d->count = tb_get_u16(&r);
		d->threshold = tb_get_u16(&r);
	}
	if (tb_get_u16(&r) != TAG_DA_ACTION_TYPE)
		return -1;
	d->actions = tb_get_u32(&r);
	if (!d->limited)
		d->depend = tb_get_u32(&r);
	tb_skip(&r, tb_get_u32(&r));	/* vendorData */
	if (tb_err(&r) || tb_left(&r) || state > 1)
		return -1;
	d->active = state == 1;
	return 0;
}

int tpm12_da_state(struct tpm *t, struct tpm12_da *d)
{
	const uint8_t *p;
	size_t n;
	int rc;

	if ((rc = tpm12_getcap(t, TPM12_CAP_DA_LOGIC, TPM12_ET_OWNER, &p, &n)))
		return rc;
	if (tpm12_da_parse(p, n, d))
		return err_set(t->e, EX_IO, "TPM_GetCapability(TPM_CAP_DA_"
			       "LOGIC): malformed TPM_DA_INFO");
	return 0;
}

int tpm12_da_reset(struct tpm *t, const uint8_t owner[20])
{
	return tpm12_call_oiap_bare(t, owner, TPM12_ORD_ResetLockValue);
}

void tpm12_auth_value(const struct authval *v, uint8_t out[20])
{
	if (!v) {
		memset(out, 0, 20);
		return;
	}
	hash_buf(TPM2_ALG_SHA1, v->v, v->n, out);
}
