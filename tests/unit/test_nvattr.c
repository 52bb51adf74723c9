/* NV attribute grammar (tpm2-tools' names), index parsing, the
 * TPMS_NV_PUBLIC wire form and the NV name. */
#include <stdint.h>
#include <string.h>

#include "base/hex.h"
#include "tpm2/nv.h"
#include "unit.h"

static struct tberr e;

static int parses(const char *s, uint32_t want)
{
	uint32_t a = 0xdeadbeef;
	int rc;

	err_clear(&e);
	rc = nv_attr_parse(s, &a, &e);
	if (rc || a != want) {
		fprintf(stderr, "  attrs '%s': rc %d got 0x%x want 0x%x (%s)\n",
			s, rc, a, want, e.msg);
		return 0;
	}
	return 1;
}

static int refused(const char *s, const char *msg)
{
	uint32_t a = 0;
	int rc;

	err_clear(&e);
	rc = nv_attr_parse(s, &a, &e);
	if (rc != EX_USAGE || !strstr(e.msg, msg)) {
		fprintf(stderr, "  attrs '%s': rc %d msg '%s' (want '%s')\n",
			s, rc, e.msg, msg);
		return 0;
	}
	return 1;
}

static int formats(uint32_t a, const char *want)
{
	char buf[512];

	nv_attr_format(a, buf, sizeof(buf));
	if (strcmp(buf, want)) {
		fprintf(stderr, "  format 0x%x: '%s' want '%s'\n", a, buf,
			want);
		return 0;
	}
	return 1;
}

static int index_is(const char *s, int rc_want, uint32_t want)
{
	uint32_t v = 0;
	int rc;

	err_clear(&e);
	rc = nv_index_parse(s, &v, &e);
	return rc == rc_want && (rc || v == want);
}

/* Names computed by the TPM (swtpm 0.7.1, read with tpm2_nvreadpublic). */
static int name_is(uint32_t index, uint32_t attrs, uint16_t size,
		   const char *want_hex)
{
	struct nv_public p;
	char hex[2 * sizeof(p.name) + 1];

	memset(&p, 0, sizeof(p));
	p.index = index;
	p.name_alg = TPM2_ALG_SHA256;
	p.attrs = attrs;
	p.size = size;
	err_clear(&e);
	if (nv_compute_name(&p, &e))
		return 0;
	hex_encode(p.name, p.name_len, hex);
	if (strcmp(hex, want_hex)) {
		fprintf(stderr, "  name of 0x%x: %s\n", index, hex);
		return 0;
	}
	return 1;
}

