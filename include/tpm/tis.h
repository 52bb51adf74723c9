/* The TPM's FIFO interface (TCG PC Client Platform TPM Profile, "FIFO
 * Interface"), spoken from user space over a bus with no kernel driver:
 * localities, commandReady, burstCount, Expect, tpmGo, dataAvail.  The
 * engine (lib/tpm/tis.c) is bus-neutral; the SPI and I2C layers
 * (lib/tpm/spi.c, lib/tpm/i2c.c) move register bytes, through the Linux
 * ioctls or, for tests, a unix socket (tests/helpers/tissim.py). */
#ifndef TPMBOX_TPM_TIS_H
#define TPMBOX_TPM_TIS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Registers, as offsets within a locality's 4 KiB page (PTP FIFO
 * register space; the I2C layer maps them to its own register map). */
#define TIS_ACCESS	0x000	/* 1 byte */
#define TIS_INTF_CAP	0x014	/* 4 bytes */
#define TIS_STS		0x018	/* 4 bytes: bits 8-23 are burstCount */
#define TIS_FIFO	0x024
#define TIS_DID_VID	0xf00	/* 4 bytes: vendor id in the low 16 bits */
#define TIS_RID		0xf04	/* 1 byte */

/* TPM_ACCESS */
#define TIS_ACC_VALID	0x80	/* tpmRegValidSts */
#define TIS_ACC_ACTIVE	0x20	/* activeLocality (write 1: relinquish) */
#define TIS_ACC_REQUEST	0x02	/* requestUse */
/* TPM_STS */
#define TIS_STS_VALID	0x80	/* stsValid */
#define TIS_STS_READY	0x40	/* commandReady */
#define TIS_STS_GO	0x20	/* tpmGo */
#define TIS_STS_AVAIL	0x10	/* dataAvail */
#define TIS_STS_EXPECT	0x08	/* Expect */
/* bits that read as 0 on a working TPM (tpmGo, responseRetry, reserved) */
#define TIS_STS_ZERO	0x23

/* Timeouts of the PTP, in ms; B is 4 s, not 2: recent Infineon firmware
 * takes more than 2 s to become ready after some commands. */
#define TIS_TIMEOUT_A	750
#define TIS_TIMEOUT_B	4000
#define TIS_TIMEOUT_C	200
#define TIS_TIMEOUT_D	30	/* burstCount; waited up to A (tis.c) */

#define TIS_SPI_FRAME	64	/* bytes of data in one SPI frame */
#define TIS_I2C_MAX	32	/* bytes in one I2C read or write */
#define TIS_I2C_ADDR	0x2e	/* the TCG's default 7-bit address */

enum tis_busk { TIS_SPI, TIS_I2C };

struct tis;

/* A bus moves n bytes from or to register reg of the locality in
 * t->loc.  n is at most t->max.  Returns 0 or an exit code, t->e set. */
struct tis_bus {
	int (*read)(struct tis *t, uint16_t reg, uint8_t *p, size_t n);
	int (*write)(struct tis *t, uint16_t reg, const uint8_t *p,
		     size_t n);
	void (*sleep_us)(long us);	/* NULL: tis_sleep_us (a fuzzer's
					 * bus does not sleep) */
};

struct tis {
	const struct tis_bus *bus;
	enum tis_busk kind;
	int fd;			/* the device, or the test socket */
	int sock;		/* 1: fd is the test socket (its framing) */
	unsigned loc;		/* the locality used */
	size_t max;		/* bytes per bus transfer */
	struct tberr *e;
	char desc[300];		/* "/dev/spidev0.1", "spi socket PATH" */
	long deadline;		/* ms: the end of the current command's time */
	int timed_out;		/* the last error was a timeout */
	int timeout_s;		/* the command's time, for messages */
	int held;		/* the locality is ours (release at close) */
	/* SPI */
	uint32_t hz;
	/* I2C */
	unsigned addr;		/* 7-bit */
	int sel;		/* the locality TPM_LOC_SEL holds, -1: unknown */
	unsigned guard_us;	/* GUARD_TIME */
	unsigned guard_need;	/* TIS_GT_* pairs that need it */
	int last_rd;		/* -1 none, 0 write, 1 read */
	long last_us;		/* when the last message ended */
};

/* I2C guard time pairs (TPM_I2C_INTERFACE_CAPABILITY bits) */
#define TIS_GT_WW	(1u << 17)
#define TIS_GT_WR	(1u << 18)
#define TIS_GT_RW	(1u << 19)
#define TIS_GT_RR	(1u << 20)

/* Open "spi:..." or "i2c:..." (opts is what follows the colon): the bus,
 * then the TPM behind it (its DID_VID, the locality).  Returns 0 or an
 * exit code with e set (EX_USAGE for a bad option, EX_IO otherwise). */
int tis_open(struct tis *t, enum tis_busk kind, const char *opts,
	     struct tberr *e);
/* What tis_open does once the bus is open: DID_VID (a floating bus is
 * "no TPM answers on this bus"), then the locality. */
int tis_start(struct tis *t);
/* One command, one response, before the deadline (ms, monotonic) for the
 * TPM's work; the bus's own waits have the PTP's timeouts. */
int tis_transmit(struct tis *t, const uint8_t *cmd, size_t clen,
		 uint8_t *rsp, size_t cap, size_t *rlen, long deadline,
		 struct tberr *e);
/* Give the locality back and close the bus. */
void tis_close(struct tis *t);

/* Option key of a bus's comma list as a number (C syntax: 0x2e, 1000000)
 * within lo..hi: 0 absent (*v untouched), 1 found, or EX_USAGE. */
int tis_optnum(struct tis *t, const char *opts, const char *key,
	       unsigned long lo, unsigned long hi, unsigned long *v);
/* The device path: the list's first item when it has no '='; NULL if
 * none.  Copied into out (n bytes). */
const char *tis_optpath(const char *opts, char *out, size_t n);
/* Open the bus's device and hold an exclusive lock on it (flock) while
 * the process runs: two processes talking to one TPM over the bus would
 * mix their commands.  Another holder is waited for up to t->timeout_s
 * seconds.  0, or EX_IO. */
int tis_dev_open(struct tis *t, const char *dev);
/* The test socket: connect to opts' sock=PATH (0, or EX_IO); then one
 * exchange: send out (n bytes), receive m bytes into in, each within a
 * few seconds. */
int tis_sock_open(struct tis *t, const char *path);
int tis_sock_io(struct tis *t, const uint8_t *out, size_t n, uint8_t *in,
		size_t m);

/* Monotonic clock in microseconds, and a sleep. */
long tis_now_us(void);
void tis_sleep_us(long us);

#endif
