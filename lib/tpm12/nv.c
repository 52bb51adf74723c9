/* TPM 1.2 NV storage (tpm12/nv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/auth.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/hex.h"
#include "base/optscan.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/da.h"
#include "tpm12/nv.h"
#include "tpm12/session.h"

#define TAG_NV_DATA_PUBLIC	0x0018
#define TAG_NV_ATTRIBUTES	0x0017

int tpm12_nv_public_parse(const uint8_t *p, size_t n,
			  struct tpm12_nv_public *out)
{
	struct tb r;

	memset(out, 0, sizeof(*out));
	tb_init_read(&r, p, n);
	if (tb_get_u16(&r) != TAG_NV_DATA_PUBLIC)
		return -1;
	out->index = tb_get_u32(&r);
	tpm12_get_pcr_info(&r, TPM12_PCR_INFO_SHORT, &out->read);
	tpm12_get_pcr_info(&r, TPM12_PCR_INFO_SHORT, &out->write);
	if (tb_get_u16(&r) != TAG_NV_ATTRIBUTES)
		return -1;
	out->perm = tb_get_u32(&r);
	out->read_stclear = tb_get_u8(&r);
	out->write_stclear = tb_get_u8(&r);
	out->write_define = tb_get_u8(&r);
	out->size = tb_get_u32(&r);
	if (tb_err(&r) || tb_left(&r) || out->read_stclear > 1 ||
	    out->write_stclear > 1 || out->write_define > 1 ||
	    out->size > TPM12_NV_SIZE_MAX)
		return -1;
	return 0;
}

int tpm12_nv_public(struct tpm *t, uint32_t index,
		    struct tpm12_nv_public *out)
{
	const uint8_t *p;
	size_t n;
	int rc;

	if ((rc = tpm12_getcap(t, TPM12_CAP_NV_INDEX, index, &p, &n))) {
		if (rc == EX_NOENT) {	/* TPM_BADINDEX: TPM 2.0's words */
			err_set(t->e, EX_NOENT, "NV index 0x%08x is not "
				"defined", index);
			err_hint(t->e, "nvlist shows the defined indices");
		}
		return rc;
	}
	if (tpm12_nv_public_parse(p, n, out) || out->index != index)
		return err_set(t->e, EX_IO, "TPM_GetCapability(NV_INDEX, "
			       "0x%08x): malformed TPM_NV_DATA_PUBLIC", index);
	return 0;
}

/* Part 2, 19.2: the bits, named as tpm-tools names them. */
static const struct {
	uint32_t bit;
	const char *name;
} perm_names[] = {
	{ TPM12_NV_PER_READ_STCLEAR, "READ_STCLEAR" },
	{ TPM12_NV_PER_AUTHREAD, "AUTHREAD" },
	{ TPM12_NV_PER_OWNERREAD, "OWNERREAD" },
	{ TPM12_NV_PER_PPREAD, "PPREAD" },
	{ TPM12_NV_PER_GLOBALLOCK, "GLOBALLOCK" },
	{ TPM12_NV_PER_WRITE_STCLEAR, "WRITE_STCLEAR" },
	{ TPM12_NV_PER_WRITEDEFINE, "WRITEDEFINE" },
	{ TPM12_NV_PER_WRITEALL, "WRITEALL" },
	{ TPM12_NV_PER_AUTHWRITE, "AUTHWRITE" },
	{ TPM12_NV_PER_OWNERWRITE, "OWNERWRITE" },
	{ TPM12_NV_PER_PPWRITE, "PPWRITE" },
};
#define NPERM (sizeof(perm_names) / sizeof(perm_names[0]))

void tpm12_nv_perm_format(uint32_t perm, char *out, size_t cap)
{
	size_t i, len = 0;
	uint32_t rest = perm;

	snprintf(out, cap, "0");
	for (i = 0; i < NPERM; i++) {
		if (!(perm & perm_names[i].bit))
			continue;
		rest &= ~perm_names[i].bit;
		snprintf(out + len, cap - len, "%s%s", len ? "|" : "",
			 perm_names[i].name);
		len = strlen(out);
	}
	if (rest)
		snprintf(out + len, cap - len, "%s0x%08x", len ? "|" : "",
			 rest);
}

