/* Known-answer tests for the host crypto sessions rely on.
 *   HMAC-SHA-256/SHA-1: RFC 4231 test cases 1, 2, 6; RFC 2202 case 2.
 *   KDFa: SP800-108 counter-mode HMAC KDF with TPM's layout
 *     (counter || label || 00 || U || V || L32); expected values computed
 *     independently with OpenSSL 3.0 `openssl kdf ... KBKDF` (salt = label,
 *     info = U || V, separator and L on by default).
 *   KDFe: SP800-56A concatenation KDF; expected values from OpenSSL 3.0
 *     `openssl kdf ... SSKDF` with info = "SECRET\0" || U || V.
 *   AES-CFB128: NIST SP800-38A F.3.13 and F.3.17.
 *   AES-256-GCM: McGrew/Viega GCM test cases 13, 14, 16.
 *   P-256 ECDH: with Q = G the shared x equals the ephemeral public x. */
#include <stdlib.h>

#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/ecc.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "unit.h"

static size_t hx(const char *s, uint8_t *out, size_t cap)
{
	long n = hex_decode(s, out, cap);

	if (n < 0) {
		fprintf(stderr, "bad test hex %s\n", s);
		exit(2);
	}
	return (size_t)n;
}

static void test_hmac(void)
{
	uint8_t key[131], out[32], want[32];
	const char *larger = "Test Using Larger Than Block-Size Key - Hash "
			     "Key First";

	memset(key, 0x0b, 20);
	CHECK(hmac_buf(TPM2_ALG_SHA256, key, 20, "Hi There", 8, out) == 0);
	hx("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
	   want, 32);
	CHECK_MEM(out, want, 32);
	CHECK(hmac_buf(TPM2_ALG_SHA256, "Jefe", 4,
		       "what do ya want for nothing?", 28, out) == 0);
	hx("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
	   want, 32);
	CHECK_MEM(out, want, 32);
	memset(key, 0xaa, sizeof(key));
	CHECK(hmac_buf(TPM2_ALG_SHA256, key, 131, larger, strlen(larger),
		       out) == 0);
	hx("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
	   want, 32);
	CHECK_MEM(out, want, 32);
	CHECK(hmac_buf(TPM2_ALG_SHA1, "Jefe", 4,
		       "what do ya want for nothing?", 28, out) == 0);
	hx("effcdf6ae5eb2fa2d27416d5f184df9c259a7c79", want, 20);
	CHECK_MEM(out, want, 20);
	/* Streaming equals one-shot. */
	{
		struct hmac_ctx *h = hmac_new(TPM2_ALG_SHA256, "Jefe", 4);
		uint8_t o2[32];

		hmac_update(h, "what do ya ", 11);
		hmac_update(h, "want for nothing?", 17);
		hmac_final(h, o2);
		hx("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b9"
		   "64ec3843", want, 32);
		CHECK_MEM(o2, want, 32);
	}
	CHECK(hmac_buf(0x1234, "k", 1, "x", 1, out) == -1);
}

static void test_kdfa(void)
{
	uint8_t k[32], u[32], v[32], out[80], want[80];

	hx("000102030405060708090a0b0c0d0e0f", k, 16);
	memset(u, 0xa1, 32);
	memset(v, 0xb2, 32);
	/* 384 bits: two HMAC blocks, the second truncated. */
	CHECK(kdfa(TPM2_ALG_SHA256, k, 16, "ATH", u, 32, v, 32, out, 384) ==
	      0);
	hx("df1b18e63cc281aa4850aad2463136c7e2f7c6b0b52da8e419fa382264c13418"
	   "4f38ba2077de249d127c84dc53dd035f", want, 48);
	CHECK_MEM(out, want, 48);
	/* SHA-1, 256 bits (two blocks, 20 + 12 bytes), U and V swapped. */
	memcpy(k + 16, k, 16);
	CHECK(kdfa(TPM2_ALG_SHA1, k, 32, "CFB", v, 32, u, 32, out, 256) == 0);
	hx("fd251444843a6e4a8b1709fef77382b7bf44f576d8711c46196cb606452df1ef",
	   want, 32);
	CHECK_MEM(out, want, 32);
	CHECK(kdfa(TPM2_ALG_SHA256, k, 16, "ATH", u, 32, v, 32, out, 7) == -1);
	CHECK(kdfa(0x1234, k, 16, "ATH", u, 32, v, 32, out, 256) == -1);
}

static void test_kdfe(void)
{
	uint8_t z[32], u[32], v[32], out[80], want[80];

	memset(z, 0xc3, 32);
	memset(u, 0xa1, 32);
	memset(v, 0xb2, 32);
	CHECK(kdfe(TPM2_ALG_SHA256, z, 32, "SECRET", u, 32, v, 32, out, 256) ==
	      0);
	hx("0e6f1174e6c344f04f2cee01b211f07c13426a35dfcca967cf7cfa1f09cf3451",
	   want, 32);
	CHECK_MEM(out, want, 32);
	CHECK(kdfe(TPM2_ALG_SHA256, z, 32, "SECRET", u, 32, v, 32, out, 640) ==
	      0);
	hx("0e6f1174e6c344f04f2cee01b211f07c13426a35dfcca967cf7cfa1f09cf3451"
	   "7f07a0d6033689c293709c962f3e6d852357917b05da30b53dae642d37ebd71a"
	   "55fbaaf0305d5bf352c6ea6099582074", want, 80);
	CHECK_MEM(out, want, 80);
}

