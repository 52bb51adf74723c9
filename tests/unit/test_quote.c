/* Quote parsing, checks and file formats.  The fixture is a real
 * tpm2_quote (tpm2-tools 5.4, swtpm 0.7.1) by an ECC P-256 AK over
 * sha256:1,7+sha1:7 with nonce c0ffee after PCR 7 was extended with
 * H("abc"); tpm2_quote printed calcDigest e11f7384... for it. */
#include <stdlib.h>

#include "base/buf.h"
#include "base/hex.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/verify.h"
#include "fmt/quote.h"
#include "job/attest.h"
#include "unit.h"

static const char attest_hex[] =
	"ff54434780180022000b58ac4fd3da02ebfd536bae6b9991a92b7d04efd3264c"
	"f2c832e542f5be97ed7e0003c0ffee000000000003c9c73e953f885a17d1cd01"
	"69fdf7380c31d42400000002000b038200000004038000000020e11f73844802"
	"8b4e2e2349b72d61171cab2ded519fa86fb23c4e9d3527607c8b";
static const char sig_hex[] =
	"0018000b00205c002c06152235fb5616c19a563efec2ef0c864c094c6a20bcb5"
	"91a4cb3b5f900020e842ccc94119e40a58722e5f2768f296894a18853a9ddac1"
	"fdc636f5a21c3dff";
static const char ak_pem[] =
	"-----BEGIN PUBLIC KEY-----\n"
	"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE0L3m9v944hYS6t7UhEXuW9ycYYLJ\n"
	"PEQxn4BWPzZSuEPmI/dZE+OLqdTSCJo7FX4DCA1qidLhOPBYgv8Gl+TkPg==\n"
	"-----END PUBLIC KEY-----\n";
static const char pcr7_256[] =
	"589f9ffed4c477966bfb8d41f37895b08c69047df8f911d6f3b57fbe08faee8d";
static const char pcr7_1[] = "ccd5bd41458de644ac34a2478b58ff819bef5acf";
static const char digest_hex[] =
	"e11f738448028b4e2e2349b72d61171cab2ded519fa86fb23c4e9d3527607c8b";

static void fixture(struct quote *q)
{
	memset(q, 0, sizeof(*q));
	q->attest_len = (size_t)hex_decode(attest_hex, q->attest,
					   sizeof(q->attest));
	q->sig_len = (size_t)hex_decode(sig_hex, q->sig, sizeof(q->sig));
	q->sel.n = 2;
	q->sel.b[0].alg = TPM2_ALG_SHA256;
	q->sel.b[0].mask = (1u << 1) | (1u << 7);
	q->sel.b[1].alg = TPM2_ALG_SHA1;
	q->sel.b[1].mask = 1u << 7;
	q->vals.n = 3;
	q->vals.v[0] = (struct pcr_val){ TPM2_ALG_SHA256, 1, 32, {0} };
	q->vals.v[1] = (struct pcr_val){ TPM2_ALG_SHA256, 7, 32, {0} };
	hex_decode(pcr7_256, q->vals.v[1].d, 32);
	q->vals.v[2] = (struct pcr_val){ TPM2_ALG_SHA1, 7, 20, {0} };
	hex_decode(pcr7_1, q->vals.v[2].d, 20);
}

static int check(const struct quote *q, const char *nonce, struct tberr *e)
{
	uint8_t n[64];
	struct quote_want w = { .key = (const uint8_t *)ak_pem,
				.keylen = sizeof(ak_pem) - 1 };

	if (nonce) {
		w.nonce = n;
		w.nonce_len = (size_t)hex_decode(nonce, n, sizeof(n));
	}
	err_clear(e);
	return quote_check(q, &w, e);
}

static int msg_has(const struct tberr *e, const char *s)
{
	return strstr(e->msg, s) != NULL;
}