int tpm12_nv_perm_parse(const char *s, uint32_t *perm, struct tberr *e)
{
	const char *p = s;
	uint32_t a = 0;
	uint64_t num;
	char tok[64];
	size_t i;

	while (p) {
		if (optword_next(&p, s, "permission", tok, sizeof(tok), e))
			return e->code;
		if (parse_u64(tok, &num) == 0) {
			if (num > 0xffffffffu)
				return err_set(e, EX_USAGE, "permission value "
					       "%s does not fit 32 bits", tok);
			a |= (uint32_t)num;
		} else {
			for (i = 0; i < NPERM; i++)
				if (strcasecmp(tok, perm_names[i].name) == 0)
					break;
			if (i == NPERM)
				return err_set(e, EX_USAGE, "unknown TPM 1.2 "
					       "permission '%s' (OWNERREAD, "
					       "OWNERWRITE, AUTHREAD, AUTHWRITE,"
					       " PPREAD, PPWRITE, WRITEDEFINE, "
					       "WRITE_STCLEAR, READ_STCLEAR, "
					       "GLOBALLOCK, WRITEALL)", tok);
			a |= perm_names[i].bit;
		}
	}
	*perm = a;
	return 0;
}

void tpm12_nv_public_init(struct tpm12_nv_public *p, uint32_t index,
			  uint32_t perm, uint32_t size)
{
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->read.kind = p->write.kind = TPM12_PCR_INFO_SHORT;
	p->read.release.size = p->write.release.size = 3;
	p->read.loc_release = p->write.loc_release = TPM12_LOC_ALL;
	p->perm = perm;
	p->size = size;
}

void tpm12_put_nv_public(struct tb *b, const struct tpm12_nv_public *p)
{
	if (p->read.kind != TPM12_PCR_INFO_SHORT ||
	    p->write.kind != TPM12_PCR_INFO_SHORT) {
		tb_fail(b);
		return;
	}
	tb_put_u16(b, TAG_NV_DATA_PUBLIC);
	tb_put_u32(b, p->index);
	tpm12_put_pcr_info(b, &p->read);
	tpm12_put_pcr_info(b, &p->write);
	tb_put_u16(b, TAG_NV_ATTRIBUTES);
	tb_put_u32(b, p->perm);
	tb_put_u8(b, (uint8_t)(p->read_stclear != 0));
	tb_put_u8(b, (uint8_t)(p->write_stclear != 0));
	tb_put_u8(b, (uint8_t)(p->write_define != 0));
	tb_put_u32(b, p->size);
}

/* TPM_NV_DefineSpace: OSAP on the owner, encAuth by ADIP, the session
 * ended by the command. */
static int define(struct tpm *t, const uint8_t owner[20],
		  const uint8_t auth[20], const struct tpm12_nv_public *p)
{
	struct tpm12_call c = { .ord = TPM12_ORD_NV_DefineSpace };
	uint8_t in[256], enc[20];
	struct tpm12_sess s;
	struct tb b;
	int rc;

	if ((rc = tpm12_osap(t, TPM12_ET_OWNER, TPM12_KH_OWNER, owner, &s)))
		return rc;
	tpm12_adip(&s, auth, enc);
	tb_init(&b, in, sizeof(in));
	tpm12_put_nv_public(&b, p);
	tb_put_bytes(&b, enc, sizeof(enc));
	explicit_bzero(enc, sizeof(enc));
	if (tb_err(&b)) {
		tpm12_sess_end(t, &s);
		return err_set(t->e, EX_FAIL, "TPM_NV_DefineSpace: bad "
			       "TPM_NV_DATA_PUBLIC");
	}
	c.in = in;
	c.inlen = b.len;
	c.na = 1;
	c.auth[0] = &s;
	s.cont = 0;
	rc = tpm12_call(t, &c);
	explicit_bzero(in, sizeof(in));
	if (!rc && c.outlen)
		rc = err_set(t->e, EX_IO, "TPM_NV_DefineSpace: unexpected "
			     "bytes in the response");
	if (!rc && s.active)
		rc = err_set(t->e, EX_IO, "TPM_NV_DefineSpace: the TPM kept "
			     "a session it was asked to end");
	if (rc)
		return tpm12_sess_end_keep(t, &s, rc);
	explicit_bzero(&s, sizeof(s));
	return 0;
}

int tpm12_nv_define(struct tpm *t, const uint8_t owner[20],
		    const uint8_t auth[20], const struct tpm12_nv_public *p)
{
	if (p->size == 0)
		return err_set(t->e, EX_FAIL, "TPM_NV_DefineSpace: a size of "
			       "0 would release the index");
	return define(t, owner, auth, p);
}

int tpm12_nv_release(struct tpm *t, const uint8_t owner[20],
		     const struct tpm12_nv_public *p)
{
	static const uint8_t none[20];
	struct tpm12_nv_public z = *p;

	z.size = 0;
	return define(t, owner, none, &z);
}

int tpm12_nv_index_parse(const char *s, uint32_t *index, struct tberr *e)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > 0xffffffffu)
		return err_set(e, EX_USAGE, "bad NV index '%s' (a TPM 1.2 "
			       "index is 32 bits, hex or decimal)", s);
	*index = (uint32_t)v;
	return 0;
}

