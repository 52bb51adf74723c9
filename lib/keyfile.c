/* The sealed blob: DER for the TPM 2.0 key file, a tb record for the
 * tpmbox extra block, PEM around both.  See docs/blob-format.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "crypto/hash.h"
#include "keyfile.h"
#include "tpm2/constants.h"
#include "tpm2/policy.h"

#define PEM_KEY		"TSS2 PRIVATE KEY"
#define PEM_EXTRA	"TPMBOX SEALED EXTRA"
#define EXTRA_MAGIC	"TBSX"

/* extra block flags */
#define XF_PCR		1u
#define XF_AUTH		2u
#define XF_RSA		4u
#define XF_GCM		8u
#define XF_ALL		(XF_PCR | XF_AUTH | XF_RSA | XF_GCM)

/* DER tags */
#define D_BOOL		0x01
#define D_INT		0x02
#define D_OCTETS	0x04
#define D_OID		0x06
#define D_SEQ		0x30
#define D_CTX(n)	(0xa0 | (n))

/* 2.23.133.10.1.5: TCG sealed data (id-sealed) */
static const uint8_t oid_sealed[] = { 0x67, 0x81, 0x05, 0x0a, 0x01, 0x05 };

/* ---- base64 ---- */

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *b64_encode(const uint8_t *p, size_t n, size_t *outlen)
{
	size_t i, o = 0, len = (n + 2) / 3 * 4;
	char *s = malloc(len + 1);

	if (!s)
		return NULL;
	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 |
			     p[i + 2];

		s[o++] = b64[v >> 18];
		s[o++] = b64[(v >> 12) & 63];
		s[o++] = b64[(v >> 6) & 63];
		s[o++] = b64[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		s[o++] = b64[v >> 18];
		s[o++] = b64[(v >> 12) & 63];
		s[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		s[o++] = '=';
	}
	s[o] = '\0';
	*outlen = o;
	return s;
}

static int b64_val(char c)
{
	const char *q;

	if (!c)
		return -1;
	q = strchr(b64, c);
	return q ? (int)(q - b64) : -1;
}

long b64_decode(const char *s, size_t n, uint8_t *out, size_t cap)
{
	uint32_t acc = 0;
	size_t i, o = 0;
	int bits = 0, pad = 0, v;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad || (v = b64_val(c)) < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= cap)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* 2 or 4 leftover bits must be zero and match the padding. */
	if (pad > 2 || (bits == 2 && pad != 1) || (bits == 4 && pad != 2) ||
	    (bits == 0 && pad) || bits == 6 || (acc & ((1u << bits) - 1)))
		return -1;
	return (long)o;
}

/* ---- DER writer ---- */

static size_t der_lenlen(size_t n)
{
	return n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 4;
}

static size_t der_size(size_t n)
{
	return 1 + der_lenlen(n) + n;
}

static void der_tl(struct tb *b, uint8_t tag, size_t n)
{
	tb_put_u8(b, tag);
	if (n < 0x80) {
		tb_put_u8(b, (uint8_t)n);
	} else if (n < 0x100) {
		tb_put_u8(b, 0x81);
		tb_put_u8(b, (uint8_t)n);
	} else if (n < 0x10000) {
		tb_put_u8(b, 0x82);
		tb_put_u16(b, (uint16_t)n);
	} else if (n < 0x1000000) {
		tb_put_u8(b, 0x83);
		tb_put_u8(b, (uint8_t)(n >> 16));
		tb_put_u16(b, (uint16_t)n);
	} else {
		tb_fail(b);
	}
}

