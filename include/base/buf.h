/* Bounds-checked byte cursor with a sticky error.
 *
 * Every put/get is a no-op once err is set; reads then return 0.  A parser
 * is a straight list of reads followed by one check of tb_err().  Multi-byte
 * values are big-endian (TPM wire order) unless the name says _le. */
#ifndef TPMBOX_BASE_BUF_H
#define TPMBOX_BASE_BUF_H

#include <stddef.h>
#include <stdint.h>

struct tb {
	uint8_t *p;
	size_t len;	/* bytes valid (writer: bytes written) */
	size_t cap;	/* bytes available in p */
	size_t pos;	/* reader position */
	int err;
};

/* Writer over mem[0..cap). */
void tb_init(struct tb *b, uint8_t *mem, size_t cap);
/* Reader over mem[0..len). The cursor never writes through p. */
void tb_init_read(struct tb *b, const uint8_t *mem, size_t len);

static inline int tb_err(const struct tb *b) { return b->err; }
/* Bytes not yet read. */
static inline size_t tb_left(const struct tb *b)
{
	return b->err ? 0 : b->len - b->pos;
}
void tb_fail(struct tb *b);

void tb_put_u8(struct tb *b, uint8_t v);
void tb_put_u16(struct tb *b, uint16_t v);
void tb_put_u32(struct tb *b, uint32_t v);
void tb_put_u64(struct tb *b, uint64_t v);
void tb_put_bytes(struct tb *b, const void *src, size_t n);
/* TPM2B: UINT16 size then the bytes; n > 0xffff is an error. */
void tb_put_tpm2b(struct tb *b, const void *src, size_t n);
/* Reserve a UINT16/UINT32 size field; tb_patch_* writes the number of bytes
 * written since the field into it. Returns the field offset. */
size_t tb_reserve16(struct tb *b);
size_t tb_reserve32(struct tb *b);
void tb_patch16(struct tb *b, size_t at);
void tb_patch32(struct tb *b, size_t at);

uint8_t tb_get_u8(struct tb *b);
uint16_t tb_get_u16(struct tb *b);
uint32_t tb_get_u32(struct tb *b);
uint64_t tb_get_u64(struct tb *b);
uint16_t tb_get_u16_le(struct tb *b);
uint32_t tb_get_u32_le(struct tb *b);
uint64_t tb_get_u64_le(struct tb *b);
void tb_get_bytes(struct tb *b, void *dst, size_t n);
/* Pointer to the next n bytes and advance; NULL (and err) if short. */
const uint8_t *tb_get_ref(struct tb *b, size_t n);
void tb_skip(struct tb *b, size_t n);
/* TPM2B into dst[0..cap): a wire size above cap is an error, never a
 * truncation. Returns the size read. */
size_t tb_get_tpm2b(struct tb *b, void *dst, size_t cap);
/* TPM2B by reference: *out points into the buffer. Returns the size. */
size_t tb_get_tpm2b_ref(struct tb *b, const uint8_t **out);
/* A sub-reader over the next n bytes (advances b). */
void tb_sub(struct tb *b, size_t n, struct tb *sub);

/* Wipe the whole backing store (for buffers that carried secrets). */
void tb_wipe(struct tb *b);

#endif
