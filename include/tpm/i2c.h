/* TPM FIFO registers over I2C (PTP "I2C Interface"): the TCG's own
 * register map at address 0x2e, TPM_LOC_SEL for the locality, guard
 * times, retries on NACK, 32 bytes at most a message.  Through I2C_RDWR
 * or the test socket's framing. */
#ifndef TPMBOX_TPM_I2C_H
#define TPMBOX_TPM_I2C_H

#include "tpm/tis.h"

struct i2c_msg;

/* Open i2c:/dev/i2c-N[,addr=0x2e][,locality=L] or i2c:sock=PATH[,...]
 * (opts: what follows "i2c:"); fills t's bus fields. */
int tis_i2c_open(struct tis *t, const char *opts);
/* The messages of one register access: a write is one message (register
 * byte, then data: buf holds 1 + n bytes, buf[0] set here); a read is two
 * (the register byte from regbuf; then n bytes read into buf).  Returns
 * the count. */
int tis_i2c_msgs(struct i2c_msg *m, unsigned addr, int rd, uint8_t reg,
		 uint8_t *regbuf, uint8_t *buf, size_t n);

#endif
