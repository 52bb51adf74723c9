/* Escrow codecs and their crypto: published vectors (RFC 7748 X25519,
 * RFC 5869 HKDF, RFC 3394 AES key wrap, BIP 173 Bech32, the age spec's
 * example key pair), files made by OpenSSL and age (escrow_vectors.h),
 * round trips, and every refusal the readers make. */
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "crypto/hkdf.h"
#include "crypto/keywrap.h"
#include "crypto/x25519.h"
#include "escrow_vectors.h"
#include "fmt/age.h"
#include "fmt/bech32.h"
#include "fmt/cms.h"
#include "fmt/recovery.h"
#include "fmt/x509.h"
#include "job/escrow.h"
#include "unit.h"

static size_t unhex(const char *h, uint8_t *out, size_t cap)
{
	long n = hex_decode(h, out, cap);

	return n < 0 ? 0 : (size_t)n;
}

static void test_x25519(void)
{
	uint8_t a[32], b[32], ap[32], bp[32], want[32], s1[32], s2[32];
	static const uint8_t zero[32];

	/* RFC 7748, 6.1 */
	unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
	      a, 32);
	unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
	      b, 32);
	CHECK(x25519_base(ap, a) == 0);
	CHECK(x25519_base(bp, b) == 0);
	unhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
	      want, 32);
	CHECK_MEM(ap, want, 32);
	unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
	      want, 32);
	CHECK_MEM(bp, want, 32);
	CHECK(x25519(s1, a, bp) == 0);
	CHECK(x25519(s2, b, ap) == 0);
	unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742",
	      want, 32);
	CHECK_MEM(s1, want, 32);
	CHECK_MEM(s2, want, 32);
	/* a point of small order gives all zeros: refused */
	CHECK(x25519(s1, a, zero) == -1);
}

static void test_hkdf_kw(void)
{
	uint8_t ikm[22], salt[13], info[10], okm[42], want[42];
	uint8_t kek[32], key[32], w[40], back[32];

	/* RFC 5869, test case 1 */
	memset(ikm, 0x0b, sizeof(ikm));
	unhex("000102030405060708090a0b0c", salt, sizeof(salt));
	unhex("f0f1f2f3f4f5f6f7f8f9", info, sizeof(info));
	CHECK(hkdf_sha256(ikm, 22, salt, 13, info, 10, okm, 42) == 0);
	unhex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5"
	      "bf34007208d5b887185865", want, 42);
	CHECK_MEM(okm, want, 42);
	/* RFC 3394, 4.6: 256 bits of key data with a 256-bit KEK */
	unhex("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
	      kek, 32);
	unhex("00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
	      key, 32);
	CHECK(aes_kw_wrap(kek, 32, key, 32, w) == 0);
	unhex("28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43B"
	      "FB988B9B7A02DD21", okm, 40);
	CHECK_MEM(w, okm, 40);
	CHECK(aes_kw_unwrap(kek, 32, w, 40, back) == 0);
	CHECK_MEM(back, key, 32);
	kek[0] ^= 1;
	CHECK(aes_kw_unwrap(kek, 32, w, 40, back) == -1);
	kek[0] ^= 1;
	w[39] ^= 1;
	CHECK(aes_kw_unwrap(kek, 32, w, 40, back) == -1);
	CHECK(aes_kw_wrap(kek, 32, key, 12, w) == -1);	/* not 8k, < 16 */
	CHECK(aes_kw_unwrap(kek, 32, w, 20, back) == -1);
}