int tpm12_nv_access_pick(const struct tpm12_nv_public *p, int write,
			 const char *auth_s, const char *owner_s,
			 struct tpm12_nv_access *x, struct tberr *e)
{
	uint32_t by_auth = write ? TPM12_NV_PER_AUTHWRITE
				 : TPM12_NV_PER_AUTHREAD;
	uint32_t by_owner = write ? TPM12_NV_PER_OWNERWRITE
				  : TPM12_NV_PER_OWNERREAD;
	const char *op = write ? "writing" : "reading";

	x->index = p->index;
	if (auth_s && !(p->perm & by_auth))
		return err_set(e, EX_USAGE, "NV index 0x%08x does not take "
			       "its own value for %s (no %s)%s", p->index, op,
			       write ? "AUTHWRITE" : "AUTHREAD",
			       p->perm & by_owner ? ": give the owner's "
			       "(--owner-auth)" : ": it needs none");
	if (owner_s && !(p->perm & by_owner))
		return err_set(e, EX_USAGE, "NV index 0x%08x does not take "
			       "the owner's value for %s (no %s)%s", p->index,
			       op, write ? "OWNERWRITE" : "OWNERREAD",
			       p->perm & by_auth ? ": give its own (--auth)" :
			       ": it needs none");
	if (p->perm & by_auth)
		x->by = TPM12_NV_BY_INDEX;
	else if (p->perm & by_owner)
		x->by = TPM12_NV_BY_OWNER;
	else
		x->by = TPM12_NV_BY_NONE;
	return tpm12_nv_auth_value(auth_s ? auth_s : owner_s, x->auth, e);
}

int tpm12_nv_auth_value(const char *spec, uint8_t out[20], struct tberr *e)
{
	struct authval v;
	int rc;

	if (!spec) {
		tpm12_auth_value(NULL, out);
		return 0;
	}
	if ((rc = auth_parse(spec, &v, e)))
		return rc;
	tpm12_auth_value(&v, out);
	auth_wipe(&v);
	return 0;
}

int tpm12_nv_refused(struct tberr *e, int rc, enum tpm12_nv_op op,
		     enum tpm12_nv_by by, int given, uint32_t index)
{
	int ix = by == TPM12_NV_BY_INDEX;

	/* EX_AUTH is also TPM_NO_NV_PERMISSION's (0x38), which is no
	 * wrong value: its own words stand. */
	if (rc == EX_AUTH && e->rc != 0x38) {
		err_set(e, EX_AUTH, "the %s value is wrong%s (the failure "
			"counts toward the lockout)", ix ? "index's" : "owner",
			given ? "" : ": the well-known secret was tried");
		err_hint(e, "give it with %s (SHA-1 of the value is the auth, "
			 "as tpm-tools makes it from a password)",
			 ix ? "--auth" : "--owner-auth");
	} else if (rc && e->rc == 0x2d && op != TPM12_NV_OP_DEFINE) {
		/* TPM_BAD_PRESENCE */
		err_set(e, EX_AUTH, "NV index 0x%08x has %s: %s it needs "
			"physical presence, which is not asserted", index,
			op == TPM12_NV_OP_READ ? "PPREAD" : "PPWRITE",
			op == TPM12_NV_OP_READ ? "reading" : "writing");
		err_hint(e, "the platform asserts physical presence (a "
			 "firmware menu or the physical presence interface); "
			 "tpmbox does not");
	}
	return rc;
}

int tpm12_nv_chunk(struct tpm *t, size_t *chunk)
{
	/* A write's own bytes: header 10, index, offset, size 12, one
	 * authorization 45; a read's answer: 10, size 4, authorization 41.
	 * 128 leaves room for both. */
	uint32_t v;
	int rc;

	if ((rc = tpm12_getprop(t, TPM12_CAP_PROP_INPUT_BUFFER, &v))) {
		if (!t->e->rc)
			return rc;	/* transport or a malformed answer */
		err_clear(t->e);
		*chunk = TPM12_NV_CHUNK_DEFAULT;
		return 0;
	}
	if (v > TPM_BUF_SIZE)
		v = TPM_BUF_SIZE;
	*chunk = v > 192 ? v - 128 : 64;
	return 0;
}

/* The session for a read or write (none: s->active 0). */
static int nv_begin(struct tpm *t, const struct tpm12_nv_access *x,
		    struct tpm12_sess *s)
{
	memset(s, 0, sizeof(*s));
	if (x->by == TPM12_NV_BY_OWNER)
		return tpm12_osap(t, TPM12_ET_OWNER, TPM12_KH_OWNER, x->auth,
				  s);
	if (x->by == TPM12_NV_BY_INDEX)
		return tpm12_osap(t, TPM12_ET_NV, x->index, x->auth, s);
	return 0;
}

