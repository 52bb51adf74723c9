/* QR code (ISO/IEC 18004): byte mode, error correction level M, versions
 * 1 to 10, the mask chosen by the standard's four penalty rules; and the
 * text renderings a terminal or a serial console shows.  Pure
 * computation: nothing here touches a file or a TPM. */
#ifndef TPMBOX_FMT_QR_H
#define TPMBOX_FMT_QR_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define QR_VERSION_MAX	10
#define QR_SIZE_MAX	(17 + 4 * QR_VERSION_MAX)	/* 57 modules */
#define QR_QUIET	4	/* quiet zone, modules on every side */

struct qr {
	int version;		/* 1..10 */
	int size;		/* 17 + 4 * version */
	int mask;		/* 0..7 */
	uint8_t m[QR_SIZE_MAX][QR_SIZE_MAX];	/* [row][column], 1 = dark */
};

/* Encode data[0..n) in byte mode at level M: in the smallest version
 * that holds it (version 0) or in version (1..10); mask -1 picks the one
 * with the least penalty, 0..7 forces one.  Exit 2 when the data does
 * not fit (213 bytes at most, in version 10). */
int qr_encode(const uint8_t *data, size_t n, int version, int mask,
	      struct qr *q, struct tberr *e);

/* The pieces, for tests: the n error-correction codewords of
 * data[0..len) (Reed-Solomon over GF(256), polynomial 0x11d); the 15
 * format bits of level M with mask (BCH, XOR 0x5412), bit 14 first; the
 * 18 version bits (BCH, generator 0x1f25). */
void qr_rs(const uint8_t *data, size_t len, uint8_t *ecc, int n);
unsigned qr_format_bits(int mask);
unsigned long qr_version_bits(int version);
/* The penalty of a finished symbol (rules 1-4). */
long qr_penalty(const struct qr *q);

enum qr_style {
	QR_NONE = 0,
	QR_UTF8,	/* half blocks, two module rows a text row; the glyphs
			 * are the light modules, for light-on-dark text */
	QR_ANSI,	/* background colours: white light, black dark */
	QR_ASCII,	/* "##" a dark module, two spaces a light one */
};
/* "utf8", "ansi", "ascii" or "none"; -1 for another word. */
int qr_style_parse(const char *s);
/* The symbol as text with its quiet zone, one line per text row, each
 * ending in "\n": malloc'd, NUL-terminated, in *out.  Exit 1 out of
 * memory. */
int qr_render(const struct qr *q, enum qr_style style, char **out,
	      struct tberr *e);

#endif