static void test_bech32(void)
{
	static const char *const valid[] = {
		"A12UEL5L", "a12uel5l",
		"an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
		"abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
		"split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
		"?1ezyfcl",
	};
	static const char *const invalid[] = {
		"pzry9x0s0muk", "1pzry9x0s0muk", "x1b4n0q5v", "li1dgmt3",
		"A1G7SGD8", "10a06t8", "1qzzfhee", "a12UEL5L", "a12uel5m",
		"de1lg7wt\xff",
	};
	char hrp[128], s[160];
	uint8_t d[64], k[32];
	size_t i, n;

	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		CHECK(bech32_decode(valid[i], strlen(valid[i]), hrp,
				    sizeof(hrp), d, sizeof(d), &n) == 0);
	/* BIP 173's "11" + 82 x "q" + "c8247j" (90 characters) */
	memcpy(s, "11", 2);
	memset(s + 2, 'q', 82);
	memcpy(s + 84, "c8247j", 7);
	CHECK(bech32_decode(s, 90, hrp, sizeof(hrp), d, sizeof(d), &n) == 0 &&
	      n == 51 && strcmp(hrp, "1") == 0);
	s[50] = 'p';
	CHECK(bech32_decode(s, 90, hrp, sizeof(hrp), d, sizeof(d), &n) == -1);
	for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		CHECK(bech32_decode(invalid[i], strlen(invalid[i]), hrp,
				    sizeof(hrp), d, sizeof(d), &n) == -1);
	/* 20 bytes 0x00 0x44 0x32 ... of abcdef's data round-trip */
	CHECK(bech32_decode(valid[3], strlen(valid[3]), hrp, sizeof(hrp), d,
			    sizeof(d), &n) == 0 && n == 20 &&
	      strcmp(hrp, "abcdef") == 0);
	CHECK(bech32_encode("abcdef", d, 20, 0, s, sizeof(s)) == 0 &&
	      strcmp(s, valid[3]) == 0);
	/* the age spec's example identity (32 x 0x42) and its recipient */
	CHECK(bech32_decode("AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZ"
			    "GFPYYSJZGFPYYSJZGFPQ4EGAEX", 74, hrp, sizeof(hrp),
			    d, sizeof(d), &n) == 0);
	CHECK(n == 32 && strcmp(hrp, "age-secret-key-") == 0);
	memset(k, 0x42, 32);
	CHECK_MEM(d, k, 32);
	CHECK(x25519_base(k, d) == 0);
	CHECK(age_recipient_string(k, s, sizeof(s)) == 0);
	CHECK(strcmp(s, "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xee"
		     "xvn73equnujwj") == 0);
	CHECK(age_recipient_parse(s, strlen(s), d) == 0);
	CHECK_MEM(d, k, 32);
	s[10] ^= 1;
	CHECK(age_recipient_parse(s, strlen(s), d) == -1);
	CHECK(age_recipient_parse("AGE1ZVKYG2LQZRAA2LNJVQEJ32NKUU0UES2S82HZRYE8"
				  "69XEEXVN73EQUNUJWJ", 62, d) == -1);
}

static const char spec_id[] =
	"# a comment\n\n"
	"AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX\n";

