/* systemd's signed-policy JSON (lib/fmt/polsig.c): systemd-measure 252's own
 * output read and written back byte for byte, other layouts read, every
 * malformed variant refused, entries added and replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/tpm2const.h"
#include "fmt/polsig.h"
#include "unit.h"

/* Written by `systemd-measure sign --bank=sha256 --phase=enter-initrd`
 * (systemd 252.39) with an RSA-2048 key. */
#define PKFP "00a65b23fe55b75712b53c1ba677205862208d0660460dc6be2ea8c7835e0a69"
#define POL "d6dc65ba3acd8bf87783799b22a693f0bd36fe252a6d8a8518e30d13fcc4d8a7"
#define SIG "pYiVo1lLavwzcPqL9BpyDoeIdnOHLRyB/JQoU6MjuuRTMRg64MMruafssy6Z44+Pa5Bp7Htu8nV1/OPXl6Xz2NzImFq0InIGY6Xqy+KN9jX7oTWfPcupHDR8X1BhH98zCuki/XyQhKnZfWaNY0TpbGR6Pf6IJ31q4V+YYjkm1VKvJNEuoJLYIRv1h6EGauTnnSBLbkDfbxlpv0pknIV1QpWRsgUrM5eZhq+dEKI0GunfCqx5r1bMofKU8nlNqW2ls1Oh04lWKJT1EnPxsgJ6HNDO3BHejLA3HXicdGeifOWVpi3KUbEtVpImNowfVlGUj61Q50BaRDPLX+llYVLmPg=="
static const char systemd_out[] =
	"{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"" PKFP "\",\"pol\":\"" POL
	"\",\"sig\":\"" SIG "\"}]}\n";

static struct polsig ps;

static int parse(const char *s)
{
	struct tberr e;

	memset(&e, 0, sizeof(e));
	return polsig_parse(s, strlen(s), "t.json", &ps, &e);
}

/* Refused with exit 1 and a message naming the file; why must appear. */
static int refused(const char *s, const char *why)
{
	struct tberr e;
	int r;

	memset(&e, 0, sizeof(e));
	r = polsig_parse(s, strlen(s), "t.json", &ps, &e);
	if (r != EX_FAIL || strncmp(e.msg, "t.json: ", 8) ||
	    !strstr(e.msg, why)) {
		fprintf(stderr, "not refused as '%s': %s -> %d %s\n", why, s,
			r, e.msg);
		return 0;
	}
	return 1;
}

/* One entry with these field texts (raw JSON values). */
static char *ent(const char *bank, const char *pcrs, const char *pkfp,
		 const char *pol, const char *sig)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "{\"%s\":[{\"pcrs\":%s,\"pkfp\":%s,"
		 "\"pol\":%s,\"sig\":%s}]}", bank, pcrs, pkfp, pol, sig);
	return buf;
}

#define Q(x) "\"" x "\""

static void test_systemd(void)
{
	char *text;
	size_t n;

	CHECK(parse(systemd_out) == 0);
	CHECK(ps.n == 1);
	CHECK(ps.e[0].bank == TPM2_ALG_SHA256);
	CHECK(ps.e[0].pcrs == 1u << 11);
	CHECK(ps.e[0].pkfp[0] == 0x00 && ps.e[0].pkfp[31] == 0x69);
	CHECK(ps.e[0].pol[0] == 0xd6 && ps.e[0].pol[31] == 0xa7);
	CHECK(ps.e[0].siglen == 256);
	CHECK(polsig_format(&ps, &text, &n) == 0);
	CHECK(n == strlen(systemd_out) && strcmp(text, systemd_out) == 0);
	free(text);
}

/* Whitespace, key order, escapes, upper-case hex, several banks and
 * entries: read; written back in systemd's layout. */
