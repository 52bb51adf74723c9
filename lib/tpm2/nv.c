#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/optscan.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

/* Largest chunk we marshal, whatever the TPM reports: the command must
 * fit TPM_BUF_SIZE with room for handles and a session. */
#define NV_CHUNK_CAP 4096

/* ---- attribute grammar ---- */

static const struct {
	uint32_t bit;
	const char *name;
} attr_names[] = {
	{TPMA_NV_PPWRITE, "ppwrite"},
	{TPMA_NV_OWNERWRITE, "ownerwrite"},
	{TPMA_NV_AUTHWRITE, "authwrite"},
	{TPMA_NV_POLICYWRITE, "policywrite"},
	{TPMA_NV_POLICY_DELETE, "policydelete"},
	{TPMA_NV_WRITELOCKED, "writelocked"},
	{TPMA_NV_WRITEALL, "writeall"},
	{TPMA_NV_WRITEDEFINE, "writedefine"},
	{TPMA_NV_WRITE_STCLEAR, "write_stclear"},
	{TPMA_NV_GLOBALLOCK, "globallock"},
	{TPMA_NV_PPREAD, "ppread"},
	{TPMA_NV_OWNERREAD, "ownerread"},
	{TPMA_NV_AUTHREAD, "authread"},
	{TPMA_NV_POLICYREAD, "policyread"},
	{TPMA_NV_NO_DA, "no_da"},
	{TPMA_NV_ORDERLY, "orderly"},
	{TPMA_NV_CLEAR_STCLEAR, "clear_stclear"},
	{TPMA_NV_READLOCKED, "readlocked"},
	{TPMA_NV_WRITTEN, "written"},
	{TPMA_NV_PLATFORMCREATE, "platformcreate"},
	{TPMA_NV_READ_STCLEAR, "read_stclear"},
	/* Accepted spellings, never printed. */
	{TPMA_NV_POLICY_DELETE, "policy_delete"},
	{TPMA_NV_GLOBALLOCK, "global_lock"},
};
#define NATTR (sizeof(attr_names) / sizeof(attr_names[0]))
#define NATTR_CANON 21

static const struct {
	unsigned nt;
	const char *name;
} type_names[] = {
	{TPM2_NT_ORDINARY, "ordinary"},
	{TPM2_NT_COUNTER, "counter"},
	{TPM2_NT_BITS, "bits"},
	{TPM2_NT_EXTEND, "extend"},
	{TPM2_NT_PIN_FAIL, "pinfail"},
	{TPM2_NT_PIN_PASS, "pinpass"},
};

int nv_type_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strcmp(s, type_names[i].name) == 0)
			return (int)type_names[i].nt;
	return -1;
}

const char *nv_type_name(unsigned nt)
{
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].nt == nt)
			return type_names[i].name;
	return "unknown";
}

int nv_index_parse(const char *s, uint32_t *index, struct tberr *e)
{
	uint64_t v;

	if (parse_u64(s, &v))
		return err_set(e, EX_USAGE, "bad NV index '%s' (0x01000000-"
			       "0x01ffffff, hex or decimal)", s);
	if (v < NV_INDEX_FIRST || v > NV_INDEX_LAST)
		return err_set(e, EX_USAGE, "0x%llx is not an NV index (NV "
			       "indices are 0x01000000-0x01ffffff)",
			       (unsigned long long)v);
	*index = (uint32_t)v;
	return 0;
}

