/* QR code encoder, include/fmt/qr.h.  The tables are the standard's for
 * level M; the symbol is built in the standard's order: function
 * patterns, codewords in the zigzag, each mask with its format bits, the
 * one of least penalty kept. */
#include <stdlib.h>
#include <string.h>

#include "fmt/qr.h"

/* Level M, versions 1..10: total codewords, error-correction codewords
 * per block, blocks. */
static const short total_cw[QR_VERSION_MAX + 1] = {
	0, 26, 44, 70, 100, 134, 172, 196, 242, 292, 346
};
static const unsigned char ecc_per_block[QR_VERSION_MAX + 1] = {
	0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26
};
static const unsigned char blocks[QR_VERSION_MAX + 1] = {
	0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5
};
/* Alignment pattern centres (rows and columns alike), 0-terminated. */
static const unsigned char align_pos[QR_VERSION_MAX + 1][4] = {
	{ 0 }, { 0 }, { 6, 18 }, { 6, 22 }, { 6, 26 }, { 6, 30 }, { 6, 34 },
	{ 6, 22, 38 }, { 6, 24, 42 }, { 6, 26, 46 }, { 6, 28, 50 }
};

#define MAX_CW 346

/* GF(256) with x^8 + x^4 + x^3 + x^2 + 1. */
static uint8_t gf_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (uint8_t)((a << 1) ^ (a & 0x80 ? 0x1d : 0));
		b >>= 1;
	}
	return r;
}

void qr_rs(const uint8_t *data, size_t len, uint8_t *ecc, int n)
{
	uint8_t gen[32], root = 1, f;
	size_t i;
	int j, k;

	/* generator: prod (x - a^k), k = 0..n-1; gen[0..n) are the
	 * coefficients below the leading 1, highest degree first */
	memset(gen, 0, sizeof(gen));
	gen[n - 1] = 1;
	for (k = 0; k < n; k++) {
		for (j = 0; j < n; j++) {
			gen[j] = gf_mul(gen[j], root);
			if (j + 1 < n)
				gen[j] ^= gen[j + 1];
		}
		root = gf_mul(root, 2);
	}
	memset(ecc, 0, (size_t)n);
	for (i = 0; i < len; i++) {
		f = data[i] ^ ecc[0];
		memmove(ecc, ecc + 1, (size_t)n - 1);
		ecc[n - 1] = 0;
		for (j = 0; j < n; j++)
			ecc[j] ^= gf_mul(gen[j], f);
	}
}

unsigned qr_format_bits(int mask)
{
	unsigned d = (unsigned)mask & 7, r = d;	/* level M is 00 */
	int i;

	for (i = 0; i < 10; i++)
		r = (r << 1) ^ ((r >> 9) * 0x537);
	return ((d << 10) | (r & 0x3ff)) ^ 0x5412;
}

unsigned long qr_version_bits(int version)
{
	unsigned long r = (unsigned long)version;
	int i;

	for (i = 0; i < 12; i++)
		r = (r << 1) ^ ((r >> 11) * 0x1f25);
	return ((unsigned long)version << 12) | (r & 0xfff);
}

/* Bits appended most significant first. */
struct bits {
	uint8_t b[MAX_CW];
	size_t n;	/* bits */
};

static void put_bits(struct bits *s, unsigned long v, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--, s->n++)
		if (v >> i & 1)
			s->b[s->n / 8] |= (uint8_t)(0x80 >> (s->n % 8));
}

static size_t data_cw(int v)
{
	return (size_t)(total_cw[v] - ecc_per_block[v] * blocks[v]);
}

/* The data codewords: mode, count, bytes, terminator, padding. */
static void data_codewords(const uint8_t *data, size_t n, int v,
			   struct bits *s)
{
	size_t cap = data_cw(v) * 8, i;

	memset(s, 0, sizeof(*s));
	put_bits(s, 4, 4);
	put_bits(s, n, v < 10 ? 8 : 16);
	for (i = 0; i < n; i++)
		put_bits(s, data[i], 8);
	put_bits(s, 0, cap - s->n < 4 ? (int)(cap - s->n) : 4);
	if (s->n % 8)
		put_bits(s, 0, 8 - (int)(s->n % 8));
	for (i = 0; s->n < cap; i++)
		put_bits(s, i % 2 ? 0x11 : 0xec, 8);
}

