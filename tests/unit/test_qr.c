/* The QR encoder's pieces against the standard's worked values: the
 * Reed-Solomon codewords of a known message, the format and version
 * bits, the capacity limits; whole symbols are compared with qrencode
 * in tests/totp.bats.  With an argument: print the symbol of that text
 * as qrencode -t ASCII -m 0 does (VERSION and MASK from the env). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/qr.h"
#include "unit.h"

static void test_rs(void)
{
	/* "HELLO WORLD" in alphanumeric mode, version 1-M: its 16 data
	 * codewords and the 10 error-correction codewords of the
	 * standard's worked example */
	static const uint8_t d[16] = { 32, 91, 11, 120, 209, 114, 220, 77,
				       67, 64, 236, 17, 236, 17, 236, 17 };
	static const uint8_t want[10] = { 196, 35, 39, 119, 235, 215, 231,
					  226, 93, 23 };
	/* ISO/IEC 18004 Annex I: "01234567" numeric, version 1-M */
	static const uint8_t d2[16] = { 0x10, 0x20, 0x0c, 0x56, 0x61, 0x80,
					0xec, 0x11, 0xec, 0x11, 0xec, 0x11,
					0xec, 0x11, 0xec, 0x11 };
	static const uint8_t want2[10] = { 0xa5, 0x24, 0xd4, 0xc1, 0xed, 0x36,
					   0xc7, 0x87, 0x2c, 0x55 };
	uint8_t ecc[10];

	qr_rs(d, sizeof(d), ecc, 10);
	CHECK_MEM(ecc, want, 10);
	qr_rs(d2, sizeof(d2), ecc, 10);
	CHECK_MEM(ecc, want2, 10);
}

static void test_format(void)
{
	/* level M, masks 0..7, bit 14 first (the standard's Table C.1) */
	static const char *const want[8] = {
		"101010000010010", "101000100100101", "101111001111100",
		"101101101001011", "100010111111001", "100000011001110",
		"100111110010111", "100101010100000"
	};
	char s[16];
	int m, i;

	for (m = 0; m < 8; m++) {
		unsigned f = qr_format_bits(m);

		for (i = 0; i < 15; i++)
			s[i] = (char)('0' + (f >> (14 - i) & 1));
		s[15] = '\0';
		CHECK(strcmp(s, want[m]) == 0);
	}
	/* version 7: 000111 110010010100 (Table D.1) */
	CHECK(qr_version_bits(7) == 0x07c94);
	CHECK(qr_version_bits(10) == 0x0a4d3);
}

static void test_sizes(void)
{
	static uint8_t buf[300];
	struct qr *q = malloc(sizeof(*q));
	struct tberr e;

	memset(buf, 'a', sizeof(buf));
	CHECK(q != NULL);
	if (!q)
		return;
	/* byte-mode capacities at level M: 14 (v1), 26 (v2), 213 (v10) */
	CHECK(qr_encode(buf, 14, 0, -1, q, &e) == 0 && q->version == 1);
	CHECK(q->size == 21);
	CHECK(qr_encode(buf, 15, 0, -1, q, &e) == 0 && q->version == 2);
	CHECK(qr_encode(buf, 152, 0, -1, q, &e) == 0 && q->version == 8);
	CHECK(qr_encode(buf, 153, 0, -1, q, &e) == 0 && q->version == 9);
	CHECK(qr_encode(buf, 213, 0, -1, q, &e) == 0 && q->version == 10);
	CHECK(q->size == 57);
	CHECK(qr_encode(buf, 214, 0, -1, q, &e) == EX_USAGE);
	CHECK(qr_encode(buf, 15, 1, -1, q, &e) == EX_USAGE);
	CHECK(qr_encode(buf, 3, 7, 3, q, &e) == 0 && q->version == 7 &&
	      q->mask == 3);
	CHECK(qr_encode(buf, 3, 11, -1, q, &e) == EX_USAGE);
	CHECK(qr_encode(buf, 3, 1, 8, q, &e) == EX_USAGE);
	/* the finder's corner and the dark module */
	CHECK(qr_encode(buf, 3, 1, -1, q, &e) == 0);
	CHECK(q->m[0][0] && q->m[6][6] && !q->m[7][7] && q->m[13][8]);
	free(q);
}

static void test_render(void)
{
	struct qr *q = malloc(sizeof(*q));
	struct tberr e;
	char *s = NULL;

	CHECK(q && qr_encode((const uint8_t *)"x", 1, 1, 0, q, &e) == 0);
	if (!q)
		return;
	/* ascii: 29 rows of 58 columns and a newline */
	CHECK(qr_render(q, QR_ASCII, &s, &e) == 0 && s);
	CHECK(s && strlen(s) == 29 * 59);
	CHECK(s && strncmp(s + 59 * 4, "        ##############", 22) == 0);
	free(s);
	/* utf8: 15 rows; the quiet zone's first row is full blocks */
	CHECK(qr_render(q, QR_UTF8, &s, &e) == 0 && s);
	CHECK(s && strncmp(s, "\xe2\x96\x88\xe2\x96\x88", 6) == 0);
	free(s);
	CHECK(qr_render(q, QR_NONE, &s, &e) == 0 && s == NULL);
	CHECK(qr_style_parse("ansi") == QR_ANSI);
	CHECK(qr_style_parse("UTF8") == -1);
	free(q);
}

static int dump(const char *text)
{
	struct qr q;
	struct tberr e;
	const char *v = getenv("VERSION"), *m = getenv("MASK");
	int r, c;

	if (qr_encode((const uint8_t *)text, strlen(text), v ? atoi(v) : 0,
		      m ? atoi(m) : -1, &q, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	fprintf(stderr, "version %d mask %d\n", q.version, q.mask);
	for (r = 0; r < q.size; r++) {
		for (c = 0; c < q.size; c++)
			fputs(q.m[r][c] ? "##" : "  ", stdout);
		putchar('\n');
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return dump(argv[1]);
	test_rs();
	test_format();
	test_sizes();
	test_render();
	return unit_done("qr");
}
