/* lib/base/unpack.c, the decoder of tiny/packhelp.c's format: hand-made
 * streams (flag byte, literals, 3-byte copies), and every damage refused
 * rather than written past the output. */
#include <stdint.h>
#include <string.h>

#include "base/unpack.h"
#include "unit.h"

static void test_literals_and_copies(void)
{
	/* flags 0b00001000: three literals "abc", then a copy of offset 3,
	 * length 3+3 ("abcabc"), then a literal (item 4 of the same flag
	 * byte); a new flag byte comes only after 8 items. */
	static const uint8_t in[] = {
		0x08, 'a', 'b', 'c', 0x00, 0x03, 0x03, '!'
	};
	uint8_t out[32];

	memset(out, 0, sizeof(out));
	CHECK(lz_unpack(in, sizeof(in), out, sizeof(out)) == 10);
	CHECK(memcmp(out, "abcabcabc!", 10) == 0);
	/* an overlapping copy: offset 1 repeats the last byte */
	{
		static const uint8_t rep[] = { 0x02, 'x', 0x00, 0x01, 0x02 };

		CHECK(lz_unpack(rep, sizeof(rep), out, sizeof(out)) == 6);
		CHECK(memcmp(out, "xxxxxx", 6) == 0);
	}
	CHECK(lz_unpack(in, 0, out, sizeof(out)) == 0);
}

static void test_damage(void)
{
	uint8_t out[8];
	/* a copy from before the start */
	static const uint8_t early[] = { 0x02, 'a', 0x00, 0x02, 0x00 };
	/* offset 0 */
	static const uint8_t zero[] = { 0x02, 'a', 0x00, 0x00, 0x00 };
	/* a copy cut short */
	static const uint8_t cut[] = { 0x02, 'a', 0x00, 0x01 };
	/* more output than room: literals, then a long copy */
	static const uint8_t big[] = { 0x02, 'a', 0x00, 0x01, 0x20 };
	static const uint8_t lits[] = { 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x00, 9 };

	CHECK(lz_unpack(early, sizeof(early), out, sizeof(out)) == -1);
	CHECK(lz_unpack(zero, sizeof(zero), out, sizeof(out)) == -1);
	CHECK(lz_unpack(cut, sizeof(cut), out, sizeof(out)) == -1);
	CHECK(lz_unpack(big, sizeof(big), out, sizeof(out)) == -1);
	CHECK(lz_unpack(lits, sizeof(lits), out, sizeof(out)) == -1);
	CHECK(lz_unpack(lits, sizeof(lits) - 2, out, sizeof(out)) == 8);
}

int main(void)
{
	test_literals_and_copies();
	test_damage();
	return unit_done("unpack");
}
