/* PCR selection grammar (tpm2-tools style), resolution against a TPM's
 * banks, marshalling, and the pcrread text/JSON format. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "fmt/pcrfile.h"
#include "tpm2/pcr.h"
#include "unit.h"

static struct tberr e;

static int ok(const char *s, struct pcr_sel *sel)
{
	err_clear(&e);
	return pcr_sel_parse(s, sel, &e) == 0;
}

/* Parse must fail with exit 2 and a message containing want. */
static int bad(const char *s, const char *want)
{
	struct pcr_sel sel;
	int rc;

	err_clear(&e);
	rc = pcr_sel_parse(s, &sel, &e);
	if (rc != EX_USAGE || e.code != EX_USAGE || !strstr(e.msg, want)) {
		fprintf(stderr, "  selection '%s': rc %d msg '%s' (want '%s')\n",
			s, rc, e.msg, want);
		return 0;
	}
	return 1;
}

static void test_parse_valid(void)
{
	struct pcr_sel s;

	CHECK(ok("sha256:0,1,2+sha1:7", &s));
	CHECK(s.n == 2 && !s.all);
	CHECK(s.b[0].alg == TPM2_ALG_SHA256 && s.b[0].mask == 0x7);
	CHECK(s.b[1].alg == TPM2_ALG_SHA1 && s.b[1].mask == 0x80);
	CHECK(pcr_sel_count(&s) == 4);

	CHECK(ok("sha256:0-7", &s));
	CHECK(s.n == 1 && s.b[0].mask == 0xff);

	CHECK(ok("sha256:0-3,16,20-23", &s));
	CHECK(s.b[0].mask == 0x00f1000f);

	CHECK(ok("all", &s));
	CHECK(s.all == 1 && s.n == 0);

	CHECK(ok("sha256:all", &s));
	CHECK(s.n == 1 && s.b[0].all == 1 && s.b[0].mask == 0);

	CHECK(ok("sha384:31", &s));	/* grammar allows < 32 */
	CHECK(s.b[0].alg == TPM2_ALG_SHA384 && s.b[0].mask == 0x80000000u);

	CHECK(ok("sha512:5-5", &s));
	CHECK(s.b[0].mask == 0x20);

	CHECK(ok("sha256:1,1", &s));	/* a repeated index is harmless */
	CHECK(s.b[0].mask == 0x2);

	CHECK(ok("0x000b:7", &s));	/* algorithm by number */
	CHECK(s.b[0].alg == TPM2_ALG_SHA256 && s.b[0].mask == 0x80);

	CHECK(ok("sm3_256:0", &s));
	CHECK(s.b[0].alg == TPM2_ALG_SM3_256);

	CHECK(ok("sha1:0+sha256:1+sha384:2+sha512:3", &s));
	CHECK(s.n == 4 && s.b[3].alg == TPM2_ALG_SHA512 &&
	      s.b[3].mask == 0x8);
}

static void test_parse_invalid(void)
{
	CHECK(bad("", "empty PCR selection"));
	CHECK(bad("sha256", "expected BANK:LIST"));
	CHECK(bad("sha256:", "no PCR index for bank sha256"));
	CHECK(bad("sha256:1,", "trailing comma"));
	CHECK(bad("foo:1", "unknown PCR bank 'foo'"));
	CHECK(bad("sha256:32", "bad PCR index '32'"));
	CHECK(bad("sha256:3-1", "bad PCR index '3-1'"));
	CHECK(bad("sha256:1+sha256:2", "bank sha256 appears twice"));
	CHECK(bad("+", "expected BANK:LIST"));
	CHECK(bad("sha256:1+", "trailing '+'"));
	CHECK(bad("+sha256:1", "expected BANK:LIST"));
	CHECK(bad(":1", "expected BANK:LIST"));
	CHECK(bad("sha256:,1", "bad PCR index ''"));
	CHECK(bad("sha256:1,,2", "bad PCR index ''"));
	CHECK(bad("sha256:-1", "bad PCR index '-1'"));
	CHECK(bad("sha256:1-", "bad PCR index '1-'"));
	CHECK(bad("sha256:a", "bad PCR index 'a'"));
	CHECK(bad("sha256:0x1", "bad PCR index '0x1'"));
	CHECK(bad("sha256:1 ", "bad PCR index '1 '"));
	CHECK(bad("sha256:4294967297", "bad PCR index"));
	CHECK(bad("sha256:99999999999999999999", "bad PCR index"));
	CHECK(bad("sha256:all,1", "bad PCR index 'all'"));
	CHECK(bad("ALL", "expected BANK:LIST"));
	CHECK(bad("0x0005:1", "unknown PCR bank"));	/* hmac: no bank */
	CHECK(bad("sha256:1++sha1:2", "expected BANK:LIST"));
}