static void test_layouts(void)
{
	static const char pretty[] =
		"\r\n{\n\t\"sha256\" : [\n\t\t{\n\t\t\t\"sig\" : \"" SIG
		"\",\n\t\t\t\"pol\" : \"" POL "\",\n\t\t\t\"pkfp\" : \""
		PKFP "\",\n\t\t\t\"pcrs\" : [\n\t\t\t\t11\n\t\t\t]\n\t\t}"
		"\n\t]\n}\n";
	static const char escaped[] =
		"{\"sh\\u0061256\":[{\"p\\u0063rs\":[11],\"pkfp\":\"" PKFP
		"\",\"pol\":\"" POL "\",\"sig\":\"" SIG "\"}]}";
	static const char upper[] =
		"{\"sha256\":[{\"pcrs\":[11],\"pkfp\":"
		"\"00A65B23FE55B75712B53C1BA677205862208D0660460DC6BE2EA8C7835E0A69\","
		"\"pol\":\"" POL "\",\"sig\":\"" SIG "\"}]}";
	static const char several[] =
		"{\"sha1\":[{\"pcrs\":[0,7,23],\"pkfp\":\"" PKFP "\",\"pol\":\""
		POL "\",\"sig\":\"AAEC\"}],\"sha256\":[{\"pcrs\":[11],\"pkfp\":\""
		PKFP "\",\"pol\":\"" POL "\",\"sig\":\"" SIG "\"},{\"pcrs\":[0],"
		"\"pkfp\":\"" PKFP "\",\"pol\":\"" POL "\",\"sig\":\"AA==\"}],"
		"\"sha512\":[],\"sha384\":[{\"pcrs\":[1],\"pkfp\":\"" PKFP
		"\",\"pol\":\"" POL "\",\"sig\":\"AAE=\"}]}\n";
	char *text;
	size_t n;

	CHECK(parse(pretty) == 0 && ps.n == 1);
	CHECK(polsig_format(&ps, &text, &n) == 0);
	CHECK(strcmp(text, systemd_out) == 0);
	free(text);
	CHECK(parse(escaped) == 0 && ps.n == 1);
	CHECK(polsig_format(&ps, &text, &n) == 0);
	CHECK(strcmp(text, systemd_out) == 0);
	free(text);
	CHECK(parse(upper) == 0 && ps.n == 1 && ps.e[0].pkfp[1] == 0xa6);
	CHECK(parse("{}") == 0 && ps.n == 0);
	CHECK(polsig_format(&ps, &text, &n) == 0);
	CHECK(strcmp(text, "{}\n") == 0 && n == 3);
	free(text);
	CHECK(parse(" { \"sha256\" : [ ] } ") == 0 && ps.n == 0);
	CHECK(parse(several) == 0 && ps.n == 4);
	CHECK(ps.e[0].bank == TPM2_ALG_SHA1 &&
	      ps.e[0].pcrs == (1u | 1u << 7 | 1u << 23));
	CHECK(ps.e[0].siglen == 3 && ps.e[2].siglen == 1 &&
	      ps.e[3].siglen == 2 && ps.e[3].bank == TPM2_ALG_SHA384);
	/* the empty sha512 array is not kept; the rest is, in order */
	CHECK(polsig_format(&ps, &text, &n) == 0);
	{
		const char *cut = strstr(several, ",\"sha512\":[]");
		char want[sizeof(several)];

		snprintf(want, sizeof(want), "%.*s%s",
			 (int)(cut - several), several, cut + 12);
		CHECK(strcmp(text, want) == 0);
	}
	free(text);
}

