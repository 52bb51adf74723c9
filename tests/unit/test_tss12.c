/* TPM 1.2 host-side codecs: tpm-tools' sealed file (tssfile), its
 * AES-256-CBC step, and the TPM 1.2 structures inside (tpm12/structs).
 *
 * The fixtures in tests/fixtures/tpm12/ were written by tpm_sealdata -z
 * (tpm-tools 1.3.9.2, trousers 0.3.15, swtpm 0.7.1 in 1.2 mode, the recipe
 * of tests/helpers/tcsd.bash) from 100 random bytes: with no PCR, with
 * PCRs 0 and 7, with PCRs 0 and 16, on a fresh TPM where every PCR read
 * 0.  tpm_unsealdata -z opened each.  The AES vectors are openssl enc
 * -aes-256-cbc's with the key 00..1f and the IV "IBM SEALIBM SEAL". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hex.h"
#include "crypto/sym.h"
#include "fmt/tssfile.h"
#include "tpm12/structs.h"
#include "unit.h"

#define FIX "tests/fixtures/tpm12/"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, got = 0, r;
	char *p = malloc(cap), *q;

	if (!f || !p) {
		if (f)
			fclose(f);
		free(p);
		return NULL;
	}
	while ((r = fread(p + got, 1, cap - got - 1, f)) > 0) {
		got += r;
		if (cap - got > 1)
			continue;
		if (cap >= (size_t)TSSFILE_TEXT_MAX * 2 ||
		    !(q = realloc(p, cap * 2))) {
			free(p);
			fclose(f);
			return NULL;
		}
		p = q;
		cap *= 2;
	}
	fclose(f);
	p[got] = '\0';
	*n = got;
	return p;
}

static size_t unhex(const char *h, uint8_t *out)
{
	size_t i, n = strlen(h) / 2;

	for (i = 0; i < n; i++) {
		unsigned v;

		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}

static uint8_t K[32];

static void aes_vectors(void)
{
	static const struct {
		const char *pt, *ct;
	} v[] = {
		{ "", "587e31ca2957932d7ff587524168da09" },
		{ "a tpm-tools sealed file",
		  "636863d320692de8f3841778d9179740"
		  "ea7af5bf3088dc554ec79eff2401f2db" },
		{ "0123456789abcdef",
		  "a9bac1a4196b6b5b19f42d44f8d6f38f"
		  "b79968c848c8ea22900ddb1ad0e8ae2a" },
	};
	const uint8_t *iv = (const uint8_t *)TSSFILE_IV;
	uint8_t ct[64], out[64], want[64];
	size_t i, n, m;

	for (i = 0; i < 32; i++)
		K[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t pl = strlen(v[i].pt);

		m = unhex(v[i].ct, want);
		CHECK(aes256_cbc_pad_encrypt(K, iv, (const uint8_t *)v[i].pt,
					     pl, ct, &n) == 0);
		CHECK(n == m && memcmp(ct, want, m) == 0);
		CHECK(aes256_cbc_pad_decrypt(K, iv, want, m, out, &n) == 0);
		CHECK(n == pl && memcmp(out, v[i].pt, pl) == 0);
	}
	/* Lengths that are not whole blocks, and none. */
	CHECK(aes256_cbc_pad_decrypt(K, iv, want, 0, out, &n) == -1);
	CHECK(aes256_cbc_pad_decrypt(K, iv, want, 15, out, &n) == -1);
	CHECK(aes256_cbc_pad_decrypt(K, iv, want, 17, out, &n) == -1);
}

/* A one-block ciphertext whose plaintext is `last` (its padding wrong in
 * some way): encrypt the 16 bytes (CBC adds a pad block) and keep the
 * first block only. */
static int bad_pad_refused(const uint8_t last[16])
{
	const uint8_t *iv = (const uint8_t *)TSSFILE_IV;
	uint8_t pt[16], ct[32], out[32];
	size_t n = 99;

	memcpy(pt, last, 16);
	if (aes256_cbc_pad_encrypt(K, iv, pt, 16, ct, &n) || n != 32)
		return 0;
	/* ct[0..16) is the block of `last` alone. */
	n = 99;
	if (aes256_cbc_pad_decrypt(K, iv, ct, 16, out, &n) != -1)
		return 0;
	/* wiped, and no size */
	return n == 0 && out[15] == 0 && out[0] == 0;
}

