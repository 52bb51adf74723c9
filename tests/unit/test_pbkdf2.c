/* PBKDF2-HMAC (RFC 8018), general over the hash.
 *   SHA-1: RFC 6070's test vectors (all but the 16,777,216-iteration one).
 *   SHA-256: RFC 7914 section 11's two PBKDF2-HMAC-SHA256 vectors.
 *   A password longer than the hash's block (HMAC hashes it first), an
 *   empty password and salt, SHA-512, and a length that is not a whole
 *   number of blocks: expected values from Python's hashlib.pbkdf2_hmac
 *   (OpenSSL's PKCS5_PBKDF2_HMAC).
 *   Refusals: an unknown hash, 0 iterations, 0 bytes. */
#include <stdlib.h>

#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/pbkdf2.h"
#include "unit.h"

static int kat(uint16_t alg, const void *p, size_t plen, const void *s,
	       size_t slen, uint32_t c, const char *want)
{
	uint8_t out[128], w[128];
	long n = hex_decode(want, w, sizeof(w));

	if (n <= 0) {
		fprintf(stderr, "bad test hex %s\n", want);
		exit(2);
	}
	if (pbkdf2_hmac(alg, p, plen, s, slen, c, out, (size_t)n))
		return 0;
	return memcmp(out, w, (size_t)n) == 0;
}

int main(void)
{
	uint8_t big[200], out[32];
	size_t i;

	/* RFC 6070 */
	CHECK(kat(TPM2_ALG_SHA1, "password", 8, "salt", 4, 1,
		  "0c60c80f961f0e71f3a9b524af6012062fe037a6"));
	CHECK(kat(TPM2_ALG_SHA1, "password", 8, "salt", 4, 2,
		  "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"));
	CHECK(kat(TPM2_ALG_SHA1, "password", 8, "salt", 4, 4096,
		  "4b007901b765489abead49d926f721d065a429c1"));
	CHECK(kat(TPM2_ALG_SHA1, "passwordPASSWORDpassword", 24,
		  "saltSALTsaltSALTsaltSALTsaltSALTsalt", 36, 4096,
		  "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"));
	CHECK(kat(TPM2_ALG_SHA1, "pass\0word", 9, "sa\0lt", 5, 4096,
		  "56fa6aa75548099dcc37d7f03425e0c3"));
	/* RFC 7914, 11 */
	CHECK(kat(TPM2_ALG_SHA256, "passwd", 6, "salt", 4, 1,
		  "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57"
		  "c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd5"
		  "09112041d3a19783"));
	CHECK(kat(TPM2_ALG_SHA256, "Password", 8, "NaCl", 4, 80000,
		  "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff0887"
		  "6b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078"
		  "478f62b397f33c8d"));
	/* hashlib */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)i;
	CHECK(kat(TPM2_ALG_SHA256, big, sizeof(big), "tpmbox", 6, 3,
		  "8e2ab7f78162695b505b33b177b3d661460f620edd98f531f781fce9"
		  "719288e520c76463493cb70a"));
	CHECK(kat(TPM2_ALG_SHA256, "", 0, "", 0, 1,
		  "f7ce0b653d2d72a4108cf5abe912ffdd777616dbbb27a70e8204f3ae"
		  "2d0f6fad"));
	CHECK(kat(TPM2_ALG_SHA512, "password", 8, "salt", 4, 2,
		  "e1d9c16aa681708a45f5c7c4e215ceb66e011a2e9f0040713f18aefd"
		  "b866d53cf76cab2868a39b9f7840edce4fef5a82be67335c77a6068e"
		  "04112754f27ccf4e"));
	/* a wrong expected value fails (the check can fail) */
	CHECK(!kat(TPM2_ALG_SHA1, "password", 8, "salt", 4, 3,
		   "4b007901b765489abead49d926f721d065a429c1"));
	/* refusals, out zeroed */
	memset(out, 0xaa, sizeof(out));
	CHECK(pbkdf2_hmac(0x0099, "p", 1, "s", 1, 1, out, 32) == -1);
	CHECK(out[0] == 0 && out[31] == 0);
	CHECK(pbkdf2_hmac(TPM2_ALG_SHA256, "p", 1, "s", 1, 0, out, 32) == -1);
	CHECK(pbkdf2_hmac(TPM2_ALG_SHA256, "p", 1, "s", 1, 1, out, 0) == -1);
	return unit_done("pbkdf2");
}
