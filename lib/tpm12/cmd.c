#include <stdio.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/key.h"
#include "tpm12/session.h"

static const struct {
	uint32_t ord;
	const char *name;
} ordnames[] = {
	{0x0a, "TPM_OIAP"}, {0x0b, "TPM_OSAP"}, {0x0d, "TPM_TakeOwnership"},
	{0x14, "TPM_Extend"}, {0x15, "TPM_PcrRead"}, {0x16, "TPM_Quote"},
	{0x17, "TPM_Seal"}, {0x18, "TPM_Unseal"},
	{0x1f, "TPM_CreateWrapKey"}, {0x3d, "TPM_Sealx"},
	{0x3e, "TPM_Quote2"},
	{0x40, "TPM_ResetLockValue"},
	{0x41, "TPM_LoadKey2"}, {0x46, "TPM_GetRandom"},
	{0x5b, "TPM_OwnerClear"}, {0x5d, "TPM_ForceClear"},
	{0x5e, "TPM_DisableForceClear"}, {0x98, "TPM_SaveState"},
	{0x65, "TPM_GetCapability"}, {0x66, "TPM_GetCapabilityOwner"},
	{0x6f, "TPM_PhysicalEnable"},
	{0x72, "TPM_PhysicalSetDeactivated"},
	{0x78, "TPM_CreateEndorsementKeyPair"}, {0x79, "TPM_MakeIdentity"},
	{0x7c, "TPM_ReadPubek"}, {0x81, "TPM_OwnerReadInternalPub"},
	{0x99, "TPM_Startup"}, {0xba, "TPM_FlushSpecific"},
	{0xc8, "TPM_PCR_Reset"}, {0xcc, "TPM_NV_DefineSpace"},
	{0xcd, "TPM_NV_WriteValue"}, {0xce, "TPM_NV_WriteValueAuth"},
	{0xcf, "TPM_NV_ReadValue"}, {0xd0, "TPM_NV_ReadValueAuth"},
	{0x4000000a, "TSC_PhysicalPresence"},
};

const char *tpm12_ord_name(uint32_t ord)
{
	size_t i;

	for (i = 0; i < sizeof(ordnames) / sizeof(ordnames[0]); i++)
		if (ordnames[i].ord == ord)
			return ordnames[i].name;
	return "TPM 1.2 command";
}