static void test_age(void)
{
	uint8_t ids[4][AGE_KEY], r[2][AGE_KEY], *out, *f, *g;
	size_t n, flen, i;
	struct tberr e;
	static const size_t sizes[] = { 1, 65535, 65536, 65537, 131072 };

	CHECK(age_identities(spec_id, strlen(spec_id), ids, 4, &n, &e) == 0);
	CHECK(n == 1);
	CHECK(age_identities("nonsense\n", 9, ids, 4, &n, &e) == EX_USAGE);
	CHECK(age_identities("# only\n", 7, ids, 4, &n, &e) == EX_USAGE);
	/* a file age made */
	CHECK(age_count(age_file, sizeof(age_file)) == 1);
	CHECK(age_decrypt(age_file, sizeof(age_file),
			  (const uint8_t (*)[AGE_KEY])ids, 1, &out, &n,
			  &e) == 0);
	CHECK(n == 14 && memcmp(out, "age made this\n", 14) == 0);
	free(out);
	/* another identity: no match (4) */
	memset(ids[1], 0x43, 32);
	CHECK(age_decrypt(age_file, sizeof(age_file),
			  (const uint8_t (*)[AGE_KEY])&ids[1], 1, &out, &n,
			  &e) == EX_AUTH && !out);
	/* round trips over the chunk edges, to two recipients */
	memset(ids[2], 0x17, 32);
	CHECK(x25519_base(r[0], ids[1]) == 0 && x25519_base(r[1], ids[2]) == 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *d = malloc(sizes[i]);

		memset(d, (int)i + 1, sizes[i]);
		CHECK(age_encrypt((const uint8_t (*)[AGE_KEY])r, 2, d,
				  sizes[i], &f, &flen, &e) == 0);
		CHECK(age_count(f, flen) == 2);
		CHECK(age_decrypt(f, flen, (const uint8_t (*)[AGE_KEY])&ids[2],
				  1, &out, &n, &e) == 0);
		CHECK(n == sizes[i] && memcmp(out, d, n) == 0);
		free(out);
		/* the last chunk cut off: no final chunk */
		if (sizes[i] > 65536) {
			CHECK(age_decrypt(f, flen - (sizes[i] - 65536) - 16,
					  (const uint8_t (*)[AGE_KEY])&ids[2],
					  1, &out, &n, &e) == EX_FAIL && !out);
		}
		/* any payload byte flipped */
		f[flen - 1] ^= 1;
		CHECK(age_decrypt(f, flen, (const uint8_t (*)[AGE_KEY])&ids[2],
				  1, &out, &n, &e) == EX_FAIL && !out);
		f[flen - 1] ^= 1;
		/* an empty chunk after the data */
		g = malloc(flen + 16);
		memcpy(g, f, flen);
		memset(g + flen, 0, 16);
		CHECK(age_decrypt(g, flen + 16,
				  (const uint8_t (*)[AGE_KEY])&ids[2], 1, &out,
				  &n, &e) == EX_FAIL && !out);
		free(g);
		free(f);
		free(d);
	}
	/* header damage: the MAC, a CR, the version, an empty argument */
	f = malloc(sizeof(age_file) + 1);
	memcpy(f, age_file, sizeof(age_file));
	{
		uint8_t *mac = memmem(f, sizeof(age_file), "--- ", 4);

		mac[10] = mac[10] == 'A' ? 'B' : 'A';
		CHECK(age_decrypt(f, sizeof(age_file),
				  (const uint8_t (*)[AGE_KEY])ids, 1, &out, &n,
				  &e) == EX_FAIL);
		CHECK(strstr(e.msg, "header MAC") != NULL);
		memcpy(f, age_file, sizeof(age_file));
		f[21] = '\r';	/* "age-encryption.org/v1\r" */
		CHECK(age_count(f, sizeof(age_file)) == -1);
		memcpy(f, age_file, sizeof(age_file));
		f[20] = '2';	/* v2 */
		CHECK(age_count(f, sizeof(age_file)) == -1);
		memcpy(f, age_file, sizeof(age_file));
		f[25] = ' ';	/* "->  X25519" */
		CHECK(age_count(f, sizeof(age_file)) == -1);
	}
	free(f);
	CHECK(age_count((const uint8_t *)"age-encryption.org/v1\n--- x\n",
			28) == -1);
}

static void pub(const char *pem, struct pubkey *k, int want)
{
	struct tberr e;

	CHECK(x509_read_public(pem, strlen(pem), k, &e) == want);
}

static void priv(const char *pem, struct privkey *k, int want)
{
	struct tberr e;

	CHECK(x509_read_private(pem, strlen(pem), k, &e) == want);
}