static void test_resolve(void)
{
	struct pcr_sel alloc, s;

	memset(&alloc, 0, sizeof(alloc));
	alloc.n = 2;
	alloc.b[0].alg = TPM2_ALG_SHA1;
	alloc.b[0].mask = 0xffffff;
	alloc.b[1].alg = TPM2_ALG_SHA256;
	alloc.b[1].mask = 0xffffff;

	CHECK(ok("all", &s));
	CHECK(pcr_sel_resolve(&s, &alloc, 24, &e) == 0);
	CHECK(s.n == 2 && s.b[0].alg == TPM2_ALG_SHA1 &&
	      s.b[0].mask == 0xffffff && s.b[1].mask == 0xffffff);
	CHECK(pcr_sel_count(&s) == 48);

	CHECK(ok("sha256:all", &s));
	CHECK(pcr_sel_resolve(&s, &alloc, 24, &e) == 0);
	CHECK(s.n == 1 && s.b[0].mask == 0xffffff && !s.b[0].all);

	CHECK(ok("sha256:23", &s));
	CHECK(pcr_sel_resolve(&s, &alloc, 24, &e) == 0);

	CHECK(ok("sha256:7,24", &s));
	err_clear(&e);
	CHECK(pcr_sel_resolve(&s, &alloc, 24, &e) == EX_USAGE);
	CHECK(strstr(e.msg, "PCR 24 is out of range") != NULL);
	CHECK(strstr(e.msg, "0-23") != NULL);

	CHECK(ok("sha256:31", &s));
	err_clear(&e);
	CHECK(pcr_sel_resolve(&s, &alloc, 24, &e) == EX_USAGE);
	CHECK(strstr(e.msg, "PCR 31 is out of range") != NULL);

	CHECK(ok("sha256:0+sha384:0", &s));
	err_clear(&e);
	CHECK(pcr_sel_resolve(&s, &alloc, 24, &e) == EX_USAGE);
	CHECK(strstr(e.msg, "bank sha384 is not allocated") != NULL);

	/* a 32-PCR TPM: 31 fits */
	CHECK(ok("sha1:31", &s));
	CHECK(pcr_sel_resolve(&s, &alloc, 32, &e) == 0);
}

static void test_marshal(void)
{
	struct pcr_sel s;
	uint8_t mem[64];
	struct tb b;
	static const uint8_t want[] = {
		0, 0, 0, 2,
		0x00, 0x0b, 3, 0x07, 0x00, 0x00,
		0x00, 0x04, 3, 0x80, 0x00, 0x80,
	};
	static const uint8_t want4[] = {
		0, 0, 0, 1, 0x00, 0x0c, 4, 0x01, 0x00, 0x00, 0x01,
	};

	CHECK(ok("sha256:0,1,2+sha1:7,23", &s));
	tb_init(&b, mem, sizeof(mem));
	pcr_sel_marshal(&b, &s);
	CHECK(!tb_err(&b) && b.len == sizeof(want));
	CHECK_MEM(mem, want, sizeof(want));

	/* an index >= 24 needs sizeofSelect 4 */
	CHECK(ok("sha384:0,24", &s));
	tb_init(&b, mem, sizeof(mem));
	pcr_sel_marshal(&b, &s);
	CHECK(!tb_err(&b) && b.len == sizeof(want4));
	CHECK_MEM(mem, want4, sizeof(want4));
}

