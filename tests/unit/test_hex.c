/* hex encode/decode and the number parser used for counts and indices. */
#include <stdint.h>
#include <string.h>

#include "base/hex.h"
#include "unit.h"

static void test_encode(void)
{
	static const uint8_t in[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
	char out[2 * sizeof(in) + 1];

	memset(out, 'X', sizeof(out));
	hex_encode(in, sizeof(in), out);
	CHECK(strcmp(out, "00017f80abff") == 0);
	hex_encode(in, 0, out);
	CHECK(out[0] == '\0');
}

static void test_decode(void)
{
	uint8_t out[8];

	memset(out, 0, sizeof(out));
	CHECK(hex_decode("00017F80abFF", out, sizeof(out)) == 6);
	CHECK(memcmp(out, "\x00\x01\x7f\x80\xab\xff", 6) == 0);
	CHECK(hex_decode("0xdead", out, sizeof(out)) == 2);
	CHECK(out[0] == 0xde && out[1] == 0xad);
	CHECK(hex_decode("0XBEEF", out, sizeof(out)) == 2);
	CHECK(out[0] == 0xbe && out[1] == 0xef);
	CHECK(hex_decode("", out, sizeof(out)) == 0);
	CHECK(hex_decode("0x", out, sizeof(out)) == 0);
	CHECK(hex_decode("abc", out, sizeof(out)) == -1);	/* odd */
	CHECK(hex_decode("zz", out, sizeof(out)) == -1);
	CHECK(hex_decode("0g", out, sizeof(out)) == -1);
	CHECK(hex_decode("a b ", out, sizeof(out)) == -1);
	CHECK(hex_decode("00:11", out, sizeof(out)) == -1);
	CHECK(hex_decode("0011223344556677", out, 8) == 8);
	CHECK(hex_decode("001122334455667788", out, 8) == -1);	/* cap */
	CHECK(hex_decode("00", out, 0) == -1);
}

static int u64_is(const char *s, uint64_t want)
{
	uint64_t v = 12345;

	return parse_u64(s, &v) == 0 && v == want;
}

static int u64_bad(const char *s)
{
	uint64_t v = 12345;

	return parse_u64(s, &v) == -1 && v == 12345;
}

static void test_u64(void)
{
	CHECK(u64_is("0", 0));
	CHECK(u64_is("32", 32));
	CHECK(u64_is("0x20", 32));
	CHECK(u64_is("0X1f", 31));
	CHECK(u64_is("18446744073709551615", UINT64_MAX));
	/* decimal means decimal: a leading zero is not octal */
	CHECK(u64_is("010", 10));
	CHECK(u64_is("08", 8));
	CHECK(u64_is("007", 7));
	CHECK(u64_bad("18446744073709551616"));
	CHECK(u64_bad("99999999999999999999999"));
	CHECK(u64_bad(""));
	CHECK(u64_bad(NULL));
	CHECK(u64_bad("-1"));
	CHECK(u64_bad("+1"));
	CHECK(u64_bad(" 1"));
	CHECK(u64_bad("1 "));
	CHECK(u64_bad("abc"));
	CHECK(u64_bad("1a"));
	CHECK(u64_bad("0x"));
	CHECK(u64_bad("0xg"));
	CHECK(u64_bad("1.5"));
	CHECK(u64_bad("1e3"));
	CHECK(u64_bad("\t1"));
}

int main(void)
{
	test_encode();
	test_decode();
	test_u64();
	return unit_done("hex");
}