int main(void)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} spec[] = {
		/* TCG TPM 2.0 Part 2, TPMA_NV bit positions */
		{"ppwrite", 1u << 0}, {"ownerwrite", 1u << 1},
		{"authwrite", 1u << 2}, {"policywrite", 1u << 3},
		{"policydelete", 1u << 10}, {"writelocked", 1u << 11},
		{"writeall", 1u << 12}, {"writedefine", 1u << 13},
		{"write_stclear", 1u << 14}, {"globallock", 1u << 15},
		{"ppread", 1u << 16}, {"ownerread", 1u << 17},
		{"authread", 1u << 18}, {"policyread", 1u << 19},
		{"no_da", 1u << 25}, {"orderly", 1u << 26},
		{"clear_stclear", 1u << 27}, {"readlocked", 1u << 28},
		{"written", 1u << 29}, {"platformcreate", 1u << 30},
		{"read_stclear", 1u << 31},
	};
	uint8_t wire[128];
	struct nv_public p, q;
	struct tb b, r;
	size_t i;
	char buf[512];
	uint32_t all = 0, back;

	/* Every name alone, and formatting it gives the name back. */
	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		CHECK(parses(spec[i].name, spec[i].bit));
		CHECK(formats(spec[i].bit, spec[i].name));
		all |= spec[i].bit;
	}
	/* All together, formatted in bit order, and parsed back. */
	nv_attr_format(all | (TPM2_NT_COUNTER << 4), buf, sizeof(buf));
	CHECK(strcmp(buf, "ppwrite|ownerwrite|authwrite|policywrite|"
		     "nt=counter|policydelete|writelocked|writeall|"
		     "writedefine|write_stclear|globallock|ppread|ownerread|"
		     "authread|policyread|no_da|orderly|clear_stclear|"
		     "readlocked|written|platformcreate|read_stclear") == 0);
	CHECK(parses(buf, all | (TPM2_NT_COUNTER << 4)));

	/* The common default, spaces, aliases, numbers. */
	CHECK(parses("ownerread|ownerwrite|authread|authwrite", 0x60006));
	CHECK(parses(" ownerread | ownerwrite ", 0x20002));
	CHECK(parses("policy_delete|global_lock", 0x8400));
	CHECK(parses("0x2000a", 0x2000a));
	CHECK(parses("131074", 0x20002));
	CHECK(formats(0x60006, "ownerwrite|authwrite|ownerread|authread"));
	CHECK(formats(0, ""));

	/* Types. */
	CHECK(parses("ownerread|ownerwrite|nt=counter", 0x20012));
	CHECK(parses("ownerread|ownerwrite|nt=bits", 0x20022));
	CHECK(parses("ownerread|ownerwrite|nt=extend", 0x20042));
	CHECK(parses("nt=pinfail|ownerread", 0x20080));
	CHECK(parses("nt=pinpass", 0x90));
	CHECK(parses("nt=ordinary|ownerread", 0x20000));
	CHECK(parses("nt=0x4|ownerread", 0x20040));
	CHECK(parses("nt=counter|nt=counter", 0x10));
	CHECK(formats(0x20042, "ownerwrite|nt=extend|ownerread"));
	CHECK(formats(0x20022, "ownerwrite|nt=bits|ownerread"));
	CHECK(formats(0x70, "nt=0x7"));
	CHECK(nv_type(0x20042) == TPM2_NT_EXTEND);
	CHECK(nv_type_parse("counter") == TPM2_NT_COUNTER);
	CHECK(nv_type_parse("Counter") == -1);
	CHECK(strcmp(nv_type_name(TPM2_NT_BITS), "bits") == 0);
	CHECK(strcmp(nv_type_name(3), "unknown") == 0);
	/* Reserved bits are shown, not dropped. */
	CHECK(formats(0x300, "reserved=0x100|reserved=0x200"));

	/* Refusals name the problem. */
	CHECK(refused("ownerread|bogus", "unknown attribute 'bogus'"));
	CHECK(refused("ownerread||ownerwrite", "empty attribute"));
	CHECK(refused("", "empty attribute"));
	CHECK(refused("ownerread|", "empty attribute"));
	CHECK(refused("OWNERREAD", "unknown attribute"));
	CHECK(refused("nt=widget", "unknown index type 'widget'"));
	CHECK(refused("nt=16", "unknown index type"));
	CHECK(refused("nt=counter|nt=bits", "two index types"));
	CHECK(refused("0x100000000", "does not fit 32 bits"));
	CHECK(refused("ownerreadownerreadownerreadownerreadownerreadownerread"
		      "ownerreadownerread", "unknown attribute"));

	/* Truncation never overruns. */
	memset(buf, 'x', sizeof(buf));
	CHECK(nv_attr_format(0x60006, buf, 10) == 9);
	CHECK(buf[9] == '\0' && buf[10] == 'x');

	/* INDEX: hex or decimal, only 0x01xxxxxx. */
	CHECK(index_is("0x01000001", 0, 0x01000001));
	CHECK(index_is("0x1500000", 0, 0x01500000));
	CHECK(index_is("16777217", 0, 0x01000001));
	CHECK(index_is("0x01ffffff", 0, 0x01ffffff));
	CHECK(index_is("0x00ffffff", EX_USAGE, 0));
	CHECK(index_is("0x02000000", EX_USAGE, 0));
	CHECK(index_is("0x81000001", EX_USAGE, 0));
	CHECK(index_is("-1", EX_USAGE, 0));
	CHECK(index_is("", EX_USAGE, 0));
	CHECK(index_is("0x1000001 ", EX_USAGE, 0));
	CHECK(index_is("one", EX_USAGE, 0));

	/* TPMS_NV_PUBLIC: marshal, unmarshal, the exact bytes. */
	memset(&p, 0, sizeof(p));
	p.index = 0x01000004;
	p.name_alg = TPM2_ALG_SHA256;
	p.attrs = 0x20042;
	p.policy_len = 2;
	p.policy[0] = 0xab;
	p.policy[1] = 0xcd;
	p.size = 32;
	tb_init(&b, wire, sizeof(wire));
	nv_public_marshal(&b, &p);
	CHECK(!tb_err(&b) && b.len == 16);
	CHECK_MEM(wire, "\x01\x00\x00\x04\x00\x0b\x00\x02\x00\x42\x00\x02"
		  "\xab\xcd\x00\x20", 16);
	tb_init_read(&r, wire, b.len);
	nv_public_unmarshal(&r, &q);
	CHECK(!tb_err(&r) && tb_left(&r) == 0);
	CHECK(q.index == p.index && q.name_alg == p.name_alg &&
	      q.attrs == p.attrs && q.size == p.size &&
	      q.policy_len == 2 && q.policy[1] == 0xcd);
	/* A policy longer than any digest is refused, not truncated. */
	wire[10] = 0x00;
	wire[11] = 0x41;
	tb_init_read(&r, wire, sizeof(wire));
	nv_public_unmarshal(&r, &q);
	CHECK(tb_err(&r));
	/* Short input. */
	tb_init_read(&r, wire, 9);
	nv_public_unmarshal(&r, &q);
	CHECK(tb_err(&r));

	/* Names: nameAlg || SHA-256(TPMS_NV_PUBLIC), as the TPM computes. */
	CHECK(name_is(0x01000004, 0x20042, 32, "000b89a04a231e0a1cae4062b8788e"
		      "d8195e0862a4de70428584146a8a1b78a79061"));
	CHECK(name_is(0x01000006, 0x20012, 8, "000b793e2f2eb0a6dcd93528a772ff"
		      "b2621aed7543bdf3bced278d4a4481a1481a4f"));
	/* WRITTEN is part of the public area, so it changes the name. */
	memset(&p, 0, sizeof(p));
	p.index = 0x01000006;
	p.name_alg = TPM2_ALG_SHA256;
	p.attrs = 0x20012;
	p.size = 8;
	q = p;
	q.attrs |= TPMA_NV_WRITTEN;
	CHECK(nv_compute_name(&p, &e) == 0 && nv_compute_name(&q, &e) == 0);
	CHECK(p.name_len == 34 && q.name_len == 34 &&
	      memcmp(p.name, q.name, 34) != 0);
	memset(&p, 0, sizeof(p));
	p.name_alg = 0x0012;	/* SM3: not computed here */
	err_clear(&e);
	CHECK(nv_compute_name(&p, &e) == EX_FAIL);

	/* The irreversible set is what nvdefine guards. */
	back = TPMA_NV_IRREVERSIBLE;
	CHECK(parses("policydelete|writedefine|write_stclear|read_stclear|"
		     "globallock|platformcreate", back));
	return unit_done("nvattr");
}