static void test_attest(void)
{
	struct quote q;
	struct quote_attest a;
	struct tberr e;
	uint8_t d[32];
	size_t i;

	fixture(&q);
	CHECK(quote_attest_parse(q.attest, q.attest_len, &a, &e) == 0);
	CHECK(a.magic == TPM2_GENERATED_VALUE);
	CHECK(a.type == TPM2_ST_ATTEST_QUOTE);
	CHECK(a.extra_len == 3 && memcmp(a.extra, "\xc0\xff\xee", 3) == 0);
	CHECK(a.signer_len == 34);
	CHECK(quote_sel_equal(&a.sel, &q.sel));
	hex_decode(digest_hex, d, sizeof(d));
	CHECK(a.digest_len == 32 && memcmp(a.digest, d, 32) == 0);
	/* tpm2-tools' calcDigest from the same values */
	CHECK(quote_pcr_digest(TPM2_ALG_SHA256, &q.vals, d) == 0);
	{
		uint8_t want[32];

		hex_decode(digest_hex, want, sizeof(want));
		CHECK_MEM(d, want, 32);
	}
	/* every truncation is an error, and so is a trailing byte */
	for (i = 0; i < q.attest_len; i++)
		CHECK(quote_attest_parse(q.attest, i, &a, &e) == EX_FAIL);
	q.attest[q.attest_len++] = 0;
	CHECK(quote_attest_parse(q.attest, q.attest_len, &a, &e) == EX_FAIL);
	/* another type parses its header only; the type check reports it */
	fixture(&q);
	q.attest[5] = 0x17;	/* TPM_ST_ATTEST_CERTIFY */
	CHECK(quote_attest_parse(q.attest, q.attest_len, &a, &e) == 0);
	CHECK(a.type == 0x8017);
}

static void test_check(void)
{
	struct quote q;
	struct tberr e;

	fixture(&q);
	CHECK(check(&q, "c0ffee", &e) == 0);
	CHECK(check(&q, NULL, &e) == 0);

	CHECK(check(&q, "c0ffef", &e) == EX_FAIL);
	CHECK(msg_has(&e, "nonce check failed"));
	CHECK(check(&q, "", &e) == EX_FAIL);
	CHECK(msg_has(&e, "nonce check failed"));

	fixture(&q);
	q.attest[40] ^= 1;
	CHECK(check(&q, "c0ffee", &e) == EX_FAIL);
	CHECK(msg_has(&e, "signature check failed"));

	fixture(&q);
	q.sig[10] ^= 1;
	CHECK(check(&q, "c0ffee", &e) == EX_FAIL);
	CHECK(msg_has(&e, "signature check failed"));

	fixture(&q);
	q.vals.v[1].d[0] ^= 1;
	CHECK(check(&q, "c0ffee", &e) == EX_FAIL);
	CHECK(msg_has(&e, "PCR digest check failed"));

	/* same number of values, other PCR: the selection differs */
	fixture(&q);
	q.sel.b[0].mask = (1u << 2) | (1u << 7);
	q.vals.v[0].idx = 2;
	CHECK(check(&q, "c0ffee", &e) == EX_FAIL);
	CHECK(msg_has(&e, "PCR selection check failed"));
	CHECK(msg_has(&e, "sha256:1,7+sha1:7"));

	/* banks in another order: another selection (and digest) */
	fixture(&q);
	q.sel.b[0] = q.sel.b[1];
	q.sel.b[1].alg = TPM2_ALG_SHA256;
	q.sel.b[1].mask = (1u << 1) | (1u << 7);
	CHECK(check(&q, "c0ffee", &e) == EX_FAIL);
	CHECK(msg_has(&e, "PCR selection check failed"));

	/* values that do not follow their selection */
	fixture(&q);
	q.vals.n = 2;
	CHECK(check(&q, "c0ffee", &e) == EX_FAIL);
	CHECK(msg_has(&e, "PCR selection check failed"));

	/* the verifier's own selection */
	{
		struct pcr_sel want = q.sel;
		uint8_t n[3] = { 0xc0, 0xff, 0xee };
		struct quote_want w = { .key = (const uint8_t *)ak_pem,
					.keylen = sizeof(ak_pem) - 1,
					.nonce = n, .nonce_len = 3,
					.sel = &want };

		fixture(&q);
		CHECK(quote_check(&q, &w, &e) == 0);
		want.b[1].mask |= 1;
		CHECK(quote_check(&q, &w, &e) == EX_FAIL);
		CHECK(msg_has(&e, "PCR selection check failed"));
		CHECK(msg_has(&e, "not the sha256:1,7+sha1:0,7 asked"));
	}

	/* an unparsable key is a usage error, not a verdict */
	{
		struct quote_want w = { .key = (const uint8_t *)"junk",
					.keylen = 4 };

		fixture(&q);
		CHECK(quote_check(&q, &w, &e) == EX_USAGE);
	}
}

