/* TPM 2.0 response codes: spec names, where (handle/session/parameter),
 * sentence and exit code (tpmbox(1)). */
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "tpm2/rc.h"
#include "unit.h"

static int desc_is(uint32_t rc, const char *want)
{
	char buf[256];

	rc_describe(rc, buf, sizeof(buf));
	if (strcmp(buf, want)) {
		fprintf(stderr, "  0x%x: '%s'\n  want '%s'\n", rc, buf, want);
		return 0;
	}
	return 1;
}

static int name_is(uint32_t rc, const char *want)
{
	char buf[64];

	rc_name(rc, buf, sizeof(buf));
	if (strcmp(buf, want)) {
		fprintf(stderr, "  0x%x: name '%s', want '%s'\n", rc, buf,
			want);
		return 0;
	}
	return 1;
}

static void test_known(void)
{
	CHECK(desc_is(0x100, "TPM_RC_INITIALIZE: the TPM was not started "
		      "(TPM2_Startup was not sent since power-on)"));
	CHECK(rc_exit(0x100) == EX_FAIL);

	CHECK(desc_is(0x98e, "TPM_RC_AUTH_FAIL (session 1): the "
		      "authorization value is wrong (this counts toward "
		      "dictionary-attack lockout)"));
	CHECK(rc_exit(0x98e) == EX_AUTH);
	CHECK(rc_base(0x98e) == 0x08e);

	CHECK(desc_is(0x921, "TPM_RC_LOCKOUT: the TPM is in "
		      "dictionary-attack lockout"));
	CHECK(rc_exit(0x921) == EX_LOCKOUT);

	CHECK(desc_is(0x18b, "TPM_RC_HANDLE (handle 1): the handle does not "
		      "refer to an object that exists"));
	CHECK(rc_exit(0x18b) == EX_NOENT);
	CHECK(rc_base(0x18b) == 0x08b);

	CHECK(desc_is(0x1c4, "TPM_RC_VALUE (parameter 1): a value is out of "
		      "range or not correct for the context"));
	CHECK(rc_exit(0x1c4) == EX_FAIL);

	CHECK(desc_is(0x922, "TPM_RC_RETRY: the TPM was not able to start "
		      "the command; retry"));
	CHECK(rc_exit(0x922) == EX_FAIL);
}

static void test_positions(void)
{
	char buf[256];

	/* handle 2, session 3, parameter 15 */
	CHECK(name_is(0x28b, "TPM_RC_HANDLE"));
	rc_describe(0x28b, buf, sizeof(buf));
	CHECK(strstr(buf, "(handle 2)") != NULL);
	rc_describe(0xb8e, buf, sizeof(buf));
	CHECK(strstr(buf, "TPM_RC_AUTH_FAIL (session 3)") != NULL);
	rc_describe(0xfc4, buf, sizeof(buf));
	CHECK(strstr(buf, "TPM_RC_VALUE (parameter 15)") != NULL);
	/* format one without a number */
	rc_describe(0x084, buf, sizeof(buf));
	CHECK(strncmp(buf, "TPM_RC_VALUE: ", 14) == 0);
	CHECK(rc_base(0xfc4) == 0x084);
	CHECK(rc_base(0x084) == 0x084);
}

static void test_exit_map(void)
{
	CHECK(rc_exit(0x9a2) == EX_AUTH);	/* BAD_AUTH, session 1 */
	CHECK(rc_exit(0x99d) == EX_AUTH);	/* POLICY_FAIL, session 1 */
	CHECK(rc_exit(0x126) == EX_AUTH);	/* POLICY */
	CHECK(rc_exit(0x127) == EX_AUTH);	/* PCR */
	CHECK(rc_exit(0x128) == EX_AUTH);	/* PCR_CHANGED */
	CHECK(rc_exit(0x149) == EX_AUTH);	/* NV_AUTHORIZATION */
	CHECK(rc_exit(0x28b) == EX_NOENT);	/* HANDLE, handle 2 */
	CHECK(rc_exit(0x08b) == EX_NOENT);
	CHECK(rc_exit(0x101) == EX_FAIL);	/* FAILURE */
	CHECK(rc_exit(0x14c) == EX_FAIL);	/* NV_DEFINED */
	CHECK(rc_exit(0x902) == EX_FAIL);	/* OBJECT_MEMORY */
	CHECK(rc_exit(0x99f) == EX_FAIL);	/* INTEGRITY */
	CHECK(rc_exit(0x0001) == EX_FAIL);	/* TPM 1.2 code */
}

static void test_names(void)
{
	CHECK(name_is(0x101, "TPM_RC_FAILURE"));
	CHECK(name_is(0x143, "TPM_RC_COMMAND_CODE"));
	CHECK(name_is(0x14b, "TPM_RC_NV_SPACE"));
	CHECK(name_is(0x9a2, "TPM_RC_BAD_AUTH"));
	CHECK(name_is(0x99d, "TPM_RC_POLICY_FAIL"));
	CHECK(name_is(0x902, "TPM_RC_OBJECT_MEMORY"));
	CHECK(name_is(0x908, "TPM_RC_YIELDED"));
	CHECK(name_is(0x90a, "TPM_RC_TESTING"));
	CHECK(name_is(0x920, "TPM_RC_NV_RATE"));
	CHECK(name_is(0x910, "TPM_RC_REFERENCE_H0"));
	CHECK(name_is(0x916, "TPM_RC_REFERENCE_H6"));
	CHECK(name_is(0x918, "TPM_RC_REFERENCE_S0"));
	CHECK(name_is(0x91e, "TPM_RC_REFERENCE_S6"));
	/* unknown codes are named by number, never confused */
	CHECK(name_is(0x17f, "TPM_RC_0x17f"));
	CHECK(name_is(0x0bf, "TPM_RC_0x0bf"));
	CHECK(name_is(0x0001, "TPM 1.2 or vendor code 0x1"));
	CHECK(strcmp(rc_text(0x17f), "") == 0);
	{
		char buf[64];

		rc_describe(0x17f, buf, sizeof(buf));
		CHECK(strcmp(buf, "TPM_RC_0x17f") == 0);
		/* a small buffer truncates, never overflows */
		rc_describe(0x98e, buf, 8);
		CHECK(strlen(buf) == 7);
	}
}

int main(void)
{
	test_known();
	test_positions();
	test_exit_map();
	test_names();
	return unit_done("rc");
}
