/* The FIFO registers over SPI (PTP, "SPI Hardware Protocol"): each
 * register access is one frame with the chip select held throughout: a
 * 4-byte header, wait states while the TPM holds bit 0 of its answer
 * low, then 1 to 64 data bytes.  Transfers go to spidev
 * (SPI_IOC_MESSAGE) or to the test socket (1 flag byte, 2-byte length,
 * MOSI; the answer is as many MISO bytes). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tpm/spi.h"
#include "tpm/transport.h"

#define SPI_HZ 1000000		/* default clock: any wiring copes */
#define SPI_ADDR 0xd40000	/* the TPM's range on the bus */
#define SPI_READ 0x80

void tis_spi_header(uint8_t h[4], int rd, unsigned loc, uint16_t reg,
		    size_t n)
{
	uint32_t a = SPI_ADDR + loc * 0x1000 + reg;

	h[0] = (uint8_t)((rd ? SPI_READ : 0) | ((n - 1) & 0x3f));
	h[1] = (uint8_t)(a >> 16);
	h[2] = (uint8_t)(a >> 8);
	h[3] = (uint8_t)a;
}

void tis_spi_xfer(struct tis_spi_ioc *x, const uint8_t *tx,
		  uint8_t *rx, size_t n, int keep_cs, uint32_t hz)
{
	memset(x, 0, sizeof(*x));
	x->tx_buf = (uintptr_t)tx;
	x->rx_buf = (uintptr_t)rx;
	x->len = (uint32_t)n;
	x->speed_hz = hz;
	x->bits_per_word = 8;
	x->cs_change = keep_cs ? 1 : 0;
}

/* One transfer of n bytes, full duplex. */
static int xfer(struct tis *t, const uint8_t *tx, uint8_t *rx, size_t n,
		int keep_cs)
{
	if (t->sock) {
		uint8_t out[3 + 4 + TIS_SPI_FRAME];
		int rc;

		out[0] = keep_cs ? 1 : 0;
		out[1] = (uint8_t)(n >> 8);
		out[2] = (uint8_t)n;
		memcpy(out + 3, tx, n);
		rc = tis_sock_io(t, out, 3 + n, rx, n);
		explicit_bzero(out, sizeof(out));
		return rc;
	} else {
		struct tis_spi_ioc x;

		tis_spi_xfer(&x, tx, rx, n, keep_cs, t->hz);
		if (ioctl(t->fd, TIS_SPI_IOC_MESSAGE1, &x) < 0)
			return err_set(t->e, EX_IO, "SPI transfer on %s: %s",
				       t->desc, strerror(errno));
		return 0;
	}
}

static int frame(struct tis *t, int rd, uint16_t reg, uint8_t *p, size_t n)
{
	uint8_t h[4], rx[TIS_SPI_FRAME], zero[TIS_SPI_FRAME] = { 0 };
	long start = tis_now_us();
	int rc;

	if (n == 0 || n > TIS_SPI_FRAME)
		return err_set(t->e, EX_FAIL, "an SPI frame carries 1 to %d "
			       "bytes, not %zu", TIS_SPI_FRAME, n);
	tis_spi_header(h, rd, t->loc, reg, n);
	if ((rc = xfer(t, h, rx, 4, 1)))
		return rc;
	/* Flow control: bit 0 of the byte clocked with the header's last
	 * byte is 0 while the TPM inserts wait states; poll a byte at a
	 * time, the chip select held, until it is 1. */
	while (!(rx[3] & 1)) {
		if (tis_now_us() - start > TIS_TIMEOUT_A * 1000L) {
			xfer(t, zero, rx, 1, 0);	/* release CS */
			t->timed_out = 1;
			return err_set(t->e, EX_IO, "the TPM on %s held the "
				       "SPI bus in wait states for %d ms",
				       t->desc, TIS_TIMEOUT_A);
		}
		if ((rc = xfer(t, zero, rx + 3, 1, 1)))
			return rc;
	}
	rc = rd ? xfer(t, zero, p, n, 0) : xfer(t, p, rx, n, 0);
	explicit_bzero(rx, sizeof(rx));
	return rc;
}

static int spi_read(struct tis *t, uint16_t reg, uint8_t *p, size_t n)
{
	return frame(t, 1, reg, p, n);
}

static int spi_write(struct tis *t, uint16_t reg, const uint8_t *p,
		     size_t n)
{
	/* The data phase only sends p; xfer does not write through it. */
	return frame(t, 0, reg, (uint8_t *)(uintptr_t)p, n);
}

static const struct tis_bus spi_bus = { spi_read, spi_write, NULL };

int tis_spi_open(struct tis *t, const char *opts)
{
	char path[256], dev[256];
	uint8_t mode = 0;	/* SPI_MODE_0 */
	unsigned long v;
	int r;

	t->bus = &spi_bus;
	t->max = TIS_SPI_FRAME;
	t->hz = SPI_HZ;
	if ((r = tis_optnum(t, opts, "hz", 1000, 100000000, &v)) > 1)
		return r;
	if (r == 1)
		t->hz = (uint32_t)v;
	if ((r = tis_optnum(t, opts, "locality", 0, 4, &v)) > 1)
		return r;
	if (r == 1)
		t->loc = (unsigned)v;
	r = xport_opt(opts, "sock", path, sizeof(path));
	if (r > 0) {
		snprintf(t->desc, sizeof(t->desc), "spi socket %s", path);
		return tis_sock_open(t, path);
	}
	if (!tis_optpath(opts, dev, sizeof(dev)))
		return err_set(t->e, EX_USAGE, "spi: needs a device "
			       "(spi:/dev/spidevB.C) or sock=PATH, not '%s'",
			       opts);
	snprintf(t->desc, sizeof(t->desc), "%s", dev);
	if ((r = tis_dev_open(t, dev)))
		return r;
	/* The TPM speaks SPI mode 0 (clock idle low, sample on rising). */
	if (ioctl(t->fd, TIS_SPI_IOC_WR_MODE, &mode) < 0)
		return err_set(t->e, EX_IO, "%s is not an SPI device (%s)",
			       dev, strerror(errno));
	return 0;
}