static void test_sig(void)
{
	struct quote_sig s;
	struct tberr e;
	uint8_t b[200];
	size_t n = (size_t)hex_decode(sig_hex, b, sizeof(b)), i;

	CHECK(quote_sig_parse(b, n, &s, &e) == 0);
	CHECK(s.alg == TPM2_ALG_ECDSA && s.hash == TPM2_ALG_SHA256);
	CHECK(s.rlen == 32 && s.slen == 32);
	for (i = 0; i < n; i++)
		CHECK(quote_sig_parse(b, i, &s, &e) == EX_FAIL);
	b[n] = 0;
	CHECK(quote_sig_parse(b, n + 1, &s, &e) == EX_FAIL);
	b[1] = 0x1c;	/* TPM_ALG_SM2 */
	CHECK(quote_sig_parse(b, n, &s, &e) == EX_FAIL);
	CHECK(msg_has(&e, "not supported"));
}

static void test_sel(void)
{
	static const uint8_t dup[] = { 0, 0, 0, 2, 0, 0x0b, 3, 1, 0, 0,
				       0, 0x0b, 3, 2, 0, 0 };
	static const uint8_t wide[] = { 0, 0, 0, 1, 0, 0x0b, 5, 1, 0, 0,
					0, 1 };
	static const uint8_t empty[] = { 0, 0, 0, 2, 0, 0x04, 3, 0, 0, 0,
					 0, 0x0b, 4, 0, 0, 0, 0x80 };
	struct pcr_sel s;
	struct tb b;
	char txt[64];

	tb_init_read(&b, dup, sizeof(dup));
	CHECK(quote_sel_get(&b, &s) == -1);
	tb_init_read(&b, wide, sizeof(wide));
	CHECK(quote_sel_get(&b, &s) == -1);
	tb_init_read(&b, empty, sizeof(empty));
	CHECK(quote_sel_get(&b, &s) == 0 && s.n == 1);
	CHECK(s.b[0].alg == TPM2_ALG_SHA256 && s.b[0].mask == 1u << 31);
	quote_sel_format(&s, txt, sizeof(txt));
	CHECK(strcmp(txt, "sha256:31") == 0);
	s.n = 0;
	quote_sel_format(&s, txt, sizeof(txt));
	CHECK(strcmp(txt, "(none)") == 0);
}