/* Data and error-correction codewords, split into blocks (the short ones
 * first) and interleaved. */
static size_t interleave(const uint8_t *dc, int v, uint8_t *out)
{
	int nb = blocks[v], ne = ecc_per_block[v], b, i;
	size_t nd = data_cw(v), shortlen = nd / (size_t)nb;
	int nlong = (int)(nd % (size_t)nb);
	uint8_t ecc[5][32];
	size_t off[5], len[5], o = 0, k;

	for (b = 0, k = 0; b < nb; b++) {
		off[b] = k;
		len[b] = shortlen + (b >= nb - nlong);
		qr_rs(dc + k, len[b], ecc[b], ne);
		k += len[b];
	}
	for (k = 0; k <= shortlen; k++)
		for (b = 0; b < nb; b++)
			if (k < len[b])
				out[o++] = dc[off[b] + k];
	for (i = 0; i < ne; i++)
		for (b = 0; b < nb; b++)
			out[o++] = ecc[b][i];
	return o;
}

/* The symbol being built: modules and which of them are function
 * patterns. */
struct sym {
	int size;
	uint8_t m[QR_SIZE_MAX][QR_SIZE_MAX];
	uint8_t fn[QR_SIZE_MAX][QR_SIZE_MAX];
};

static void set_fn(struct sym *s, int r, int c, int dark)
{
	s->m[r][c] = (uint8_t)!!dark;
	s->fn[r][c] = 1;
}

static void finder(struct sym *s, int r0, int c0)
{
	int r, c, d;

	/* the 7x7 pattern and its light separator */
	for (r = -1; r <= 7; r++)
		for (c = -1; c <= 7; c++) {
			if (r0 + r < 0 || r0 + r >= s->size || c0 + c < 0 ||
			    c0 + c >= s->size)
				continue;
			d = abs(r - 3) > abs(c - 3) ? abs(r - 3) : abs(c - 3);
			set_fn(s, r0 + r, c0 + c, d != 2 && d != 4);
		}
}

static void format_bits(struct sym *s, int mask)
{
	unsigned f = qr_format_bits(mask);
	int i, n = s->size;

	/* bit i: the copy around the top-left finder, then the split one */
	for (i = 0; i < 15; i++) {
		int b = f >> i & 1;

		if (i < 6)
			set_fn(s, i, 8, b);
		else if (i < 8)
			set_fn(s, i + 1, 8, b);
		else if (i == 8)
			set_fn(s, 8, 7, b);
		else
			set_fn(s, 8, 14 - i, b);
		if (i < 8)
			set_fn(s, 8, n - 1 - i, b);
		else
			set_fn(s, n - 15 + i, 8, b);
	}
	set_fn(s, n - 8, 8, 1);	/* the dark module */
}

static void function_patterns(struct sym *s, int v)
{
	int i, j, k, r, c, n = s->size;
	const unsigned char *ap = align_pos[v];
	int na = 0;

	for (i = 0; i < n; i++) {
		set_fn(s, 6, i, i % 2 == 0);
		set_fn(s, i, 6, i % 2 == 0);
	}
	finder(s, 0, 0);
	finder(s, 0, n - 7);
	finder(s, n - 7, 0);
	while (na < 4 && ap[na])
		na++;
	for (i = 0; i < na; i++)
		for (j = 0; j < na; j++) {
			/* not over the finders */
			if ((i == 0 && j == 0) || (i == 0 && j == na - 1) ||
			    (i == na - 1 && j == 0))
				continue;
			for (r = -2; r <= 2; r++)
				for (c = -2; c <= 2; c++) {
					k = abs(r) > abs(c) ? abs(r) : abs(c);
					set_fn(s, ap[i] + r, ap[j] + c, k != 1);
				}
		}
	format_bits(s, 0);	/* reserves the area; redrawn per mask */
	if (v >= 7) {
		unsigned long vb = qr_version_bits(v);

		for (i = 0; i < 18; i++) {
			int b = (int)(vb >> i & 1);

			set_fn(s, n - 11 + i % 3, i / 3, b);
			set_fn(s, i / 3, n - 11 + i % 3, b);
		}
	}
}

