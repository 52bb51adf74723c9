/* TPM FIFO registers over SPI (PTP "SPI Hardware Protocol"): the 4-byte
 * header, 64-byte frames, wait states polled with the chip select held.
 * Through spidev's SPI_IOC_MESSAGE or the test socket's framing. */
#ifndef TPMBOX_TPM_SPI_H
#define TPMBOX_TPM_SPI_H

#include <sys/ioctl.h>

#include "tpm/tis.h"

/* spidev's ABI (linux/spi/spidev.h: struct spi_ioc_transfer, 32 bytes),
 * written here because a musl toolchain has no kernel headers;
 * tests/unit/test_tisbus.c checks it against the kernel's header. */
struct tis_spi_ioc {
	uint64_t tx_buf;
	uint64_t rx_buf;
	uint32_t len;
	uint32_t speed_hz;
	uint16_t delay_usecs;
	uint8_t bits_per_word;
	uint8_t cs_change;
	uint8_t tx_nbits;
	uint8_t rx_nbits;
	uint8_t word_delay_usecs;
	uint8_t pad;
};
/* SPI_IOC_MESSAGE(1) and SPI_IOC_WR_MODE: _IOW('k', 0, one transfer),
 * _IOW('k', 1, a byte) */
#define TIS_SPI_IOC_MESSAGE1	_IOW('k', 0, struct tis_spi_ioc)
#define TIS_SPI_IOC_WR_MODE	_IOW('k', 1, uint8_t)

/* Open spi:/dev/spidevB.C[,hz=N][,locality=L] or spi:sock=PATH[,...]
 * (opts: what follows "spi:"); fills t's bus fields. */
int tis_spi_open(struct tis *t, const char *opts);
/* The 4-byte header for n (1..64) bytes at register reg of locality
 * loc: bit 7 of byte 0 is "read", bits 0-5 are n - 1; bytes 1-3 the
 * address 0xd40000 + loc * 0x1000 + reg. */
void tis_spi_header(uint8_t h[4], int rd, unsigned loc, uint16_t reg,
		    size_t n);
/* One spidev transfer: keep_cs leaves the chip select asserted after it
 * (cs_change on a message's last transfer). */
void tis_spi_xfer(struct tis_spi_ioc *x, const uint8_t *tx,
		  uint8_t *rx, size_t n, int keep_cs, uint32_t hz);

#endif