static void test_keys_cms(void)
{
	struct pubkey rsa, ec256, ec384, small, p521;
	struct privkey krsa, kpkcs1, kec256, kec384;
	struct cms_rcpt r[4];
	struct cms_msg m;
	struct tberr e;
	uint8_t *der, *out, kek[32];
	size_t dlen, n;
	const uint8_t *id;
	size_t idlen;

	pub(rsa_crt, &rsa, 0);
	CHECK(rsa.type == KEY_RSA && rsa.is_cert && pubkey_rsa_bits(&rsa) == 2048);
	pub(ec256_pub, &ec256, 0);
	CHECK(ec256.type == KEY_EC && !ec256.is_cert && ec256.pointlen == 65);
	pub(ec384_crt, &ec384, 0);
	CHECK(ec384.type == KEY_EC && ec384.is_cert && ec384.pointlen == 97);
	pub(rsa1024_pub, &small, 0);
	CHECK(pubkey_rsa_bits(&small) == 1024);
	pub(ec521_pub, &p521, EX_USAGE);
	pub(rsa_key, &p521, EX_USAGE);		/* a private key */
	priv(rsa_key, &krsa, 0);
	priv(rsa_pkcs1, &kpkcs1, 0);
	priv(ec256_key, &kec256, 0);
	priv(ec384_key, &kec384, 0);
	CHECK(krsa.type == KEY_RSA && kpkcs1.type == KEY_RSA);
	CHECK(kec256.type == KEY_EC && kec256.dlen == 32);
	CHECK(kec384.type == KEY_EC && kec384.dlen == 48);
	{
		struct privkey bad;

		priv(rsa_crt, &bad, EX_USAGE);
		priv("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAA==\n"
		     "-----END ENCRYPTED PRIVATE KEY-----\n", &bad, EX_USAGE);
	}

	/* files OpenSSL made: RSA-OAEP, ECDH P-384, a KEK */
	CHECK(cms_parse(ossl_rsa_cms, sizeof(ossl_rsa_cms), &m, &e) == 0);
	CHECK(cms_count(&m, CMS_KTRI) == 1);
	CHECK(cms_open_key(&m, &krsa, &out, &n, &e) == 0);
	CHECK(n == 19 && memcmp(out, "openssl made this\r\n", 19) == 0);
	free(out);
	CHECK(cms_open_key(&m, &kpkcs1, &out, &n, &e) == 0);
	free(out);
	/* OpenSSL names the certificate's key by issuer and serial */
	CHECK(cms_names_key(&m, 0, &rsa) == 1);
	CHECK(cms_names_key(&m, 0, &ec384) == 0);
	CHECK(cms_names_key(&m, 0, &small) == 0);
	CHECK(cms_parse(ossl_ec_cms, sizeof(ossl_ec_cms), &m, &e) == 0);
	CHECK(cms_open_key(&m, &kec384, &out, &n, &e) == 0);
	CHECK(n == 19 && memcmp(out, "openssl made this\r\n", 19) == 0);
	free(out);
	CHECK(cms_open_key(&m, &kec256, &out, &n, &e) == EX_AUTH && !out);
	CHECK(cms_names_key(&m, 0, &ec384) == 1);
	CHECK(cms_names_key(&m, 0, &ec256) == 0);
	CHECK(cms_names_key(&m, 0, &rsa) == 0);
	CHECK(cms_parse(ossl_kek_cms, sizeof(ossl_kek_cms), &m, &e) == 0);
	CHECK(cms_kekid(&m, 0, &id, &idlen) == 0 && idlen == 3 &&
	      memcmp(id, "\x0a\x0b\x0c", 3) == 0);
	unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
	      kek, 32);
	CHECK(cms_open_kek(&m, 0, kek, &out, &n, &e) == 0);
	CHECK(n == 19 && memcmp(out, "openssl made this\r\n", 19) == 0);
	free(out);
	kek[5] ^= 1;
	CHECK(cms_open_kek(&m, 0, kek, &out, &n, &e) == EX_AUTH && !out);

	/* our own: every kind in one message */
	memset(r, 0, sizeof(r));
	r[0].key = &rsa;
	r[1].key = &ec256;
	r[2].key = &ec384;
	memset(r[3].kek, 7, 32);
	memcpy(r[3].kekid, "salt", 4);
	r[3].kekidlen = 4;
	CHECK(cms_encrypt(r, 4, (const uint8_t *)"escrow", 6, &der, &dlen,
			  &e) == 0);
	CHECK(cms_parse(der, dlen, &m, &e) == 0);
	CHECK(cms_count(&m, CMS_KTRI) == 1 && cms_count(&m, CMS_KARI) == 2 &&
	      cms_count(&m, CMS_KEKRI) == 1);
	/* each key is named by exactly one RecipientInfo (of its type), the
	 * 1024-bit key by none */
	{
		const struct pubkey *ks[4] = { &rsa, &ec256, &ec384, &small };
		size_t i, j, hits;

		for (j = 0; j < 4; j++) {
			for (i = hits = 0; i < m.nri; i++)
				hits += (size_t)cms_names_key(&m, i, ks[j]);
			CHECK(hits == (j < 3));
		}
	}
	CHECK(cms_open_key(&m, &krsa, &out, &n, &e) == 0 && n == 6);
	free(out);
	CHECK(cms_open_key(&m, &kec256, &out, &n, &e) == 0 && n == 6);
	free(out);
	CHECK(cms_open_key(&m, &kec384, &out, &n, &e) == 0 && n == 6);
	free(out);
	CHECK(cms_open_kek(&m, 0, r[3].kek, &out, &n, &e) == 0 && n == 6 &&
	      memcmp(out, "escrow", 6) == 0);
	free(out);
	/* the tag, then the ciphertext, altered: exit 1 */
	der[dlen - 1] ^= 1;
	CHECK(cms_parse(der, dlen, &m, &e) == 0);
	CHECK(cms_open_key(&m, &krsa, &out, &n, &e) == EX_FAIL && !out);
	der[dlen - 1] ^= 1;
	der[dlen - 20] ^= 1;
	CHECK(cms_open_kek(&m, 0, r[3].kek, &out, &n, &e) == EX_FAIL && !out);
	der[dlen - 20] ^= 1;
	/* structure: a byte more, a byte less, another content type */
	{
		uint8_t *big = malloc(dlen + 1);

		memcpy(big, der, dlen);
		big[dlen] = 0;
		CHECK(cms_parse(big, dlen + 1, &m, &e) == EX_FAIL);
		CHECK(cms_parse(der, dlen - 1, &m, &e) == EX_FAIL);
		big[15] ^= 1;	/* the content type OID's last byte */
		CHECK(cms_parse(big, dlen, &m, &e) == EX_FAIL);
		free(big);
	}
	free(der);
	/* a 1024-bit RSA recipient is refused */
	r[0].key = &small;
	CHECK(cms_encrypt(r, 1, (const uint8_t *)"x", 1, &der, &dlen, &e) ==
	      EX_USAGE && !der);
	pubkey_free(&rsa);
	pubkey_free(&ec256);
	pubkey_free(&ec384);
	pubkey_free(&small);
	privkey_free(&krsa);
	privkey_free(&kpkcs1);
	privkey_free(&kec256);
	privkey_free(&kec384);
}