static void aes_padding(void)
{
	uint8_t b[16];
	const uint8_t *iv = (const uint8_t *)TSSFILE_IV;
	uint8_t ct[32], out[32];
	size_t n;

	memset(b, 'x', 16);
	b[15] = 0;			/* pad 0 */
	CHECK(bad_pad_refused(b));
	b[15] = 17;			/* more than a block */
	CHECK(bad_pad_refused(b));
	b[15] = 0xff;
	CHECK(bad_pad_refused(b));
	memset(b + 12, 4, 4);		/* 4 bytes of 4, one wrong */
	b[12] = 5;
	CHECK(bad_pad_refused(b));
	memset(b, 16, 16);		/* a whole block of 16, one wrong */
	b[0] = 15;
	CHECK(bad_pad_refused(b));
	/* The same shapes done right are accepted. */
	memset(b, 'x', 16);
	memset(b + 12, 4, 4);
	CHECK(aes256_cbc_pad_encrypt(K, iv, b, 16, ct, &n) == 0);
	CHECK(aes256_cbc_pad_decrypt(K, iv, ct, 16, out, &n) == 0 && n == 12);
	memset(b, 16, 16);
	CHECK(aes256_cbc_pad_encrypt(K, iv, b, 16, ct, &n) == 0);
	CHECK(aes256_cbc_pad_decrypt(K, iv, ct, 16, out, &n) == 0 && n == 0);
}

/* What each fixture holds. */
struct want {
	const char *file;
	int is12, has_pcr;
	enum tpm12_pcr_info_kind kind;
	uint16_t selsize;
	uint32_t mask;
};

static void check_key(const struct tssfile *f)
{
	struct tpm12_key k;
	struct tberr e;
	uint8_t mem[TSSFILE_KEY_MAX];
	struct tb b;

	memset(&e, 0, sizeof(e));
	CHECK(tpm12_key_parse(f->key, f->keylen, &k, "TSS KEY", &e) == 0);
	/* tpm_sealdata's key: TPM_KEY 1.1, storage, flags 4, auth always,
	 * RSA-2048 OAEP, no signature scheme, 2 primes, default exponent. */
	CHECK(!k.is12 && memcmp(k.ver, "\x01\x01\x00\x00", 4) == 0);
	CHECK(k.usage == TPM12_KEY_STORAGE && k.flags == 4);
	CHECK(k.auth_usage == TPM12_AUTH_ALWAYS);
	CHECK(k.parms.alg == TPM12_ALG_RSA);
	CHECK(k.parms.enc_scheme == TPM12_ES_RSAESOAEP_SHA1_MGF1);
	CHECK(k.parms.sig_scheme == TPM12_SS_NONE);
	CHECK(k.parms.key_bits == 2048 && k.parms.num_primes == 2 &&
	      k.parms.explen == 0);
	CHECK(tpm12_rsa_exponent(&k.parms) == 65537);
	CHECK(!k.has_pcr && k.publen == 256 && k.enclen == 256);
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_key(&b, &k);
	CHECK(!tb_err(&b) && b.len == f->keylen &&
	      memcmp(mem, f->key, b.len) == 0);
}

static void check_stored(const struct tssfile *f, const struct want *w)
{
	struct tpm12_stored s;
	struct tberr e;
	uint8_t mem[TSSFILE_ENCKEY_MAX], zero[2][TPM12_SHA1], dig[TPM12_SHA1];
	struct tb b;

	memset(&e, 0, sizeof(e));
	CHECK(tpm12_stored_parse(f->enckey, f->enckeylen, &s, "ENC KEY", &e)
	      == 0);
	CHECK(s.is12 == w->is12 && s.has_pcr == w->has_pcr);
	CHECK(s.enclen == 256);
	if (w->has_pcr) {
		CHECK(s.pcr.kind == w->kind);
		CHECK(s.pcr.release.size == w->selsize);
		CHECK(s.pcr.release.mask == w->mask);
		/* Every PCR read 0 when sealed: digestAtRelease is the
		 * composite of two zero values over the selection as
		 * written, computed here independently of TrouSerS. */
		memset(zero, 0, sizeof(zero));
		CHECK(tpm12_pcr_composite_hash(&s.pcr.release,
					       (const uint8_t (*)[20])zero, 2,
					       dig) == 0);
		CHECK(memcmp(dig, s.pcr.digest_release, 20) == 0);
		if (w->kind == TPM12_PCR_INFO_LONG) {
			/* tpm_sealdata: creation at locality 0 (bit 0x01),
			 * release at any (0x1f), no creation PCRs. */
			CHECK(s.pcr.loc_creation == 0x01);
			CHECK(s.pcr.loc_release == 0x1f);
			CHECK(s.pcr.creation.mask == 0);
		} else {
			CHECK(memcmp(s.pcr.digest_creation,
				     s.pcr.digest_release, 20) == 0);
		}
		/* The wrong count of values is refused. */
		CHECK(tpm12_pcr_composite_hash(&s.pcr.release,
					       (const uint8_t (*)[20])zero, 1,
					       dig) == -1);
	}
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_stored(&b, &s);
	CHECK(!tb_err(&b) && b.len == f->enckeylen &&
	      memcmp(mem, f->enckey, b.len) == 0);
}

