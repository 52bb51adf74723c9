/* TPM 1.2 session math and the response parser.  The expected values were
 * computed independently with Python's hashlib/hmac:
 *   inParamDigest = sha1(u32 0x15 || 00000007)
 *   cmd auth = hmac_sha1(00..13, digest || aa*20 || 55*20 || 01)
 *   outParamDigest = sha1(u32 0 || u32 0x15 || 11*20)
 *   rsp auth = hmac_sha1(00..13, outdigest || 77*20 || 55*20 || 00)
 *   OSAP secret = hmac_sha1(sha1("password"), 33*20 || 44*20)
 *   ADIP = sha1("new") XOR sha1(secret || aa*20)
 *   Sealx mask = 00..2c XOR MGF1-SHA1(11*20 || 22*20 || "XOR" || 33*20) */
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/cmd.h"
#include "tpm12/seal.h"
#include "tpm12/session.h"
#include "unit.h"

static void unhex(const char *s, uint8_t *out)
{
	hex_decode(s, out, strlen(s) / 2);
}

static void math(void)
{
	uint8_t key[20], ne[20], no[20], d[20], want[20], mac[20], p[4];
	uint8_t auth[20], ss[20], newauth[20], enc[20];
	struct tpm12_sess s;
	int i;

	for (i = 0; i < 20; i++)
		key[i] = (uint8_t)i;
	memset(ne, 0xaa, 20);
	memset(no, 0x55, 20);
	unhex("00000007", p);
	tpm12_param_digest(0x15, 0, 0, p, 4, d);
	unhex("204339f56fb534583532f58b5e8a15bbe585b1b5", want);
	CHECK_MEM(d, want, 20);
	tpm12_auth_hmac(key, d, ne, no, 1, mac);
	unhex("2ce5aea4d6e090f4e00abd2164d00573869076d1", want);
	CHECK_MEM(mac, want, 20);

	memset(p, 0x11, 4);
	{
		uint8_t out[20];

		memset(out, 0x11, 20);
		tpm12_param_digest(0, 0x15, 1, out, 20, d);
	}
	unhex("a1dad51b6badf62a3e1f63b72b83524510dbed00", want);
	CHECK_MEM(d, want, 20);

	hash_buf(TPM2_ALG_SHA1, "password", 8, auth);
	memset(ne, 0x33, 20);
	memset(no, 0x44, 20);
	tpm12_osap_secret(auth, ne, no, ss);
	unhex("8de4696dc9cf43046e8416fdbffa687d00dca695", want);
	CHECK_MEM(ss, want, 20);

	memset(&s, 0, sizeof(s));
	memcpy(s.key, ss, 20);
	memset(s.nonce_even, 0xaa, 20);
	hash_buf(TPM2_ALG_SHA1, "new", 3, newauth);
	tpm12_adip(&s, newauth, enc);
	unhex("aeed31d4ab596cde6b9beb82f7ec52adc5e47ae8", want);
	CHECK_MEM(enc, want, 20);
}

static void trailers(void)
{
	uint8_t mem[64], d[20], mac[20], trailer[41], want[20];
	struct tpm12_sess s;
	struct tberr e;
	struct tb b;
	int i;

	/* The command trailer: handle, a fresh nonceOdd, cont, the HMAC
	 * over that nonce. */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 20; i++)
		s.key[i] = (uint8_t)i;
	s.handle = 0x01020304;
	s.cont = 1;
	memset(s.nonce_even, 0xaa, 20);
	memset(d, 0x5a, 20);
	tb_init(&b, mem, sizeof(mem));
	CHECK(tpm12_sess_put(&s, d, &b) == 0);
	CHECK(b.len == 45 && !tb_err(&b));
	CHECK(mem[0] == 1 && mem[3] == 4 && mem[24] == 1);
	CHECK_MEM(mem + 4, s.nonce_odd, 20);
	tpm12_auth_hmac(s.key, d, s.nonce_even, s.nonce_odd, 1, mac);
	CHECK_MEM(mem + 25, mac, 20);

	/* The response trailer: the vector above verifies, any flipped
	 * bit does not, and the nonce is taken only on success. */
	memset(s.nonce_odd, 0x55, 20);
	unhex("a1dad51b6badf62a3e1f63b72b83524510dbed00", d);
	memset(trailer, 0x77, 20);
	trailer[20] = 0;
	unhex("4c7173501b6cf4d957a2f4a07a376cf330567903", trailer + 21);
	s.active = 1;
	for (i = 0; i < 41 * 8; i++) {
		trailer[i / 8] ^= (uint8_t)(1 << (i % 8));
		CHECK(tpm12_sess_check(&s, d, trailer, "x", &e) == EX_IO);
		trailer[i / 8] ^= (uint8_t)(1 << (i % 8));
	}
	CHECK(strstr(e.msg, "HMAC does not verify") != NULL);
	memset(want, 0xaa, 20);
	CHECK_MEM(s.nonce_even, want, 20);
	CHECK(s.active == 1);
	CHECK(tpm12_sess_check(&s, d, trailer, "x", &e) == 0);
	memset(want, 0x77, 20);
	CHECK_MEM(s.nonce_even, want, 20);
	CHECK(s.active == 0);	/* the TPM said continue = 0 */
}

