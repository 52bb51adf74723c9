/* TPMT_PUBLIC marshalling, parsing, names and the SRK templates.  The
 * expected template bytes are written out from TCG TPM 2.0 Part 2
 * (TPMT_PUBLIC layout) and the TCG Provisioning Guidance SRK template:
 * ECC: type 0023, nameAlg 000b, attributes 00030472, empty policy,
 * AES(0006) 128(0080) CFB(0043), scheme NULL(0010), curve 0003, kdf NULL,
 * an empty unique (H-2; RSA: 0001, ..., keyBits 0800, exponent 0, empty
 * unique: H-1); the older form (tpm2_srk_template_zeros, the EK low
 * range's layout) has unique x and y of 32 zero bytes, or 256 for RSA.
 * That swtpm derives the same key from these bytes as tpm2-tools and
 * tpm2-openssl do is checked in takeown.bats and keys.bats. */
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm2/object.h"
#include "unit.h"

static size_t hx(const char *s, uint8_t *out, size_t cap)
{
	long n = hex_decode(s, out, cap);

	if (n < 0)
		exit(2);
	return (size_t)n;
}

static void test_srk_ecc(void)
{
	struct tpm2_public p, q;
	struct tberr e;
	uint8_t want[200], h[32];
	size_t n;
	int rsa = -1;

	/* the older form, with zeros */
	n = hx("0023000b000304720000000600800043001000030010"
	       "0020000000000000000000000000000000000000000000000000000000000000"
	       "00000020000000000000000000000000000000000000000000000000000000"
	       "0000000000", want, sizeof(want));
	tpm2_srk_template_zeros(&p, 0);
	CHECK(p.rawlen == n);
	CHECK_MEM(p.raw, want, n);
	CHECK(tpm2_srk_matches(&p, &rsa) && rsa == 0);
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(q.ecc_xlen == 32 && q.ecc_ylen == 32);
	/* H-2: the unique field empty */
	n = hx("0023000b000304720000000600800043001000030010"
	       "00000000", want, sizeof(want));
	tpm2_srk_template(&p, 0);
	CHECK(p.rawlen == n);
	CHECK_MEM(p.raw, want, n);
	CHECK(p.namelen == 34 && p.name[0] == 0 && p.name[1] == 0x0b);
	hash_buf(TPM2_ALG_SHA256, want, n, h);
	CHECK_MEM(p.name + 2, h, 32);
	CHECK(tpm2_srk_matches(&p, &rsa) && rsa == 0);
	/* Parse gives back the same fields, bytes and name. */
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(q.type == TPM2_ALG_ECC && q.name_alg == TPM2_ALG_SHA256 &&
	      q.attrs == 0x30472 && q.sym_alg == TPM2_ALG_AES &&
	      q.sym_bits == 128 && q.sym_mode == TPM2_ALG_CFB &&
	      q.curve == TPM2_ECC_NIST_P256 && q.ecc_xlen == 0);
	CHECK(q.namelen == p.namelen);
	CHECK_MEM(q.name, p.name, p.namelen);
	/* Near misses are not the SRK. */
	q.attrs &= ~TPMA_OBJECT_NODA;
	CHECK(!tpm2_srk_matches(&q, NULL));
	q.attrs |= TPMA_OBJECT_NODA;
	q.sym_bits = 256;
	CHECK(!tpm2_srk_matches(&q, NULL));
	q.sym_bits = 128;
	q.policylen = 32;
	CHECK(!tpm2_srk_matches(&q, NULL));
	q.policylen = 0;
	q.name_alg = TPM2_ALG_SHA1;
	CHECK(!tpm2_srk_matches(&q, NULL));
}

static void test_srk_rsa(void)
{
	struct tpm2_public p, q;
	struct tberr e;
	uint8_t want[400];
	size_t n;
	int rsa = -1;

	n = hx("0001000b0003047200000006008000430010080000000000"
	       "0100", want, sizeof(want));
	memset(want + n, 0, 256);
	n += 256;
	tpm2_srk_template_zeros(&p, 1);
	CHECK(p.rawlen == n);
	CHECK_MEM(p.raw, want, n);
	CHECK(tpm2_srk_matches(&p, &rsa) && rsa == 1);
	/* H-1: the unique field empty */
	n = hx("0001000b0003047200000006008000430010080000000000"
	       "0000", want, sizeof(want));
	tpm2_srk_template(&p, 1);
	CHECK(p.rawlen == n);
	CHECK_MEM(p.raw, want, n);
	CHECK(tpm2_srk_matches(&p, &rsa) && rsa == 1);
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(q.type == TPM2_ALG_RSA && q.rsa_bits == 2048 &&
	      q.rsa_exp == 0 && q.rsa_nlen == 0);
	q.rsa_bits = 3072;
	CHECK(!tpm2_srk_matches(&q, NULL));
}