static void fixtures(void)
{
	static const struct want w[] = {
		{ FIX "sealdata-nopcr.tss", 0, 0, 0, 0, 0 },
		{ FIX "sealdata-pcr0-7.tss", 0, 1, TPM12_PCR_INFO, 2, 0x81 },
		{ FIX "sealdata-pcr0-16.tss", 1, 1, TPM12_PCR_INFO_LONG, 3,
		  0x10001 },
	};
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		struct tssfile f;
		struct tberr e;
		size_t n, m;
		char *text = slurp(w[i].file, &n), *back;

		CHECK(text != NULL);
		if (!text)
			continue;
		memset(&e, 0, sizeof(e));
		CHECK(tssfile_parse(text, n, &f, &e) == 0);
		if (e.code)
			fprintf(stderr, "%s: %s\n", w[i].file, e.msg);
		/* 100 bytes of data: 7 blocks. */
		CHECK(f.encdatlen == 112);
		check_key(&f);
		check_stored(&f, &w[i]);
		/* Written again, the same text byte for byte. */
		CHECK(tssfile_format(&f, &back, &m, &e) == 0);
		CHECK(m == n && memcmp(back, text, n) == 0);
		free(back);
		tssfile_free(&f);
		free(text);
	}
}

/* tssfile_parse of text with `from` replaced by `to` (first match). */
static int parse_edit(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	size_t n = strlen(text), fl = strlen(from), tl = strlen(to);
	char *t;
	struct tssfile f;
	struct tberr e;
	int rc;

	if (!at)
		return -99;
	t = malloc(n - fl + tl + 1);
	memcpy(t, text, (size_t)(at - text));
	memcpy(t + (at - text), to, tl);
	memcpy(t + (at - text) + tl, at + fl, n - (size_t)(at - text) - fl + 1);
	memset(&e, 0, sizeof(e));
	rc = tssfile_parse(t, strlen(t), &f, &e);
	if (rc == 0)
		tssfile_free(&f);
	free(t);
	return rc;
}

static void refusals(void)
{
	size_t n, i;
	char *text = slurp(FIX "sealdata-nopcr.tss", &n);
	struct tssfile f;
	struct tberr e;

	CHECK(text != NULL);
	if (!text)
		return;
	/* The edit helper itself: a no-op edit parses. */
	CHECK(parse_edit(text, "-----END TSS-----\n", "-----END TSS-----\n")
	      == 0);
	CHECK(parse_edit(text, "-----BEGIN TSS-----\n", "-----BEGIN TSS----- \n")
	      == EX_FAIL);
	CHECK(parse_edit(text, "-----BEGIN TSS-----\n", "") == EX_FAIL);
	CHECK(parse_edit(text, "-----TSS KEY-----\n", "-----TSS  KEY-----\n")
	      == EX_FAIL);
	CHECK(parse_edit(text, "Symmetric Key: AES-256-CBC\n",
			 "Symmetric Key: AES-128-CBC\n") == EX_FAIL);
	CHECK(parse_edit(text, "Symmetric Key: AES-256-CBC\n", "") == EX_FAIL);
	CHECK(parse_edit(text, "-----END TSS-----\n", "-----END TSS-----")
	      == EX_FAIL);
	CHECK(parse_edit(text, "-----END TSS-----\n",
			 "-----END TSS-----\n\n") == EX_FAIL);
	CHECK(parse_edit(text, "-----END TSS-----\n",
			 "-----END TSS-----\nx") == EX_FAIL);
	CHECK(parse_edit(text, "-----END TSS-----\n", "") == EX_FAIL);
	/* CRLF line ends. */
	CHECK(parse_edit(text, "-----BEGIN TSS-----\n",
			 "-----BEGIN TSS-----\r\n") == EX_FAIL);
	CHECK(parse_edit(text, "-----ENC DAT-----\n",
			 "-----ENC DAT-----\r\n") == EX_FAIL);
	/* Sections swapped, empty, or a line too long or after a short. */
	CHECK(parse_edit(text, "-----ENC DAT-----\n", "-----ENC KEY-----\n")
	      == EX_FAIL);
	CHECK(parse_edit(text, "-----TSS KEY-----\nAQEA",
			 "-----TSS KEY-----\nAQEAAAAA\nAQEA") == EX_FAIL);
	CHECK(parse_edit(text, "-----TSS KEY-----\nAQEA",
			 "-----TSS KEY-----\nAAAAAQEA") == EX_FAIL);
	CHECK(parse_edit(text, "-----TSS KEY-----\nAQEA",
			 "-----TSS KEY-----\n\nAQEA") == EX_FAIL);
	CHECK(parse_edit(text, "-----TSS KEY-----\nAQEA",
			 "-----TSS KEY-----\n AQEA") == EX_FAIL);
	CHECK(parse_edit(text, "-----TSS KEY-----\nAQEA",
			 "-----TSS KEY-----\nAQE*") == EX_FAIL);
	/* Padding in the middle, and non-zero padding bits at the end. */
	CHECK(parse_edit(text, "-----TSS KEY-----\nAQEA",
			 "-----TSS KEY-----\nAQ==") == EX_FAIL);
	{
		/* The last base64 group before END ends "X==": flip X's
		 * low bit, which is a padding bit. */
		const char *p = strstr(text, "==\n-----END");

		CHECK(p != NULL);
		if (p) {
			char from[8], to[8];

			memcpy(from, p - 1, 3);
			from[3] = '\0';
			memcpy(to, from, 4);
			to[0] = to[0] == 'A' ? 'B' : (char)(to[0] ^ 1);
			CHECK(parse_edit(text, from, to) == EX_FAIL);
		}
	}
	/* An empty section. */
	{
		const char *a = strstr(text, "-----ENC DAT-----\n");
		const char *b = strstr(text, "-----END TSS-----\n");
		char *t = malloc(n + 1);
		size_t k;

		k = (size_t)(a - text) + strlen("-----ENC DAT-----\n");
		memcpy(t, text, k);
		strcpy(t + k, b);
		memset(&e, 0, sizeof(e));
		CHECK(tssfile_parse(t, strlen(t), &f, &e) == EX_FAIL);
		CHECK(strstr(e.msg, "empty") != NULL);
		free(t);
	}
	/* Every truncation is refused. */
	for (i = 0; i < n; i++) {
		memset(&e, 0, sizeof(e));
		CHECK(tssfile_parse(text, i, &f, &e) == EX_FAIL);
	}
	free(text);
}