/* Minimal two's complement content of a non-negative integer. */
static size_t der_uint(uint32_t v, uint8_t out[5])
{
	uint8_t t[5] = { 0, (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };
	size_t i = 1;

	while (i < 4 && t[i] == 0 && !(t[i + 1] & 0x80))
		i++;
	if (t[i] & 0x80)
		i--;
	memcpy(out, t + i, 5 - i);
	return 5 - i;
}

static void der_int(struct tb *b, uint32_t v)
{
	uint8_t c[5];
	size_t n = der_uint(v, c);

	der_tl(b, D_INT, n);
	tb_put_bytes(b, c, n);
}

static size_t der_int_size(uint32_t v)
{
	uint8_t c[5];

	return der_size(der_uint(v, c));
}

static void der_true(struct tb *b, int ctx)
{
	der_tl(b, D_CTX(ctx), 3);
	der_tl(b, D_BOOL, 1);
	tb_put_u8(b, 0xff);
}

/* TPMPolicy ::= SEQUENCE { [0] EXPLICIT INTEGER, [1] EXPLICIT OCTETS } */
static size_t policy_cmd_size(uint32_t cc, size_t bodylen)
{
	return der_size(der_size(der_int_size(cc)) +
			der_size(der_size(bodylen)));
}

static void policy_cmd_put(struct tb *b, uint32_t cc, const uint8_t *body,
			   size_t bodylen)
{
	der_tl(b, D_SEQ, der_size(der_int_size(cc)) +
	       der_size(der_size(bodylen)));
	der_tl(b, D_CTX(0), der_int_size(cc));
	der_int(b, cc);
	der_tl(b, D_CTX(1), der_size(bodylen));
	der_tl(b, D_OCTETS, bodylen);
	tb_put_bytes(b, body, bodylen);
}

static int encode_der(const struct keyfile *k, struct tb *out)
{
	uint8_t pcrbody[2 + 64 + 4 + TPM2_MAX_BANKS * 7];
	struct tb pb;
	size_t pol = 0, body = 0;

	tb_init(&pb, pcrbody, sizeof(pcrbody));
	if (k->has_pcr) {
		policy_pcr_marshal(&pb, &k->sel, k->pcrdigest, k->pcrdigestlen);
		if (tb_err(&pb))
			return -1;
		pol += policy_cmd_size(TPM2_CC_PolicyPCR, pb.len);
	}
	if (k->auth)
		pol += policy_cmd_size(TPM2_CC_PolicyAuthValue, 0);

	body = der_size(sizeof(oid_sealed));
	if (k->empty_auth)
		body += 5;
	if (pol)
		body += der_size(der_size(pol));
	if (k->rsa_parent)
		body += 5;
	body += der_int_size(k->parent) + der_size(k->publen) +
		der_size(k->privlen);

	der_tl(out, D_SEQ, body);
	der_tl(out, D_OID, sizeof(oid_sealed));
	tb_put_bytes(out, oid_sealed, sizeof(oid_sealed));
	if (k->empty_auth)
		der_true(out, 0);
	if (pol) {
		der_tl(out, D_CTX(1), der_size(pol));
		der_tl(out, D_SEQ, pol);
		if (k->has_pcr)
			policy_cmd_put(out, TPM2_CC_PolicyPCR, pb.p, pb.len);
		if (k->auth)
			policy_cmd_put(out, TPM2_CC_PolicyAuthValue, NULL, 0);
	}
	if (k->rsa_parent)
		der_true(out, 5);
	der_int(out, k->parent);
	der_tl(out, D_OCTETS, k->publen);
	tb_put_bytes(out, k->pub, k->publen);
	der_tl(out, D_OCTETS, k->privlen);
	tb_put_bytes(out, k->priv, k->privlen);
	return tb_err(out) ? -1 : 0;
}

/* ---- extra block ---- */

static size_t extra_size(const struct keyfile *k)
{
	return 64 + KEYFILE_NAME_MAX + 64 + 8 + TPM2_MAX_BANKS * 7 +
	       (size_t)k->vals.n * (5 + TPM2_MAX_DIGEST) + KEYFILE_IV +
	       KEYFILE_TAG + k->ctlen;
}

static void encode_extra(const struct keyfile *k, struct tb *b)
{
	uint16_t flags = 0;
	int i;

	if (k->has_pcr)
		flags |= XF_PCR;
	if (k->auth)
		flags |= XF_AUTH;
	if (k->rsa_parent)
		flags |= XF_RSA;
	if (k->mode == KEYFILE_GCM)
		flags |= XF_GCM;
	tb_put_bytes(b, EXTRA_MAGIC, 4);
	tb_put_u16(b, KEYFILE_VERSION);
	tb_put_u16(b, flags);
	tb_put_u32(b, k->parent);
	tb_put_tpm2b(b, k->parent_name, k->parent_namelen);
	tb_put_u16(b, k->policy_alg);
	tb_put_tpm2b(b, k->policy, k->policylen);
	if (k->has_pcr) {
		pcr_sel_marshal(b, &k->sel);
		tb_put_u32(b, (uint32_t)k->vals.n);
		for (i = 0; i < k->vals.n; i++) {
			tb_put_u16(b, k->vals.v[i].alg);
			tb_put_u8(b, k->vals.v[i].idx);
			tb_put_tpm2b(b, k->vals.v[i].d, k->vals.v[i].len);
		}
	}
	if (k->mode == KEYFILE_GCM) {
		tb_put_bytes(b, k->iv, KEYFILE_IV);
		tb_put_bytes(b, k->tag, KEYFILE_TAG);
		tb_put_u32(b, (uint32_t)k->ctlen);
		tb_put_bytes(b, k->ct, k->ctlen);
	}
}

/* Append "-----BEGIN label-----", 64-column base64, "-----END...". */
static int pem_append(char **buf, size_t *len, const char *label,
		      const uint8_t *der, size_t n)
{
	size_t blen, i, need;
	char *s = b64_encode(der, n, &blen), *p, *q;

	if (!s)
		return -1;
	need = *len + 2 * (strlen(label) + 32) + blen + blen / 64 + 2;
	p = realloc(*buf, need + 1);
	if (!p) {
		free(s);
		return -1;
	}
	*buf = p;
	q = p + *len;
	q += sprintf(q, "-----BEGIN %s-----\n", label);
	for (i = 0; i < blen; i += 64) {
		size_t m = blen - i > 64 ? 64 : blen - i;

		memcpy(q, s + i, m);
		q += m;
		*q++ = '\n';
	}
	q += sprintf(q, "-----END %s-----\n", label);
	*len = (size_t)(q - p);
	free(s);
	return 0;
}

int keyfile_encode(const struct keyfile *k, char **pem, size_t *n,
		   struct tberr *e)
{
	uint8_t der[64 + 2 * 256 + KEYFILE_PUB_MAX + KEYFILE_PRIV_MAX];
	size_t xcap = extra_size(k);
	uint8_t *x = malloc(xcap);
	struct tb b, xb;
	char *buf = NULL;
	size_t len = 0;

	*pem = NULL;
	*n = 0;
	if (!x)
		return err_set(e, EX_FAIL, "blob: out of memory");
	tb_init(&b, der, sizeof(der));
	tb_init(&xb, x, xcap);
	if (k->publen > KEYFILE_PUB_MAX || k->privlen > KEYFILE_PRIV_MAX ||
	    (k->has_pcr && k->pcrdigestlen > 64) || encode_der(k, &b)) {
		free(x);
		return err_set(e, EX_FAIL, "blob: a field is too large to "
			       "encode");
	}
	encode_extra(k, &xb);
	if (tb_err(&xb)) {
		free(x);
		return err_set(e, EX_FAIL, "blob: the extra block is too "
			       "large to encode");
	}
	if (pem_append(&buf, &len, PEM_KEY, b.p, b.len) ||
	    pem_append(&buf, &len, PEM_EXTRA, xb.p, xb.len)) {
		free(buf);
		free(x);
		return err_set(e, EX_FAIL, "blob: out of memory");
	}
	buf[len] = '\0';
	free(x);
	*pem = buf;
	*n = len;
	return 0;
}

/* ---- decoding ---- */

/* Read a DER tag and definite length; sub covers the contents. */
static int der_get(struct tb *b, uint8_t tag, struct tb *sub)
{
	uint8_t t = tb_get_u8(b), l = tb_get_u8(b);
	size_t n = 0;
	int i;

	if (tb_err(b) || t != tag)
		return -1;
	if (l < 0x80) {
		n = l;
	} else if (l >= 0x81 && l <= 0x83) {
		for (i = 0; i < (l & 0x7f); i++)
			n = n << 8 | tb_get_u8(b);
		if (n < 0x80 || (l > 0x81 && n < (1u << (8 * (l & 0x7f) - 8))))
			return -1;	/* not minimal: not DER */
	} else {
		return -1;
	}
	if (tb_err(b) || n > tb_left(b))
		return -1;
	tb_sub(b, n, sub);
	return tb_err(b) ? -1 : 0;
}

static int der_peek(const struct tb *b)
{
	return tb_left(b) ? b->p[b->pos] : -1;
}

static int der_get_uint(struct tb *b, uint32_t *v)
{
	struct tb s;
	size_t i;

	if (der_get(b, D_INT, &s) || s.len == 0 || s.len > 5 ||
	    (s.p[s.pos] & 0x80) || (s.len == 5 && s.p[s.pos] != 0))
		return -1;
	*v = 0;
	for (i = 0; i < s.len; i++)
		*v = *v << 8 | tb_get_u8(&s);
	return 0;
}

static int der_get_true(struct tb *b, int ctx, int *v)
{
	struct tb s, t;

	if (der_get(b, D_CTX(ctx), &s) || der_get(&s, D_BOOL, &t) ||
	    t.len != 1 || tb_left(&s))
		return -1;
	*v = tb_get_u8(&t) != 0;
	return 0;
}

/* A TPML_PCR_SELECTION as the TPM would accept it. */
static int get_sel(struct tb *b, struct pcr_sel *sel)
{
	uint32_t n = tb_get_u32(b), i;
	int j;

	memset(sel, 0, sizeof(*sel));
	if (tb_err(b) || n == 0 || n > TPM2_MAX_BANKS)
		return -1;
	for (i = 0; i < n; i++) {
		uint16_t alg = tb_get_u16(b);
		uint8_t sz = tb_get_u8(b);
		uint32_t m = 0;

		if (tb_err(b) || sz < 1 || sz > 4 || !hash_size(alg))
			return -1;
		for (j = 0; j < sz; j++)
			m |= (uint32_t)tb_get_u8(b) << (8 * j);
		for (j = 0; j < (int)i; j++)
			if (sel->b[j].alg == alg)
				return -1;
		if (m == 0)
			return -1;
		sel->b[i].alg = alg;
		sel->b[i].mask = m;
	}
	sel->n = (int)n;
	return tb_err(b) ? -1 : 0;
}

static int sel_equal(const struct pcr_sel *a, const struct pcr_sel *b)
{
	int i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->b[i].alg != b->b[i].alg || a->b[i].mask != b->b[i].mask)
			return 0;
	return 1;
}

