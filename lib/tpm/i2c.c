/* The FIFO registers over I2C (PTP, "I2C Interface"): the TCG's own
 * register map, the locality chosen in TPM_LOC_SEL, a register read as a
 * write of its address then a read, at most 32 bytes a message, a guard
 * time between messages where TPM_I2C_INTERFACE_CAPABILITY asks for one,
 * and retries when the TPM does not acknowledge (it NACKs while busy).
 * Messages go to I2C_RDWR or to the test socket (op, address, 2-byte
 * length, data; the answer is a status byte, then any bytes read). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "tpm/i2c.h"
#include "tpm/transport.h"

/* The I2C register map */
#define I2C_LOC_SEL	0x00
#define I2C_ACCESS	0x04
#define I2C_STS		0x18
#define I2C_FIFO	0x24
#define I2C_CAP		0x30	/* TPM_I2C_INTERFACE_CAPABILITY */
#define I2C_DID_VID	0x48
#define I2C_RID		0x4c

#define I2C_CAP_ZERO	0x80000000u	/* reads as zero */
#define I2C_GT_SHIFT	9		/* GUARD_TIME, bits 9-16, in us */
#define I2C_GT_MASK	0xffu
#define I2C_GUARD_US	250	/* before the capability is read; after a NACK */
#define I2C_TRIES	4	/* a message, and 3 retries after a NACK */

int tis_i2c_msgs(struct tis_i2c_msg *m, unsigned addr, int rd, uint8_t reg,
		 uint8_t *regbuf, uint8_t *buf, size_t n)
{
	memset(m, 0, 2 * sizeof(*m));
	if (!rd) {
		buf[0] = reg;
		m[0].addr = (uint16_t)addr;
		m[0].len = (uint16_t)(1 + n);
		m[0].buf = buf;
		return 1;
	}
	regbuf[0] = reg;
	m[0].addr = (uint16_t)addr;
	m[0].len = 1;
	m[0].buf = regbuf;
	m[1].addr = (uint16_t)addr;
	m[1].flags = TIS_I2C_M_RD;
	m[1].len = (uint16_t)n;
	m[1].buf = buf;
	return 2;
}

static int map(uint16_t reg)
{
	switch (reg) {
	case TIS_ACCESS:	return I2C_ACCESS;
	case TIS_STS:		return I2C_STS;
	case TIS_FIFO:		return I2C_FIFO;
	case TIS_DID_VID:	return I2C_DID_VID;
	case TIS_RID:		return I2C_RID;
	default:		return -1;
	}
}

/* Wait out the guard time the last message and this one need. */
static void guard(struct tis *t, int rd)
{
	unsigned pair;
	long left;

	if (t->last_rd < 0)
		return;
	pair = t->last_rd ? (rd ? TIS_GT_RR : TIS_GT_RW)
			  : (rd ? TIS_GT_WR : TIS_GT_WW);
	if (!(t->guard_need & pair))
		return;
	left = t->last_us + (long)t->guard_us - tis_now_us();
	if (left > 0)
		tis_sleep_us(left);
}

/* One message; *nack set when the TPM did not acknowledge it. */
static int msg1(struct tis *t, struct tis_i2c_msg *m, int *nack)
{
	int rd = (m->flags & TIS_I2C_M_RD) != 0;

	*nack = 0;
	if (t->sock) {
		uint8_t out[4 + 1 + TIS_I2C_MAX], st;
		size_t n = m->len;
		int rc;

		out[0] = (uint8_t)rd;
		out[1] = (uint8_t)m->addr;
		out[2] = (uint8_t)(n >> 8);
		out[3] = (uint8_t)n;
		if (!rd)
			memcpy(out + 4, m->buf, n);
		rc = tis_sock_io(t, out, rd ? 4 : 4 + n, &st, 1);
		explicit_bzero(out, sizeof(out));
		if (rc)
			return rc;
		if (st) {
			*nack = 1;
			return 0;
		}
		return rd ? tis_sock_io(t, NULL, 0, m->buf, n) : 0;
	} else {
		struct tis_i2c_rdwr d = { m, 1 };

		if (ioctl(t->fd, TIS_I2C_RDWR, &d) < 0) {
			/* NACKs come back as ENXIO, EREMOTEIO or EIO,
			 * according to the controller's driver. */
			if (errno == ENXIO || errno == EREMOTEIO ||
			    errno == EIO || errno == EAGAIN) {
				*nack = 1;
				return 0;
			}
			return err_set(t->e, EX_IO, "I2C transfer on %s: %s",
				       t->desc, strerror(errno));
		}
		return 0;
	}
}