static void test_files(void)
{
	struct quote q, r;
	struct tberr e;
	uint8_t *out, *bad;
	size_t n, i;

	/* tpmbox QUOTE: round trip, truncation, trailing bytes, magic */
	fixture(&q);
	CHECK(quote_file_write(&q, &out, &n, &e) == 0);
	CHECK(memcmp(out, "TBQUOTE\0\0\1", 10) == 0);
	CHECK(quote_file_read(out, n, &r, &e) == 0);
	CHECK(r.attest_len == q.attest_len &&
	      memcmp(r.attest, q.attest, q.attest_len) == 0);
	CHECK(r.sig_len == q.sig_len && memcmp(r.sig, q.sig, q.sig_len) == 0);
	CHECK(quote_sel_equal(&r.sel, &q.sel) && r.vals.n == 3);
	CHECK(memcmp(r.vals.v[2].d, q.vals.v[2].d, 20) == 0);
	CHECK(check(&r, "c0ffee", &e) == 0);
	for (i = 0; i < n; i++)
		CHECK(quote_file_read(out, i, &r, &e) == EX_FAIL);
	bad = malloc(n + 1);
	memcpy(bad, out, n);
	bad[n] = 0;
	CHECK(quote_file_read(bad, n + 1, &r, &e) == EX_FAIL);
	CHECK(msg_has(&e, "after the PCR values"));
	bad[0] = 'X';
	CHECK(quote_file_read(bad, n, &r, &e) == EX_FAIL);
	CHECK(msg_has(&e, "bad magic"));
	bad[0] = 'T';
	bad[9] = 2;
	CHECK(quote_file_read(bad, n, &r, &e) == EX_FAIL);
	CHECK(msg_has(&e, "version 2"));
	free(bad);
	free(out);

	/* tpm2_quote -o layout, as tpm2-tools 5.4 writes it on x86-64 */
	CHECK(quote_tools_pcrs_write(&q.sel, &q.vals, &out, &n, &e) == 0);
	CHECK(n == 668);
	CHECK(memcmp(out, "\2\0\0\0\x0b\0\3\x82\0\0\0\0\4\0\3\x80\0\0\0\0",
		     20) == 0);
	CHECK(memcmp(out + 132, "\1\0\0\0\3\0\0\0\x20\0", 10) == 0);
	CHECK(out[140 + 66] == 0x20 && out[140 + 132] == 0x14);
	CHECK(memcmp(out + 140 + 68, q.vals.v[1].d, 32) == 0);
	{
		uint8_t m[QUOTE_ATTEST_MAX], s[QUOTE_SIG_MAX];
		size_t ml = (size_t)hex_decode(attest_hex, m, sizeof(m));
		size_t sl = (size_t)hex_decode(sig_hex, s, sizeof(s));

		CHECK(quote_from_tools(m, ml, s, sl, out, n, &r, &e) == 0);
		CHECK(check(&r, "c0ffee", &e) == 0);
		for (i = 0; i < n; i += 7)
			CHECK(quote_from_tools(m, ml, s, sl, out, i, &r, &e)
			      == EX_FAIL);
		out[132] = 2;	/* two digest lists, one present */
		CHECK(quote_from_tools(m, ml, s, sl, out, n, &r, &e) ==
		      EX_FAIL);
		out[132] = 1;
		out[136] = 4;	/* a fourth digest, not selected */
		CHECK(quote_from_tools(m, ml, s, sl, out, n, &r, &e) ==
		      EX_FAIL);
		out[136] = 3;
		out[140] = 0x14;	/* sha256 value of 20 bytes */
		CHECK(quote_from_tools(m, ml, s, sl, out, n, &r, &e) ==
		      EX_FAIL);
		out[140] = 0x20;
		CHECK(quote_from_tools(m, ml, s, sl, out, n, &r, &e) == 0);
	}
	/* the same file from a big-endian host reads the same */
	{
		uint8_t m[QUOTE_ATTEST_MAX], s[QUOTE_SIG_MAX], t;
		size_t ml = (size_t)hex_decode(attest_hex, m, sizeof(m));
		size_t sl = (size_t)hex_decode(sig_hex, s, sizeof(s)), j, k;

#define SW16(o) (t = out[o], out[o] = out[(o) + 1], out[(o) + 1] = t)
#define SW32(o) (SW16(o), SW16((o) + 2), t = out[o], \
		 out[o] = out[(o) + 2], out[(o) + 2] = t, t = out[(o) + 1], \
		 out[(o) + 1] = out[(o) + 3], out[(o) + 3] = t)
		SW32(0);
		for (j = 0; j < 16; j++)
			SW16(4 + 8 * j);
		SW32(132);
		SW32(136);
		for (k = 0; k < 8; k++)
			SW16(140 + 66 * k);
		CHECK(out[3] == 2 && out[4] == 0 && out[5] == 0x0b);
		CHECK(quote_from_tools(m, ml, s, sl, out, n, &r, &e) == 0);
		CHECK(check(&r, "c0ffee", &e) == 0);
		CHECK(r.vals.n == 3 && r.vals.v[2].alg == TPM2_ALG_SHA1);
#undef SW16
#undef SW32
	}
	/* 19 PCRs: three digest lists of 8, 8 and 3 */
	q.sel.b[0].mask = 0x7ff;
	q.sel.b[1].mask = 0xff;
	q.vals.n = 0;
	for (i = 0; i < 19; i++) {
		struct pcr_val *v = &q.vals.v[q.vals.n++];

		v->alg = i < 11 ? TPM2_ALG_SHA256 : TPM2_ALG_SHA1;
		v->idx = (uint8_t)(i < 11 ? i : i - 11);
		v->len = i < 11 ? 32 : 20;
		memset(v->d, (int)i, v->len);
	}
	free(out);
	CHECK(quote_tools_pcrs_write(&q.sel, &q.vals, &out, &n, &e) == 0);
	CHECK(n == 1732);
	CHECK(out[136] == 8 && out[136 + 532] == 8 && out[136 + 1064] == 3);
	free(out);
}