int nv_attr_parse(const char *s, uint32_t *attrs, struct tberr *e)
{
	char tok[64];
	const char *p = s;
	uint32_t a = 0;
	uint64_t num;
	int nt = -1;
	size_t i;

	if (parse_u64(s, &num) == 0) {
		if (num > 0xffffffffu)
			return err_set(e, EX_USAGE, "attribute value %s does "
				       "not fit 32 bits", s);
		*attrs = (uint32_t)num;
		return 0;
	}
	while (p) {
		if (optword_next(&p, s, "attribute", tok, sizeof(tok), e))
			return e->code;
		if (strncmp(tok, "nt=", 3) == 0) {
			int t = nv_type_parse(tok + 3);

			if (t < 0) {
				if (parse_u64(tok + 3, &num) || num > 0xf)
					return err_set(e, EX_USAGE, "unknown "
						       "index type '%s' (ordinary"
						       ", counter, bits, extend,"
						       " pinfail, pinpass)",
						       tok + 3);
				t = (int)num;
			}
			if (nt >= 0 && nt != t)
				return err_set(e, EX_USAGE, "two index types "
					       "in '%s'", s);
			nt = t;
		} else {
			for (i = 0; i < NATTR; i++)
				if (strcmp(tok, attr_names[i].name) == 0)
					break;
			if (i == NATTR)
				return err_set(e, EX_USAGE, "unknown attribute "
					       "'%s'", tok);
			a |= attr_names[i].bit;
		}
	}
	if (nt > 0)
		a |= (uint32_t)nt << TPMA_NV_TPM_NT_SHIFT;
	*attrs = a;
	return 0;
}

static void append(char *buf, size_t n, size_t *len, const char *s)
{
	size_t k = strlen(s), sep = *len ? 1 : 0;

	if (n == 0)
		return;
	if (*len + sep + k < n) {
		if (sep)
			buf[(*len)++] = '|';
		memcpy(buf + *len, s, k);
		*len += k;
	} else {
		/* Truncate and stop appending. */
		*len = n - 1;
	}
	buf[*len] = '\0';
}

size_t nv_attr_format(uint32_t attrs, char *buf, size_t n)
{
	size_t len = 0, i;
	char tmp[32];
	uint32_t bit;

	if (n)
		buf[0] = '\0';
	for (bit = 1; bit; bit <<= 1) {
		if (bit == (1u << TPMA_NV_TPM_NT_SHIFT)) {
			unsigned nt = nv_type(attrs);

			if (nt == TPM2_NT_ORDINARY)
				continue;
			if (strcmp(nv_type_name(nt), "unknown") == 0)
				snprintf(tmp, sizeof(tmp), "nt=0x%x", nt);
			else
				snprintf(tmp, sizeof(tmp), "nt=%s",
					 nv_type_name(nt));
			append(buf, n, &len, tmp);
			continue;
		}
		if (!(attrs & bit) || (bit & TPMA_NV_TPM_NT_MASK))
			continue;
		for (i = 0; i < NATTR_CANON; i++)
			if (attr_names[i].bit == bit)
				break;
		if (i < NATTR_CANON) {
			append(buf, n, &len, attr_names[i].name);
		} else {
			snprintf(tmp, sizeof(tmp), "reserved=0x%x", bit);
			append(buf, n, &len, tmp);
		}
	}
	return len;
}

/* ---- public area and name ---- */

void nv_public_marshal(struct tb *b, const struct nv_public *p)
{
	tb_put_u32(b, p->index);
	tb_put_u16(b, p->name_alg);
	tb_put_u32(b, p->attrs);
	tb_put_tpm2b(b, p->policy, p->policy_len);
	tb_put_u16(b, p->size);
}

void nv_public_unmarshal(struct tb *b, struct nv_public *p)
{
	p->index = tb_get_u32(b);
	p->name_alg = tb_get_u16(b);
	p->attrs = tb_get_u32(b);
	p->policy_len = tb_get_tpm2b(b, p->policy, sizeof(p->policy));
	p->size = tb_get_u16(b);
}

int nv_compute_name(struct nv_public *p, struct tberr *e)
{
	uint8_t mem[16 + TPM2_MAX_DIGEST];
	size_t dlen = hash_size(p->name_alg);
	struct tb b;

	if (!dlen || !hash_supported(p->name_alg))
		return err_set(e, EX_FAIL, "NV index 0x%08x: name algorithm "
			       "0x%04x is not one tpmbox can compute",
			       p->index, p->name_alg);
	tb_init(&b, mem, sizeof(mem));
	nv_public_marshal(&b, p);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "NV index 0x%08x: public area too "
			       "large", p->index);
	p->name[0] = (uint8_t)(p->name_alg >> 8);
	p->name[1] = (uint8_t)p->name_alg;
	hash_buf(p->name_alg, mem, b.len, p->name + 2);
	p->name_len = 2 + dlen;
	return 0;
}

