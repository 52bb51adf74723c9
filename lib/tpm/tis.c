/* The FIFO interface's protocol, bus-neutral (TCG PC Client Platform TPM
 * Profile, FIFO interface): the bus layer moves register bytes, this file
 * knows what to read and write, in which order, and how long to wait. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tpm/i2c.h"
#include "tpm/spi.h"
#include "tpm/tis.h"
#include "tpm/transport.h"

#define TIS_HEADER 10

long tis_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void tis_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void nap(struct tis *t, long us)
{
	if (t->bus->sleep_us)
		t->bus->sleep_us(us);
	else
		tis_sleep_us(us);
}

static long now_ms(void)
{
	return tis_now_us() / 1000;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int rd(struct tis *t, uint16_t reg, uint8_t *p, size_t n)
{
	return t->bus->read(t, reg, p, n);
}

static int wr1(struct tis *t, uint16_t reg, uint8_t v)
{
	return t->bus->write(t, reg, &v, 1);
}

static int read_sts(struct tis *t, uint32_t *sts)
{
	uint8_t b[4];
	int rc = rd(t, TIS_STS, b, 4);

	if (rc)
		return rc;
	*sts = le32(b);
	/* A floating bus reads all ones; a working TPM never sets these. */
	if ((*sts & 0xff) == 0xff)
		return err_set(t->e, EX_IO, "no TPM answers on this bus (%s "
			       "reads TPM_STS as 0x%08x)", t->desc, *sts);
	if (*sts & TIS_STS_ZERO)
		return err_set(t->e, EX_IO, "the TPM on %s answered TPM_STS "
			       "0x%08x, with bits set that read as zero: a "
			       "damaged register answer", t->desc, *sts);
	return 0;
}

/* The deadline of a wait: ms from now, never past the command's own. */
static long until(struct tis *t, long ms)
{
	long d = now_ms() + ms;

	return t->deadline && t->deadline < d ? t->deadline : d;
}

/* Poll TPM_STS until (sts & mask) == want, or the deadline passes (one
 * read at least; short sleeps that grow to 8 ms between reads). */
static int wait_sts(struct tis *t, uint32_t mask, uint32_t want,
		    long deadline, uint32_t *sts)
{
	long us = 0;
	int rc;

	for (;;) {
		if ((rc = read_sts(t, sts)))
			return rc;
		if ((*sts & mask) == want)
			return 0;
		if (now_ms() >= deadline)
			return -1;
		if (us)
			nap(t, us);
		us = us ? (us < 8000 ? us * 2 : 8000) : 100;
	}
}

static int timeout(struct tis *t, const char *what, long ms)
{
	t->timed_out = 1;
	return err_set(t->e, EX_IO, "the TPM on %s %s within %ld ms",
		       t->desc, what, ms);
}

/* burstCount, once stsValid is set and it is not 0: from *sts, the last
 * TPM_STS read, when it has one, else read again until it does (*sts
 * updated).  The PTP's bound for this wait is TIMEOUT_D (30 ms); a TPM
 * busy with its FIFO on a slow or shared bus may take longer, so
 * TIMEOUT_A (750 ms) bounds it here. */
static int burst(struct tis *t, uint32_t *sts, size_t *n)
{
	long deadline = until(t, TIS_TIMEOUT_A);
	long us = 100;
	int rc;

	for (;;) {
		*n = (*sts >> 8) & 0xffff;
		if ((*sts & TIS_STS_VALID) && *n)
			break;
		if (now_ms() >= deadline)
			return timeout(t, "reported no room in its FIFO "
				       "(burstCount 0)", TIS_TIMEOUT_A);
		nap(t, us);
		if (us < 8000)
			us *= 2;
		if ((rc = read_sts(t, sts)))
			return rc;
	}
	if (*n > t->max)
		*n = t->max;
	return 0;
}