/* One command of a read or write: authorized by s unless x->by is
 * NONE; the last one ends the session. */
static int nv_one(struct tpm *t, const struct tpm12_nv_access *x,
		  struct tpm12_sess *s, struct tpm12_call *c, int last)
{
	if (x->by != TPM12_NV_BY_NONE) {
		c->na = 1;
		c->auth[0] = s;
		s->cont = last ? 0 : 1;
	}
	return tpm12_call(t, c);
}

/* Check a job before it starts: offset + n must fit 32 bits, and x's
 * chunks the TPM's buffer. */
static int range_ok(struct tpm *t, const struct tpm12_nv_access *x,
		    uint32_t ord, uint32_t offset, size_t n)
{
	if (n > 0xffffffffu || offset > 0xffffffffu - n)
		return err_set(t->e, EX_USAGE, "the NV range does not fit 32 "
			       "bits");
	if (x->chunk == 0 || x->chunk > TPM_BUF_SIZE - 128)
		return err_set(t->e, EX_FAIL, "%s: bad chunk size",
			       tpm12_ord_name(ord));
	return 0;
}

int tpm12_nv_write(struct tpm *t, const struct tpm12_nv_access *x,
		   const uint8_t *data, size_t n, uint32_t offset)
{
	uint32_t ord = x->by == TPM12_NV_BY_INDEX ? TPM12_ORD_NV_WriteValueAuth
						  : TPM12_ORD_NV_WriteValue;
	struct tpm12_sess s;
	size_t done = 0;
	uint8_t *in;
	int rc;

	if ((rc = range_ok(t, x, ord, offset, n)))
		return rc;
	if (!(in = malloc(12 + x->chunk)))
		return err_set(t->e, EX_FAIL, "out of memory");
	if ((rc = nv_begin(t, x, &s))) {
		free(in);
		return rc;
	}
	do {
		size_t k = n - done > x->chunk ? x->chunk : n - done;
		struct tpm12_call c = { .ord = ord };
		struct tb b;

		tb_init(&b, in, 12 + x->chunk);
		tb_put_u32(&b, x->index);
		tb_put_u32(&b, offset + (uint32_t)done);
		tb_put_u32(&b, (uint32_t)k);
		if (k)
			tb_put_bytes(&b, data + done, k);
		c.in = in;
		c.inlen = b.len;
		rc = nv_one(t, x, &s, &c, done + k == n);
		explicit_bzero(in, b.len);
		if (!rc && c.outlen)
			rc = err_set(t->e, EX_IO, "%s: unexpected bytes in "
				     "the response", tpm12_ord_name(ord));
		if (rc)
			break;
		done += k;
	} while (done < n);
	free(in);
	return tpm12_sess_last(t, &s, rc, NULL);
}

int tpm12_nv_read(struct tpm *t, const struct tpm12_nv_access *x,
		  uint8_t *out, size_t n, uint32_t offset)
{
	uint32_t ord = x->by == TPM12_NV_BY_INDEX ? TPM12_ORD_NV_ReadValueAuth
						  : TPM12_ORD_NV_ReadValue;
	struct tpm12_sess s;
	size_t done = 0;
	int rc;

	if ((rc = range_ok(t, x, ord, offset, n)))
		return rc;
	if ((rc = nv_begin(t, x, &s)))
		return rc;
	do {
		size_t k = n - done > x->chunk ? x->chunk : n - done;
		struct tpm12_call c = { .ord = ord };
		uint8_t in[12];
		struct tb b, r;
		uint32_t got;

		tb_init(&b, in, sizeof(in));
		tb_put_u32(&b, x->index);
		tb_put_u32(&b, offset + (uint32_t)done);
		tb_put_u32(&b, (uint32_t)k);
		c.in = in;
		c.inlen = b.len;
		if ((rc = nv_one(t, x, &s, &c, done + k == n)))
			break;
		tb_init_read(&r, c.out, c.outlen);
		got = tb_get_u32(&r);
		if (tb_err(&r) || got != k || tb_left(&r) != k) {
			rc = err_set(t->e, EX_IO, "%s: the TPM returned %s "
				     "than the %zu bytes asked for",
				     tpm12_ord_name(ord), tb_err(&r) ||
				     got < k || tb_left(&r) < k ? "fewer" :
				     "more", k);
			break;
		}
		if (k)
			tb_get_bytes(&r, out + done, k);
		done += k;
	} while (done < n);
	return tpm12_sess_last(t, &s, rc, NULL);
}