/* ---- commands ---- */

int tpm2_nv_limits(struct tpm *t, uint32_t *index_max, uint32_t *buffer_max)
{
	struct tpm2_prop props[64];
	size_t n;
	int rc;

	rc = tpm2_getprops(t, TPM2_PT_NV_INDEX_MAX,
			   TPM2_PT_NV_BUFFER_MAX - TPM2_PT_NV_INDEX_MAX + 1,
			   props, 64, &n);
	if (rc)
		return rc;
	if (!tpm2_prop_find(props, n, TPM2_PT_NV_INDEX_MAX, index_max) ||
	    !tpm2_prop_find(props, n, TPM2_PT_NV_BUFFER_MAX, buffer_max))
		return err_set(t->e, EX_FAIL, "the TPM does not report "
			       "TPM_PT_NV_INDEX_MAX and TPM_PT_NV_BUFFER_MAX");
	if (*buffer_max == 0 || *index_max == 0)
		return err_set(t->e, EX_IO, "the TPM reports an NV buffer or "
			       "index size of 0");
	return 0;
}

/* The missing-index message every applet shares. */
static int nv_missing(struct tpm *t, uint32_t index, uint32_t rc)
{
	if (rc && rc_base(rc) == 0x08b) {	/* TPM_RC_HANDLE */
		err_set(t->e, EX_NOENT, "NV index 0x%08x is not defined",
			index);
		t->e->rc = rc;
		err_hint(t->e, "nvlist shows the defined indices");
		return EX_NOENT;
	}
	return t->e->code;
}

int tpm2_nv_readpublic(struct tpm *t, uint32_t index, struct nv_public *p)
{
	struct tpm2_call c = { .cc = TPM2_CC_NV_ReadPublic, .nh = 1 };
	uint8_t tpmname[2 + TPM2_MAX_DIGEST];
	size_t tpmname_len, sz;
	struct tb r, sub;
	int rc;

	memset(p, 0, sizeof(*p));
	c.h[0] = index;
	if (tpm2_call(t, &c))
		return nv_missing(t, index, c.rc);
	tb_init_read(&r, c.rparams, c.rplen);
	sz = tb_get_u16(&r);
	tb_sub(&r, sz, &sub);
	nv_public_unmarshal(&sub, p);
	if (tb_left(&sub))
		tb_fail(&r);
	tpmname_len = tb_get_tpm2b(&r, tpmname, sizeof(tpmname));
	if (tb_err(&r) || tb_err(&sub) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_NV_ReadPublic: malformed "
			       "response for 0x%08x", index);
	if (p->index != index)
		return err_set(t->e, EX_IO, "TPM2_NV_ReadPublic: asked for "
			       "0x%08x, the TPM answered for 0x%08x", index,
			       p->index);
	if ((rc = nv_compute_name(p, t->e)))
		return rc;
	if (tpmname_len != p->name_len ||
	    memcmp(tpmname, p->name, p->name_len) != 0)
		return err_set(t->e, EX_IO, "TPM2_NV_ReadPublic: the name the "
			       "TPM returned for 0x%08x does not match its "
			       "public area", index);
	return 0;
}

static void handle_name(uint32_t h, uint8_t out[4])
{
	out[0] = (uint8_t)(h >> 24);
	out[1] = (uint8_t)(h >> 16);
	out[2] = (uint8_t)(h >> 8);
	out[3] = (uint8_t)h;
}