static int bad(struct tberr *e, const char *why)
{
	return err_set(e, EX_FAIL, "blob: %s", why);
}

static int decode_policy(struct tb *b, struct keyfile *k, struct tberr *e)
{
	struct tb outer, seq, one, t, v;
	uint32_t cc;

	if (der_get(b, D_CTX(1), &outer) || der_get(&outer, D_SEQ, &seq) ||
	    tb_left(&outer))
		return bad(e, "malformed policy list");
	while (tb_left(&seq)) {
		if (der_get(&seq, D_SEQ, &one) ||
		    der_get(&one, D_CTX(0), &t) || der_get_uint(&t, &cc) ||
		    tb_left(&t) || der_get(&one, D_CTX(1), &t) ||
		    der_get(&t, D_OCTETS, &v) || tb_left(&t) || tb_left(&one))
			return bad(e, "malformed policy command");
		if (cc == TPM2_CC_PolicyPCR && !k->has_pcr && !k->auth) {
			k->pcrdigestlen = tb_get_tpm2b(&v, k->pcrdigest,
						       sizeof(k->pcrdigest));
			if (get_sel(&v, &k->sel) || tb_left(&v))
				return bad(e, "malformed PolicyPCR");
			k->has_pcr = 1;
		} else if (cc == TPM2_CC_PolicyAuthValue && !k->auth &&
			   v.len == 0) {
			k->auth = 1;
		} else {
			return err_set(e, EX_FAIL, "blob: policy command 0x%x "
				       "is not supported here (tpmbox seals "
				       "with PolicyPCR then PolicyAuthValue)",
				       cc);
		}
	}
	if (!k->has_pcr && !k->auth)
		return bad(e, "empty policy list");
	return 0;
}