/* Part 2, 16 "Return Codes": the ones a user meets, with a sentence. */
static const struct {
	uint16_t rc;
	const char *name;
	const char *text;
} rcs[] = {
	{0x01, "TPM_AUTHFAIL", "the authorization value is wrong"},
	{0x02, "TPM_BADINDEX", "the index (PCR, NV, DIR) is wrong or not "
	 "allowed"},
	{0x03, "TPM_BAD_PARAMETER", "a parameter is bad"},
	{0x05, "TPM_CLEAR_DISABLED", "clearing is disabled"},
	{0x06, "TPM_DEACTIVATED", "the TPM is deactivated"},
	{0x07, "TPM_DISABLED", "the TPM is disabled"},
	{0x08, "TPM_DISABLED_CMD", "the command is disabled"},
	{0x09, "TPM_FAIL", "the operation failed"},
	{0x0a, "TPM_BAD_ORDINAL", "the TPM does not know this command"},
	{0x0b, "TPM_INSTALL_DISABLED", "taking ownership is disabled"},
	{0x0c, "TPM_INVALID_KEYHANDLE", "the key handle is not valid"},
	{0x0d, "TPM_KEYNOTFOUND", "the key handle points to no key"},
	{0x10, "TPM_INVALID_PCR_INFO", "the PCR information is not valid"},
	{0x11, "TPM_NOSPACE", "no room to load the key"},
	{0x12, "TPM_NOSRK", "there is no SRK: the TPM has no owner"},
	{0x13, "TPM_NOTSEALED_BLOB", "the blob was not made by TPM_Seal"},
	{0x14, "TPM_OWNER_SET", "the TPM already has an owner"},
	{0x15, "TPM_RESOURCES", "the TPM is out of internal resources"},
	{0x16, "TPM_SHORTRANDOM", "a random string was too short"},
	{0x17, "TPM_SIZE", "the TPM has no room for the command"},
	{0x18, "TPM_WRONGPCRVAL", "the PCR values do not match"},
	{0x19, "TPM_BAD_PARAM_SIZE", "the command's parameter size is wrong"},
	{0x1c, "TPM_FAILEDSELFTEST", "the TPM failed its self-test"},
	{0x1d, "TPM_AUTH2FAIL", "the second authorization value is wrong"},
	{0x1e, "TPM_BADTAG", "the tag of the command is wrong"},
	{0x1f, "TPM_IOERROR", "an I/O error inside the TPM"},
	{0x22, "TPM_INVALID_AUTHHANDLE", "the authorization session handle "
	 "is not valid"},
	{0x23, "TPM_NO_ENDORSEMENT", "the TPM has no endorsement key"},
	{0x24, "TPM_INVALID_KEYUSAGE", "the key cannot be used for this"},
	{0x25, "TPM_WRONG_ENTITYTYPE", "the entity type is wrong"},
	{0x26, "TPM_INVALID_POSTINIT", "the command came in the wrong order "
	 "after TPM_Init (TPM_Startup missing?)"},
	{0x2d, "TPM_BAD_PRESENCE", "physical presence is required and not "
	 "asserted"},
	{0x38, "TPM_NO_NV_PERMISSION", "the NV area's permissions refuse "
	 "this"},
	{0x3b, "TPM_AUTH_CONFLICT", "the NV area needs an authorization "
	 "that conflicts with this one"},
	{0x3c, "TPM_AREA_LOCKED", "the NV area is locked"},
	{0x3d, "TPM_BAD_LOCALITY", "the command was sent at a locality that "
	 "is not allowed (PCRs 17-22 need a higher locality)"},
	{0x3e, "TPM_READ_ONLY", "the NV area is read-only"},
	{0x3f, "TPM_PER_NOWRITE", "there is no protection on the write to "
	 "the NV area"},
	{0x41, "TPM_WRITE_LOCKED", "the NV area is write-locked"},
	{0x42, "TPM_BAD_ATTRIBUTES", "the NV attributes are not valid"},
	{0x46, "TPM_NOT_FULLWRITE", "the write is not a complete one"},
	{0x48, "TPM_MAXNVWRITES", "too many NV writes without an owner"},
	{0x4a, "TPM_RESOURCEMISSING", "the handle is not loaded"},
	{0x800, "TPM_RETRY", "the TPM is busy; try again"},
	{0x801, "TPM_NEEDS_SELFTEST", "the TPM needs a full self-test"},
	{0x802, "TPM_DOING_SELFTEST", "the TPM is running its self-test"},
	{0x803, "TPM_DEFEND_LOCK_RUNNING", "the TPM is defending against a "
	 "dictionary attack and refuses authorizations for a while"},
};

void tpm12_rc_describe(uint32_t rc, char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(rcs) / sizeof(rcs[0]); i++)
		if (rcs[i].rc == rc) {
			snprintf(buf, n, "%s: %s", rcs[i].name, rcs[i].text);
			return;
		}
	snprintf(buf, n, "TPM 1.2 error 0x%x", rc);
}

int tpm12_rc_exit(uint32_t rc)
{
	switch (rc) {
	case 0x01:	/* AUTHFAIL */
	case 0x1d:	/* AUTH2FAIL */
	case 0x18:	/* WRONGPCRVAL */
	case 0x38:	/* NO_NV_PERMISSION */
		return EX_AUTH;
	case 0x803:	/* DEFEND_LOCK_RUNNING */
		return EX_LOCKOUT;
	case 0x02:	/* BADINDEX */
	case 0x0c:	/* INVALID_KEYHANDLE */
	case 0x0d:	/* KEYNOTFOUND */
		return EX_NOENT;
	}
	return EX_FAIL;
}

int tpm12_parse(const uint8_t *rsp, size_t rlen, uint32_t ord, int na,
		uint32_t *rc, const uint8_t **body, size_t *blen,
		struct tberr *e)
{
	static const uint16_t tags[] = {
		TPM12_TAG_RSP_COMMAND, TPM12_TAG_RSP_AUTH1_COMMAND,
		TPM12_TAG_RSP_AUTH2_COMMAND
	};
	const char *name = tpm12_ord_name(ord);
	size_t trail = (size_t)na * TPM12_RSP_AUTH_SIZE;
	struct tb r;
	uint16_t tag;
	uint32_t size;

