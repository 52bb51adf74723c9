/* The FIFO interface's engine (lib/tpm/tis.c) against a TPM whose every
 * register answer comes from the fuzzer: DID_VID, TPM_ACCESS, TPM_STS
 * (burstCount, Expect, dataAvail) and the response bytes.  Two commands
 * are sent; a response accepted must be whole: 10 bytes to cap, its
 * header's size.  The bus does not sleep; the input running out is a
 * bus error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpm/tis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *in;
static size_t left;

static int fz_read(struct tis *t, uint16_t reg, uint8_t *p, size_t n)
{
	(void)reg;
	if (n > t->max || n == 0)
		abort();	/* the engine asked past the bus's limit */
	if (left < n)
		return err_set(t->e, EX_IO, "out of input");
	memcpy(p, in, n);
	in += n;
	left -= n;
	return 0;
}

static int fz_write(struct tis *t, uint16_t reg, const uint8_t *p, size_t n)
{
	(void)reg;
	(void)p;
	if (n > t->max || n == 0)
		abort();
	/* a write that fails sometimes: the first input byte's bits */
	return left && (in[0] == 0xa5) ? err_set(t->e, EX_IO, "nack") : 0;
}

static void fz_sleep(long us)
{
	(void)us;
}

static const struct tis_bus fz_bus = { fz_read, fz_write, fz_sleep };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t cmd[] = { 0x80, 0x01, 0, 0, 0, 0x0c, 0, 0,
				       0x01, 0x7b, 0, 0x10 };
	struct tis t;
	struct tberr e;
	uint8_t rsp[256];
	size_t rlen;
	int i;

	if (size < 1)
		return 0;
	memset(&t, 0, sizeof(t));
	memset(&e, 0, sizeof(e));
	t.bus = &fz_bus;
	t.fd = -1;
	t.e = &e;
	/* 64 (SPI) or 31 (I2C) bytes a transfer */
	t.max = data[0] & 1 ? 64 : 31;
	strcpy(t.desc, "fuzz");
	in = data + 1;
	left = size - 1;
	if (tis_start(&t))
		return 0;
	for (i = 0; i < 2; i++) {
		long deadline = tis_now_us() / 1000 + 3600000;

		if (tis_transmit(&t, cmd, sizeof(cmd), rsp, sizeof(rsp), &rlen,
				 deadline, &e))
			continue;
		if (rlen < 10 || rlen > sizeof(rsp) ||
		    rlen != ((size_t)rsp[2] << 24 | (size_t)rsp[3] << 16 |
			     (size_t)rsp[4] << 8 | rsp[5]))
			abort();
	}
	tis_close(&t);
	return 0;
}
