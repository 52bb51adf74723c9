/* The PPI sysfs readers (lib/tpm/ppi.c): the kernel's formats accepted, the
 * edges of each number and line refused; the bank bitmap both ways. */
#include <stdint.h>
#include <string.h>

#include "tpm/ppi.h"
#include "unit.h"

#define S(x) x, sizeof(x) - 1

static void test_request(void)
{
	struct ppi_request r;
	struct tberr e;

	CHECK(ppi_parse_request(S("5\n"), &r, &e) == 0 && r.op == 5 &&
	      !r.has_arg);
	CHECK(ppi_parse_request(S("0"), &r, &e) == 0 && r.op == 0);
	CHECK(ppi_parse_request(S("23 2\n"), &r, &e) == 0 && r.op == 23 &&
	      r.has_arg && r.arg == 2);
	CHECK(ppi_parse_request(S("4294967295\n"), &r, &e) == 0 &&
	      r.op == 0xffffffffu);
	CHECK(ppi_parse_request(S("4294967296\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_request(S("5 2\n"), &r, &e) == EX_IO);	/* arg: 23 only */
	CHECK(ppi_parse_request(S("23 \n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_request(S("\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_request(S(""), &r, &e) == EX_IO);
	CHECK(ppi_parse_request(S("5\n\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_request(S("-5\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_request(S("5\0"), &r, &e) == EX_IO);
}

static void test_response(void)
{
	struct ppi_response r;
	struct tberr e;

	CHECK(ppi_parse_response(S("0: No Recent Request\n"), &r, &e) == 0 &&
	      r.op == 0);
	CHECK(ppi_parse_response(S("5 0: Success\n"), &r, &e) == 0 &&
	      r.op == 5 && r.code == 0);
	CHECK(ppi_parse_response(S("5 0xFFFFFFF0: User Abort\n"), &r, &e) == 0
	      && r.code == 0xfffffff0u);
	CHECK(ppi_parse_response(S("14 257: Corresponding TPM error\n"), &r,
				 &e) == 0 && r.op == 14 && r.code == 257);
	CHECK(ppi_parse_response(S("5 0x100000000: Error\n"), &r, &e) ==
	      EX_IO);
	CHECK(ppi_parse_response(S("5 0x: Error\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_response(S("5: Success\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_response(S("0 0: Success\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_response(S("5 0:\n"), &r, &e) == EX_IO);
	CHECK(ppi_parse_response(S("5 0: Su\x01\n"), &r, &e) == EX_IO);
	CHECK(strcmp(ppi_code_name(0xfffffff1u), "failed in the firmware") ==
	      0);
}

static void test_ops(void)
{
	uint8_t st[PPI_OPS];
	struct tberr e;
	uint32_t a;
	char v[8];

	memset(st, 0, sizeof(st));
	CHECK(ppi_parse_ops(S("0 3: User required\n23 4: User not required\n"
			      "255 1: BIOS only\n"), st, &e) == 0);
	CHECK(st[0] == 3 && st[23] == 4 && st[255] == 1 && st[5] == 0);
	CHECK(ppi_parse_ops(S(""), st, &e) == 0);
	CHECK(ppi_parse_ops(S("256 3: User required\n"), st, &e) == EX_IO);
	CHECK(ppi_parse_ops(S("5 0: Not implemented\n"), st, &e) == EX_IO);
	CHECK(ppi_parse_ops(S("5 5: x\n"), st, &e) == EX_IO);
	CHECK(ppi_parse_ops(S("5 3: User required"), st, &e) == EX_IO);
	CHECK(ppi_parse_ops(S("5 3: a\n5 3: a\n"), st, &e) == EX_IO);
	CHECK(ppi_parse_action(S("2: Reboot\n"), &a, &e) == 0 && a == 2);
	CHECK(ppi_parse_action(S("2 Reboot\n"), &a, &e) == EX_IO);
	CHECK(ppi_parse_version(S("1.3\n"), v, &e) == 0 &&
	      strcmp(v, "1.3") == 0);
	CHECK(ppi_parse_version(S("1.33\n"), v, &e) == EX_IO);
	CHECK(ppi_parse_version(S("a.3\n"), v, &e) == EX_IO);
	CHECK(strcmp(ppi_op_name(23), "set the PCR banks") == 0);
	CHECK(strcmp(ppi_op_name(200), "vendor-specific operation") == 0);
	CHECK(strcmp(ppi_op_name(60), "unknown operation") == 0);
	CHECK(strcmp(ppi_op_name(0xffffffffu), "unknown operation") == 0);
}

static void test_banks(void)
{
	struct tberr e;
	uint32_t b;
	char out[96];

	CHECK(ppi_banks_parse("sha256", &b, &e) == 0 && b == 2);
	CHECK(ppi_banks_parse("sha1,sha256,sha384,sha512,sm3_256", &b, &e) ==
	      0 && b == 31);
	CHECK(ppi_banks_parse("sha256,sha256", &b, &e) == EX_USAGE);
	CHECK(ppi_banks_parse("", &b, &e) == EX_USAGE);
	CHECK(ppi_banks_parse("sha256,", &b, &e) == EX_USAGE);
	CHECK(ppi_banks_parse("SHA256", &b, &e) == EX_USAGE);
	CHECK(ppi_banks_parse("sha2567", &b, &e) == EX_USAGE);
	ppi_banks_format(6, out, sizeof(out));
	CHECK(strcmp(out, "sha256,sha384") == 0);
	ppi_banks_format(0, out, sizeof(out));
	CHECK(strcmp(out, "none") == 0);
	ppi_banks_format(0x41, out, sizeof(out));
	CHECK(strcmp(out, "sha1,unknown bits 0x40") == 0);
	ppi_banks_format(31, out, 8);	/* truncated, terminated */
	CHECK(strlen(out) < 8);
}

int main(void)
{
	test_request();
	test_response();
	test_ops();
	test_banks();
	return unit_done("ppi");
}