static int locality_request(struct tis *t)
{
	long deadline = until(t, TIS_TIMEOUT_A);
	uint8_t a;
	int rc;

	if ((rc = rd(t, TIS_ACCESS, &a, 1)))
		return rc;
	if (a == 0xff)
		return err_set(t->e, EX_IO, "no TPM answers on this bus (%s "
			       "reads TPM_ACCESS as 0xff)", t->desc);
	if ((a & (TIS_ACC_VALID | TIS_ACC_ACTIVE)) ==
	    (TIS_ACC_VALID | TIS_ACC_ACTIVE)) {
		t->held = 1;	/* left to us by an earlier run */
		return 0;
	}
	if ((rc = wr1(t, TIS_ACCESS, TIS_ACC_REQUEST)))
		return rc;
	for (;;) {
		if ((rc = rd(t, TIS_ACCESS, &a, 1)))
			return rc;
		if (a != 0xff && (a & (TIS_ACC_VALID | TIS_ACC_ACTIVE)) ==
				 (TIS_ACC_VALID | TIS_ACC_ACTIVE)) {
			t->held = 1;
			return 0;
		}
		if (now_ms() >= deadline)
			break;
		nap(t, 1000);
	}
	return err_set(t->e, EX_IO, "the TPM on %s did not grant locality "
		       "%u within %d ms", t->desc, t->loc, TIS_TIMEOUT_A);
}

int tis_open(struct tis *t, enum tis_busk kind, const char *opts,
	     struct tberr *e)
{
	int rc;

	t->e = e;
	t->fd = -1;
	t->kind = kind;
	rc = kind == TIS_SPI ? tis_spi_open(t, opts) : tis_i2c_open(t, opts);
	if (!rc)
		rc = tis_start(t);
	if (rc)
		tis_close(t);
	return rc;
}

int tis_start(struct tis *t)
{
	uint8_t b[4];
	uint32_t v;
	int rc;

	if ((rc = rd(t, TIS_DID_VID, b, 4)))
		return rc;
	v = le32(b);
	if ((v & 0xffff) == 0xffff || (v & 0xffff) == 0) {
		rc = err_set(t->e, EX_IO, "no TPM answers on this bus (%s "
			     "reads DID_VID 0x%08x)", t->desc, v);
		err_hint(t->e, "check the wiring, the chip select or address, "
			 "and that the TPM is powered and out of reset");
		return rc;
	}
	return locality_request(t);
}

/* Back to idle (commandReady), best effort, after an error. */
static void abort_cmd(struct tis *t)
{
	struct tberr keep = *t->e;

	wr1(t, TIS_STS, TIS_STS_READY);
	*t->e = keep;
}

static int send_cmd(struct tis *t, const uint8_t *cmd, size_t clen)
{
	size_t off = 0, n;
	uint32_t sts;
	int rc;

	if ((rc = read_sts(t, &sts)))
		return rc;
	if (!(sts & TIS_STS_READY)) {
		if ((rc = wr1(t, TIS_STS, TIS_STS_READY)))
			return rc;
		rc = wait_sts(t, TIS_STS_READY, TIS_STS_READY,
			      until(t, TIS_TIMEOUT_B), &sts);
		if (rc < 0)
			return timeout(t, "did not become ready for a "
				       "command", TIS_TIMEOUT_B);
		if (rc)
			return rc;
	}
	/* Each TPM_STS read serves twice: Expect after a chunk, burstCount
	 * for the next. */
	while (off < clen) {
		if ((rc = burst(t, &sts, &n)))
			return rc;
		if (n > clen - off)
			n = clen - off;
		if ((rc = t->bus->write(t, TIS_FIFO, cmd + off, n)))
			return rc;
		off += n;
		/* Expect: 1 until the last byte is in, 0 after it. */
		rc = wait_sts(t, TIS_STS_VALID, TIS_STS_VALID,
			      until(t, TIS_TIMEOUT_C), &sts);
		if (rc < 0)
			return timeout(t, "did not report a valid status",
				       TIS_TIMEOUT_C);
		if (rc)
			return rc;
		if (off < clen && !(sts & TIS_STS_EXPECT))
			return err_set(t->e, EX_IO, "the TPM on %s stopped "
				       "expecting command bytes after %zu of "
				       "%zu", t->desc, off, clen);
		if (off == clen && (sts & TIS_STS_EXPECT))
			return err_set(t->e, EX_IO, "the TPM on %s still "
				       "expects bytes after the whole command "
				       "(%zu bytes)", t->desc, clen);
	}
	return wr1(t, TIS_STS, TIS_STS_GO);
}