static int decode_der(const uint8_t *d, size_t n, struct keyfile *k,
		      struct tberr *e)
{
	struct tb top, b, s;
	int tag;

	tb_init_read(&top, d, n);
	if (der_get(&top, D_SEQ, &b) || tb_left(&top))
		return bad(e, "the TSS2 PRIVATE KEY block is not one DER "
			   "SEQUENCE");
	if (der_get(&b, D_OID, &s))
		return bad(e, "no key type OID");
	if (s.len != sizeof(oid_sealed) ||
	    memcmp(s.p, oid_sealed, sizeof(oid_sealed)))
		return bad(e, "not sealed data (the key type OID is not "
			   "2.23.133.10.1.5)");
	if (der_peek(&b) == D_CTX(0) && der_get_true(&b, 0, &k->empty_auth))
		return bad(e, "malformed emptyAuth");
	if (der_peek(&b) == D_CTX(1) && decode_policy(&b, k, e))
		return e->code;
	if (der_peek(&b) == D_CTX(2))
		return bad(e, "importable keys ([2] secret) are not supported");
	if (der_peek(&b) == D_CTX(3))
		return bad(e, "signed policies ([3] authPolicy) are not "
			   "supported");
	if (der_peek(&b) == D_CTX(4) && der_get(&b, D_CTX(4), &s))
		return bad(e, "malformed description");
	if (der_peek(&b) == D_CTX(5) && der_get_true(&b, 5, &k->rsa_parent))
		return bad(e, "malformed rsaParent");
	tag = der_peek(&b);
	if (tag != D_INT)
		return bad(e, "unexpected field before the parent handle");
	if (der_get_uint(&b, &k->parent))
		return bad(e, "malformed parent handle");
	if (der_get(&b, D_OCTETS, &s) || s.len > KEYFILE_PUB_MAX ||
	    s.len < 2 || (size_t)(s.p[0] << 8 | s.p[1]) != s.len - 2)
		return bad(e, "malformed public area (TPM2B_PUBLIC)");
	memcpy(k->pub, s.p, s.len);
	k->publen = s.len;
	if (der_get(&b, D_OCTETS, &s) || s.len > KEYFILE_PRIV_MAX ||
	    s.len < 2 || (size_t)(s.p[0] << 8 | s.p[1]) != s.len - 2)
		return bad(e, "malformed private area (TPM2B_PRIVATE)");
	memcpy(k->priv, s.p, s.len);
	k->privlen = s.len;
	if (tb_left(&b))
		return bad(e, "unexpected data after the private area");
	if (k->parent != KEYFILE_PARENT_SRK && k->parent != KEYFILE_PARENT_OWNER)
		return err_set(e, EX_FAIL, "blob: parent 0x%08x is not "
			       "supported (tpmbox seals under the SRK, "
			       "0x81000001)", k->parent);
	return 0;
}