static void test_refusals(void)
{
	static char big[80000];
	char sig685[700];
	int i;

	CHECK(refused("", "expected '{' at the start"));
	CHECK(refused("   ", "expected '{'"));
	CHECK(refused("[]", "expected '{'"));
	CHECK(refused("\xef\xbb\xbf{}", "expected '{'"));	/* a BOM */
	CHECK(refused("{", "a bank name is the end of the text"));
	CHECK(refused("{}x", "trailing data"));
	CHECK(refused("{}{}", "trailing data"));
	CHECK(refused("{} \n,", "trailing data"));
	CHECK(refused("{,}", "a bank name is a character"));
	CHECK(refused("{\"sha256\":[],}", "a bank name is a character"));
	CHECK(refused("{\"sha256\":[]", "expected ',' or '}'"));
	CHECK(refused("{\"sha256\" []}", "expected ':'"));
	CHECK(refused("{\"sha256\":[],\"sha256\":[]}", "appears twice"));
	CHECK(refused("{\"md5\":[]}", "unknown bank \"md5\""));
	CHECK(refused("{\"sm3_256\":[]}", "unknown bank"));
	CHECK(refused("{\"SHA256\":[]}", "unknown bank"));
	CHECK(refused("{\"sha256\":{}}", "not an array"));
	CHECK(refused("{\"sha256\":null}", "not an array"));
	CHECK(refused("{\"sha256\":[[]]}", "not an object"));
	CHECK(refused("{\"sha256\":[{}]}", "has no \"pcrs\""));
	CHECK(refused("{\"sha256\":[1]}", "not an object"));
	CHECK(refused("{\"sha256\":[{\"pcrs\":[1]},]}", "has no \"pkfp\""));
	CHECK(parse(ent("sha256", "[11]", Q(PKFP), Q(POL), Q(SIG))) == 0);
	/* pcrs */
	CHECK(refused(ent("sha256", "[]", Q(PKFP), Q(POL), Q(SIG)),
		      "\"pcrs\" is empty"));
	CHECK(refused(ent("sha256", "11", Q(PKFP), Q(POL), Q(SIG)),
		      "\"pcrs\" is a number, not an array"));
	CHECK(refused(ent("sha256", "[11,11]", Q(PKFP), Q(POL), Q(SIG)),
		      "not in ascending order"));
	CHECK(refused(ent("sha256", "[12,11]", Q(PKFP), Q(POL), Q(SIG)),
		      "not in ascending order"));
	CHECK(refused(ent("sha256", "[24]", Q(PKFP), Q(POL), Q(SIG)),
		      "out of range"));
	CHECK(refused(ent("sha256", "[4294967307]", Q(PKFP), Q(POL), Q(SIG)),
		      "too large"));
	CHECK(refused(ent("sha256", "[-1]", Q(PKFP), Q(POL), Q(SIG)),
		      "negative"));
	CHECK(refused(ent("sha256", "[1.0]", Q(PKFP), Q(POL), Q(SIG)),
		      "not an integer"));
	CHECK(refused(ent("sha256", "[1e1]", Q(PKFP), Q(POL), Q(SIG)),
		      "not an integer"));
	CHECK(refused(ent("sha256", "[011]", Q(PKFP), Q(POL), Q(SIG)),
		      "leading zero"));
	CHECK(refused(ent("sha256", "[\"11\"]", Q(PKFP), Q(POL), Q(SIG)),
		      "holds a string, not a number"));
	CHECK(refused(ent("sha256", "[[11]]", Q(PKFP), Q(POL), Q(SIG)),
		      "holds an array"));
	CHECK(refused(ent("sha256", "[true]", Q(PKFP), Q(POL), Q(SIG)),
		      "holds a boolean"));
	CHECK(refused(ent("sha256", "[1 2]", Q(PKFP), Q(POL), Q(SIG)),
		      "expected ',' or ']'"));
	/* pkfp, pol */
	CHECK(refused(ent("sha256", "[11]", Q("00"), Q(POL), Q(SIG)),
		      "\"pkfp\" has 2 hex digits, not 64"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP "00"), Q(POL), Q(SIG)),
		      "has 66 hex digits"));
	CHECK(refused(ent("sha256", "[11]", Q("0x" PKFP), Q(POL), Q(SIG)),
		      "\"pkfp\" is not hex"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q("g" POL), Q(SIG)),
		      "\"pol\" is not hex"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(""), Q(SIG)),
		      "\"pol\" has 0 hex digits"));
	CHECK(refused(ent("sha256", "[11]", "17", Q(POL), Q(SIG)),
		      "\"pkfp\" is a number, not a string"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), "[]", Q(SIG)),
		      "\"pol\" is an array, not a string"));
	/* sig */
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("")),
		      "\"sig\" is empty"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("AAE")),
		      "not a multiple of 4"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("AA E")),
		      "not base64"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("AA\\nE")),
		      "an escaped control character (0x0a)"));
	CHECK(refused("{\"sh\\u0001\":[]}", "escaped control character"));
	CHECK(refused("{\"sh\\u007F\":[]}", "escaped control character"));
	CHECK(refused("{\"sh\x7f\":[]}", "a control character (0x7f)"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("AA-_")),
		      "not base64"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("AAF=")),
		      "not canonical"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("A===")),
		      "not canonical"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), Q("====")),
		      "not canonical"));
	CHECK(refused(ent("sha256", "[11]", Q(PKFP), Q(POL), "null"),
		      "\"sig\" is null, not a string"));
	memset(sig685, 'A', 688);
	sig685[688] = '\0';
	snprintf(big, sizeof(big), "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\""
		 PKFP "\",\"pol\":\"" POL "\",\"sig\":\"%s\"}]}", sig685);
	CHECK(refused(big, "longer than any signature"));
	sig685[684] = '\0';	/* 513 bytes would not fit */
	memcpy(sig685 + 680, "AAA=", 4);
	snprintf(big, sizeof(big), "{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\""
		 PKFP "\",\"pol\":\"" POL "\",\"sig\":\"%s\"}]}", sig685);
	CHECK(parse(big) == 0 && ps.e[0].siglen == 512);
	/* keys */
	CHECK(refused("{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"" PKFP
		      "\",\"pol\":\"" POL "\",\"sig\":\"" SIG "\",\"x\":1}]}",
		      "unknown key \"x\""));
	CHECK(refused("{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"" PKFP
		      "\",\"pol\":\"" POL "\",\"pol\":\"" POL "\",\"sig\":\""
		      SIG "\"}]}", "has \"pol\" twice"));
	CHECK(refused("{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"" PKFP
		      "\",\"pol\":\"" POL "\"}]}", "has no \"sig\""));
	CHECK(refused("{\"sha256\":[{\"pcrs\":[11],\"pkfp\":\"" PKFP
		      "\",\"pol\":\"" POL "\",\"sig\":\"" SIG "\",}]}",
		      "a key in an entry is a character"));
	CHECK(refused("{\"sha256\":[{\"pcrs\":[11] \"pkfp\":\"" PKFP
		      "\"}]}", "expected ',' or '}' in an entry"));
	/* strings */
	CHECK(refused("{\"sha\x01\":[]}", "control character"));
	CHECK(refused("{\"sha\t256\":[]}", "control character"));
	CHECK(refused("{\"sh\xc3\xa9\":[]}", "outside ASCII"));
	CHECK(refused("{\"sh\\u00e9\":[]}", "\\u escape outside ASCII"));
	CHECK(refused("{\"sh\\u0000\":[]}", "or NUL"));
	CHECK(refused("{\"sh\\u00\":[]}", "four hex digits"));
	CHECK(refused("{\"sh\\x41\":[]}", "invalid escape"));
	CHECK(refused("{\"sha256", "not closed"));
	CHECK(refused("{\"sha256\\", "not closed"));
	{
		static const char nul[] = "{\"sha256\":[]}\0";

		memset(&ps, 0, sizeof(ps));
		CHECK(polsig_parse(nul, sizeof(nul) - 1, "t", &ps,
				   &(struct tberr){ 0 }) == EX_FAIL);
		CHECK(polsig_parse(nul, sizeof(nul) - 2, "t", &ps,
				   &(struct tberr){ 0 }) == 0);
	}
	/* 64 entries fit, 65 do not */
	for (int want = 64; want <= 65; want++) {
		size_t o = (size_t)snprintf(big, sizeof(big), "{\"sha256\":[");

		for (i = 0; i < want; i++)
			o += (size_t)snprintf(big + o, sizeof(big) - o,
				"%s{\"pcrs\":[%d],\"pkfp\":\"" PKFP "\","
				"\"pol\":\"" POL "\",\"sig\":\"AA==\"}",
				i ? "," : "", i % 24);
		snprintf(big + o, sizeof(big) - o, "]}");
		if (want == 64)
			CHECK(parse(big) == 0 && ps.n == 64);
		else
			CHECK(refused(big, "more than 64 entries"));
	}
	/* the position is reported */
	{
		struct tberr e;

		memset(&e, 0, sizeof(e));
		CHECK(polsig_parse("{\"sha256\":[],\"md5\":[]}", 22, "f", &ps,
				   &e) == EX_FAIL);
		CHECK(strcmp(e.msg, "f: unknown bank \"md5\" (at byte 13)")
		      == 0);
	}
}