/* Writing: sections too large or empty refused; a big file round trips
 * and its data decrypts; the wrong key is refused. */
static void write_and_crypt(void)
{
	struct tssfile f, g;
	struct tberr e;
	uint8_t key[4] = { 1, 2, 3, 4 }, sd[8] = { 5, 6, 7, 8, 9 };
	uint8_t *data = malloc(100000), *out, k2[32];
	size_t i, n, m;
	char *text;

	for (i = 0; i < 100000; i++)
		data[i] = (uint8_t)(i * 31 + 7);
	memset(&f, 0, sizeof(f));
	memset(&e, 0, sizeof(e));
	f.key = key;
	f.keylen = sizeof(key);
	f.enckey = sd;
	f.enckeylen = sizeof(sd);
	CHECK(tssfile_format(&f, &text, &n, &e) == EX_FAIL);	/* no data */
	CHECK(tssfile_encrypt(&f, K, data, 100000, &e) == 0);
	CHECK(f.encdatlen == 100000 + 16 - 100000 % 16);
	CHECK(tssfile_format(&f, &text, &n, &e) == 0);
	CHECK(tssfile_parse(text, n, &g, &e) == 0);
	CHECK(g.keylen == 4 && memcmp(g.key, key, 4) == 0);
	CHECK(g.enckeylen == 8 && memcmp(g.enckey, sd, 8) == 0);
	CHECK(tssfile_decrypt(&g, K, &out, &m, &e) == 0);
	CHECK(m == 100000 && memcmp(out, data, m) == 0);
	free(out);
	/* This wrong key gives a last byte that is no valid padding. */
	memcpy(k2, K, 32);
	k2[0] ^= 1;
	memset(&e, 0, sizeof(e));
	CHECK(tssfile_decrypt(&g, k2, &out, &m, &e) == EX_FAIL);
	CHECK(out == NULL && m == 0);
	tssfile_free(&g);
	free(text);
	free(f.encdat);
	/* Too large a section on write and on read. */
	f.encdat = NULL;
	f.encdatlen = 0;
	CHECK(tssfile_encrypt(&f, K, data, 16, &e) == 0);
	f.keylen = TSSFILE_KEY_MAX + 1;
	f.key = calloc(1, f.keylen);
	CHECK(tssfile_format(&f, &text, &n, &e) == EX_FAIL);
	f.keylen = TSSFILE_KEY_MAX;
	CHECK(tssfile_format(&f, &text, &n, &e) == 0);
	CHECK(tssfile_parse(text, n, &g, &e) == 0);
	tssfile_free(&g);
	free(text);
	{
		/* One more base64 group in TSS KEY: over the bound. */
		uint8_t *big = calloc(1, TSSFILE_KEY_MAX + 3);

		free(f.key);
		f.key = big;
		f.keylen = TSSFILE_KEY_MAX;
		CHECK(tssfile_format(&f, &text, &n, &e) == 0);
		/* "AAAA" more at the start of the key's base64. */
		{
			char *t = malloc(n + 6);
			const char *at = strstr(text, "KEY-----\n") + 9;

			memcpy(t, text, (size_t)(at - text));
			memcpy(t + (at - text), "AAAA\n", 5);
			memcpy(t + (at - text) + 5, at, n - (size_t)(at - text) + 1);
			memset(&e, 0, sizeof(e));
			/* a short line first: refused either way */
			CHECK(tssfile_parse(t, strlen(t), &g, &e) == EX_FAIL);
			free(t);
		}
		free(text);
		/* A whole extra 64-character line: over the bound. */
		f.keylen = TSSFILE_KEY_MAX;
		CHECK(tssfile_format(&f, &text, &n, &e) == 0);
		{
			char *t = malloc(n + 80);
			const char *at = strstr(text, "KEY-----\n") + 9;
			char line[66];

			memset(line, 'A', 64);
			line[64] = '\n';
			line[65] = '\0';
			memcpy(t, text, (size_t)(at - text));
			memcpy(t + (at - text), line, 65);
			memcpy(t + (at - text) + 65, at, n - (size_t)(at - text) + 1);
			memset(&e, 0, sizeof(e));
			CHECK(tssfile_parse(t, strlen(t), &g, &e) == EX_FAIL);
			CHECK(strstr(e.msg, "more than") != NULL ||
			      strstr(e.msg, "larger") != NULL);
			free(t);
		}
		free(text);
	}
	free(f.key);
	free(f.encdat);
	CHECK(tssfile_encrypt(&f, K, data, TSSFILE_DATA_MAX + 1u, &e) ==
	      EX_USAGE);
	free(data);
}