static void test_pem(void)
{
	struct vkey *k;
	struct tberr e;
	uint8_t *der;
	size_t n;

	CHECK(vkey_parse((const uint8_t *)ak_pem, sizeof(ak_pem) - 1, &k, &e)
	      == 0);
	CHECK(vkey_type(k) == TPM2_ALG_ECC && vkey_bits(k) == 256);
	vkey_free(k);
	CHECK(pem_get(ak_pem, sizeof(ak_pem) - 1, "PUBLIC KEY", "key", &der,
		      &n, &e) == 0);
	CHECK(n == 91 && der[0] == 0x30);
	CHECK(vkey_parse(der, n, &k, &e) == 0);	/* DER too */
	vkey_free(k);
	{
		char *pem;
		size_t pl;

		CHECK(pem_encode("PUBLIC KEY", der, n, &pem, &pl, &e) == 0);
		CHECK(pl == sizeof(ak_pem) - 1 && strcmp(pem, ak_pem) == 0);
		free(pem);
	}
	free(der);
	CHECK(pem_get(ak_pem, sizeof(ak_pem) - 1, "CERTIFICATE", "key", &der,
		      &n, &e) == EX_FAIL &&
	      strcmp(e.msg, "key: no CERTIFICATE PEM block") == 0);
	CHECK(vkey_parse((const uint8_t *)"-----BEGIN PUBLIC KEY-----\nAAA\n"
			 "-----END PUBLIC KEY-----\n", 55, &k, &e) == EX_USAGE);
}

static void test_replay(void)
{
	struct quote q;
	struct pcr_vals r;
	struct tberr e;

	fixture(&q);
	r.n = 2;
	r.v[0] = q.vals.v[2];			/* sha1:7 equal */
	r.v[1] = q.vals.v[1];
	r.v[1].idx = 4;				/* sha256:4 not quoted */
	CHECK(quote_match_replay(&q.vals, &r, "event log", &e) == 0);
	r.v[1].idx = 7;
	r.v[1].d[31] ^= 1;			/* sha256:7 differs */
	CHECK(quote_match_replay(&q.vals, &r, "event log", &e) == EX_FAIL);
	CHECK(msg_has(&e, "event log check failed: sha256:7 replays to "));
	r.n = 1;
	r.v[0].idx = 9;
	CHECK(quote_match_replay(&q.vals, &r, "IMA log", &e) == EX_FAIL);
	CHECK(strcmp(e.msg, "IMA log check failed: the log extends none of "
		     "the quoted PCRs") == 0);
	r.n = 0;
	CHECK(quote_match_replay(&q.vals, &r, "IMA log", &e) == EX_FAIL);
}

/* Every single-bit change anywhere in a QUOTE file is caught, by the
 * reader or by a check. */
static void test_bitflips(void)
{
	struct quote q, *r = malloc(sizeof(*r));
	struct tberr e;
	uint8_t *out;
	size_t n, i;
	int bit, caught = 0, total = 0;

	fixture(&q);
	CHECK(quote_file_write(&q, &out, &n, &e) == 0);
	for (i = 0; i < n; i++)
		for (bit = 0; bit < 8; bit++) {
			out[i] ^= (uint8_t)(1u << bit);
			total++;
			if (quote_file_read(out, n, r, &e) ||
			    check(r, "c0ffee", &e))
				caught++;
			else
				fprintf(stderr, "bit %d of byte %zu passed\n",
					bit, i);
			out[i] ^= (uint8_t)(1u << bit);
		}
	CHECK(caught == total && total == (int)n * 8);
	CHECK(quote_file_read(out, n, r, &e) == 0 &&
	      check(r, "c0ffee", &e) == 0);
	free(out);
	free(r);
}