static void test_put(void)
{
	struct polsig_entry a, b;
	struct tberr e;
	int i;

	memset(&ps, 0, sizeof(ps));
	memset(&a, 0, sizeof(a));
	a.bank = TPM2_ALG_SHA256;
	a.pcrs = 1u << 11;
	a.pol[0] = 1;
	a.siglen = 1;
	a.sig[0] = 0xaa;
	b = a;
	b.pol[0] = 2;
	memset(&e, 0, sizeof(e));
	CHECK(polsig_put(&ps, &a, &e) == 0 && ps.n == 1);
	CHECK(polsig_put(&ps, &b, &e) == 0 && ps.n == 2);
	a.sig[0] = 0xbb;	/* the same state signed again: replaced */
	CHECK(polsig_put(&ps, &a, &e) == 0 && ps.n == 2);
	CHECK(ps.e[0].sig[0] == 0xbb && ps.e[1].pol[0] == 2);
	b.bank = TPM2_ALG_SHA1;	/* another bank: another state */
	CHECK(polsig_put(&ps, &b, &e) == 0 && ps.n == 3);
	b.bank = TPM2_ALG_SHA256;
	b.pcrs |= 1;		/* other PCRs */
	CHECK(polsig_put(&ps, &b, &e) == 0 && ps.n == 4);
	b.pkfp[0] = 9;		/* another key */
	CHECK(polsig_put(&ps, &b, &e) == 0 && ps.n == 5);
	/* copies of one state collapse to the first, in place */
	ps.e[ps.n++] = a;
	ps.e[ps.n - 1].sig[0] = 0xcc;
	a.sig[0] = 0xdd;
	CHECK(polsig_put(&ps, &a, &e) == 0 && ps.n == 5);
	CHECK(ps.e[0].sig[0] == 0xdd && ps.e[4].pkfp[0] == 9);
	/* full */
	for (i = ps.n; i < POLSIG_MAX; i++) {
		ps.e[i] = b;
		ps.e[i].pol[1] = (uint8_t)i;
	}
	ps.n = POLSIG_MAX;
	b.pol[1] = 0xff;
	CHECK(polsig_put(&ps, &b, &e) == EX_FAIL && ps.n == POLSIG_MAX);
	b.pol[1] = 40;		/* a replacement still fits */
	CHECK(polsig_put(&ps, &b, &e) == 0 && ps.n == POLSIG_MAX);
}

