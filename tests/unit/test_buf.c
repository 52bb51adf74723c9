/* The cursor: bounds, sticky error, TPM2B limits, reserve/patch, byte
 * order. */
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "unit.h"

static void test_writer(void)
{
	uint8_t mem[32];
	static const uint8_t want[] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0x00, 0x02, 0xaa, 0xbb, 0xcc
	};
	struct tb b;

	tb_init(&b, mem, sizeof(mem));
	tb_put_u8(&b, 0x01);
	tb_put_u16(&b, 0x0203);
	tb_put_u32(&b, 0x04050607);
	tb_put_u64(&b, 0x1122334455667788ull);
	tb_put_tpm2b(&b, "\xaa\xbb", 2);
	tb_put_bytes(&b, "\xcc", 1);
	CHECK(!tb_err(&b));
	CHECK(b.len == sizeof(want));
	CHECK_MEM(mem, want, sizeof(want));
}

static void test_writer_bounds(void)
{
	uint8_t mem[8];
	struct tb b;

	memset(mem, 0xee, sizeof(mem));
	tb_init(&b, mem, 5);
	tb_put_u32(&b, 0x01020304);
	CHECK(!tb_err(&b));
	tb_put_u16(&b, 0xffff);		/* one byte short */
	CHECK(tb_err(&b));
	CHECK(b.len == 4);
	CHECK(mem[4] == 0xee);		/* nothing written past the end */
	tb_put_u8(&b, 0x55);		/* sticky: even a fitting put fails */
	CHECK(mem[4] == 0xee);
	CHECK(b.len == 4);

	/* u64 into 7 bytes */
	tb_init(&b, mem, 7);
	tb_put_u64(&b, 1);
	CHECK(tb_err(&b));

	/* tpm2b with n > 0xffff */
	tb_init(&b, mem, sizeof(mem));
	tb_put_tpm2b(&b, mem, 0x10000);
	CHECK(tb_err(&b));
	CHECK(b.len == 0);

	/* bytes larger than room */
	tb_init(&b, mem, sizeof(mem));
	tb_put_bytes(&b, "123456789", 9);
	CHECK(tb_err(&b));
	CHECK(b.len == 0);
}

