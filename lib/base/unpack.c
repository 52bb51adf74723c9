/* The decoder of tiny/packhelp.c's format (include/base/unpack.h). */
#include "base/unpack.h"

long lz_unpack(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	size_t i = 0, o = 0, off, len;
	unsigned flags = 0, bit = 8;

	while (i < n) {
		if (bit == 8) {
			flags = in[i++];
			bit = 0;
			continue;
		}
		if (!(flags >> bit++ & 1)) {
			if (o == cap)
				return -1;
			out[o++] = in[i++];
			continue;
		}
		if (n - i < 3)
			return -1;
		off = (size_t)in[i] << 8 | in[i + 1];
		len = (size_t)in[i + 2] + 3;
		i += 3;
		if (off == 0 || off > o || len > cap - o)
			return -1;
		for (; len > 0; len--, o++)
			out[o] = out[o - off];
	}
	return (long)o;
}