int tpm2_nv_define(struct tpm *t, uint32_t hier, struct tpm2_auth *ha,
		   const uint8_t *auth, size_t authlen,
		   const struct nv_public *p)
{
	struct tpm2_call c = { .cc = TPM2_CC_NV_DefineSpace, .nh = 1,
			       .na = 1 };
	uint8_t pb[256], hn[4];
	struct tb b;
	size_t at;
	int rc;

	handle_name(hier, hn);
	c.h[0] = hier;
	c.name[0].p = hn;
	c.name[0].n = 4;
	c.auth[0] = ha;
	tb_init(&b, pb, sizeof(pb));
	tb_put_tpm2b(&b, auth, authlen);
	at = tb_reserve16(&b);
	nv_public_marshal(&b, p);
	tb_patch16(&b, at);
	if (tb_err(&b))
		return err_set(t->e, EX_USAGE, "TPM2_NV_DefineSpace: "
			       "parameters too large");
	c.params = pb;
	c.plen = b.len;
	rc = tpm2_call(t, &c);
	explicit_bzero(pb, sizeof(pb));
	tpm_wipe(t);
	return rc;
}

int tpm2_nv_undefine(struct tpm *t, uint32_t hier, struct tpm2_auth *ha,
		     const struct nv_public *p)
{
	struct tpm2_call c = { .cc = TPM2_CC_NV_UndefineSpace, .nh = 2,
			       .na = 1 };
	uint8_t hn[4];

	handle_name(hier, hn);
	c.h[0] = hier;
	c.name[0].p = hn;
	c.name[0].n = 4;
	c.h[1] = p->index;
	c.name[1].p = p->name;
	c.name[1].n = p->name_len;
	c.auth[0] = ha;
	if (tpm2_call(t, &c))
		return nv_missing(t, p->index, c.rc);
	return 0;
}

/* Fill handles, names and the authorization for an NV access command. */
static void access_call(struct tpm2_call *c, uint32_t cc,
			struct nv_access *x, uint8_t hn[4])
{
	memset(c, 0, sizeof(*c));
	c->cc = cc;
	c->nh = 2;
	c->na = 1;
	c->h[0] = x->auth_handle;
	if (x->auth_handle == x->p->index) {
		c->name[0].p = x->p->name;
		c->name[0].n = x->p->name_len;
	} else {
		handle_name(x->auth_handle, hn);
		c->name[0].p = hn;
		c->name[0].n = 4;
	}
	c->h[1] = x->p->index;
	c->name[1].p = x->p->name;
	c->name[1].n = x->p->name_len;
	c->auth[0] = x->a;
}

/* After the first successful write the TPM sets WRITTEN, which changes
 * the index's name. */
static int mark_written(struct tpm *t, struct nv_access *x)
{
	if (x->p->attrs & TPMA_NV_WRITTEN)
		return 0;
	x->p->attrs |= TPMA_NV_WRITTEN;
	return nv_compute_name(x->p, t->e);
}

static size_t chunk_size(const struct nv_access *x)
{
	size_t ch = x->chunk ? x->chunk : 512;

	return ch > NV_CHUNK_CAP ? NV_CHUNK_CAP : ch;
}

static int check_range(struct tpm *t, const struct nv_access *x, size_t n,
		       size_t offset)
{
	if (offset > x->p->size || n > (size_t)x->p->size - offset)
		return err_set(t->e, EX_USAGE, "NV index 0x%08x holds %u "
			       "bytes: %zu bytes at offset %zu do not fit",
			       x->p->index, x->p->size, n, offset);
	return 0;
}

int tpm2_nv_read(struct tpm *t, struct nv_access *x, uint8_t *out,
		 size_t n, size_t offset)
{
	size_t ch = chunk_size(x), done = 0;
	uint8_t hn[4];
	int last = tpm2_trust_take_last(t), rc;

	if ((rc = check_range(t, x, n, offset)))
		return rc;
	while (done < n) {
		struct tpm2_call c;
		uint8_t pb[4];
		struct tb b, r;
		size_t want = n - done > ch ? ch : n - done, got;

		if (last && done + want == n)
			tpm2_trust_last_for(t, x->a);
		access_call(&c, TPM2_CC_NV_Read, x, hn);
		tb_init(&b, pb, sizeof(pb));
		tb_put_u16(&b, (uint16_t)want);
		tb_put_u16(&b, (uint16_t)(offset + done));
		c.params = pb;
		c.plen = b.len;
		if ((rc = tpm2_call(t, &c))) {
			tpm_wipe(t);
			return rc;
		}
		tb_init_read(&r, c.rparams, c.rplen);
		got = tb_get_tpm2b(&r, out + done, want);
		if (tb_err(&r) || tb_left(&r) || got != want) {
			tpm_wipe(t);
			return err_set(t->e, EX_IO, "TPM2_NV_Read: asked for "
				       "%zu bytes, the TPM answered with a "
				       "different size", want);
		}
		done += want;
	}
	tpm_wipe(t);
	return 0;
}

