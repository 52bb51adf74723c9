/* DER writer and strict reader (include/base/der.h). */
#include <string.h>

#include "base/der.h"
#include "base/tpm2const.h"

static size_t der_lenlen(size_t n)
{
	return n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 :
	       n < 0x1000000 ? 4 : 5;
}

size_t der_size(size_t n)
{
	return 1 + der_lenlen(n) + n;
}

void der_tl(struct tb *b, uint8_t tag, size_t n)
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
	} else if (n <= 0xffffffffu) {
		tb_put_u8(b, 0x84);	/* a 64 MiB escrow copy in CMS */
		tb_put_u32(b, (uint32_t)n);
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

void der_int(struct tb *b, uint32_t v)
{
	uint8_t c[5];
	size_t n = der_uint(v, c);

	der_tl(b, DER_INT, n);
	tb_put_bytes(b, c, n);
}

size_t der_int_size(uint32_t v)
{
	uint8_t c[5];

	return der_size(der_uint(v, c));
}

/* v without its leading zero bytes (one zero byte for zero). */
static size_t mag_trim(const uint8_t **v, size_t n)
{
	while (n > 1 && (*v)[0] == 0)
		(*v)++, n--;
	return n;
}

static size_t mag_len(const uint8_t *v, size_t n)
{
	if (n == 0)
		return 1;
	n = mag_trim(&v, n);
	return n + ((v[0] & 0x80) != 0);
}

void der_mag(struct tb *b, const uint8_t *v, size_t n)
{
	der_tl(b, DER_INT, mag_len(v, n));
	if (n == 0) {
		tb_put_u8(b, 0);
		return;
	}
	n = mag_trim(&v, n);
	if (v[0] & 0x80)
		tb_put_u8(b, 0);
	tb_put_bytes(b, v, n);
}

size_t der_mag_size(const uint8_t *v, size_t n)
{
	return der_size(mag_len(v, n));
}

void der_ecdsa_sig(struct tb *b, const uint8_t *r, size_t rlen,
		   const uint8_t *s, size_t slen)
{
	der_tl(b, DER_SEQ, der_mag_size(r, rlen) + der_mag_size(s, slen));
	der_mag(b, r, rlen);
	der_mag(b, s, slen);
}

void der_true(struct tb *b, int ctx)
{
	der_tl(b, (uint8_t)DER_CTX(ctx), 3);
	der_tl(b, DER_BOOL, 1);
	tb_put_u8(b, 0xff);
}

int der_get(struct tb *b, uint8_t tag, struct tb *sub)
{
	uint8_t t = tb_get_u8(b), l = tb_get_u8(b);
	size_t n = 0;
	int i;

	if (tb_err(b) || t != tag)
		return -1;
	if (l < 0x80) {
		n = l;
	} else if (l >= 0x81 && l <= 0x84) {
		for (i = 0; i < (l & 0x7f); i++)
			n = n << 8 | tb_get_u8(b);
		if (n < 0x80 ||
		    (l > 0x81 && n < ((size_t)1 << (8 * (l & 0x7f) - 8))))
			return -1;	/* not minimal: not DER */
	} else {
		return -1;
	}
	if (tb_err(b) || n > tb_left(b))
		return -1;
	tb_sub(b, n, sub);
	return tb_err(b) ? -1 : 0;
}

int der_peek(const struct tb *b)
{
	return tb_left(b) ? b->p[b->pos] : -1;
}

int der_get_uint(struct tb *b, uint32_t *v)
{
	struct tb s;
	size_t i;

	if (der_get(b, DER_INT, &s) || s.len == 0 || s.len > 5 ||
	    (s.p[s.pos] & 0x80) || (s.len == 5 && s.p[s.pos] != 0) ||
	    (s.len > 1 && s.p[s.pos] == 0 && !(s.p[s.pos + 1] & 0x80)))
		return -1;
	*v = 0;
	for (i = 0; i < s.len; i++)
		*v = *v << 8 | tb_get_u8(&s);
	return 0;
}

int der_get_true(struct tb *b, int ctx, int *v)
{
	struct tb s, t;

	if (der_get(b, (uint8_t)DER_CTX(ctx), &s) ||
	    der_get(&s, DER_BOOL, &t) || t.len != 1 || tb_left(&s))
		return -1;
	*v = tb_get_u8(&t) != 0;
	return 0;
}

int der_get_mag(struct tb *b, const uint8_t **v, size_t *n)
{
	struct tb s;

	if (der_get(b, DER_INT, &s) || s.len == 0 || (s.p[s.pos] & 0x80) ||
	    (s.len > 1 && s.p[s.pos] == 0 && !(s.p[s.pos + 1] & 0x80)))
		return -1;	/* empty, negative, or not minimal */
	if (s.len > 1 && s.p[s.pos] == 0)
		tb_skip(&s, 1);
	*n = tb_left(&s);
	*v = tb_get_ref(&s, *n);
	return *v ? 0 : -1;
}

/* Object identifiers (contents octets). */
static const uint8_t oid_rsa[] = {	/* 1.2.840.113549.1.1.1 */
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };
static const uint8_t oid_ec[] = {	/* 1.2.840.10045.2.1 */
	0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const uint8_t oid_p256[] = {	/* 1.2.840.10045.3.1.7 */
	0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07 };
static const uint8_t oid_p384[] = {	/* 1.3.132.0.34 */
	0x2b, 0x81, 0x04, 0x00, 0x22 };

int der_oid_is(const struct tb *o, const uint8_t *oid, size_t n)
{
	return o->len == n && memcmp(o->p, oid, n) == 0;
}

uint16_t der_curve(const struct tb *o)
{
	if (der_oid_is(o, oid_p256, sizeof(oid_p256)))
		return TPM2_ECC_NIST_P256;
	if (der_oid_is(o, oid_p384, sizeof(oid_p384)))
		return TPM2_ECC_NIST_P384;
	return 0;
}

int der_key_alg(const struct tb *oid, struct tb *alg, uint16_t *curve)
{
	struct tb p;

	if (der_oid_is(oid, oid_rsa, sizeof(oid_rsa))) {
		if (tb_left(alg) && (der_get(alg, DER_NULL, &p) || p.len ||
				     tb_left(alg)))
			return -1;
		*curve = 0;
		return 0;
	}
	if (!der_oid_is(oid, oid_ec, sizeof(oid_ec)) ||
	    der_get(alg, DER_OID, &p) || tb_left(alg) ||
	    !(*curve = der_curve(&p)))
		return -1;
	return 0;
}