/* The writer refuses what the reader would. */
static void test_format_refuses(void)
{
	char *text = (char *)1;
	size_t n;

	memset(&ps, 0, sizeof(ps));
	ps.n = 1;
	ps.e[0].bank = TPM2_ALG_SHA256;
	ps.e[0].pcrs = 1;
	ps.e[0].siglen = 1;
	CHECK(polsig_format(&ps, &text, &n) == 0);
	free(text);
	ps.e[0].pcrs = 0;
	CHECK(polsig_format(&ps, &text, &n) == -1 && !text);
	ps.e[0].pcrs = 1u << 24;
	CHECK(polsig_format(&ps, &text, &n) == -1);
	ps.e[0].pcrs = 1;
	ps.e[0].siglen = 0;
	CHECK(polsig_format(&ps, &text, &n) == -1);
	ps.e[0].siglen = POLSIG_SIG_MAX + 1;
	CHECK(polsig_format(&ps, &text, &n) == -1);
	ps.e[0].siglen = 1;
	ps.e[0].bank = TPM2_ALG_SM3_256;
	CHECK(polsig_format(&ps, &text, &n) == -1);
	ps.e[0].bank = TPM2_ALG_SHA512;
	ps.e[0].pcrs = 0xffffff;
	ps.e[0].siglen = POLSIG_SIG_MAX;
	for (n = 0; n < POLSIG_MAX; n++)
		ps.e[n] = ps.e[0];
	ps.n = POLSIG_MAX;
	CHECK(polsig_format(&ps, &text, &n) == 0);
	CHECK(parse(text) == 0 && ps.n == POLSIG_MAX);
	free(text);
}

int main(void)
{
	test_systemd();
	test_layouts();
	test_refusals();
	test_put();
	test_format_refuses();
	return unit_done("polsig");
}