/* The codewords in the two-column zigzag from the bottom right; the
 * remainder bits stay light. */
static void place(struct sym *s, const uint8_t *cw, size_t ncw)
{
	size_t i = 0;
	int right, vert, j, n = s->size;

	for (right = n - 1; right >= 1; right -= 2) {
		if (right == 6)
			right = 5;
		for (vert = 0; vert < n; vert++)
			for (j = 0; j < 2; j++) {
				int c = right - j;
				int up = ((right + 1) & 2) == 0;
				int r = up ? n - 1 - vert : vert;

				if (s->fn[r][c] || i >= ncw * 8)
					continue;
				s->m[r][c] = cw[i / 8] >> (7 - i % 8) & 1;
				i++;
			}
	}
}

static int mask_bit(int mask, int r, int c)
{
	switch (mask) {
	case 0: return (r + c) % 2 == 0;
	case 1: return r % 2 == 0;
	case 2: return c % 3 == 0;
	case 3: return (r + c) % 3 == 0;
	case 4: return (r / 2 + c / 3) % 2 == 0;
	case 5: return (r * c) % 2 + (r * c) % 3 == 0;
	case 6: return ((r * c) % 2 + (r * c) % 3) % 2 == 0;
	default: return ((r + c) % 2 + (r * c) % 3) % 2 == 0;
	}
}

static void apply_mask(struct sym *s, int mask)
{
	int r, c;

	for (r = 0; r < s->size; r++)
		for (c = 0; c < s->size; c++)
			if (!s->fn[r][c] && mask_bit(mask, r, c))
				s->m[r][c] ^= 1;
}

/* Rules 1 and 3 along one line of n modules (get(i) the i-th), from its
 * runs: run[0] is a light run (0 long when the line starts dark), so the
 * odd runs are the dark ones.  Rule 3 looks for dark runs in the ratio
 * 1:1:3:1:1 with a light run at least four times the unit, or the
 * symbol's edge, on one side. */
static long line_penalty(const uint8_t *line, int n)
{
	int run[QR_SIZE_MAX + 2], nr = 0, i, u;
	long p = 0;

	run[0] = 0;
	if (line[0])
		run[++nr] = 0;
	for (i = 0; i < n; i++) {
		if (i && line[i] != line[i - 1])
			run[++nr] = 0;
		run[nr]++;
	}
	nr++;
	for (i = 0; i < nr; i++) {
		if (run[i] >= 5)
			p += 3 + run[i] - 5;
		if (!(i & 1) || i < 3 || i + 2 >= nr || run[i] % 3)
			continue;
		u = run[i] / 3;
		if (run[i - 2] != u || run[i - 1] != u || run[i + 1] != u ||
		    run[i + 2] != u)
			continue;
		if (i == 3 || run[i - 3] >= 4 * u || i + 4 >= nr ||
		    run[i + 3] >= 4 * u)
			p += 40;
	}
	return p;
}

long qr_penalty(const struct qr *q)
{
	uint8_t col[QR_SIZE_MAX];
	int r, c, n = q->size, dark = 0, pct;
	long p = 0;

	for (r = 0; r < n; r++) {
		p += line_penalty(q->m[r], n);
		for (c = 0; c < n; c++) {
			col[c] = q->m[c][r];
			dark += q->m[r][c];
		}
		p += line_penalty(col, n);
	}
	for (r = 1; r < n; r++)
		for (c = 1; c < n; c++) {
			int s = q->m[r][c] + q->m[r - 1][c] + q->m[r][c - 1] +
				q->m[r - 1][c - 1];

			if (s == 0 || s == 4)
				p += 3;
		}
	/* rule 4: 10 for each whole 5 % the dark share is off 50 %,
	 * the share rounded to a whole percent */
	pct = (200 * dark + n * n) / (n * n) / 2;
	p += (abs(pct - 50) / 5) * 10;
	return p;
}

int qr_encode(const uint8_t *data, size_t n, int version, int mask,
	      struct qr *q, struct tberr *e)
{
	struct sym *s, *t = NULL;
	struct bits bits;
	uint8_t cw[MAX_CW];
	size_t ncw;
	int v, mk, best = -1;
	long pen, bestpen = 0;