/* Read n response bytes into p, burstCount by burstCount; *sts is the
 * last TPM_STS read, and is read again after each chunk but the last. */
static int fifo_read(struct tis *t, uint8_t *p, size_t n, uint32_t *sts,
		     size_t done, size_t total)
{
	size_t got = 0, k;
	int rc;

	while (got < n) {
		if ((*sts & (TIS_STS_VALID | TIS_STS_AVAIL)) !=
		    (TIS_STS_VALID | TIS_STS_AVAIL))
			return err_set(t->e, EX_IO, "the TPM on %s stopped "
				       "sending after %zu of %zu response "
				       "bytes", t->desc, done + got, total);
		if ((rc = burst(t, sts, &k)))
			return rc;
		if (k > n - got)
			k = n - got;
		if ((rc = rd(t, TIS_FIFO, p + got, k)))
			return rc;
		got += k;
		if (got < n && (rc = read_sts(t, sts)))
			return rc;
	}
	return 0;
}

static int recv_rsp(struct tis *t, uint8_t *rsp, size_t cap, size_t *rlen,
		    long deadline)
{
	uint32_t sts, size;
	int rc;

	/* The TPM's work: the command's own time, not a bus timeout. */
	rc = wait_sts(t, TIS_STS_VALID | TIS_STS_AVAIL,
		      TIS_STS_VALID | TIS_STS_AVAIL, deadline, &sts);
	if (rc < 0) {
		t->timed_out = 1;
		return err_set(t->e, EX_IO, "the TPM on %s did not answer "
			       "within %d s", t->desc, t->timeout_s);
	}
	if (rc)
		return rc;
	if ((rc = fifo_read(t, rsp, TIS_HEADER, &sts, 0, TIS_HEADER)))
		return rc;
	size = (uint32_t)rsp[2] << 24 | (uint32_t)rsp[3] << 16 |
	       (uint32_t)rsp[4] << 8 | rsp[5];
	if (size < TIS_HEADER || size > cap)
		return err_set(t->e, EX_IO, "the TPM on %s sent a response "
			       "with an impossible size (%u bytes)", t->desc,
			       size);
	if (size > TIS_HEADER && (rc = read_sts(t, &sts)))
		return rc;
	if ((rc = fifo_read(t, rsp + TIS_HEADER, size - TIS_HEADER, &sts,
			    TIS_HEADER, size)))
		return rc;
	/* All read: dataAvail must be clear ("left-over data"). */
	rc = wait_sts(t, TIS_STS_VALID, TIS_STS_VALID,
		      until(t, TIS_TIMEOUT_C), &sts);
	if (rc < 0)
		return timeout(t, "did not report a valid status",
			       TIS_TIMEOUT_C);
	if (rc)
		return rc;
	if (sts & TIS_STS_AVAIL)
		return err_set(t->e, EX_IO, "the TPM on %s has more response "
			       "bytes than its header announces (%u bytes)",
			       t->desc, size);
	*rlen = size;
	return wr1(t, TIS_STS, TIS_STS_READY);
}

int tis_transmit(struct tis *t, const uint8_t *cmd, size_t clen,
		 uint8_t *rsp, size_t cap, size_t *rlen, long deadline,
		 struct tberr *e)
{
	int rc;

	t->e = e;
	t->timed_out = 0;
	t->deadline = deadline;
	*rlen = 0;
	if (clen < TIS_HEADER)
		return err_set(e, EX_FAIL, "a TPM command is 10 bytes at "
			       "least");
	rc = send_cmd(t, cmd, clen);
	if (!rc)
		rc = recv_rsp(t, rsp, cap, rlen, deadline);
	t->deadline = 0;
	if (rc) {
		*rlen = 0;
		explicit_bzero(rsp, cap);
		abort_cmd(t);
	}
	return rc;
}

