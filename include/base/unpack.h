/* The small build's packed help texts: the decoder of tiny/packhelp.c's
 * format (described there). */
#ifndef TPMBOX_BASE_UNPACK_H
#define TPMBOX_BASE_UNPACK_H

#include <stddef.h>
#include <stdint.h>

/* Unpack in[0..n) into out[0..cap): the bytes written, or -1 when the
 * input is damaged (a copy from before the start, or past cap). */
long lz_unpack(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#endif
