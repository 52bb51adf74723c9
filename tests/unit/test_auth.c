/* The AUTH grammar: str:, hex:, file:PATH, env:VAR, bare text. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/auth.h"
#include "unit.h"

static struct tberr e;

static int is(const char *spec, const void *want, size_t n)
{
	struct authval a;
	int rc;

	err_clear(&e);
	memset(&a, 0xee, sizeof(a));
	rc = auth_parse(spec, &a, &e);
	if (rc || a.n != n || memcmp(a.v, want, n)) {
		fprintf(stderr, "  auth '%.40s': rc %d n %zu msg '%s'\n", spec,
			rc, a.n, e.msg);
		return 0;
	}
	return 1;
}

static int refused(const char *spec, int code, const char *want)
{
	struct authval a;
	int rc;

	err_clear(&e);
	rc = auth_parse(spec, &a, &e);
	if (rc != code || e.code != code || !strstr(e.msg, want)) {
		fprintf(stderr, "  auth '%.40s': rc %d msg '%s' (want %d '%s')\n",
			spec, rc, e.msg, code, want);
		return 0;
	}
	return 1;
}

static void test_str_hex(void)
{
	char s[80], big[AUTH_MAX + 1];

	CHECK(is("str:abc", "abc", 3));
	CHECK(is("abc", "abc", 3));		/* bare = str: */
	CHECK(is("str:", "", 0));
	CHECK(is("", "", 0));
	CHECK(is("str:hex:00", "hex:00", 6));	/* only one prefix */
	CHECK(is("hex:00ff10", "\x00\xff\x10", 3));
	CHECK(is("hex:0xABCD", "\xab\xcd", 2));
	CHECK(is("hex:", "", 0));
	CHECK(refused("hex:abc", EX_USAGE, "bad hex"));
	CHECK(refused("hex:zz", EX_USAGE, "bad hex"));
	CHECK(refused("hex:00 11", EX_USAGE, "bad hex"));

	/* exactly AUTH_MAX is fine, one more is refused */
	memset(big, 'p', AUTH_MAX);
	big[AUTH_MAX] = '\0';
	snprintf(s, sizeof(s), "str:%s", big);
	CHECK(is(s, big, AUTH_MAX));
	CHECK(is(big, big, AUTH_MAX));
	snprintf(s, sizeof(s), "str:%sq", big);
	CHECK(refused(s, EX_USAGE, "longer than 64 bytes"));
	snprintf(s, sizeof(s), "%sq", big);
	CHECK(refused(s, EX_USAGE, "longer than 64 bytes"));
	{
		char h[2 * AUTH_MAX + 8];
		int i;

		strcpy(h, "hex:");
		for (i = 0; i < AUTH_MAX; i++)
			strcat(h, "5a");
		{
			struct authval a;

			CHECK(auth_parse(h, &a, &e) == 0 && a.n == AUTH_MAX &&
			      a.v[0] == 0x5a && a.v[AUTH_MAX - 1] == 0x5a);
		}
		strcat(h, "5a");
		CHECK(refused(h, EX_USAGE, "bad hex"));
	}
}

static void test_env(void)
{
	char big[AUTH_MAX + 2];

	setenv("TB_UNIT_SECRET", "s3cr3t\n", 1);
	CHECK(is("env:TB_UNIT_SECRET", "s3cr3t\n", 7));
	setenv("TB_UNIT_EMPTY", "", 1);
	CHECK(is("env:TB_UNIT_EMPTY", "", 0));
	unsetenv("TB_UNIT_UNSET");
	CHECK(refused("env:TB_UNIT_UNSET", EX_USAGE,
		      "environment variable TB_UNIT_UNSET is not set"));
	memset(big, 'x', AUTH_MAX + 1);
	big[AUTH_MAX + 1] = '\0';
	setenv("TB_UNIT_BIG", big, 1);
	CHECK(refused("env:TB_UNIT_BIG", EX_USAGE, "longer than 64 bytes"));
	big[AUTH_MAX] = '\0';
	setenv("TB_UNIT_BIG", big, 1);
	CHECK(is("env:TB_UNIT_BIG", big, AUTH_MAX));
}

static void test_file(void)
{
	char path[] = "/tmp/tb-unit-auth.XXXXXX", spec[64];
	char big[AUTH_MAX + 1];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	/* bytes exactly: the newline and a NUL stay */
	CHECK(write(fd, "pw\0x\n", 5) == 5);
	close(fd);
	snprintf(spec, sizeof(spec), "file:%s", path);
	CHECK(is(spec, "pw\0x\n", 5));

	memset(big, 'b', sizeof(big));
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, big, AUTH_MAX) == AUTH_MAX);
	close(fd);
	CHECK(is(spec, big, AUTH_MAX));
	fd = open(path, O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "b", 1) == 1);
	close(fd);
	CHECK(refused(spec, EX_USAGE, "larger than 64 bytes"));
	CHECK(strncmp(e.msg, "authorization value: ", 21) == 0);

	unlink(path);
	CHECK(refused(spec, EX_NOENT, "no such file"));
	CHECK(refused("file:/", EX_IO, "/"));	/* a directory */
}

static void test_wipe(void)
{
	struct authval a;
	size_t i;
	int zero = 1;

	CHECK(auth_parse("str:secret", &a, &e) == 0);
	auth_wipe(&a);
	for (i = 0; i < sizeof(a.v); i++)
		zero &= a.v[i] == 0;
	CHECK(zero && a.n == 0);
}

int main(void)
{
	test_str_hex();
	test_env();
	test_file();
	test_wipe();
	return unit_done("auth");
}
