#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"

void hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long hex_decode(const char *s, uint8_t *out, size_t cap)
{
	size_t n, i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n % 2 || n / 2 > cap)
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;
	int base = 10;

	/* Decimal, or hex after 0x; a leading zero is not octal, and
	 * strtoull's own leading blanks and signs are refused. */
	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (!s || !isxdigit((unsigned char)*s) ||
	    (base == 10 && !isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}
