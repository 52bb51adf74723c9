/* The NV applets' shared checks (lib/job/nv.c): the AUTH options, the
 * operands, the hierarchy that defines and releases an index, and the
 * byte ranges, each with the one message every applet prints. */
#include <getopt.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "job/nv.h"
#include "unit.h"

static void options(void)
{
	char *argv[] = { "nvsetbits", "0x01000001", "5", NULL };
	struct nv_opts n;
	struct tberr e;

	memset(&n, 0, sizeof(n));
	memset(&e, 0, sizeof(e));
	CHECK(nv_opt(&n, NV_OPT_AUTH, "str:a") == 1 && !strcmp(n.auth_s,
								  "str:a"));
	CHECK(nv_opt(&n, NV_OPT_PLATFORM, "str:p") == 1 && n.plat_s);
	CHECK(nv_opt(&n, 's', "8") == 0);
	/* operands: INDEX, and one more when asked */
	optind = 1;
	CHECK(nv_operands(&n, 3, argv, "BITS", 0, &e) == 0 &&
	      !strcmp(n.index_s, "0x01000001") && !strcmp(n.more_s, "5"));
	CHECK(nv_operands(&n, 3, argv, NULL, 0, &e) == EX_USAGE &&
	      !strcmp(e.msg, "expected one NV index"));
	CHECK(nv_operands(&n, 2, argv, "BITS", 0, &e) == EX_USAGE &&
	      !strcmp(e.msg, "expected an NV index and BITS"));
	/* --auth and --owner-auth: one at most where an access takes one */
	nv_opt(&n, NV_OPT_OWNER, "str:o");
	CHECK(nv_operands(&n, 2, argv, NULL, 0, &e) == 0);
	CHECK(nv_operands(&n, 2, argv, NULL, NV_ONE_AUTH, &e) == EX_USAGE &&
	      !strcmp(e.msg, "give --auth or --owner-auth, not both"));
}

static void hierarchy(void)
{
	struct nv_opts n;
	const char *spec;
	struct tberr e;
	uint32_t hier;

	memset(&n, 0, sizeof(n));
	memset(&e, 0, sizeof(e));
	CHECK(nv2_hier(&n, 0x01000001, 0, &hier, &spec, &e) == 0 &&
	      hier == TPM2_RH_OWNER && !spec);
	n.plat_s = "str:p";
	CHECK(nv2_hier(&n, 0x01400000, TPMA_NV_PLATFORMCREATE, &hier, &spec,
		       &e) == 0 && hier == TPM2_RH_PLATFORM && spec == n.plat_s);
	CHECK(nv2_hier(&n, 0x01000001, 0, &hier, &spec, &e) == EX_USAGE &&
	      !strcmp(e.msg, "NV index 0x01000001 is the owner's: "
		      "--platform-auth is for platformcreate indices (use "
		      "--owner-auth)"));
	n.plat_s = NULL;
	n.owner_s = "str:o";
	CHECK(nv2_hier(&n, 0x01000001, 0, &hier, &spec, &e) == 0 &&
	      hier == TPM2_RH_OWNER && spec == n.owner_s);
	CHECK(nv2_hier(&n, 0x01400000, TPMA_NV_PLATFORMCREATE, &hier, &spec,
		       &e) == EX_USAGE && strstr(e.msg, "(use --platform-auth)"));
}

static void ranges(void)
{
	struct tberr e;
	uint64_t size;

	memset(&e, 0, sizeof(e));
	size = 0;
	CHECK(nv_range(0x01000001, 32, 0, &size, &e) == 0 && size == 32);
	size = 0;
	CHECK(nv_range(0x01000001, 32, 30, &size, &e) == 0 && size == 2);
	size = 2;
	CHECK(nv_range(0x01000001, 32, 30, &size, &e) == 0 && size == 2);
	size = 3;
	CHECK(nv_range(0x01000001, 32, 30, &size, &e) == EX_USAGE &&
	      !strcmp(e.msg, "3 bytes at offset 30 go past the end of NV "
		      "index 0x01000001 (32 bytes)"));
	size = 0;
	CHECK(nv_range(0x00011101, 32, 32, &size, &e) == EX_USAGE &&
	      !strcmp(e.msg, "offset 32 is past the end of NV index "
		      "0x00011101 (32 bytes)"));
}

int main(void)
{
	options();
	hierarchy();
	ranges();
	return unit_done("nvopt");
}