static void test_cfb(void)
{
	static const char *pt =
		"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
		"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
	uint8_t k[32], iv[16], buf[64], want[64], p[64];

	hx("000102030405060708090a0b0c0d0e0f", iv, 16);
	hx(pt, p, 64);
	hx("2b7e151628aed2a6abf7158809cf4f3c", k, 16);
	memcpy(buf, p, 64);
	CHECK(aes_cfb(k, 16, iv, buf, 64, 0) == 0);
	hx("3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
	   "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6",
	   want, 64);
	CHECK_MEM(buf, want, 64);
	CHECK(aes_cfb(k, 16, iv, buf, 64, 1) == 0);
	CHECK_MEM(buf, p, 64);
	/* A partial last block (parameters are rarely block multiples). */
	memcpy(buf, p, 64);
	CHECK(aes_cfb(k, 16, iv, buf, 21, 0) == 0);
	CHECK_MEM(buf, want, 21);
	CHECK_MEM(buf + 21, p + 21, 43);
	hx("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
	   k, 32);
	memcpy(buf, p, 64);
	CHECK(aes_cfb(k, 32, iv, buf, 64, 0) == 0);
	hx("dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407b"
	   "df10132415e54b92a13ed0a8267ae2f975a385741ab9cef82031623d55b1e471",
	   want, 64);
	CHECK_MEM(buf, want, 64);
	CHECK(aes_cfb(k, 15, iv, buf, 64, 0) == -1);
}

static void test_gcm(void)
{
	uint8_t k[32] = {0}, iv[12] = {0}, in[64], out[64], tag[16], want[80];
	uint8_t a[20];
	size_t n;

	CHECK(aes_gcm_encrypt(k, iv, 12, NULL, 0, NULL, 0, out, tag) == 0);
	hx("530f8afbc74536b9a963b4f1c4cb738b", want, 16);
	CHECK_MEM(tag, want, 16);
	memset(in, 0, 16);
	CHECK(aes_gcm_encrypt(k, iv, 12, NULL, 0, in, 16, out, tag) == 0);
	hx("cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919",
	   want, 32);
	CHECK_MEM(out, want, 16);
	CHECK_MEM(tag, want + 16, 16);
	/* Case 16: AES-256, 60-byte plaintext, 20-byte AAD. */
	hx("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
	   k, 32);
	hx("cafebabefacedbaddecaf888", iv, 12);
	n = hx("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	       in, sizeof(in));
	hx("feedfacedeadbeeffeedfacedeadbeefabaddad2", a, 20);
	CHECK(aes_gcm_encrypt(k, iv, 12, a, 20, in, n, out, tag) == 0);
	hx("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	   "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
	   "76fc6ece0f4e1768cddf8853bb2d551b", want, 76);
	CHECK_MEM(out, want, 60);
	CHECK_MEM(tag, want + 60, 16);
	CHECK(aes_gcm_decrypt(k, iv, 12, a, 20, out, n, out, tag) == 0);
	CHECK_MEM(out, in, n);
	/* Tampered ciphertext, tag or AAD: refused, output wiped. */
	memcpy(out, want, 60);
	out[5] ^= 1;
	CHECK(aes_gcm_decrypt(k, iv, 12, a, 20, out, n, out, tag) == -1);
	memcpy(out, want, 60);
	tag[0] ^= 0x80;
	CHECK(aes_gcm_decrypt(k, iv, 12, a, 20, out, n, out, tag) == -1);
	tag[0] ^= 0x80;
	a[3] ^= 1;
	CHECK(aes_gcm_decrypt(k, iv, 12, a, 20, out, n, out, tag) == -1);
	{
		uint8_t zero[60] = {0};

		CHECK_MEM(out, zero, 60);
	}
}

static void test_ecc_rng(void)
{
	/* The P-256 generator. */
	uint8_t gx[32], gy[32], ex[32], ey[32], z[32], r1[40], r2[40];

	hx("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
	   gx, 32);
	hx("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
	   gy, 32);
	CHECK(ecc_p256_ephemeral(gx, 32, gy, 32, ex, ey, z) == 0);
	CHECK_MEM(z, ex, 32);
	/* Not on the curve: refused (an invalid-curve attack otherwise). */
	gy[31] ^= 1;
	CHECK(ecc_p256_ephemeral(gx, 32, gy, 32, ex, ey, z) == -1);
	CHECK(rng_bytes(r1, sizeof(r1)) == 0);
	CHECK(rng_bytes(r2, sizeof(r2)) == 0);
	CHECK(memcmp(r1, r2, sizeof(r1)) != 0);
	{
		char *pem;
		size_t n;

		gy[31] ^= 1;
		CHECK(pk_pem_p256(gx, 32, gy, 32, &pem, &n) == 0);
		CHECK(n > 100 && strncmp(pem, "-----BEGIN PUBLIC KEY-----",
					 26) == 0);
		free(pem);
		gy[31] ^= 1;
		CHECK(pk_pem_p256(gx, 32, gy, 32, &pem, &n) == -1);
	}
}

int main(void)
{
	test_hmac();
	test_kdfa();
	test_kdfe();
	test_cfb();
	test_gcm();
	test_ecc_rng();
	return unit_done("kdf");
}
