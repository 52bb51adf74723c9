/* base64url encoding (JOSE's form: no padding, - and _), and that the
 * decoder reads back what it writes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pem.h"
#include "unit.h"

static int enc_is(const char *in, size_t n, const char *want)
{
	size_t len = 99;
	char *s = b64url_encode((const uint8_t *)in, n, &len);
	int ok = s && len == strlen(want) && strcmp(s, want) == 0;

	free(s);
	return ok;
}

static void test_vectors(void)
{
	/* RFC 4648 section 10, padding dropped */
	CHECK(enc_is("", 0, ""));
	CHECK(enc_is("f", 1, "Zg"));
	CHECK(enc_is("fo", 2, "Zm8"));
	CHECK(enc_is("foo", 3, "Zm9v"));
	CHECK(enc_is("foob", 4, "Zm9vYg"));
	CHECK(enc_is("fooba", 5, "Zm9vYmE"));
	CHECK(enc_is("foobar", 6, "Zm9vYmFy"));
	/* the two characters that differ from standard base64 */
	CHECK(enc_is("\xfb\xff\xbf", 3, "-_-_"));
	CHECK(enc_is("\xff\xff", 2, "__8"));
}

static void test_roundtrip(void)
{
	uint8_t in[64], out[64];
	size_t n, len;
	char *s;

	for (n = 0; n < sizeof(in); n++)
		in[n] = (uint8_t)(n * 37 + 250);
	for (n = 0; n <= sizeof(in); n++) {
		s = b64url_encode(in, n, &len);
		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK(strchr(s, '=') == NULL && strchr(s, '+') == NULL &&
		      strchr(s, '/') == NULL);
		CHECK(b64url_decode(s, len, out, sizeof(out)) == (long)n);
		CHECK(memcmp(in, out, n) == 0);
		free(s);
	}
}

int main(void)
{
	test_vectors();
	test_roundtrip();
	return unit_done("b64url");
}