	if (version < 0 || version > QR_VERSION_MAX || mask < -1 || mask > 7)
		return err_set(e, EX_USAGE, "QR version %d or mask %d is out "
			       "of range", version, mask);
	s = calloc(1, sizeof(*s));
	if (!s || !(t = malloc(sizeof(*t)))) {
		free(s);
		return err_set(e, EX_FAIL, "out of memory");
	}
	for (v = version ? version : 1; v <= QR_VERSION_MAX; v++)
		if ((v < 10 ? 12 : 20) + 8 * n <= data_cw(v) * 8)
			break;
	if (v > QR_VERSION_MAX || (version && v != version)) {
		v = version ? version : QR_VERSION_MAX;
		free(s);
		free(t);
		return err_set(e, EX_USAGE, "%zu bytes do not fit in a QR code "
			       "of version %d at level M (%d bytes at most)",
			       n, v, ((int)data_cw(v) * 8 - (v < 10 ? 12 : 20))
			       / 8);
	}
	data_codewords(data, n, v, &bits);
	ncw = interleave(bits.b, v, cw);
	s->size = 17 + 4 * v;
	function_patterns(s, v);
	place(s, cw, ncw);
	q->version = v;
	q->size = s->size;
	for (mk = 0; mk < 8; mk++) {
		if (mask >= 0 && mk != mask)
			continue;
		*t = *s;
		apply_mask(t, mk);
		format_bits(t, mk);
		memcpy(q->m, t->m, sizeof(q->m));
		pen = qr_penalty(q);
		if (best < 0 || pen < bestpen) {
			best = mk;
			bestpen = pen;
		}
	}
	apply_mask(s, best);
	format_bits(s, best);
	memcpy(q->m, s->m, sizeof(q->m));
	q->mask = best;
	explicit_bzero(s, sizeof(*s));
	explicit_bzero(t, sizeof(*t));
	explicit_bzero(&bits, sizeof(bits));
	explicit_bzero(cw, sizeof(cw));
	free(s);
	free(t);
	return 0;
}

int qr_style_parse(const char *s)
{
	static const char *const names[] = { "none", "utf8", "ansi", "ascii" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* Module (r, c) counted from the quiet zone's corner. */
static int dark_at(const struct qr *q, int r, int c)
{
	r -= QR_QUIET;
	c -= QR_QUIET;
	return r >= 0 && c >= 0 && r < q->size && c < q->size && q->m[r][c];
}

int qr_render(const struct qr *q, enum qr_style style, char **out,
	      struct tberr *e)
{
	int w = q->size + 2 * QR_QUIET, r, c;
	/* the widest module is ANSI's colour change and two spaces */
	size_t cap = (size_t)w * (size_t)(w * 12 + 8) + 1, o = 0;
	char *p;

	*out = NULL;
	if (style == QR_NONE)
		return 0;
	if (!(p = malloc(cap)))
		return err_set(e, EX_FAIL, "out of memory");
#define PUT(str) do { size_t l_ = strlen(str); \
		memcpy(p + o, (str), l_); o += l_; } while (0)
	for (r = 0; r < w; r += style == QR_UTF8 ? 2 : 1) {
		int last = -1;

		for (c = 0; c < w; c++) {
			int top = dark_at(q, r, c);

			if (style == QR_UTF8) {
				int bot = r + 1 < w ? dark_at(q, r + 1, c) :
					  1;

				/* the glyph draws the light modules; past
				 * the last row counts as dark (the
				 * terminal's background) */
				PUT(top ? (bot ? " " : "\xe2\x96\x84") :
				    (bot ? "\xe2\x96\x80" : "\xe2\x96\x88"));
			} else if (style == QR_ANSI) {
				if (top != last)
					PUT(top ? "\033[40m" : "\033[47m");
				last = top;
				PUT("  ");
			} else {
				PUT(top ? "##" : "  ");
			}
		}
		if (style == QR_ANSI)
			PUT("\033[0m");
		PUT("\n");
	}
#undef PUT
	p[o] = '\0';
	*out = p;
	return 0;
}
