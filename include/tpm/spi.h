/* TPM FIFO registers over SPI (PTP "SPI Hardware Protocol"): the 4-byte
 * header, 64-byte frames, wait states polled with the chip select held.
 * Through spidev's SPI_IOC_MESSAGE or the test socket's framing. */
#ifndef TPMBOX_TPM_SPI_H
#define TPMBOX_TPM_SPI_H

#include "tpm/tis.h"

struct spi_ioc_transfer;

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
void tis_spi_xfer(struct spi_ioc_transfer *x, const uint8_t *tx,
		  uint8_t *rx, size_t n, int keep_cs, uint32_t hz);

#endif
