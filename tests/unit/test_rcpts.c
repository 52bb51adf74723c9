/* The escrow recipients record (lib/job/escrow.c; docs/blob-format.md,
 * "The recipients record"): written for a secret of 16 bytes or more,
 * verified by that secret only, its iteration count bounded before
 * anything is computed, its structure strict. */
#include <stdlib.h>

#include "base/err.h"
#include "base/pem.h"
#include "job/escrow.h"
#include "unit.h"

#define AGE_A "age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq"

/* A blob's escrow text for one age recipient and secret s. */
static char *make(const char *s, size_t n, size_t *len)
{
	struct escrow *x = escrow_new();
	struct tberr e;
	char *pem = NULL;

	*len = 0;
	memset(&e, 0, sizeof(e));
	if (!x || escrow_add(x, AGE_A, &e) ||
	    escrow_make(x, (const uint8_t *)s, n, &e) ||
	    escrow_append(x, &pem, len, &e)) {
		fprintf(stderr, "make: %s\n", e.msg);
		exit(2);
	}
	escrow_free(x);
	return pem;
}

static int verify(const char *text, size_t n, const char *s, size_t sn)
{
	struct escrow_blk b;
	struct tberr e;
	int rc;

	memset(&e, 0, sizeof(e));
	if (escrow_read(text, n, &b, &e))
		return -1;
	rc = escrow_read_rcpts(text, n, &b, &e);
	if (!rc)
		rc = b.rc.raw ? escrow_rcpts_verify(&b, (const uint8_t *)s, sn,
						    &e) : -2;
	escrow_blk_free(&b);
	return rc;
}

/* The record's binary form with its iteration count set to it. */
static int parse_iter(const char *text, size_t n, uint32_t it)
{
	struct escrow_rcpts r;
	struct tberr e;
	uint8_t *raw;
	size_t len;
	int rc;

	if (pem_block(text, n, ESCROW_RCPT_LABEL, &raw, &len))
		return -1;
	raw[6] = (uint8_t)(it >> 24);
	raw[7] = (uint8_t)(it >> 16);
	raw[8] = (uint8_t)(it >> 8);
	raw[9] = (uint8_t)it;
	memset(&e, 0, sizeof(e));
	rc = escrow_rcpts_parse(raw, len, &r, &e);
	if (!rc) {
		free(r.keys);
		CHECK(r.iter == it);
	}
	free(raw);
	return rc;
}

int main(void)
{
	const char *s16 = "0123456789abcdef", *o16 = "0123456789abcdeF";
	size_t n;
	char *t = make(s16, 16, &n);
	struct escrow_rcpts r;
	struct tberr e;
	uint8_t *raw;
	size_t len;

	CHECK(strstr(t, "-----BEGIN " ESCROW_RCPT_LABEL "-----") != NULL);
	CHECK(verify(t, n, s16, 16) == 0);
	CHECK(verify(t, n, o16, 16) == EX_FAIL);	/* another secret */
	CHECK(verify(t, n, s16, 15) == EX_FAIL);	/* too short */
	/* iteration bounds: refused at parse, before any PBKDF2 */
	CHECK(parse_iter(t, n, ESCROW_RCPT_ITER_MIN) == 0);
	CHECK(parse_iter(t, n, ESCROW_RCPT_ITER_MAX) == 0);
	CHECK(parse_iter(t, n, ESCROW_RCPT_ITER_MIN - 1) == EX_FAIL);
	CHECK(parse_iter(t, n, ESCROW_RCPT_ITER_MAX + 1) == EX_FAIL);
	CHECK(parse_iter(t, n, 1) == EX_FAIL);
	CHECK(parse_iter(t, n, 0x80000000u) == EX_FAIL);
	/* structure: a byte more, a byte less, another version */
	CHECK(pem_block(t, n, ESCROW_RCPT_LABEL, &raw, &len) == 0);
	memset(&e, 0, sizeof(e));
	CHECK(escrow_rcpts_parse(raw, len - 1, &r, &e) == EX_FAIL);
	raw = realloc(raw, len + 1);
	raw[len] = 0;
	CHECK(escrow_rcpts_parse(raw, len + 1, &r, &e) == EX_FAIL);
	raw[5] = 2;
	CHECK(escrow_rcpts_parse(raw, len, &r, &e) == EX_FAIL);
	CHECK(strstr(e.msg, "version 2 is not supported") != NULL);
	free(raw);
	free(t);
	/* 15 bytes: no record */
	t = make(s16, 15, &n);
	CHECK(strstr(t, ESCROW_RCPT_LABEL) == NULL);
	CHECK(verify(t, n, s16, 15) == -2);
	free(t);
	return unit_done("rcpts");
}