/* One message with the guard time before it and retries after NACKs. */
static int msg(struct tis *t, struct tis_i2c_msg *m)
{
	int rd = (m->flags & TIS_I2C_M_RD) != 0;
	int i, nack, rc;

	for (i = 0; i < I2C_TRIES; i++) {
		guard(t, rd);
		rc = msg1(t, m, &nack);
		t->last_rd = rd;
		t->last_us = tis_now_us();
		if (rc)
			return rc;
		if (!nack)
			return 0;
		tis_sleep_us(I2C_GUARD_US);
	}
	return err_set(t->e, EX_IO, "no TPM answers on this bus (%s: address "
		       "0x%02x did not acknowledge %d tries)", t->desc,
		       t->addr, I2C_TRIES);
}

static int raw_read(struct tis *t, uint8_t reg, uint8_t *p, size_t n)
{
	struct tis_i2c_msg m[2];
	uint8_t r[1];
	int rc;

	tis_i2c_msgs(m, t->addr, 1, reg, r, p, n);
	if ((rc = msg(t, &m[0])))
		return rc;
	return msg(t, &m[1]);
}

static int raw_write(struct tis *t, uint8_t reg, const uint8_t *p, size_t n)
{
	struct tis_i2c_msg m[2];
	uint8_t b[1 + TIS_I2C_MAX];
	int rc;

	memcpy(b + 1, p, n);
	tis_i2c_msgs(m, t->addr, 0, reg, NULL, b, n);
	rc = msg(t, &m[0]);
	explicit_bzero(b, sizeof(b));
	return rc;
}

/* TPM_LOC_SEL names the locality every other register belongs to. */
static int select_loc(struct tis *t)
{
	uint8_t l = (uint8_t)t->loc;
	int rc;

	if (t->sel == (int)t->loc)
		return 0;
	if ((rc = raw_write(t, I2C_LOC_SEL, &l, 1)))
		return rc;
	t->sel = (int)t->loc;
	return 0;
}

static int i2c_read(struct tis *t, uint16_t reg, uint8_t *p, size_t n)
{
	int r = map(reg), rc;

	if (r < 0 || n == 0 || n > TIS_I2C_MAX)
		return err_set(t->e, EX_FAIL, "bad I2C register access (0x%x, "
			       "%zu bytes)", reg, n);
	if ((rc = select_loc(t)))
		return rc;
	return raw_read(t, (uint8_t)r, p, n);
}

static int i2c_write(struct tis *t, uint16_t reg, const uint8_t *p,
		     size_t n)
{
	int r = map(reg), rc;

	if (r < 0 || n == 0 || n >= TIS_I2C_MAX)
		return err_set(t->e, EX_FAIL, "bad I2C register access (0x%x, "
			       "%zu bytes)", reg, n);
	if ((rc = select_loc(t)))
		return rc;
	return raw_write(t, (uint8_t)r, p, n);
}

static const struct tis_bus i2c_bus = { i2c_read, i2c_write, NULL };

/* The guard time and the message pairs that need it. */
static int read_cap(struct tis *t)
{
	uint8_t b[4];
	uint32_t c;
	int rc;

	if ((rc = raw_read(t, I2C_CAP, b, 4)))
		return rc;
	c = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
	if (c & I2C_CAP_ZERO)
		return err_set(t->e, EX_IO, "no TPM answers on this bus (%s "
			       "reads TPM_I2C_INTERFACE_CAPABILITY as "
			       "0x%08x)", t->desc, c);
	t->guard_us = (c >> I2C_GT_SHIFT) & I2C_GT_MASK;
	t->guard_need = c & (TIS_GT_WW | TIS_GT_WR | TIS_GT_RW | TIS_GT_RR);
	return 0;
}

int tis_i2c_open(struct tis *t, const char *opts)
{
	char path[256], dev[256];
	unsigned long v;
	int r;

	t->bus = &i2c_bus;
	/* a message is 32 bytes at most: a write's register byte and 31 */
	t->max = TIS_I2C_MAX - 1;
	t->addr = TIS_I2C_ADDR;
	t->sel = -1;
	t->last_rd = -1;
	/* Until the capability says otherwise: a guard before each. */
	t->guard_us = I2C_GUARD_US;
	t->guard_need = TIS_GT_WW | TIS_GT_WR | TIS_GT_RW | TIS_GT_RR;
	if ((r = tis_optnum(t, opts, "addr", 0x03, 0x77, &v)) > 1)
		return r;
	if (r == 1)
		t->addr = (unsigned)v;
	if ((r = tis_optnum(t, opts, "locality", 0, 4, &v)) > 1)
		return r;
	if (r == 1)
		t->loc = (unsigned)v;
	r = xport_opt(opts, "sock", path, sizeof(path));
	if (r > 0) {
		snprintf(t->desc, sizeof(t->desc), "i2c socket %s", path);
		if ((r = tis_sock_open(t, path)))
			return r;
	} else {
		if (!tis_optpath(opts, dev, sizeof(dev)))
			return err_set(t->e, EX_USAGE, "i2c: needs a device "
				       "(i2c:/dev/i2c-N) or sock=PATH, not "
				       "'%s'", opts);
		snprintf(t->desc, sizeof(t->desc), "%s", dev);
		if ((r = tis_dev_open(t, dev)))
			return r;
	}
	return read_cap(t);
}
