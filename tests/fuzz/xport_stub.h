#ifndef FUZZ_XPORT_STUB_H
#define FUZZ_XPORT_STUB_H
#include <stddef.h>
#include <stdint.h>
/* The responses the next commands get: TPM messages back to back. */
void stub_feed(const uint8_t *p, size_t n);
#endif
