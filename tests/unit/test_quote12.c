/* TPM 1.2 quotes on the host (fmt/quote12.h): the nonce rule, tpm_getquote's
 * PCR file and the TPM_QUOTE_INFO2 rebuilt from it, the signed bytes'
 * parser, the 1.2 QUOTE file.  Known answers from Python's hashlib:
 *   sha1(00112233) = 5f8feacd...
 *   sha1(0003 810000 00000028 00*20 11*20) = b0c36c13... (PCRs 0 and 7) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hex.h"
#include "fmt/quote12.h"
#include "unit.h"

#define Z40 "0000000000000000000000000000000000000000"
#define O40 "1111111111111111111111111111111111111111"

static struct quote12 q;

static int gq(const char *text)
{
	static const uint8_t sig[1] = { 1 }, nonce[20];
	struct tberr e;

	memset(&e, 0, sizeof(e));
	return quote12_from_getquote(sig, 1, text, strlen(text), nonce, &q,
				     &e);
}

static void nonce(void)
{
	uint8_t n20[20], out[20], want[20];
	const uint8_t n4[4] = { 0x00, 0x11, 0x22, 0x33 };

	memset(n20, 0x5a, 20);
	quote12_nonce(n20, 20, out);
	CHECK_MEM(out, n20, 20);
	quote12_nonce(n4, 4, out);
	hex_decode("5f8feacd8ff67f47763c9d00de6e972b2104232e", want, 20);
	CHECK_MEM(out, want, 20);
}

static void getquote(void)
{
	uint8_t want[20];
	struct quote12_info i;
	struct tberr e;

	memset(&e, 0, sizeof(e));
	CHECK(gq("0=" Z40 "\n7=" O40 "\n") == 0);
	CHECK(q.infolen == 52);
	/* 0036 'QUT2' nonce(20 zeros) 0003 810000 01 digest */
	CHECK_MEM(q.info, "\x00\x36QUT2", 6);
	CHECK_MEM(q.info + 26, "\x00\x03\x81\x00\x00\x01", 6);
	hex_decode("b0c36c13ac3030e5178d2f5f258d9feef0f644fb", want, 20);
	CHECK_MEM(q.info + 32, want, 20);
	CHECK(q.nvals == 2 && q.sel.mask == 0x81 && q.sel.size == 3);
	CHECK(quote12_info_parse(q.info, q.infolen, &i, &e) == 0);
	CHECK(i.kind == 2 && i.pcr.loc_release == 1);
	CHECK_MEM(i.digest, want, 20);
	/* lower case is read too */
	CHECK(gq("0=" Z40 "\n7=1111111111111111111111111111111111111aaa\n")
	      == 0);
	/* refusals */
	CHECK(gq("") != 0);				/* no values */
	CHECK(gq("0=" Z40) != 0);			/* no line end */
	CHECK(gq("7=" Z40 "\n0=" Z40 "\n") != 0);	/* descending */
	CHECK(gq("7=" Z40 "\n7=" Z40 "\n") != 0);	/* twice */
	CHECK(gq("24=" Z40 "\n") != 0);			/* PCR 24 */
	CHECK(gq("07=" Z40 "\n") != 0);			/* leading zero */
	CHECK(gq("7=" Z40 "0\n") != 0);			/* 41 digits */
	CHECK(gq("7=0x" "00000000000000000000000000000000000000\n") != 0);
	CHECK(gq("7 =" Z40 "\n") != 0);
	CHECK(gq("7=" Z40 "\r\n") != 0);
	CHECK(gq("7=g000000000000000000000000000000000000000\n") != 0);
}

static void info(void)
{
	uint8_t b[64];
	struct quote12_info i;
	struct tberr e;

	memset(&e, 0, sizeof(e));
	memset(b, 0, sizeof(b));
	memcpy(b, "\x01\x01\x00\x00QUOT", 8);
	b[8] = 0xaa;
	b[28] = 0xbb;
	CHECK(quote12_info_parse(b, 48, &i, &e) == 0);
	CHECK(i.kind == 1 && i.digest[0] == 0xaa && i.nonce[0] == 0xbb);
	CHECK(quote12_info_parse(b, 47, &i, &e) != 0);
	CHECK(quote12_info_parse(b, 49, &i, &e) != 0);
	b[7] = 'X';
	CHECK(quote12_info_parse(b, 48, &i, &e) != 0);
	/* TPM_QUOTE_INFO2: cut short; followed by a non-version */
	CHECK(gq("0=" Z40 "\n") == 0);
	CHECK(quote12_info_parse(q.info, q.infolen - 1, &i, &e) != 0);
	memcpy(b, q.info, q.infolen);
	b[q.infolen] = 0x00;
	b[q.infolen + 1] = 0x30;
	CHECK(quote12_info_parse(b, q.infolen + 2, &i, &e) == 0);
	CHECK(i.vlen == 2);
	b[q.infolen + 1] = 0x31;
	CHECK(quote12_info_parse(b, q.infolen + 2, &i, &e) != 0);
}

static void file(void)
{
	static struct quote12 r;
	uint8_t *f, *g;
	size_t n;
	struct tberr e;

	memset(&e, 0, sizeof(e));
	CHECK(gq("0=" Z40 "\n7=" O40 "\n") == 0);
	CHECK(quote12_file_write(&q, &f, &n, &e) == 0);
	CHECK(quote12_file_is(f, n));
	CHECK(quote12_file_read(f, n, &r, &e) == 0);
	CHECK(r.infolen == q.infolen && r.siglen == 1 && r.nvals == 2);
	CHECK_MEM(r.info, q.info, q.infolen);
	CHECK_MEM(r.vals, q.vals, 40);
	CHECK(r.sel.mask == 0x81 && r.sel.size == 3);
	/* every cut is refused, a byte more too, version 2 too */
	{
		size_t k;
		int bad = 0;

		for (k = 0; k < n; k++)
			bad += quote12_file_read(f, k, &r, &e) != 0;
		CHECK(bad == (int)n);
	}
	g = malloc(n + 1);
	memcpy(g, f, n);
	g[n] = 0;
	CHECK(quote12_file_read(g, n + 1, &r, &e) != 0);
	g[9] = 2;
	CHECK(quote12_file_read(g, n, &r, &e) != 0);
	CHECK(strstr(e.msg, "version 2") != NULL);
	free(g);
	free(f);
}

int main(void)
{
	nonce();
	getquote();
	info();
	file();
	return unit_done("quote12");
}