/* Structures: layouts built by hand from Part 2, refusals. */
static void structs(void)
{
	uint8_t mem[1024], nonce[20], comp[20];
	struct tpm12_pcr_info pi;
	struct tpm12_pcr_sel s;
	struct tpm12_stored st;
	struct tpm12_key k;
	struct tberr e;
	struct tb b;
	size_t i;

	/* Selections: sizes kept, bits past the size refused. */
	tpm12_pcr_sel_set(&s, 0x81, 3);
	CHECK(s.size == 3 && s.mask == 0x81);
	tpm12_pcr_sel_set(&s, 0x10000, 0);
	CHECK(s.size == 3);
	tpm12_pcr_sel_set(&s, 0, 0);
	CHECK(s.size == 0);
	s.size = 1;
	s.mask = 0x100;
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_pcr_sel(&b, &s);
	CHECK(tb_err(&b));
	tb_init_read(&b, (const uint8_t *)"\x00\x05\x01\x02\x03\x04\x05", 7);
	tpm12_get_pcr_sel(&b, &s);
	CHECK(tb_err(&b));
	tb_init_read(&b, (const uint8_t *)"\x00\x03\x01\x02", 4);
	tpm12_get_pcr_sel(&b, &s);
	CHECK(tb_err(&b));

	/* TPM_PCR_INFO_SHORT and TPM_QUOTE_INFO2 as Part 2 lays them out. */
	memset(&pi, 0, sizeof(pi));
	pi.kind = TPM12_PCR_INFO_SHORT;
	tpm12_pcr_sel_set(&pi.release, 0x81, 3);
	pi.loc_release = 0x1f;
	memset(pi.digest_release, 0xaa, 20);
	memset(nonce, 0x55, 20);
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_quote_info2(&b, nonce, &pi, (const uint8_t *)"VV", 2);
	CHECK(!tb_err(&b) && b.len == 2 + 4 + 20 + 5 + 1 + 20 + 2);
	CHECK(memcmp(mem, "\x00\x36QUT2", 6) == 0);
	CHECK(mem[6] == 0x55 && mem[25] == 0x55);
	CHECK(memcmp(mem + 26, "\x00\x03\x81\x00\x00\x1f", 6) == 0);
	CHECK(mem[32] == 0xaa && mem[51] == 0xaa);
	CHECK(memcmp(mem + 52, "VV", 2) == 0);
	pi.kind = TPM12_PCR_INFO;
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_quote_info2(&b, nonce, &pi, NULL, 0);
	CHECK(tb_err(&b));
	/* TPM_QUOTE_INFO. */
	memset(comp, 0x11, 20);
	tpm12_quote_info(comp, nonce, mem);
	CHECK(memcmp(mem, "\x01\x01\x00\x00QUOT", 8) == 0);
	CHECK(mem[8] == 0x11 && mem[27] == 0x11 && mem[28] == 0x55 &&
	      mem[47] == 0x55);
	/* The composite: PCR 7 alone = SHA-1(0003 800000 00000014 v7). */
	{
		uint8_t v[1][20], want[20];

		memset(v[0], 0x77, 20);
		tpm12_pcr_sel_set(&s, 0x80, 3);
		CHECK(tpm12_pcr_composite_hash(&s, (const uint8_t (*)[20])v, 1,
					       comp) == 0);
		/* sha1sum of 00038000 00000000 14 and twenty 0x77 bytes */
		unhex("04e51769c4927f45ced71b4f0c80668a33da7bfb", want);
		CHECK(memcmp(comp, want, 20) == 0);
	}

	/* TPM_PCR_INFO_LONG with a wrong tag; a sealInfo larger than its
	 * PCR info; a stored blob with a byte after it; a huge encData. */
	{
		size_t at;

		memset(&st, 0, sizeof(st));
		st.is12 = 1;
		st.has_pcr = 1;
		st.pcr.kind = TPM12_PCR_INFO_LONG;
		tpm12_pcr_sel_set(&st.pcr.release, 0x10001, 3);
		tpm12_pcr_sel_set(&st.pcr.creation, 0, 3);
		st.enclen = 4;
		tb_init(&b, mem, sizeof(mem));
		tpm12_put_stored(&b, &st);
		CHECK(!tb_err(&b));
		at = b.len;
		memset(&e, 0, sizeof(e));
		CHECK(tpm12_stored_parse(mem, at, &st, "x", &e) == 0);
		CHECK(st.is12 && st.has_pcr && st.pcr.release.mask == 0x10001);
		CHECK(tpm12_stored_parse(mem, at + 1, &st, "x", &e) ==
		      EX_FAIL);
		for (i = 0; i < at; i++)
			CHECK(tpm12_stored_parse(mem, i, &st, "x", &e) ==
			      EX_FAIL);
		mem[9] = 0x07;		/* PCR_INFO_LONG's tag */
		CHECK(tpm12_stored_parse(mem, at, &st, "x", &e) == EX_FAIL);
		mem[9] = 0x06;
		mem[7]++;		/* sealInfoSize one more */
		CHECK(tpm12_stored_parse(mem, at, &st, "x", &e) == EX_FAIL);
		mem[7]--;
		mem[at - 4 - 4 + 2] = 0x02;	/* encDataSize 0x20004 */
		CHECK(tpm12_stored_parse(mem, at, &st, "x", &e) == EX_FAIL);
		/* TPM_STORED_DATA of another version. */
		memcpy(mem, "\x02\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		       12);
		CHECK(tpm12_stored_parse(mem, 12, &st, "x", &e) == EX_FAIL);
		mem[0] = 1;
		CHECK(tpm12_stored_parse(mem, 12, &st, "x", &e) == 0);
		CHECK(!st.is12 && !st.has_pcr && st.enclen == 0);
	}

	/* A TPM_KEY12 with a PCR_INFO_LONG, written and read back; an
	 * exponent size that disagrees with parmSize; a modulus too big. */
	{
		size_t at;

		memset(&k, 0, sizeof(k));
		k.is12 = 1;
		k.usage = TPM12_KEY_IDENTITY;
		k.auth_usage = TPM12_AUTH_ALWAYS;
		tpm12_key_parms_rsa(&k.parms, 2048, TPM12_ES_NONE,
				    TPM12_SS_RSASSAPKCS1v15_SHA1);
		k.parms.explen = 3;
		memcpy(k.parms.exp, "\x01\x00\x01", 3);
		k.has_pcr = 1;
		k.pcr.kind = TPM12_PCR_INFO_LONG;
		tpm12_pcr_sel_set(&k.pcr.release, 0x800000, 3);
		k.publen = 256;
		k.enclen = 10;
		tb_init(&b, mem, sizeof(mem));
		tpm12_put_key(&b, &k);
		CHECK(!tb_err(&b));
		at = b.len;
		CHECK(memcmp(mem, "\x00\x28\x00\x00\x00\x12", 6) == 0);
		memset(&e, 0, sizeof(e));
		CHECK(tpm12_key_parse(mem, at, &k, "x", &e) == 0);
		CHECK(tpm12_rsa_exponent(&k.parms) == 65537);
		CHECK(k.is12 && k.parms.explen == 3 && k.has_pcr &&
		      k.pcr.release.mask == 0x800000 && k.publen == 256);
		for (i = 0; i < at; i++)
			CHECK(tpm12_key_parse(mem, i, &k, "x", &e) ==
			      EX_FAIL);
		CHECK(tpm12_key_parse(mem, at + 1, &k, "x", &e) == EX_FAIL);
		mem[2] = 1;		/* TPM_KEY12's fill */
		CHECK(tpm12_key_parse(mem, at, &k, "x", &e) == EX_FAIL);
		mem[2] = 0;
		mem[22] = 16;		/* parmSize 16, exponentSize 3 */
		CHECK(tpm12_key_parse(mem, at, &k, "x", &e) == EX_FAIL);
		mem[22] = 15;
		CHECK(tpm12_key_parse(mem, at, &k, "x", &e) == 0);
		k.publen = TPM12_RSA_MAX + 1;
		tb_init(&b, mem, sizeof(mem));
		tpm12_put_key(&b, &k);
		CHECK(tb_err(&b));
	}
}

/* test_tss12 FILE...: each a tpm_sealdata file the oracle suite just
 * made (tests/tpm12-oracle.bats): parsed, every structure read and
 * re-marshalled to the same bytes, the text written back the same.
 * Prints "FILE: key usage U, stored V, pcr-info K sel S mask M". */
static int check_file(const char *path)
{
	struct tssfile f;
	struct tpm12_key k;
	struct tpm12_stored st;
	struct tberr e;
	uint8_t mem[TSSFILE_KEY_MAX];
	struct tb b;
	size_t n, m;
	char *text = slurp(path, &n), *back = NULL;
	int ok = 0;

	memset(&e, 0, sizeof(e));
	if (!text || tssfile_parse(text, n, &f, &e)) {
		fprintf(stderr, "%s: %s\n", path, text ? e.msg : "unreadable");
		free(text);
		return 1;
	}
	if (tpm12_key_parse(f.key, f.keylen, &k, "TSS KEY", &e) ||
	    tpm12_stored_parse(f.enckey, f.enckeylen, &st, "ENC KEY", &e)) {
		fprintf(stderr, "%s: %s\n", path, e.msg);
		goto out;
	}
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_key(&b, &k);
	if (tb_err(&b) || b.len != f.keylen || memcmp(mem, f.key, b.len)) {
		fprintf(stderr, "%s: TSS KEY re-marshalled differs\n", path);
		goto out;
	}
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_stored(&b, &st);
	if (tb_err(&b) || b.len != f.enckeylen ||
	    memcmp(mem, f.enckey, b.len)) {
		fprintf(stderr, "%s: ENC KEY re-marshalled differs\n", path);
		goto out;
	}
	if (tssfile_format(&f, &back, &m, &e) || m != n ||
	    memcmp(back, text, n)) {
		fprintf(stderr, "%s: the text written back differs\n", path);
		goto out;
	}
	printf("%s: key %s usage 0x%04x, %s, pcr-info %s sel %u mask 0x%x, "
	       "data %zu bytes\n", path, k.is12 ? "TPM_KEY12" : "TPM_KEY",
	       k.usage, st.is12 ? "TPM_STORED_DATA12" : "TPM_STORED_DATA",
	       !st.has_pcr ? "none" : st.pcr.kind == TPM12_PCR_INFO ?
	       "TPM_PCR_INFO" : "TPM_PCR_INFO_LONG", st.pcr.release.size,
	       st.pcr.release.mask, f.encdatlen);
	ok = 1;
out:
	free(back);
	free(text);
	tssfile_free(&f);
	return !ok;
}

/* test_tss12 quote2 NONCE_HEX SELSIZE LOCALITY PCRVALS: the TPM_QUOTE_INFO2
 * (hex) for tpm_getquote's nonce and its -p file of "N=HEX" lines, with
 * the selection written SELSIZE bytes long and localityAtRelease
 * LOCALITY: what the oracle suite checks tpm_getquote's signature over. */
static int quote2(char **argv)
{
	uint8_t nonce[20], vals[TPM12_PCR_MAX][20], mem[256];
	struct tpm12_pcr_info pi;
	char line[128], hex[41];
	uint32_t mask = 0;
	size_t count = 0, i;
	unsigned idx;
	struct tb b;
	FILE *f;

	if (strlen(argv[2]) != 40 || !(f = fopen(argv[5], "r")))
		return 2;
	unhex(argv[2], nonce);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u=%40s", &idx, hex) != 2 ||
		    idx >= TPM12_PCR_MAX || strlen(hex) != 40 ||
		    (mask >> idx) || count >= TPM12_PCR_MAX) {
			fclose(f);
			return 2;	/* ascending, as tpm_getquote prints */
		}
		mask |= 1u << idx;
		unhex(hex, vals[count++]);
	}
	fclose(f);
	memset(&pi, 0, sizeof(pi));
	pi.kind = TPM12_PCR_INFO_SHORT;
	tpm12_pcr_sel_set(&pi.release, mask, (uint16_t)atoi(argv[3]));
	pi.loc_release = (uint8_t)strtoul(argv[4], NULL, 0);
	if (tpm12_pcr_composite_hash(&pi.release, (const uint8_t (*)[20])vals,
				     count, pi.digest_release))
		return 1;
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_quote_info2(&b, nonce, &pi, NULL, 0);
	if (tb_err(&b))
		return 1;
	for (i = 0; i < b.len; i++)
		printf("%02x", mem[i]);
	printf("\n");
	return 0;
}