	tb_init_read(&r, rsp, rlen);
	tag = tb_get_u16(&r);
	size = tb_get_u32(&r);
	*rc = tb_get_u32(&r);
	if (tb_err(&r) || size != rlen)
		return err_set(e, EX_IO, "%s: malformed response header "
			       "(%zu bytes read)", name, rlen);
	if (*rc != 0) {
		/* The short form, always: no body, no auth trailer. */
		if (tag != TPM12_TAG_RSP_COMMAND || rlen != 10)
			return err_set(e, EX_IO, "%s: malformed error "
				       "response", name);
		*body = NULL;
		*blen = 0;
		return 0;
	}
	if (na < 0 || na > 2 || tag != tags[na])
		return err_set(e, EX_IO, "%s: response has the wrong tag "
			       "0x%04x", name, tag);
	if (tb_left(&r) < trail)
		return err_set(e, EX_IO, "%s: truncated response", name);
	*blen = tb_left(&r) - trail;
	*body = tb_get_ref(&r, *blen);
	return 0;
}

/* Commands whose response carries secrets: masked in traces. */
static int sensitive_rsp(uint32_t ord)
{
	return ord == TPM12_ORD_GetRandom || ord == 0x18 || ord == 0xcf ||
	       ord == 0xd0;
}

/* Bytes of a command shown in traces: TPM_Seal's data (a secret in
 * clear) masked after the header; NV_WriteValue(Auth) keeps its header,
 * index, offset and size, the data (and the trailer) masked. */
static size_t cmd_shown(uint32_t ord, size_t n)
{
	if (ord == 0x17)
		return n > 10 ? 10 : n;
	return (ord == 0xcd || ord == 0xce) && n > 22 ? 22 : n;
}

static void trace(struct tpm *t, char dir, uint32_t ord, const uint8_t *p,
		  size_t n, size_t keep)
{
	uint8_t copy[TPM_BUF_SIZE];

	if (!t->trace || n > sizeof(copy))
		return;
	memcpy(copy, p, n);
	if (keep < n)
		memset(copy + keep, 0, n - keep);
	t->trace(dir, ord, copy, n);
	explicit_bzero(copy, n);
}

static uint32_t be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/* Keys and sessions this process loaded (struct tpm's own[], as on
 * 2.0): never taken for another's leftovers. */
static void own_note(struct tpm *t, const struct tpm12_call *c)
{
	int i;

	/* Sessions the command ended (continueAuthSession 0) */
	for (i = 0; i < c->na; i++)
		if (!c->auth[i]->active)
			tpm_own_drop(t, c->auth[i]->handle);
	if (c->ord == TPM12_ORD_FlushSpecific && c->inlen >= 4)
		tpm_own_drop(t, be32(c->in));
	else if ((c->ord == TPM12_ORD_OIAP || c->ord == TPM12_ORD_OSAP ||
		  c->ord == TPM12_ORD_LoadKey2) && c->outlen >= 4)
		tpm_own_add(t, be32(c->out));
}

/* A process killed with keys loaded or sessions open leaves them in a
 * TPM 1.2 (nothing flushes for it: no resource manager, tcsd aside), and
 * after some dozens TPM_LoadKey2 says TPM_NOSPACE, TPM_OIAP
 * TPM_RESOURCES.  Only one process can use the TPM at a time, so a
 * loaded key or open session that is not this process's is a leftover:
 * TPM_FlushSpecific takes it.  Returns the number flushed. */
static unsigned flush_leftovers(struct tpm *t)
{
	static const uint32_t rts[2] = { TPM12_RT_KEY, TPM12_RT_AUTH };
	struct tberr keep = *t->e;
	uint32_t hs[64];
	unsigned flushed = 0, n, i;
	int k;

	if (t->nown > TPM2_OWN_MAX)
		return 0;
	t->in_recovery = 1;
	for (k = 0; k < 2; k++) {
		const uint8_t *p;
		size_t len;
		struct tb r;

		/* TPM_KEY_HANDLE_LIST: a UINT16 count, then the handles */
		if (tpm12_getcap(t, TPM12_CAP_HANDLE, rts[k], &p, &len))
			break;
		tb_init_read(&r, p, len);
		n = tb_get_u16(&r);
		for (i = 0; i < n && i < 64; i++)
			hs[i] = tb_get_u32(&r);
		if (tb_err(&r) || tb_left(&r) || n > 64)
			break;
		for (i = 0; i < n; i++)
			if (!tpm_own_has(t, hs[i]) &&
			    tpm12_flush(t, hs[i], rts[k]) == 0)
				flushed++;
	}
	t->in_recovery = 0;
	*t->e = keep;
	t->nflushed += flushed;
	return flushed;
}