void tis_close(struct tis *t)
{
	if (t->fd < 0)
		return;
	if (t->held) {
		struct tberr e;
		struct tberr *keep = t->e;

		t->e = &e;
		wr1(t, TIS_ACCESS, TIS_ACC_ACTIVE);
		t->e = keep;
		t->held = 0;
	}
	close(t->fd);
	t->fd = -1;
}

int tis_optnum(struct tis *t, const char *opts, const char *key,
	       unsigned long lo, unsigned long hi, unsigned long *v)
{
	char s[32], *end;
	unsigned long n;
	int r = xport_opt(opts, key, s, sizeof(s));

	if (r == 0)
		return 0;
	errno = 0;
	n = r > 0 ? strtoul(s, &end, 0) : 0;
	if (r < 0 || !*s || *end || errno || n < lo || n > hi || s[0] == '-')
		return err_set(t->e, EX_USAGE, "bad %s= in '%s' (%lu to %lu, "
			       "or 0x%lx to 0x%lx)", key, opts, lo, hi, lo, hi);
	*v = n;
	return 1;
}

const char *tis_optpath(const char *opts, char *out, size_t n)
{
	size_t len = strcspn(opts, ",");

	if (!len || memchr(opts, '=', len) || len >= n)
		return NULL;
	memcpy(out, opts, len);
	out[len] = '\0';
	return out;
}

int tis_dev_open(struct tis *t, const char *dev)
{
	long deadline = now_ms() + (t->timeout_s > 0 ? t->timeout_s : 120) *
			1000L;

	t->fd = open(dev, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (t->fd < 0)
		return err_set(t->e, EX_IO, "cannot open %s: %s", dev,
			       strerror(errno));
	while (flock(t->fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return err_set(t->e, EX_IO, "cannot lock %s: %s", dev,
				       strerror(errno));
		if (now_ms() >= deadline) {
			err_set(t->e, EX_IO, "another process holds %s and "
				"did not let go within %d s", dev,
				t->timeout_s);
			err_hint(t->e, "a TPM on a bus is for one process at a "
				 "time; the kernel's driver (/dev/tpmrm0) "
				 "shares it");
			return EX_IO;
		}
		tis_sleep_us(20000);
	}
	return 0;
}

int tis_sock_open(struct tis *t, const char *path)
{
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return err_set(t->e, EX_USAGE, "socket path too long: %s",
			       path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	t->sock = 1;
	t->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (t->fd < 0)
		return err_set(t->e, EX_IO, "socket: %s", strerror(errno));
	if (connect(t->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int er = errno;

		close(t->fd);
		t->fd = -1;
		return err_set(t->e, EX_IO, "cannot connect to %s: %s",
			       t->desc, strerror(er));
	}
	return 0;
}

#define TIS_SOCK_MS 5000	/* a bus transfer takes microseconds */

int tis_sock_io(struct tis *t, const uint8_t *out, size_t n, uint8_t *in,
		size_t m)
{
	long deadline = now_ms() + TIS_SOCK_MS;
	size_t off = 0;

	while (off < n) {
		ssize_t w = send(t->fd, out + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_set(t->e, EX_IO, "writing to %s: %s",
				       t->desc, w < 0 ? strerror(errno) :
				       "short write");
		off += (size_t)w;
	}
	off = 0;
	while (off < m) {
		struct pollfd pf = { .fd = t->fd, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&pf, 1, (int)left) == 0)
			return err_set(t->e, EX_IO, "%s did not answer a bus "
				       "transfer within %d s", t->desc,
				       TIS_SOCK_MS / 1000);
		r = read(t->fd, in + off, m - off);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return err_set(t->e, EX_IO, "%s %s", t->desc, r < 0 ?
				       strerror(errno) : "closed the "
				       "connection");
		off += (size_t)r;
	}
	return 0;
}