static void test_recovery(void)
{
	uint8_t code[16], back[16], kek[32], want[32], salt[16];
	char text[RECOVERY_TEXT], typo[RECOVERY_TEXT];
	struct tberr e;
	int g, k, d, caught = 0, tried = 0, swaps = 0;
	size_t i;

	for (i = 0; i < 16; i++)
		code[i] = (uint8_t)(i * 37 + 11);
	recovery_format(code, text);
	CHECK(strlen(text) == 55 && text[6] == '-');
	CHECK(recovery_parse(text, strlen(text), back, &e) == 0);
	CHECK_MEM(back, code, 16);
	/* every single wrong digit, in every place, is caught in its group */
	for (g = 0; g < 8; g++)
		for (k = 0; k < 6; k++)
			for (d = 0; d < 10; d++) {
				char msg[64];

				memcpy(typo, text, sizeof(text));
				if (typo[7 * g + k] == '0' + d)
					continue;
				typo[7 * g + k] = (char)('0' + d);
				tried++;
				snprintf(msg, sizeof(msg), "group %d of", g + 1);
				caught += recovery_parse(typo, 55, back, &e) ==
					  EX_USAGE && strstr(e.msg, msg);
			}
	CHECK(tried == 8 * 6 * 9 && caught == tried);
	/* every swap of two different neighbours within a group, too */
	for (g = 0; g < 8; g++)
		for (k = 0; k < 5; k++) {
			char t;

			memcpy(typo, text, sizeof(text));
			if (typo[7 * g + k] == typo[7 * g + k + 1])
				continue;
			t = typo[7 * g + k];
			typo[7 * g + k] = typo[7 * g + k + 1];
			typo[7 * g + k + 1] = t;
			swaps++;
			caught += recovery_parse(typo, 55, back, &e) == EX_USAGE;
		}
	CHECK(swaps > 0 && caught == tried + swaps);
	/* a multiple of 11 above 65535 x 11 */
	memcpy(typo, text, sizeof(text));
	memcpy(typo, "720896", 6);
	CHECK(recovery_parse(typo, 55, back, &e) == EX_USAGE);
	/* shapes */
	CHECK(recovery_parse(text, 54, back, &e) == EX_USAGE);
	CHECK(recovery_parse("000000", 6, back, &e) == EX_USAGE);
	CHECK(recovery_parse("", 0, back, &e) == EX_USAGE);
	CHECK(recovery_parse("000000-000000-000000-000000-000000-000000-000000-"
			     "000000-000000", 62, back, &e) == EX_USAGE);
	CHECK(recovery_parse("000000 000000\n000000-000000 000000 000000 "
			     "000000 000000\n", 56, back, &e) == 0);
	CHECK(recovery_parse("00000000000000000000000000000000000000000000"
			     "0000", 48, back, &e) == 0);
	CHECK(recovery_parse("00000a-000000-000000-000000-000000-000000-"
			     "000000-000000", 55, back, &e) == EX_USAGE);
	/* the KDF: HKDF-SHA-256 as openssl kdf computes it */
	for (i = 0; i < 16; i++) {
		code[i] = (uint8_t)i;
		salt[i] = (uint8_t)(0x10 + i);
	}
	CHECK(recovery_kek(code, salt, 16, kek) == 0);
	unhex("B3915E8049D35A101A816F70FD7EDB7E892B4EEB1359F30A2E3882EC42558463",
	      want, 32);
	CHECK_MEM(kek, want, 32);
}