static int parse(const char *hex, int na, uint32_t *rc, size_t *blen)
{
	uint8_t r[200];
	const uint8_t *body;
	struct tberr e;
	size_t n = strlen(hex) / 2;

	unhex(hex, r);
	return tpm12_parse(r, n, 0x15, na, rc, &body, blen, &e);
}

static void parser(void)
{
	uint32_t rc;
	size_t n;
	char h[400];

	/* A good PcrRead answer. */
	CHECK(parse("00c40000001e00000000"
		    "0000000000000000000000000000000000000000", 0, &rc,
		    &n) == 0 && rc == 0 && n == 20);
	/* Size in the header differs from the bytes read. */
	CHECK(parse("00c40000001f00000000"
		    "0000000000000000000000000000000000000000", 0, &rc,
		    &n) == EX_IO);
	CHECK(parse("00c4000000", 0, &rc, &n) == EX_IO);
	/* The short error form, and an error with a body (refused). */
	CHECK(parse("00c40000000a0000003d", 0, &rc, &n) == 0 && rc == 0x3d &&
	      n == 0);
	CHECK(parse("00c40000000a00000001", 1, &rc, &n) == 0 && rc == 1);
	CHECK(parse("00c40000000b0000003d00", 0, &rc, &n) == EX_IO);
	CHECK(parse("00c50000000a0000003d", 1, &rc, &n) == EX_IO);
	/* The tag must match the authorizations. */
	CHECK(parse("00c50000000e0000000000000000", 0, &rc, &n) == EX_IO);
	CHECK(parse("00c40000000e0000000000000000", 1, &rc, &n) == EX_IO);
	CHECK(parse("80010000000e0000000000000000", 0, &rc, &n) == EX_IO);
	/* One auth trailer (41 bytes) split off; too short is refused. */
	memset(h, 0, sizeof(h));
	strcpy(h, "00c500000037000000000000002a");
	memset(h + 28, '0', 82);
	CHECK(parse(h, 1, &rc, &n) == 0 && n == 4);
	CHECK(parse(h, 2, &rc, &n) == EX_IO);
	h[11] = '6';	/* size 0x36: one byte short of the header's */
	h[108] = '\0';
	CHECK(parse(h, 1, &rc, &n) == 0 && n == 3);
	h[106] = '\0';
	CHECK(parse(h, 1, &rc, &n) == EX_IO);
	/* A body shorter than one auth trailer. */
	strcpy(h, "00c500000032" "00000000");
	memset(h + 20, '0', 80);
	h[100] = '\0';
	CHECK(parse(h, 1, &rc, &n) == EX_IO);
	h[11] = '3';
	strcat(h, "00");
	CHECK(parse(h, 1, &rc, &n) == 0 && n == 0);
}

static void rcs(void)
{
	char buf[200];

	tpm12_rc_describe(0x3d, buf, sizeof(buf));
	CHECK(strncmp(buf, "TPM_BAD_LOCALITY: ", 18) == 0);
	tpm12_rc_describe(0x1234, buf, sizeof(buf));
	CHECK(strcmp(buf, "TPM 1.2 error 0x1234") == 0);
	CHECK(tpm12_rc_exit(0x01) == EX_AUTH);
	CHECK(tpm12_rc_exit(0x18) == EX_AUTH);
	CHECK(tpm12_rc_exit(0x803) == EX_LOCKOUT);
	CHECK(tpm12_rc_exit(0x02) == EX_NOENT);
	CHECK(tpm12_rc_exit(0x3d) == EX_FAIL);
	CHECK(strcmp(tpm12_ord_name(0x15), "TPM_PcrRead") == 0);
}

/* TPM_Sealx's and TPM_Unseal's XOR masking: 45 bytes, three MGF1
 * blocks, the last one partly; applied twice it is undone. */
static void sealx_mask(void)
{
	uint8_t ev[20], od[20], sec[20], p[45], want[45];
	int i;

	memset(ev, 0x11, 20);
	memset(od, 0x22, 20);
	memset(sec, 0x33, 20);
	for (i = 0; i < 45; i++)
		p[i] = (uint8_t)i;
	unhex("11a4d48bdbbd035e7c26cf3805362a3d3a2e26dfdb7be883928037f967"
	      "4760f14d0fec03d1e06d55c9c7a716aa", want);
	tpm12_xor_mask(sec, ev, od, p, sizeof(p));
	CHECK(memcmp(p, want, sizeof(p)) == 0);
	tpm12_xor_mask(sec, ev, od, p, sizeof(p));
	for (i = 0; i < 45; i++)
		CHECK(p[i] == i);
}

int main(void)
{
	math();
	sealx_mask();
	trailers();
	parser();
	rcs();
	return unit_done("tpm12");
}