/* The signer: a quote tpmbox made on swtpm 0.7.1 with an AK from akcreate
 * (nonce 01, sha256:0, PCR 0 all zero) under the SRK named srk_name.
 * tpm2_readpublic -q printed srk_qn for the SRK; tpm2_print showed the
 * quote's qualifiedSigner, which is QN(AK) = nameAlg || H(srk_qn ||
 * ak_name) (Part 1, "Qualified Name"). */
static const char q2_attest[] =
	"ff54434780180022000b8daef4acef3c1157a35bde6e9b69b2a5f7a9f88830725e"
	"4e7f341fa3f0a7484f00010100000000000019f5f972d4976ca3bbc80132880"
	"0a353b2894200000001000b03010000002066687aadf862bd776c8fc18b8e9f8e"
	"20089714856ee233b3902a591d0d5f2925";
static const char q2_sig[] =
	"0018000b00205bfe4d69249a4471d141e71f7f46d64bb601b23f677a34053111b7"
	"631777d3e90020b21b14f8c67f5317662eeed0cfaab051c8f5b9bd5292857cdc85"
	"234c40d923db";
static const char q2_tpub[] =
	"00580023000b00050072000000100018000b000300100020aec75bdf301d2d23aa"
	"7feb339497b6121d32a3275031832e44e1044ef8fe3c9400202901af05ff1c5f51"
	"d3f65f44bdb7b7ac3523f0bd25043b0f53fdbf7c8c8fd609";
static const char q2_ak_name[] =
	"000bad196b83126ee86ee8f3c1520cc121fe04571ae741d619662e42d0e62c039f23";
static const char q2_srk_name[] =
	"000b2ec5eccff6f433646624de464c6eb7affa0a392f393ead7a6cb4558988be6d17";
static const char q2_srk_qn[] =
	"000b718bbbbbbaa9b4791784652cd80d0f173946436cbf731f3c7a665026e2650f63";

