/* HOTP and TOTP against RFC 4226 Appendix D and RFC 6238 Appendix B
 * (SHA-1), base32 against RFC 4648 section 10, and the totp blob's
 * parameters block and URI. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base32.h"
#include "crypto/otp.h"
#include "fmt/otpauth.h"
#include "unit.h"

static const uint8_t rfc_key[] = "12345678901234567890";

static void test_hotp(void)
{
	static const uint32_t want[10] = { 755224, 287082, 359152, 969429,
					   338314, 254676, 287922, 162583,
					   399871, 520489 };
	uint32_t code;
	char s[9];
	int i;

	for (i = 0; i < 10; i++) {
		CHECK(otp_hotp(rfc_key, 20, (uint64_t)i, 6, &code) == 0);
		CHECK(code == want[i]);
	}
	otp_format(7081804, 8, s);
	CHECK(strcmp(s, "07081804") == 0);
	otp_format(5, 6, s);
	CHECK(strcmp(s, "000005") == 0);
}

static void test_totp(void)
{
	static const struct { uint64_t t; uint32_t code; } v[] = {
		{ 59, 94287082 }, { 1111111109, 7081804 },
		{ 1111111111, 14050471 }, { 1234567890, 89005924 },
		{ 2000000000, 69279037 }, { 20000000000ull, 65353130 },
	};
	uint8_t c[8];
	uint32_t code;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK(otp_hotp(rfc_key, 20, otp_step(v[i].t, 30), 8,
			       &code) == 0);
		CHECK(code == v[i].code);
	}
	CHECK(otp_step(59, 30) == 1 && otp_step(60, 30) == 2);
	CHECK(otp_step(20000000000ull, 30) == 0x27bc86aa);
	otp_counter(0x27bc86aa, c);
	CHECK_MEM(c, "\0\0\0\0\x27\xbc\x86\xaa", 8);
}

static void test_base32(void)
{
	static const char *const in[] = { "", "f", "fo", "foo", "foob",
					   "fooba", "foobar" };
	static const char *const pad[] = { "", "MY======", "MZXQ====",
					    "MZXW6===", "MZXW6YQ=",
					    "MZXW6YTB", "MZXW6YTBOI======" };
	static const char *const nopad[] = { "", "MY", "MZXQ", "MZXW6",
					      "MZXW6YQ", "MZXW6YTB",
					      "MZXW6YTBOI" };
	char out[48];
	size_t i;

	for (i = 0; i < 7; i++) {
		CHECK(b32_encode((const uint8_t *)in[i], strlen(in[i]), 1, out,
				 sizeof(out)) == (long)strlen(pad[i]));
		CHECK(strcmp(out, pad[i]) == 0);
		CHECK(b32_encode((const uint8_t *)in[i], strlen(in[i]), 0, out,
				 sizeof(out)) == (long)strlen(nopad[i]));
		CHECK(strcmp(out, nopad[i]) == 0);
	}
	CHECK(b32_encode((const uint8_t *)"foobar", 6, 1, out, 16) == -1);
	CHECK(b32_encode(rfc_key, 20, 0, out, sizeof(out)) == 32);
	CHECK(strcmp(out, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == 0);
}

static void test_params(void)
{
	struct otp_params p, q;
	struct tberr e;
	char *pem = NULL, *uri = NULL;
	size_t n = 0;

	memset(&p, 0, sizeof(p));
	p.kind = OTP_TOTP;
	p.digits = 8;
	p.period = 60;
	strcpy(p.issuer, "ACME Co");
	strcpy(p.label, "alice@example.org");
	CHECK(otp_params_check(&p, &e) == 0);
	CHECK(otp_params_append(&p, &pem, &n, &e) == 0);
	CHECK(pem && otp_params_decode(pem, n, &q, &e) == 0);
	CHECK(q.digits == 8 && q.period == 60 && q.kind == OTP_TOTP);
	CHECK(strcmp(q.issuer, "ACME Co") == 0);
	CHECK(strcmp(q.label, "alice@example.org") == 0);
	CHECK(otp_uri(&p, rfc_key, 20, 0, &uri, &e) == 0);
	CHECK(uri && strcmp(uri, "otpauth://totp/ACME%20Co:alice%40example."
			    "org?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer"
			    "=ACME%20Co&digits=8&period=60") == 0);
	free(uri);
	free(pem);
	p.issuer[0] = '\0';
	p.kind = OTP_HOTP;
	p.nv = 0x01500016;
	p.nvnamelen = 34;
	memset(p.nvname, 0xab, 34);
	CHECK(otp_uri(&p, rfc_key, 20, 7, &uri, &e) == 0);
	CHECK(uri && strcmp(uri, "otpauth://hotp/alice%40example.org?secret="
			    "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&digits=8&"
			    "counter=7") == 0);
	free(uri);
	/* refusals */
	p.digits = 7;
	CHECK(otp_params_check(&p, &e) == EX_USAGE);
	p.digits = 6;
	strcpy(p.issuer, "a:b");
	CHECK(otp_params_check(&p, &e) == EX_USAGE);
	p.issuer[0] = '\0';
	p.label[0] = '\0';
	CHECK(otp_params_check(&p, &e) == EX_USAGE);
	strcpy(p.label, "x");
	p.kind = OTP_TOTP;
	p.nv = 0;
	p.nvnamelen = 0;
	p.period = 0;
	CHECK(otp_params_check(&p, &e) == EX_USAGE);
	p.period = OTP_PERIOD_MAX + 1;
	CHECK(otp_params_check(&p, &e) == EX_USAGE);
	CHECK(otp_params_decode("nothing", 7, &q, &e) == EX_FAIL);
}

int main(void)
{
	test_hotp();
	test_totp();
	test_base32();
	test_params();
	return unit_done("otp");
}
