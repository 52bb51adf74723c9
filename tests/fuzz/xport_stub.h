#ifndef FUZZ_XPORT_STUB_H
#define FUZZ_XPORT_STUB_H
#include <stddef.h>
#include <stdint.h>
/* The responses the next commands get: TPM messages back to back. */
void stub_feed(const uint8_t *p, size_t n);

/* A target that plays the TPM itself: f sees each command and writes the
 * response into rsp[0..cap), its length in *rlen; non-zero means "no
 * answer" (a transport error).  The answer is checked as a fed one is.
 * NULL (the default) serves the bytes given to stub_feed. */
typedef int (*stub_responder)(const uint8_t *cmd, size_t clen, uint8_t *rsp,
			      size_t cap, size_t *rlen);
void stub_respond(stub_responder f);
#endif