static int decode_extra(const uint8_t *d, size_t n, struct keyfile *k,
			struct tberr *e)
{
	struct keyfile x;
	struct pcr_sel sel;
	struct policy_spec ps;
	uint8_t pd[64], pol[64];
	struct tb b;
	uint16_t flags;
	uint32_t cnt, i;
	size_t plen;

	tb_init_read(&b, d, n);
	if (n < 6 || memcmp(d, EXTRA_MAGIC, 4))
		return bad(e, "the " PEM_EXTRA " block has no TBSX magic");
	tb_skip(&b, 4);
	k->version = tb_get_u16(&b);
	if (k->version != KEYFILE_VERSION)
		return err_set(e, EX_FAIL, "blob: format version %u is not "
			       "supported (this tpmbox reads version %d)",
			       k->version, KEYFILE_VERSION);
	flags = tb_get_u16(&b);
	memset(&x, 0, sizeof(x));
	x.parent = tb_get_u32(&b);
	k->parent_namelen = tb_get_tpm2b(&b, k->parent_name,
					 sizeof(k->parent_name));
	k->policy_alg = tb_get_u16(&b);
	k->policylen = tb_get_tpm2b(&b, k->policy, sizeof(k->policy));
	if (tb_err(&b) || (flags & ~XF_ALL))
		return bad(e, "malformed " PEM_EXTRA " header");
	if (!!(flags & XF_PCR) != k->has_pcr ||
	    !!(flags & XF_AUTH) != k->auth ||
	    !!(flags & XF_RSA) != k->rsa_parent || x.parent != k->parent)
		return bad(e, "the two blocks disagree (policy or parent)");
	if (k->empty_auth == k->auth)
		return bad(e, "emptyAuth disagrees with the policy");
	if (k->parent_namelen < 2 || k->policy_alg != TPM2_ALG_SHA256 ||
	    k->policylen != ((k->has_pcr || k->auth) ?
			     hash_size(k->policy_alg) : 0))
		return bad(e, "bad parent name or policy digest");
	if (k->has_pcr) {
		if (get_sel(&b, &sel) || !sel_equal(&sel, &k->sel))
			return bad(e, "the PCR selections of the two blocks "
				   "differ");
		cnt = tb_get_u32(&b);
		if (tb_err(&b) || cnt > sizeof(k->vals.v) / sizeof(k->vals.v[0]))
			return bad(e, "malformed PCR values");
		for (i = 0; i < cnt; i++) {
			struct pcr_val *v = &k->vals.v[i];

			v->alg = tb_get_u16(&b);
			v->idx = tb_get_u8(&b);
			v->len = (uint8_t)tb_get_tpm2b(&b, v->d, sizeof(v->d));
		}
		k->vals.n = (int)cnt;
		if (tb_err(&b) || policy_check_vals(&k->sel, &k->vals, e))
			return bad(e, "malformed PCR values");
		plen = policy_pcr_digest(k->policy_alg, &k->vals, pd);
		if (plen != k->pcrdigestlen || memcmp(pd, k->pcrdigest, plen))
			return bad(e, "the PCR values do not match PolicyPCR's "
				   "digest");
	}
	/* The recorded digest must be what the policy computes to (no
	 * policy at all: an empty authPolicy, checked above). */
	memset(&ps, 0, sizeof(ps));
	ps.halg = k->policy_alg;
	ps.has_pcr = k->has_pcr;
	ps.sel = k->sel;
	ps.vals = k->vals;
	ps.auth = k->auth;
	if (k->policylen && (policy_compute(&ps, pol) != k->policylen ||
			     memcmp(pol, k->policy, k->policylen)))
		return bad(e, "the policy digest does not match the policy");
	k->mode = KEYFILE_DIRECT;
	if (flags & XF_GCM) {
		k->mode = KEYFILE_GCM;
		tb_get_bytes(&b, k->iv, KEYFILE_IV);
		tb_get_bytes(&b, k->tag, KEYFILE_TAG);
		k->ctlen = tb_get_u32(&b);
		if (tb_err(&b) || k->ctlen > tb_left(&b) ||
		    k->ctlen > KEYFILE_DATA_MAX)
			return bad(e, "truncated encrypted data");
		if (!(k->ct = malloc(k->ctlen ? k->ctlen : 1)))
			return err_set(e, EX_FAIL, "blob: out of memory");
		tb_get_bytes(&b, k->ct, k->ctlen);
	}
	if (tb_err(&b))
		return bad(e, "truncated " PEM_EXTRA " block");
	if (tb_left(&b))
		return bad(e, "unexpected data at the end of the " PEM_EXTRA
			   " block");
	return 0;
}