static void test_alg_names(void)
{
	CHECK(alg_from_name("sha1") == TPM2_ALG_SHA1);
	CHECK(alg_from_name("sha256") == TPM2_ALG_SHA256);
	CHECK(alg_from_name("sha384") == TPM2_ALG_SHA384);
	CHECK(alg_from_name("sha512") == TPM2_ALG_SHA512);
	CHECK(alg_from_name("SHA256") == 0);
	CHECK(alg_from_name("0x0004") == TPM2_ALG_SHA1);
	CHECK(alg_from_name("0x") == 0);
	CHECK(alg_from_name("0x1000b") == 0);
	CHECK(alg_from_name("") == 0);
	CHECK(strcmp(alg_name(TPM2_ALG_SHA512), "sha512") == 0);
	CHECK(strcmp(alg_name(0x1234), "unknown") == 0);
}

/* ---- pcrread text format ---- */

static const char *H1 = "00629997206c7d587b4ed79aabc3db58c32e1492";
static const char *H256 =
	"9851312028952521510e8eaab5be94e7dc24b5fc292b2e9781173cf11ffa9878";

static int parse_bad(const char *text, const char *want)
{
	struct pcr_vals *v = malloc(sizeof(*v));
	int rc;

	err_clear(&e);
	rc = pcr_parse_text(text, v, &e);
	free(v);
	if (rc != EX_USAGE || !strstr(e.msg, want)) {
		fprintf(stderr, "  text '%s': rc %d msg '%s' (want '%s')\n",
			text, rc, e.msg, want);
		return 0;
	}
	return 1;
}

static void test_text_roundtrip(void)
{
	struct pcr_vals *v = malloc(sizeof(*v)), *w = malloc(sizeof(*w));
	char text[1024], *out, *json;
	int i;

	snprintf(text, sizeof(text),
		 "# a comment\n"
		 "\n"
		 "sha1:7 %s\n"
		 "  \t\n"
		 "sha256:7 %s\r\n"
		 "sha256:0 %s\n"
		 "sha512:23 %0128d", H1, H256,
		 "0000000000000000000000000000000000000000000000000000000000000000",
		 0);
	err_clear(&e);
	CHECK(pcr_parse_text(text, v, &e) == 0);
	CHECK(v->n == 4);
	CHECK(v->v[0].alg == TPM2_ALG_SHA1 && v->v[0].idx == 7 &&
	      v->v[0].len == 20 && v->v[0].d[1] == 0x62);
	CHECK(v->v[1].alg == TPM2_ALG_SHA256 && v->v[1].len == 32 &&
	      v->v[1].d[31] == 0x78);
	CHECK(v->v[3].alg == TPM2_ALG_SHA512 && v->v[3].idx == 23 &&
	      v->v[3].len == 64);

	out = pcr_format_text(v);
	CHECK(out != NULL);
	snprintf(text, sizeof(text),
		 "sha1:7 %s\nsha256:7 %s\nsha256:0 %064d\nsha512:23 %0128d\n",
		 H1, H256, 0, 0);
	CHECK(out && strcmp(out, text) == 0);
	/* and back again */
	CHECK(out && pcr_parse_text(out, w, &e) == 0);
	CHECK(w->n == v->n);
	for (i = 0; i < v->n && i < w->n; i++)
		CHECK(v->v[i].alg == w->v[i].alg &&
		      v->v[i].idx == w->v[i].idx &&
		      v->v[i].len == w->v[i].len &&
		      memcmp(v->v[i].d, w->v[i].d, v->v[i].len) == 0);
	free(out);

	json = pcr_format_json(v);
	snprintf(text, sizeof(text),
		 "{\n  \"sha1\": {\n    \"7\": \"%s\"\n  },\n"
		 "  \"sha256\": {\n    \"7\": \"%s\",\n    \"0\": \"%064d\"\n"
		 "  },\n  \"sha512\": {\n    \"23\": \"%0128d\"\n  }\n}\n",
		 H1, H256, 0, 0);
	CHECK(json && strcmp(json, text) == 0);
	if (json && strcmp(json, text))
		fprintf(stderr, "json:\n%s\nwant:\n%s\n", json, text);
	free(json);

	v->n = 0;
	json = pcr_format_json(v);
	CHECK(json && strcmp(json, "{}\n") == 0);
	free(json);
	out = pcr_format_text(v);
	CHECK(out && strcmp(out, "") == 0);
	free(out);

	/* an empty file is an empty set */
	CHECK(pcr_parse_text("", v, &e) == 0 && v->n == 0);
	CHECK(pcr_parse_text("# only\n\n", v, &e) == 0 && v->n == 0);
	free(v);
	free(w);
}

