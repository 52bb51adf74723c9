/* TPM FIFO registers over I2C (PTP "I2C Interface"): the TCG's own
 * register map at address 0x2e, TPM_LOC_SEL for the locality, guard
 * times, retries on NACK, 32 bytes at most a message.  Through I2C_RDWR
 * or the test socket's framing. */
#ifndef TPMBOX_TPM_I2C_H
#define TPMBOX_TPM_I2C_H

#include "tpm/tis.h"

/* i2c-dev's ABI (linux/i2c.h, linux/i2c-dev.h: struct i2c_msg, struct
 * i2c_rdwr_ioctl_data, I2C_RDWR), written here because a musl toolchain
 * has no kernel headers; tests/unit/test_tisbus.c checks it against the
 * kernel's headers. */
struct tis_i2c_msg {
	uint16_t addr;
	uint16_t flags;		/* TIS_I2C_M_RD: a read */
	uint16_t len;
	uint8_t *buf;
};
struct tis_i2c_rdwr {
	struct tis_i2c_msg *msgs;
	uint32_t nmsgs;
};
#define TIS_I2C_M_RD	0x0001
#define TIS_I2C_RDWR	0x0707

/* Open i2c:/dev/i2c-N[,addr=0x2e][,locality=L] or i2c:sock=PATH[,...]
 * (opts: what follows "i2c:"); fills t's bus fields. */
int tis_i2c_open(struct tis *t, const char *opts);
/* The messages of one register access: a write is one message (register
 * byte, then data: buf holds 1 + n bytes, buf[0] set here); a read is two
 * (the register byte from regbuf; then n bytes read into buf).  Returns
 * the count. */
int tis_i2c_msgs(struct tis_i2c_msg *m, unsigned addr, int rd, uint8_t reg,
		 uint8_t *regbuf, uint8_t *buf, size_t n);

#endif