int tpm2_nv_write(struct tpm *t, struct nv_access *x, const uint8_t *data,
		  size_t n, size_t offset)
{
	size_t ch = chunk_size(x), done = 0;
	uint8_t pb[NV_CHUNK_CAP + 8], hn[4];
	int last = tpm2_trust_take_last(t), rc;

	if ((rc = check_range(t, x, n, offset)))
		return rc;
	do {
		struct tpm2_call c;
		struct tb b;
		size_t now = n - done > ch ? ch : n - done;

		if (last && done + now == n)
			tpm2_trust_last_for(t, x->a);
		access_call(&c, TPM2_CC_NV_Write, x, hn);
		tb_init(&b, pb, sizeof(pb));
		tb_put_tpm2b(&b, data + done, now);
		tb_put_u16(&b, (uint16_t)(offset + done));
		c.params = pb;
		c.plen = b.len;
		rc = tpm2_call(t, &c);
		explicit_bzero(pb, b.len);
		if (rc) {
			tpm_wipe(t);
			return rc;
		}
		if ((rc = mark_written(t, x)))
			return rc;
		done += now;
	} while (done < n);
	tpm_wipe(t);
	return 0;
}

int tpm2_nv_increment(struct tpm *t, struct nv_access *x)
{
	struct tpm2_call c;
	uint8_t hn[4];
	int rc;

	access_call(&c, TPM2_CC_NV_Increment, x, hn);
	if ((rc = tpm2_call(t, &c)))
		return rc;
	return mark_written(t, x);
}

int tpm2_nv_extend(struct tpm *t, struct nv_access *x, const uint8_t *data,
		   size_t n)
{
	uint8_t pb[NV_CHUNK_CAP + 8], hn[4];
	struct tpm2_call c;
	struct tb b;
	int rc;

	if (n > chunk_size(x))
		return err_set(t->e, EX_USAGE, "%zu bytes of extend data: the "
			       "TPM takes at most %zu in one TPM2_NV_Extend",
			       n, chunk_size(x));
	access_call(&c, TPM2_CC_NV_Extend, x, hn);
	tb_init(&b, pb, sizeof(pb));
	tb_put_tpm2b(&b, data, n);
	c.params = pb;
	c.plen = b.len;
	rc = tpm2_call(t, &c);
	explicit_bzero(pb, b.len);
	if (rc)
		return rc;
	return mark_written(t, x);
}

int tpm2_nv_setbits(struct tpm *t, struct nv_access *x, uint64_t bits)
{
	struct tpm2_call c;
	uint8_t pb[8], hn[4];
	struct tb b;
	int rc;

	access_call(&c, TPM2_CC_NV_SetBits, x, hn);
	tb_init(&b, pb, sizeof(pb));
	tb_put_u64(&b, bits);
	c.params = pb;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	return mark_written(t, x);
}

/* ---- choosing the authorization ---- */

/* Authorize with na->v in the process's salted session (tpm2/srk.h:
 * salted to the SRK, pinned when a pin is set; with no pin and no
 * standard SRK persisted, to a NULL-hierarchy key), encrypting as flags
 * say.  The value keys the HMAC and never crosses the bus. */
static int salted(struct tpm *t, struct nv_auth *na, int flags)
{
	struct tpm2_session *s;
	int rc;

	if ((rc = tpm2_trust_need(t, &s)))
		return rc;
	tpm2_session_set_flags(s, flags);
	na->sess = s;
	tpm2_session_use(s, &na->a, na->v.v, na->v.n);
	return 0;
}