static void test_reader_bounds(void)
{
	static const uint8_t in[] = { 0x12, 0x34, 0x56 };
	const uint8_t *ref;
	uint8_t dst[4] = { 9, 9, 9, 9 };
	struct tb r;

	/* every get past the end sets err and returns 0 */
	tb_init_read(&r, in, 1);
	CHECK(tb_get_u16(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 3);
	CHECK(tb_get_u32(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 3);
	CHECK(tb_get_u64(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 0);
	CHECK(tb_get_u8(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 1);
	CHECK(tb_get_u16_le(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 3);
	CHECK(tb_get_u32_le(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 3);
	CHECK(tb_get_u64_le(&r) == 0 && tb_err(&r));
	tb_init_read(&r, in, 3);
	tb_get_bytes(&r, dst, 4);
	CHECK(tb_err(&r));
	CHECK(dst[0] == 9);		/* destination untouched */
	tb_init_read(&r, in, 3);
	CHECK(tb_get_ref(&r, 4) == NULL && tb_err(&r));
	tb_init_read(&r, in, 3);
	tb_skip(&r, 4);
	CHECK(tb_err(&r));
	CHECK(tb_left(&r) == 0);

	/* sticky: after an error, reads that would fit still return 0 */
	tb_init_read(&r, in, 3);
	CHECK(tb_get_u8(&r) == 0x12);
	CHECK(tb_get_u32(&r) == 0 && tb_err(&r));
	CHECK(tb_get_u8(&r) == 0);
	CHECK(tb_get_u16(&r) == 0);
	CHECK(tb_get_ref(&r, 0) == NULL);
	CHECK(tb_err(&r));

	/* exact fit is fine, left is tracked */
	tb_init_read(&r, in, 3);
	CHECK(tb_get_u16(&r) == 0x1234);
	CHECK(tb_left(&r) == 1);
	CHECK(tb_get_u8(&r) == 0x56);
	CHECK(tb_left(&r) == 0 && !tb_err(&r));
	ref = tb_get_ref(&r, 0);
	CHECK(ref != NULL && !tb_err(&r));

	/* a huge length does not wrap around */
	tb_init_read(&r, in, 3);
	tb_get_u8(&r);
	CHECK(tb_get_ref(&r, SIZE_MAX) == NULL && tb_err(&r));

	/* NULL memory with a length is an error from the start */
	tb_init_read(&r, NULL, 4);
	CHECK(tb_err(&r));
	tb_init_read(&r, NULL, 0);
	CHECK(!tb_err(&r) && tb_left(&r) == 0);
}

static void test_byte_order(void)
{
	static const uint8_t in[] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xfe, 0xff, 0x80, 0x00, 0x00, 0x01
	};
	struct tb r;

	tb_init_read(&r, in, sizeof(in));
	CHECK(tb_get_u64(&r) == 0x0102030405060708ull);
	CHECK(tb_get_u64_le(&r) == 0x0807060504030201ull);
	CHECK(tb_get_u16_le(&r) == 0xfffe);
	CHECK(tb_get_u32(&r) == 0x80000001u);	/* high bit: no sign mess */
	CHECK(!tb_err(&r) && tb_left(&r) == 0);

	tb_init_read(&r, in, 8);
	CHECK(tb_get_u32_le(&r) == 0x04030201u);
	CHECK(tb_get_u16(&r) == 0x0506);
	CHECK(tb_get_u16_le(&r) == 0x0807);
}

static void test_tpm2b(void)
{
	static const uint8_t in[] = { 0x00, 0x03, 'a', 'b', 'c', 0x00, 0x05,
				      'x' };
	uint8_t dst[8];
	const uint8_t *ref;
	struct tb r;

	/* fits */
	tb_init_read(&r, in, sizeof(in));
	memset(dst, 0, sizeof(dst));
	CHECK(tb_get_tpm2b(&r, dst, 3) == 3);
	CHECK(memcmp(dst, "abc", 3) == 0);
	CHECK(!tb_err(&r));
	/* the next TPM2B claims 5 but only 1 byte is left */
	CHECK(tb_get_tpm2b(&r, dst, sizeof(dst)) == 0);
	CHECK(tb_err(&r));

	/* larger than the destination: an error, not a truncation */
	tb_init_read(&r, in, sizeof(in));
	memset(dst, 0, sizeof(dst));
	CHECK(tb_get_tpm2b(&r, dst, 2) == 0);
	CHECK(tb_err(&r));
	CHECK(dst[0] == 0 && dst[1] == 0);

	/* by reference */
	tb_init_read(&r, in, sizeof(in));
	CHECK(tb_get_tpm2b_ref(&r, &ref) == 3);
	CHECK(ref == in + 2);
	CHECK(tb_get_tpm2b_ref(&r, &ref) == 0);
	CHECK(ref == NULL && tb_err(&r));

	/* empty TPM2B */
	tb_init_read(&r, (const uint8_t *)"\0\0", 2);
	CHECK(tb_get_tpm2b(&r, dst, 0) == 0);
	CHECK(!tb_err(&r) && tb_left(&r) == 0);
}

static void test_reserve_patch(void)
{
	uint8_t mem[64];
	struct tb b, r;
	size_t at16, at32;

	tb_init(&b, mem, sizeof(mem));
	tb_put_u8(&b, 0x7f);
	at32 = tb_reserve32(&b);
	tb_put_u16(&b, 0xabcd);
	at16 = tb_reserve16(&b);
	tb_put_bytes(&b, "hello", 5);
	tb_patch16(&b, at16);
	tb_patch32(&b, at32);
	CHECK(!tb_err(&b));
	CHECK(at32 == 1 && at16 == 7);
	tb_init_read(&r, mem, b.len);
	CHECK(tb_get_u8(&r) == 0x7f);
	CHECK(tb_get_u32(&r) == 2 + 2 + 5);	/* bytes after the field */
	CHECK(tb_get_u16(&r) == 0xabcd);
	CHECK(tb_get_u16(&r) == 5);
	CHECK(memcmp(tb_get_ref(&r, 5), "hello", 5) == 0);
	CHECK(tb_left(&r) == 0 && !tb_err(&r));

	/* empty body: size 0 */
	tb_init(&b, mem, sizeof(mem));
	at16 = tb_reserve16(&b);
	tb_patch16(&b, at16);
	CHECK(!tb_err(&b) && mem[0] == 0 && mem[1] == 0);

	/* patch at an offset that is not a reserved field */
	tb_init(&b, mem, sizeof(mem));
	tb_put_u8(&b, 1);
	tb_patch16(&b, 0);		/* only 1 byte written */
	CHECK(tb_err(&b));
	tb_init(&b, mem, sizeof(mem));
	tb_patch32(&b, 100);
	CHECK(tb_err(&b));

	/* reserve with no room */
	tb_init(&b, mem, 1);
	tb_reserve16(&b);
	CHECK(tb_err(&b));
}

static void test_patch16_overflow(void)
{
	static uint8_t big[0x10010], src[0x10000];
	struct tb b;
	size_t at;

	tb_init(&b, big, sizeof(big));
	at = tb_reserve16(&b);
	tb_put_bytes(&b, src, sizeof(src));	/* 0x10000 after the field */
	CHECK(!tb_err(&b));
	tb_patch16(&b, at);
	CHECK(tb_err(&b));
}

static void test_sub(void)
{
	static const uint8_t in[] = { 0x00, 0x01, 0x02, 0x03, 0x04 };
	struct tb r, s;

	tb_init_read(&r, in, sizeof(in));
	tb_skip(&r, 1);
	tb_sub(&r, 2, &s);
	CHECK(!tb_err(&r) && tb_left(&r) == 2);
	CHECK(tb_get_u16(&s) == 0x0102);
	CHECK(tb_get_u8(&s) == 0 && tb_err(&s));	/* bounded to 2 */
	CHECK(!tb_err(&r));				/* parent unaffected */
	CHECK(tb_get_u16(&r) == 0x0304);

	tb_init_read(&r, in, sizeof(in));
	tb_sub(&r, 6, &s);
	CHECK(tb_err(&r) && tb_err(&s));
}

static void test_wipe(void)
{
	uint8_t mem[16];
	struct tb b;
	size_t i;
	int zero = 1;

	tb_init(&b, mem, sizeof(mem));
	tb_put_bytes(&b, "secretsecret", 12);
	tb_wipe(&b);
	for (i = 0; i < sizeof(mem); i++)
		zero &= mem[i] == 0;
	CHECK(zero);
}

int main(void)
{
	test_writer();
	test_writer_bounds();
	test_reader_bounds();
	test_byte_order();
	test_tpm2b();
	test_reserve_patch();
	test_patch16_overflow();
	test_sub();
	test_wipe();
	return unit_done("buf");
}