static void test_signer(void)
{
	static struct quote q;
	struct tpm2_public *ak = malloc(sizeof(*ak));
	struct quote_want w;
	struct tberr e;
	uint8_t tp[200], srk[34], qn[TPM2_NAME_MAX], want[34], other[34];
	size_t tn = (size_t)hex_decode(q2_tpub, tp, sizeof(tp));
	char *pem = NULL;
	size_t pn, qnl;

	memset(&q, 0, sizeof(q));
	q.attest_len = (size_t)hex_decode(q2_attest, q.attest,
					  sizeof(q.attest));
	q.sig_len = (size_t)hex_decode(q2_sig, q.sig, sizeof(q.sig));
	q.sel.n = 1;
	q.sel.b[0].alg = TPM2_ALG_SHA256;
	q.sel.b[0].mask = 1;
	q.vals.n = 1;
	q.vals.v[0] = (struct pcr_val){ TPM2_ALG_SHA256, 0, 32, {0} };

	/* the TPM2B_PUBLIC: an AK, and its name is the one akcreate gave */
	CHECK(ak_pub_load(tp, tn, ak, &e) == AK_PUB_TPM2B);
	hex_decode(q2_ak_name, want, sizeof(want));
	CHECK(ak->namelen == 34 && memcmp(ak->name, want, 34) == 0);
	/* the SRK's QN from its name, as the TPM reported it */
	hex_decode(q2_srk_name, srk, sizeof(srk));
	hex_decode(q2_srk_qn, want, sizeof(want));
	qnl = ak_srk_qn(srk, 34, qn);
	CHECK(qnl == 34 && memcmp(qn, want, 34) == 0);
	CHECK(ak_srk_qn(srk, 1, qn) == 0);

	CHECK(ak_pub_pem(ak, &pem, &pn, &e) == 0);
	memset(&w, 0, sizeof(w));
	w.key = (const uint8_t *)pem;
	w.keylen = pn;
	CHECK(quote_check(&q, &w, &e) == 0);
	w.name = ak->name;
	w.namelen = ak->namelen;
	w.scheme = ak->scheme;
	w.scheme_hash = ak->scheme_hash;
	CHECK(quote_check(&q, &w, &e) == 0);
	w.parent_qn = qn;
	w.parent_qnlen = qnl;
	CHECK(quote_check(&q, &w, &e) == 0);
	/* another SRK: the AK is not the one under it */
	memcpy(other, qn, 34);
	other[33] ^= 1;
	w.parent_qn = other;
	CHECK(quote_check(&q, &w, &e) == EX_FAIL);
	CHECK(msg_has(&e, "signer check failed: qualifiedSigner 000b8daef4"));
	CHECK(msg_has(&e, "is not this AK under this SRK"));
	/* another AK's name under the right SRK */
	memcpy(other, ak->name, 34);
	other[2] ^= 0x80;
	w.parent_qn = qn;
	w.name = other;
	CHECK(quote_check(&q, &w, &e) == EX_FAIL);
	CHECK(msg_has(&e, "signer check failed"));
	/* a name of another algorithm: not even the right kind of QN */
	other[1] = 0x04;	/* SHA-1 */
	w.parent_qn = NULL;
	w.namelen = 22;
	CHECK(quote_check(&q, &w, &e) == EX_FAIL);
	CHECK(msg_has(&e, "not a qualified name of the AK's name algorithm"));
	/* the key's own scheme, not another */
	w.name = ak->name;
	w.namelen = ak->namelen;
	w.scheme_hash = TPM2_ALG_SHA384;
	CHECK(quote_check(&q, &w, &e) == EX_FAIL);
	CHECK(msg_has(&e, "signature check failed: signed with scheme"));
	w.scheme_hash = ak->scheme_hash;
	CHECK(quote_check(&q, &w, &e) == 0);

	/* attributes: each one an AK must have, taken away, is refused */
	{
		static const uint32_t bits[] = { 1u << 1, 1u << 4, 1u << 5,
						 1u << 16, 1u << 18 };
		static const char *names[] = { "fixedTPM", "fixedParent",
					       "sensitiveDataOrigin",
					       "restricted", "sign" };
		uint8_t t2[200];
		size_t i;

		for (i = 0; i < 5; i++) {
			uint32_t a;

			memcpy(t2, tp, tn);
			/* TPMA_OBJECT at offset 2 (size) + 2 + 2 */
			a = (uint32_t)t2[6] << 24 | (uint32_t)t2[7] << 16 |
			    (uint32_t)t2[8] << 8 | t2[9];
			a &= ~bits[i];
			t2[6] = (uint8_t)(a >> 24);
			t2[7] = (uint8_t)(a >> 16);
			t2[8] = (uint8_t)(a >> 8);
			t2[9] = (uint8_t)a;
			CHECK(ak_pub_load(t2, tn, ak, &e) == EX_FAIL);
			CHECK(msg_has(&e, names[i]));
		}
		/* also a decryption key */
		memcpy(t2, tp, tn);
		t2[7] |= 0x02;	/* decrypt, bit 17 */
		CHECK(ak_pub_load(t2, tn, ak, &e) == EX_FAIL);
		CHECK(msg_has(&e, "also a decryption key"));
		/* a size that does not cover it, a PEM: neither is a
		 * TPM2B_PUBLIC; the caller treats them as bare keys */
		memcpy(t2, tp, tn);
		t2[1]--;
		CHECK(ak_pub_load(t2, tn, ak, &e) == AK_PUB_NONE);
		CHECK(ak_pub_load((const uint8_t *)pem, pn, ak, &e) ==
		      AK_PUB_NONE);
		for (i = 0; i < tn; i++)
			CHECK(ak_pub_load(tp, i, ak, &e) == AK_PUB_NONE);
	}
	free(pem);
	free(ak);
}

int main(void)
{
	test_attest();
	test_check();
	test_sig();
	test_sel();
	test_files();
	test_pem();
	test_replay();
	test_bitflips();
	test_signer();
	return unit_done("quote");
}