int nv_auth_begin(struct tpm *t, struct nv_access *x, struct nv_auth *na,
		  int op, const char *index_auth, const char *owner_auth)
{
	const struct nv_public *p = x->p;
	int write = op != NV_OP_READ;
	uint32_t by_index = write ? TPMA_NV_AUTHWRITE : TPMA_NV_AUTHREAD;
	uint32_t by_owner = write ? TPMA_NV_OWNERWRITE : TPMA_NV_OWNERREAD;
	const char *what = write ? "written" : "read";
	const char *spec = NULL;
	char attrs[256];
	int rc;

	memset(na, 0, sizeof(*na));
	na->x = x;
	na->given = index_auth || owner_auth;
	nv_attr_format(p->attrs, attrs, sizeof(attrs));
	if (index_auth && owner_auth)
		return err_set(t->e, EX_USAGE, "give --auth or --owner-auth, "
			       "not both");
	if (index_auth) {
		if (!(p->attrs & by_index))
			return err_set(t->e, EX_USAGE, "NV index 0x%08x cannot "
				       "be %s with its own auth value (%s is "
				       "not set; attributes %s)", p->index,
				       what, write ? "authwrite" : "authread",
				       attrs);
		x->auth_handle = p->index;
		spec = index_auth;
	} else if (owner_auth) {
		if (!(p->attrs & by_owner))
			return err_set(t->e, EX_USAGE, "NV index 0x%08x cannot "
				       "be %s with the owner's authorization "
				       "(%s is not set; attributes %s)",
				       p->index, what,
				       write ? "ownerwrite" : "ownerread",
				       attrs);
		x->auth_handle = TPM2_RH_OWNER;
		spec = owner_auth;
	} else if (p->attrs & by_index) {
		x->auth_handle = p->index;
	} else if (p->attrs & by_owner) {
		x->auth_handle = TPM2_RH_OWNER;
	} else {
		return err_set(t->e, EX_USAGE, "NV index 0x%08x can only be %s "
			       "with platform or policy authorization, which "
			       "tpmbox does not offer here (attributes %s)",
			       p->index, what, attrs);
	}
	x->a = &na->a;
	/* The empty value as a password, unless a process session is up
	 * (a pin is set): then it authorizes, and its HMAC covers the
	 * answer. */
	if (!spec && !tpm2_trust_session(t)) {
		tpm2_auth_pw(&na->a, NULL, 0);
		return 0;
	}
	if (spec && (rc = auth_parse(spec, &na->v, t->e)))
		return rc;
	return salted(t, na, op == NV_OP_READ ? SESS_ENC_RSP :
		      op == NV_OP_WRITE ? SESS_ENC_CMD : 0);
}

int nv_hier_auth_begin(struct tpm *t, struct nv_auth *na, uint32_t hier,
		       const char *spec, int encrypt)
{
	int rc;

	memset(na, 0, sizeof(*na));
	if (spec && (rc = auth_parse(spec, &na->v, t->e)))
		return rc;
	if (!spec && !encrypt && !tpm2_trust_session(t)) {
		tpm2_auth_pw(&na->a, NULL, 0);
		return 0;
	}
	(void)hier;
	return salted(t, na, encrypt ? SESS_ENC_CMD : 0);
}

static void nv_auth_hint(struct tberr *e, const struct nv_access *x,
			 int given)
{
	if (e->code != EX_AUTH)
		return;
	if (x->auth_handle == x->p->index)
		err_hint(e, given ? "the index's auth value is wrong (with "
			 "no_da unset, each try counts toward lockout)" :
			 "the index's empty auth value was tried: pass --auth "
			 "AUTH, or --owner-auth AUTH");
	else
		err_hint(e, given ? "the owner's auth value is wrong" :
			 "the owner's empty auth value was tried: pass "
			 "--owner-auth AUTH");
}

int nv_auth_end(struct tpm *t, struct nv_auth *na, int rc)
{
	struct tberr keep = *t->e;

	/* Cleanup must not replace the error being reported.  The session
	 * is the process's: it goes with the connection. */
	*t->e = keep;
	if (rc && na->x)
		nv_auth_hint(t->e, na->x, na->given);
	auth_wipe(&na->v);
	explicit_bzero(na, sizeof(*na));
	return rc;
}
