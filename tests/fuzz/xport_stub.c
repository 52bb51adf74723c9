/* Fuzzing stand-in for lib/tpm/transport.c: the TPM's responses come from the
 * fuzzer input.  xport_transmit hands out the next response, checked the
 * way the real transport checks it (header size 10..cap, all of it
 * present), so what follows the transport sees exactly what a TPM or an
 * interposer on the bus could deliver.  A target that must see the
 * commands to answer them (fuzz_session signs its answers) sets a
 * responder instead (stub_respond). */
#include <string.h>

#include "tpm/transport.h"
#include "xport_stub.h"

static const uint8_t *in;
static size_t inlen;
static stub_responder responder;

void stub_respond(stub_responder f)
{
	responder = f;
}

void stub_feed(const uint8_t *p, size_t n)
{
	in = p;
	inlen = n;
}

const char *xport_choose(const char *conf)
{
	return conf ? conf : "fuzz";
}

int xport_open(struct xport *x, const char *conf, int timeout_s,
	       struct tberr *e)
{
	(void)conf;
	(void)e;
	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->timeout_ms = timeout_s * 1000;
	strcpy(x->desc, "fuzz");
	return 0;
}

int xport_transmit(struct xport *x, const uint8_t *cmd, size_t clen,
		   uint8_t *rsp, size_t cap, size_t *rlen, struct tberr *e)
{
	uint32_t sz;

	(void)x;
	*rlen = 0;
	if (responder) {
		size_t n = 0;

		/* The real transport returns exactly the bytes the header
		 * counts, and only when they all came. */
		if (responder(cmd, clen, rsp, cap, &n) || n < 10 || n > cap)
			return err_set(e, EX_IO, "fuzz: no response");
		sz = (uint32_t)rsp[2] << 24 | (uint32_t)rsp[3] << 16 |
		     (uint32_t)rsp[4] << 8 | rsp[5];
		if (sz < 10 || sz > n)
			return err_set(e, EX_IO, "fuzz: impossible size %u",
				       sz);
		*rlen = sz;
		return 0;
	}
	if (inlen < 10)
		return err_set(e, EX_IO, "fuzz: no more responses");
	sz = (uint32_t)in[2] << 24 | (uint32_t)in[3] << 16 |
	     (uint32_t)in[4] << 8 | in[5];
	if (sz < 10 || sz > cap || sz > inlen)
		return err_set(e, EX_IO, "fuzz: impossible size %u", sz);
	memcpy(rsp, in, sz);
	*rlen = sz;
	in += sz;
	inlen -= sz;
	return 0;
}

void xport_close(struct xport *x)
{
	x->fd = -1;
}

/* The bus transports' option lists (lib/tpm/spi.c, i2c.c): no bus is
 * opened in a fuzz build, so no option is ever there. */
int xport_opt(const char *list, const char *key, char *out, size_t n)
{
	(void)list;
	(void)key;
	(void)out;
	(void)n;
	return 0;
}

/* No resource manager, as on /dev/tpm0 or swtpm's socket: a fuzzed
 * "out of memory" answer takes the leftover flush (lib/tpm2/cmd.c,
 * lib/tpm12/cmd.c) through fuzzed handle lists too. */
int xport_has_rm(const struct xport *x)
{
	(void)x;
	return 0;
}