int tpm12_call(struct tpm *t, struct tpm12_call *c)
{
	static const uint16_t rqu[] = {
		TPM12_TAG_RQU_COMMAND, TPM12_TAG_RQU_AUTH1_COMMAND,
		TPM12_TAG_RQU_AUTH2_COMMAND
	};
	const char *name = tpm12_ord_name(c->ord);
	uint8_t digest[20];
	const uint8_t *body;
	size_t rlen, blen, size_at;
	struct tb b;
	char what[200];
	int i, rc, resent = 0;

	static const uint8_t none[1];
	const uint8_t *in = c->in ? c->in : none;

	if (c->na < 0 || c->na > 2 || c->in_handles > c->inlen ||
	    (!c->in && c->inlen))
		return err_set(t->e, EX_FAIL, "%s: bad call", name);
again:
	tb_init(&b, t->cmd, sizeof(t->cmd));
	tb_put_u16(&b, rqu[c->na]);
	size_at = tb_reserve32(&b);
	tb_put_u32(&b, c->ord);
	tb_put_bytes(&b, in, c->inlen);
	if (c->na) {
		tpm12_param_digest(c->ord, 0, 0, in + c->in_handles,
				   c->inlen - c->in_handles, digest);
		for (i = 0; i < c->na; i++)
			if (tpm12_sess_put(c->auth[i], digest, &b))
				return err_set(t->e, EX_FAIL, "%s: no random "
					       "bytes for a nonce", name);
	}
	if (!tb_err(&b)) {
		uint32_t n = (uint32_t)b.len;

		b.p[size_at] = (uint8_t)(n >> 24);
		b.p[size_at + 1] = (uint8_t)(n >> 16);
		b.p[size_at + 2] = (uint8_t)(n >> 8);
		b.p[size_at + 3] = (uint8_t)n;
	}
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "%s: command too large", name);
	trace(t, '>', c->ord, b.p, b.len, cmd_shown(c->ord, b.len));
	t->ncmds++;
	rc = xport_transmit(&t->x, b.p, b.len, t->rsp, sizeof(t->rsp), &rlen,
			    t->e);
	explicit_bzero(t->cmd, b.len);
	if (rc)
		return err_prefix(t->e, "%s", name);
	trace(t, '<', c->ord, t->rsp, rlen,
	      sensitive_rsp(c->ord) ? 10 : rlen);
	if ((rc = tpm12_parse(t->rsp, rlen, c->ord, c->na, &c->rc, &body,
			      &blen, t->e)))
		return rc;
	/* Out of room: leftovers of a killed process flushed, and a
	 * command without sessions sent again (one with sessions cannot
	 * be: its sessions ended; tpm12_call_oiap starts a new one). */
	if ((c->rc == TPM12_NOSPACE || c->rc == TPM12_RESOURCES) &&
	    !t->in_recovery && !xport_has_rm(&t->x) &&
	    flush_leftovers(t) && c->na == 0 && !resent) {
		resent = 1;
		goto again;
	}
	if (c->rc) {
		/* A failed command ends its sessions (Part 1, 11.2). */
		for (i = 0; i < c->na; i++) {
			c->auth[i]->active = 0;
			tpm_own_drop(t, c->auth[i]->handle);
		}
		tpm12_rc_describe(c->rc, what, sizeof(what));
		err_set(t->e, tpm12_rc_exit(c->rc), "%s: %s", name, what);
		t->e->rc = c->rc;
		return t->e->code;
	}
	if (c->out_handles > blen)
		return err_set(t->e, EX_IO, "%s: truncated response", name);
	if (c->na) {
		tpm12_param_digest(0, c->ord, 1, body + c->out_handles,
				   blen - c->out_handles, digest);
		for (i = 0; i < c->na; i++)
			if ((rc = tpm12_sess_check(c->auth[i], digest,
						   body + blen + (size_t)i *
						   TPM12_RSP_AUTH_SIZE, name,
						   t->e)))
				return rc;
	}
	c->out = body;
	c->outlen = blen;
	own_note(t, c);
	return 0;
}

int tpm12_flush(struct tpm *t, uint32_t handle, uint32_t rt)
{
	struct tpm12_call c = { .ord = TPM12_ORD_FlushSpecific };
	uint8_t in[8];
	struct tb b;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, handle);
	tb_put_u32(&b, rt);
	c.in = in;
	c.inlen = b.len;
	rc = tpm12_call(t, &c);
	if (rc == 0 && c.outlen)
		rc = err_set(t->e, EX_IO, "TPM_FlushSpecific: unexpected "
			     "bytes in the response");
	return rc;
}