static void test_text_malformed(void)
{
	char t[512];

	CHECK(parse_bad("sha256:7\n", "line 1: expected 'BANK:INDEX HEX'"));
	CHECK(parse_bad("\nsha256 7 00\n", "line 2: expected"));
	CHECK(parse_bad("sha256:x 00\n", "line 1: expected"));
	snprintf(t, sizeof(t), "foo:7 %s\n", H256);
	CHECK(parse_bad(t, "line 1: unknown bank 'foo'"));
	snprintf(t, sizeof(t), "sha256:32 %s\n", H256);
	CHECK(parse_bad(t, "line 1: PCR 32 is out of range"));
	snprintf(t, sizeof(t), "sha256:7 %s\n", H1);	/* sha1-sized */
	CHECK(parse_bad(t, "line 1: sha256 needs 32 bytes of hex"));
	snprintf(t, sizeof(t), "sha1:7 %.39s\n", H1);	/* odd digits */
	CHECK(parse_bad(t, "sha1 needs 20 bytes"));
	snprintf(t, sizeof(t), "sha1:7 %.38szz\n", H1);	/* bad digit */
	CHECK(parse_bad(t, "sha1 needs 20 bytes"));
	snprintf(t, sizeof(t), "sha1:7 %s extra\n", H1);
	CHECK(parse_bad(t, "line 1: expected"));
	snprintf(t, sizeof(t), "sha1:7 %s\n# c\nsha1:7 %s\n", H1, H1);
	CHECK(parse_bad(t, "line 3: sha1:7 appears twice"));
	snprintf(t, sizeof(t), "sha1:7 %s%s%s%s\n", H256, H256, H256, H256);
	CHECK(parse_bad(t, "line 1"));		/* 256 hex digits */
	memset(t, 'a', 300);
	t[300] = '\0';
	CHECK(parse_bad(t, "line 1 is too long"));
}

static int banks_refused(const char *s, const char *msg)
{
	uint16_t algs[TPM2_MAX_BANKS];
	struct tberr e;
	int n;

	return pcr_banks_parse(s, algs, &n, &e) == EX_USAGE &&
	       strstr(e.msg, msg) != NULL;
}

static void test_banks(void)
{
	uint16_t algs[TPM2_MAX_BANKS];
	struct tberr e;
	char many[300];
	int n = -1;

	CHECK(pcr_banks_parse("sha256", algs, &n, &e) == 0 && n == 1 &&
	      algs[0] == TPM2_ALG_SHA256);
	CHECK(pcr_banks_parse("sha1,sha384+sha512", algs, &n, &e) == 0 &&
	      n == 3 && algs[0] == TPM2_ALG_SHA1 &&
	      algs[1] == TPM2_ALG_SHA384 && algs[2] == TPM2_ALG_SHA512);
	CHECK(pcr_banks_parse("0x000b,,sha1", algs, &n, &e) == 0 && n == 2 &&
	      algs[0] == TPM2_ALG_SHA256);
	CHECK(banks_refused("md5", "unknown bank 'md5'"));
	CHECK(banks_refused("sha1,0x0004", "bank 0x0004 given twice"));
	CHECK(banks_refused(",+", "empty bank list ',+'"));
	memset(many, 'a', sizeof(many) - 1);
	many[sizeof(many) - 1] = 0;
	CHECK(banks_refused(many, "too long"));
}

int main(void)
{
	test_banks();
	test_parse_valid();
	test_parse_invalid();
	test_resolve();
	test_marshal();
	test_alg_names();
	test_text_roundtrip();
	test_text_malformed();
	return unit_done("sel");
}