static void test_escrow_block(void)
{
	struct escrow *x = escrow_new();
	struct escrow_blk b;
	struct tberr e;
	char *pem = NULL, *rsa_path = "/nonexistent/escrow.pem";
	size_t pemlen = 0, n;
	uint8_t *out;

	CHECK(x != NULL);
	CHECK(escrow_add(x, "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xee"
			 "xvn73equnujwj", &e) == 0);
	CHECK(escrow_add(x, "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xee"
			 "xvn73equnujwq", &e) == EX_USAGE);
	CHECK(escrow_add(x, rsa_path, &e) == EX_NOENT);
	escrow_want_code(x);
	CHECK(escrow_wanted(x));
	CHECK(escrow_make(x, (const uint8_t *)"blob secret", 11, &e) == 0);
	CHECK(escrow_code(x) != NULL && strlen(escrow_code(x)) == 56);
	CHECK(escrow_append(x, &pem, &pemlen, &e) == 0);
	CHECK(strstr(pem, "-----BEGIN TPMBOX ESCROW-----") != NULL);
	CHECK(strstr(pem, "-----BEGIN CMS-----") != NULL);
	CHECK(strstr(pem, "-----BEGIN AGE ENCRYPTED FILE-----") != NULL);
	CHECK(escrow_read(pem, pemlen, &b, &e) == 0);
	CHECK(b.cms.p && b.age.p);
	CHECK(escrow_open_key(&b, spec_id, strlen(spec_id), &out, &n, &e) ==
	      0 && n == 11 && memcmp(out, "blob secret", 11) == 0);
	free(out);
	CHECK(escrow_open_code(&b, escrow_code(x), 56, &out, &n, &e) == 0 &&
	      n == 11);
	free(out);
	CHECK(escrow_open_key(&b, rsa_key, strlen(rsa_key), &out, &n, &e) ==
	      EX_AUTH && !out);
	escrow_blk_free(&b);
	/* the index alone: damaged copies, versions, kinds */
	{
		uint8_t idx[8 + 38];

		memcpy(idx, "TBES\0\1\0\1\0\1", 10);
		memset(idx + 10, 0, sizeof(idx) - 10);
		memset(&b, 0, sizeof(b));
		CHECK(escrow_parse(idx, sizeof(idx), &b, &e) == 0);
		CHECK(b.cms.listed && !b.age.listed);
		CHECK(escrow_parse(idx, sizeof(idx) - 1, &b, &e) == EX_FAIL);
		idx[5] = 2;
		CHECK(escrow_parse(idx, sizeof(idx), &b, &e) == EX_FAIL);
		CHECK(strstr(e.msg, "version 2") != NULL);
		idx[5] = 1;
		idx[9] = 3;	/* kind 3 */
		CHECK(escrow_parse(idx, sizeof(idx), &b, &e) == EX_FAIL);
		idx[9] = 1;
		idx[7] = 0;	/* no copies */
		CHECK(escrow_parse(idx, sizeof(idx), &b, &e) == EX_FAIL);
		idx[0] = 'X';
		CHECK(escrow_parse(idx, sizeof(idx), &b, &e) == EX_FAIL);
	}
	CHECK(escrow_read("no blocks", 9, &b, &e) == EX_NOENT);
	free(pem);
	escrow_free(x);
}

int main(void)
{
	test_x25519();
	test_hkdf_kw();
	test_bech32();
	test_age();
	test_keys_cms();
	test_recovery();
	test_escrow_block();
	return unit_done("escrow");
}
