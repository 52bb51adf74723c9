#include <string.h>

#include "base/buf.h"

void tb_init(struct tb *b, uint8_t *mem, size_t cap)
{
	b->p = mem;
	b->len = 0;
	b->cap = cap;
	b->pos = 0;
	b->err = 0;
}

void tb_init_read(struct tb *b, const uint8_t *mem, size_t len)
{
	/* The reader never writes; the cast only lets one struct serve both. */
	b->p = (uint8_t *)(uintptr_t)mem;
	b->len = len;
	b->cap = len;
	b->pos = 0;
	b->err = mem == NULL && len != 0;
}

void tb_fail(struct tb *b)
{
	b->err = 1;
}

static uint8_t *room(struct tb *b, size_t n)
{
	uint8_t *q;

	if (b->err)
		return NULL;
	if (n > b->cap - b->len) {
		b->err = 1;
		return NULL;
	}
	q = b->p + b->len;
	b->len += n;
	return q;
}

void tb_put_u8(struct tb *b, uint8_t v)
{
	uint8_t *q = room(b, 1);

	if (q)
		q[0] = v;
}

void tb_put_u16(struct tb *b, uint16_t v)
{
	uint8_t *q = room(b, 2);

	if (q) {
		q[0] = (uint8_t)(v >> 8);
		q[1] = (uint8_t)v;
	}
}

void tb_put_u32(struct tb *b, uint32_t v)
{
	uint8_t *q = room(b, 4);

	if (q) {
		q[0] = (uint8_t)(v >> 24);
		q[1] = (uint8_t)(v >> 16);
		q[2] = (uint8_t)(v >> 8);
		q[3] = (uint8_t)v;
	}
}

void tb_put_u64(struct tb *b, uint64_t v)
{
	tb_put_u32(b, (uint32_t)(v >> 32));
	tb_put_u32(b, (uint32_t)v);
}

void tb_put_bytes(struct tb *b, const void *src, size_t n)
{
	uint8_t *q = room(b, n);

	if (q && n)
		memcpy(q, src, n);
}

void tb_put_tpm2b(struct tb *b, const void *src, size_t n)
{
	if (n > 0xffff) {
		b->err = 1;
		return;
	}
	tb_put_u16(b, (uint16_t)n);
	tb_put_bytes(b, src, n);
}

size_t tb_reserve16(struct tb *b)
{
	size_t at = b->len;

	tb_put_u16(b, 0);
	return at;
}

size_t tb_reserve32(struct tb *b)
{
	size_t at = b->len;

	tb_put_u32(b, 0);
	return at;
}

void tb_patch16(struct tb *b, size_t at)
{
	size_t n;

	if (b->err)
		return;
	if (at > b->len || b->len - at < 2) {
		b->err = 1;
		return;
	}
	n = b->len - at - 2;
	if (n > 0xffff) {
		b->err = 1;
		return;
	}
	b->p[at] = (uint8_t)(n >> 8);
	b->p[at + 1] = (uint8_t)n;
}

void tb_patch32(struct tb *b, size_t at)
{
	size_t n;

	if (b->err)
		return;
	if (at > b->len || b->len - at < 4) {
		b->err = 1;
		return;
	}
	n = b->len - at - 4;
	b->p[at] = (uint8_t)(n >> 24);
	b->p[at + 1] = (uint8_t)(n >> 16);
	b->p[at + 2] = (uint8_t)(n >> 8);
	b->p[at + 3] = (uint8_t)n;
}

const uint8_t *tb_get_ref(struct tb *b, size_t n)
{
	const uint8_t *q;

	if (b->err)
		return NULL;
	if (n > b->len - b->pos) {
		b->err = 1;
		return NULL;
	}
	q = b->p + b->pos;
	b->pos += n;
	return q;
}

uint8_t tb_get_u8(struct tb *b)
{
	const uint8_t *q = tb_get_ref(b, 1);

	return q ? q[0] : 0;
}

uint16_t tb_get_u16(struct tb *b)
{
	const uint8_t *q = tb_get_ref(b, 2);

	return q ? (uint16_t)((q[0] << 8) | q[1]) : 0;
}

uint32_t tb_get_u32(struct tb *b)
{
	const uint8_t *q = tb_get_ref(b, 4);

	if (!q)
		return 0;
	return ((uint32_t)q[0] << 24) | ((uint32_t)q[1] << 16) |
	       ((uint32_t)q[2] << 8) | (uint32_t)q[3];
}

uint64_t tb_get_u64(struct tb *b)
{
	uint64_t hi = tb_get_u32(b);

	return (hi << 32) | tb_get_u32(b);
}

uint16_t tb_get_u16_le(struct tb *b)
{
	const uint8_t *q = tb_get_ref(b, 2);

	return q ? (uint16_t)(q[0] | (q[1] << 8)) : 0;
}

uint32_t tb_get_u32_le(struct tb *b)
{
	const uint8_t *q = tb_get_ref(b, 4);

	if (!q)
		return 0;
	return (uint32_t)q[0] | ((uint32_t)q[1] << 8) |
	       ((uint32_t)q[2] << 16) | ((uint32_t)q[3] << 24);
}

uint64_t tb_get_u64_le(struct tb *b)
{
	uint64_t lo = tb_get_u32_le(b);

	return lo | ((uint64_t)tb_get_u32_le(b) << 32);
}

void tb_get_bytes(struct tb *b, void *dst, size_t n)
{
	const uint8_t *q = tb_get_ref(b, n);

	if (q && n)
		memcpy(dst, q, n);
}

void tb_skip(struct tb *b, size_t n)
{
	(void)tb_get_ref(b, n);
}

size_t tb_get_tpm2b(struct tb *b, void *dst, size_t cap)
{
	uint16_t n = tb_get_u16(b);

	if (b->err)
		return 0;
	if (n > cap) {
		b->err = 1;
		return 0;
	}
	tb_get_bytes(b, dst, n);
	return b->err ? 0 : n;
}

size_t tb_get_tpm2b_ref(struct tb *b, const uint8_t **out)
{
	uint16_t n = tb_get_u16(b);
	const uint8_t *q = tb_get_ref(b, n);

	*out = q;
	return q ? n : 0;
}

void tb_sub(struct tb *b, size_t n, struct tb *sub)
{
	const uint8_t *q = tb_get_ref(b, n);

	tb_init_read(sub, q, q ? n : 0);
	if (!q)
		sub->err = 1;
}

void tb_wipe(struct tb *b)
{
	if (b->p && b->cap)
		explicit_bzero(b->p, b->cap);
}