static void test_parse_errors(void)
{
	struct tpm2_public p, q;
	struct tberr e;
	uint8_t buf[TPM2_PUBLIC_MAX + 8];

	tpm2_srk_template(&p, 0);
	memcpy(buf, p.raw, p.rawlen);
	/* A byte after the end. */
	buf[p.rawlen] = 0;
	CHECK(tpm2_public_parse(buf, p.rawlen + 1, &q, &e) == EX_FAIL);
	CHECK(strstr(e.msg, "after its end") != NULL);
	/* Truncated. */
	CHECK(tpm2_public_parse(buf, p.rawlen - 1, &q, &e) == EX_FAIL);
	CHECK(tpm2_public_parse(buf, 3, &q, &e) == EX_FAIL);
	/* Unknown type. */
	buf[0] = 0x12;
	CHECK(tpm2_public_parse(buf, p.rawlen, &q, &e) == EX_FAIL);
	CHECK(strstr(e.msg, "unknown object type") != NULL);
	buf[0] = 0x00;
	/* An x coordinate of 67 bytes: larger than any curve, an error (not
	 * a truncation). */
	{
		struct tb b;
		uint8_t big[67] = {0};

		tb_init(&b, buf, sizeof(buf));
		tb_put_bytes(&b, p.raw, 22);	/* up to the unique */
		tb_put_tpm2b(&b, big, sizeof(big));
		tb_put_tpm2b(&b, big, 32);
		CHECK(tpm2_public_parse(buf, b.len, &q, &e) == EX_FAIL);
	}
	/* An unsupported name algorithm. */
	memcpy(buf, p.raw, p.rawlen);
	buf[3] = 0x12;	/* SM3_256 */
	CHECK(tpm2_public_parse(buf, p.rawlen, &q, &e) == EX_FAIL);
}

static void test_keyedhash(void)
{
	struct tpm2_public p, q;
	struct tberr e;
	uint8_t want[100];
	size_t n;

	/* A sealed-data object: KEYEDHASH, NULL scheme, policy digest. */
	memset(&p, 0, sizeof(p));
	p.type = TPM2_ALG_KEYEDHASH;
	p.name_alg = TPM2_ALG_SHA256;
	p.attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		  TPMA_OBJECT_NODA;
	p.policylen = 32;
	memset(p.policy, 0x11, 32);
	p.scheme = TPM2_ALG_NULL;
	CHECK(tpm2_public_finish(&p) == 0);
	n = hx("0008000b000004120020"
	       "1111111111111111111111111111111111111111111111111111111111111111"
	       "00100000", want, sizeof(want));
	CHECK(p.rawlen == n);
	CHECK_MEM(p.raw, want, n);
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(q.type == TPM2_ALG_KEYEDHASH && q.policylen == 32 &&
	      q.scheme == TPM2_ALG_NULL && q.uniquelen == 0);
	CHECK(!tpm2_srk_matches(&q, NULL));
	/* HMAC scheme carries a hash. */
	p.scheme = TPM2_ALG_HMAC;
	p.scheme_hash = TPM2_ALG_SHA256;
	CHECK(tpm2_public_finish(&p) == 0);
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(q.scheme == TPM2_ALG_HMAC && q.scheme_hash == TPM2_ALG_SHA256);
	/* TPM2B_PUBLIC via a cursor. */
	{
		uint8_t b2[200];
		struct tb b;

		tb_init(&b, b2, sizeof(b2));
		tb_put_tpm2b(&b, p.raw, p.rawlen);
		tb_init_read(&b, b2, b.len);
		CHECK(tpm2_public_get2b(&b, &q, &e) == 0 && tb_left(&b) == 0);
		CHECK_MEM(q.name, p.name, p.namelen);
	}
}

static void test_ecc_signing(void)
{
	struct tpm2_public p, q;
	struct tberr e;

	/* ECDSA-SHA256 restricted signing key (an AK): scheme with hash. */
	memset(&p, 0, sizeof(p));
	p.type = TPM2_ALG_ECC;
	p.name_alg = TPM2_ALG_SHA256;
	p.attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_RESTRICTED |
		  TPMA_OBJECT_SIGN_ENCRYPT;
	p.sym_alg = TPM2_ALG_NULL;
	p.scheme = TPM2_ALG_ECDSA;
	p.scheme_hash = TPM2_ALG_SHA256;
	p.curve = TPM2_ECC_NIST_P256;
	p.kdf = TPM2_ALG_NULL;
	CHECK(tpm2_public_finish(&p) == 0);
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(q.scheme == TPM2_ALG_ECDSA && q.scheme_hash == TPM2_ALG_SHA256 &&
	      q.sym_alg == TPM2_ALG_NULL && q.rawlen == p.rawlen);
}

/* A created object is its template but for the unique field. */
static void test_same_template(void)
{
	struct tpm2_public t, p, q;
	struct tberr e;

	tpm2_srk_template(&t, 0);
	p = t;
	memset(p.ecc_x, 0x11, 32);
	memset(p.ecc_y, 0x22, 32);
	p.ecc_xlen = p.ecc_ylen = 32;
	CHECK(tpm2_public_finish(&p) == 0);
	/* as the TPM's answer is read: parsed from its bytes */
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(tpm2_public_same_template(&q, &t));
	q.attrs &= ~TPMA_OBJECT_FIXEDTPM;
	CHECK(!tpm2_public_same_template(&q, &t));
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	q.sym_bits = 256;
	CHECK(!tpm2_public_same_template(&q, &t));
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	q.ecc_xlen = 31;
	CHECK(!tpm2_public_same_template(&q, &t));
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	q.policylen = 32;
	CHECK(!tpm2_public_same_template(&q, &t));
	/* RSA: the modulus must have the template's size */
	tpm2_srk_template(&t, 1);
	p = t;
	memset(p.rsa_n, 0x5a, 256);
	p.rsa_nlen = 256;
	CHECK(tpm2_public_finish(&p) == 0);
	CHECK(tpm2_public_parse(p.raw, p.rawlen, &q, &e) == 0);
	CHECK(tpm2_public_same_template(&q, &t));
	q.rsa_nlen = 128;
	CHECK(!tpm2_public_same_template(&q, &t));
}

int main(void)
{
	test_same_template();
	test_srk_ecc();
	test_srk_rsa();
	test_parse_errors();
	test_keyedhash();
	test_ecc_signing();
	return unit_done("object");
}