/* tpm_mkaik's PUB file (tests/fixtures/tpm12/mkaik-pub.der, the AIK
 * whose quote the oracle suite verified): TrouSerS' blob around a
 * TPM_PUBKEY. */
static void pubkey_blob(void)
{
	size_t n, m, i;
	char *der = slurp(FIX "mkaik-pub.der", &n);
	uint8_t *d = (uint8_t *)der, mem[600];
	struct tpm12_pubkey k;
	struct tberr e;
	struct tb b;

	CHECK(der != NULL);
	if (!der)
		return;
	memset(&e, 0, sizeof(e));
	CHECK(n == 304);
	CHECK(tss_pubkey_blob_parse(d, n, &k, "aik", &e) == 0);
	CHECK(k.parms.alg == TPM12_ALG_RSA && k.parms.key_bits == 2048);
	CHECK(k.parms.enc_scheme == TPM12_ES_NONE);
	CHECK(k.parms.sig_scheme == TPM12_SS_RSASSAPKCS1v15_SHA1);
	CHECK(tpm12_rsa_exponent(&k.parms) == 65537);
	CHECK(k.publen == 256 && memcmp(k.pub, d + n - 256, 256) == 0);
	/* The TPM_PUBKEY written back is the OCTET STRING's contents. */
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_pubkey(&b, &k);
	CHECK(!tb_err(&b) && b.len == 284 && memcmp(mem, d + 20, 284) == 0);
	/* Refusals: every truncation, a byte more, another type, a length
	 * that disagrees, a negative INTEGER. */
	for (m = 0; m < n; m++)
		CHECK(tss_pubkey_blob_parse(d, m, &k, "aik", &e) == EX_FAIL);
	memcpy(mem, d, n);
	mem[n] = 0;
	CHECK(tss_pubkey_blob_parse(mem, n + 1, &k, "aik", &e) == EX_FAIL);
	mem[9] = 3;			/* blob type */
	CHECK(tss_pubkey_blob_parse(mem, n, &k, "aik", &e) == EX_FAIL);
	CHECK(strstr(e.msg, "type 3") != NULL);
	mem[9] = 2;
	mem[15] = 0x1d;			/* length 0x11d */
	CHECK(tss_pubkey_blob_parse(mem, n, &k, "aik", &e) == EX_FAIL);
	mem[15] = 0x1c;
	mem[12] = 0x80;			/* negative length */
	CHECK(tss_pubkey_blob_parse(mem, n, &k, "aik", &e) == EX_FAIL);
	mem[12] = 0;
	CHECK(tss_pubkey_blob_parse(mem, n, &k, "aik", &e) == 0);
	/* TPM_PUBKEY alone: a modulus size (at 4 + 2 + 2 + 4 + 12 = 24)
	 * larger than the bound, then right again. */
	memcpy(mem, d + 20, 284);
	i = 24;
	mem[i + 2] = 0x02;		/* 0x00000100 -> 0x00020100 */
	CHECK(tpm12_pubkey_parse(mem, 284, &k, "x", &e) == EX_FAIL);
	mem[i + 2] = 0x01;
	CHECK(tpm12_pubkey_parse(mem, 284, &k, "x", &e) == 0);
	free(der);
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "quote2") == 0)
		return quote2(argv);
	if (argc > 1) {
		int i, rc = 0;

		for (i = 1; i < argc; i++)
			rc |= check_file(argv[i]);
		return rc;
	}
	aes_vectors();
	aes_padding();
	fixtures();
	refusals();
	write_and_crypt();
	structs();
	pubkey_blob();
	return unit_done("tss12");
}