/* Find one PEM block; body and blen cover its base64 text. */
static int pem_find(const char *text, size_t n, const char *label,
		    const char **body, size_t *blen)
{
	char begin[64], end[64];
	const char *p, *q;

	snprintf(begin, sizeof(begin), "-----BEGIN %s-----", label);
	snprintf(end, sizeof(end), "-----END %s-----", label);
	p = memmem(text, n, begin, strlen(begin));
	if (!p)
		return -1;
	p += strlen(begin);
	q = memmem(p, n - (size_t)(p - text), end, strlen(end));
	if (!q)
		return -2;
	/* A second block with the same label is not ours to guess about. */
	if (memmem(q, n - (size_t)(q - text), begin, strlen(begin)))
		return -3;
	*body = p;
	*blen = (size_t)(q - p);
	return 0;
}

static int pem_get(const char *text, size_t n, const char *label,
		   uint8_t **out, size_t *outlen, struct tberr *e)
{
	const char *body;
	size_t blen;
	long got;
	int r = pem_find(text, n, label, &body, &blen);

	*out = NULL;
	if (r == -1)
		return err_set(e, EX_FAIL, "blob: no %s block (not a sealed "
			       "blob from tpmbox seal?)", label);
	if (r == -2)
		return err_set(e, EX_FAIL, "blob: the %s block has no END line "
			       "(truncated?)", label);
	if (r == -3)
		return err_set(e, EX_FAIL, "blob: more than one %s block",
			       label);
	if (!(*out = malloc(blen / 4 * 3 + 3)))
		return err_set(e, EX_FAIL, "blob: out of memory");
	got = b64_decode(body, blen, *out, blen / 4 * 3 + 3);
	if (got <= 0) {
		free(*out);
		*out = NULL;
		return err_set(e, EX_FAIL, "blob: the %s block is not valid "
			       "base64", label);
	}
	*outlen = (size_t)got;
	return 0;
}

int keyfile_decode(const char *text, size_t n, struct keyfile *k,
		   struct tberr *e)
{
	uint8_t *der = NULL, *x = NULL;
	size_t dlen, xlen;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((rc = pem_get(text, n, PEM_KEY, &der, &dlen, e)))
		return rc;
	rc = decode_der(der, dlen, k, e);
	free(der);
	if (rc)
		return rc;
	if ((rc = pem_get(text, n, PEM_EXTRA, &x, &xlen, e)))
		return rc;
	rc = decode_extra(x, xlen, k, e);
	free(x);
	if (rc)
		keyfile_free(k);
	return rc;
}

void keyfile_free(struct keyfile *k)
{
	if (k->ct) {
		explicit_bzero(k->ct, k->ctlen);
		free(k->ct);
	}
	k->ct = NULL;
	k->ctlen = 0;
}
