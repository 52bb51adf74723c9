#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tpm/transport.h"

#define TPM_HEADER 10
#define XPORT_GRACE_MS 1000	/* cleanup after a timeout, in all */

/* The default device when nothing names one: /dev/tpmrm0 when it exists,
 * else /dev/tpm0. */
static const char *default_device(void)
{
	return access("/dev/tpmrm0", F_OK) == 0 ? "/dev/tpmrm0" : "/dev/tpm0";
}

const char *xport_choose(const char *conf)
{
	const char *v;

	if (conf && *conf)
		return conf;
	v = getenv("TPMBOX_TCTI");
	if (v && *v)
		return v;
	v = getenv("TPM2TOOLS_TCTI");
	if (v && *v)
		return v;
	return default_device();
}

int xport_opt(const char *list, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			if (len - kl - 1 >= n)
				return -1;
			memcpy(out, p + kl + 1, len - kl - 1);
			out[len - kl - 1] = '\0';
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int open_device(struct xport *x, const char *path, struct tberr *e)
{
	snprintf(x->desc, sizeof(x->desc), "%s", path);
	x->kind = XPORT_DEVICE;
	x->fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (x->fd >= 0) {
		struct stat st;

		/* A regular file would get the command appended to it. */
		if (fstat(x->fd, &st) == 0 && !S_ISCHR(st.st_mode)) {
			close(x->fd);
			x->fd = -1;
			err_set(e, EX_IO, "%s is not a TPM: not a character "
				"device", path);
			err_hint(e, "choose a TPM with -T device:PATH, "
				 "-T swtpm:path=SOCKET or TPMBOX_TCTI");
			return EX_IO;
		}
		return 0;
	}
	if (errno == EBUSY) {
		err_set(e, EX_IO, "cannot open %s: it is busy (held by "
			"another process)", path);
		if (strstr(path, "tpmrm") == NULL)
			err_hint(e, "use /dev/tpmrm0, the kernel's resource "
				 "manager, which many processes can share");
		return EX_IO;
	}
	if (errno == ENOENT) {
		/* The default choice tried both: say so, not only the last. */
		if (strcmp(path, "/dev/tpm0") == 0 &&
		    access("/dev/tpmrm0", F_OK) != 0)
			err_set(e, EX_IO, "no TPM found: neither /dev/tpmrm0 "
				"nor /dev/tpm0 exists");
		else
			err_set(e, EX_IO, "no TPM found: %s does not exist",
				path);
		err_hint(e, "choose a TPM with -T device:PATH, "
			 "-T swtpm:path=SOCKET or TPMBOX_TCTI");
		return EX_IO;
	}
	return err_set(e, EX_IO, "cannot open %s: %s", path, strerror(errno));
}

static int open_unix(struct xport *x, const char *path, struct tberr *e)
{
	struct sockaddr_un sa;

	x->kind = XPORT_UNIX;
	snprintf(x->desc, sizeof(x->desc), "swtpm socket %s", path);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return err_set(e, EX_USAGE, "socket path too long: %s", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	x->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return err_set(e, EX_IO, "socket: %s", strerror(errno));
	if (connect(x->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int er = errno;

		close(x->fd);
		x->fd = -1;
		return err_set(e, EX_IO, "cannot connect to %s: %s", x->desc,
			       strerror(er));
	}
	return 0;
}

static int open_tcp(struct xport *x, const char *host, const char *port,
		    struct tberr *e)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char *end;
	long p = strtol(port, &end, 10);
	int one = 1;

	x->kind = XPORT_TCP;
	snprintf(x->desc, sizeof(x->desc), "swtpm tcp %s:%s", host, port);
	if (*port == '\0' || *end || p <= 0 || p > 65535)
		return err_set(e, EX_USAGE, "bad TCP port '%s'", port);
	memset(&ss, 0, sizeof(ss));
	/* No NSS in a static binary: numeric addresses and "localhost". */
	if (strcmp(host, "localhost") == 0)
		host = "127.0.0.1";
	if (inet_pton(AF_INET, host,
		      &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)p);
		sl = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host,
			     &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		sl = sizeof(*s6);
	} else {
		return err_set(e, EX_USAGE, "host '%s' is not a numeric "
			       "address (names are not resolved; use an "
			       "address or localhost)", host);
	}
	x->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (x->fd < 0)
		return err_set(e, EX_IO, "socket: %s", strerror(errno));
	if (connect(x->fd, (struct sockaddr *)&ss, sl) < 0) {
		int er = errno;

		close(x->fd);
		x->fd = -1;
		return err_set(e, EX_IO, "cannot connect to %s: %s", x->desc,
			       strerror(er));
	}
	setsockopt(x->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* A TPM on SPI or I2C with no kernel driver: the FIFO registers. */
static int open_tis(struct xport *x, const char *conf, struct tberr *e)
{
#ifdef TPMBOX_NO_TIS
	(void)x;
	return err_set(e, EX_USAGE, "this build has no SPI or I2C transport "
		       "('%.4s'): it was left out (TPMBOX_NO_TIS)", conf);
#else
	int rc;

	x->kind = XPORT_TIS;
	x->tis.timeout_s = x->timeout_ms / 1000;
	rc = tis_open(&x->tis, conf[0] == 's' ? TIS_SPI : TIS_I2C, conf + 4,
		      e);
	snprintf(x->desc, sizeof(x->desc), "%s", x->tis.desc);
	return rc;
#endif
}

int xport_open(struct xport *x, const char *conf, int timeout_s,
	       struct tberr *e)
{
	char host[128], port[16], path[256];
	const char *opts;

	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->timeout_ms = timeout_s > 0 ? timeout_s * 1000 : 120000;
	conf = xport_choose(conf);

	if (strncmp(conf, "device:", 7) == 0) {
		const char *p = conf + 7;

		/* "device:" alone is the default device, never the
		 * environment's choice (which may be a socket). */
		if (!*p)
			p = default_device();
		return open_device(x, p, e);
	}
	if (strcmp(conf, "device") == 0)
		return open_device(x, "/dev/tpmrm0", e);
	if (conf[0] == '/' || conf[0] == '.')
		return open_device(x, conf, e);
	if (strncmp(conf, "swtpm", 5) == 0 &&
	    (conf[5] == ':' || conf[5] == '\0')) {
		opts = conf[5] ? conf + 6 : "";
		if (xport_opt(opts, "path", path, sizeof(path)) > 0)
			return open_unix(x, path, e);
		if (xport_opt(opts, "host", host, sizeof(host)) <= 0)
			strcpy(host, "127.0.0.1");
		if (xport_opt(opts, "port", port, sizeof(port)) <= 0)
			strcpy(port, "2321");
		return open_tcp(x, host, port, e);
	}
	if (strncmp(conf, "spi:", 4) == 0 || strncmp(conf, "i2c:", 4) == 0)
		return open_tis(x, conf, e);
	return err_set(e, EX_USAGE, "unknown TPM '%s' (use device:PATH, "
		       "swtpm:path=SOCKET, swtpm:host=ADDR,port=N, spi:DEV or "
		       "i2c:DEV)", conf);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(struct xport *x, short events, long deadline,
		   struct tberr *e)
{
	for (;;) {
		struct pollfd pf = { .fd = x->fd, .events = events };
		long left = deadline - now_ms();
		int r;

		if (left <= 0) {
			/* What follows a timeout is cleanup (flushes): it
			 * gets one second in all, not a timeout each. */
			if (!x->grace_until) {
				x->grace_until = now_ms() + XPORT_GRACE_MS;
				return err_set(e, EX_IO, "%s did not answer "
					       "within %d s", x->desc,
					       x->timeout_ms / 1000);
			}
			return err_set(e, EX_IO, "%s did not answer after "
				       "an earlier timeout", x->desc);
		}
		r = poll(&pf, 1, (int)(left > 60000 ? 60000 : left));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return err_set(e, EX_IO, "poll on %s: %s", x->desc,
				       strerror(errno));
		if (r > 0)
			return 0;
	}
}

static ssize_t xwrite(struct xport *x, const uint8_t *p, size_t n)
{
	if (x->kind == XPORT_DEVICE)
		return write(x->fd, p, n);
	return send(x->fd, p, n, MSG_NOSIGNAL);
}

int xport_transmit(struct xport *x, const uint8_t *cmd, size_t clen,
		   uint8_t *rsp, size_t cap, size_t *rlen, struct tberr *e)
{
	long deadline = now_ms() + x->timeout_ms;
	size_t off = 0, want = TPM_HEADER;
	int rc;

	if (x->grace_until && deadline > x->grace_until)
		deadline = x->grace_until;

	*rlen = 0;
#ifndef TPMBOX_NO_TIS
	if (x->kind == XPORT_TIS) {
		rc = tis_transmit(&x->tis, cmd, clen, rsp, cap, rlen,
				  deadline, e);
		/* What follows a timeout is cleanup: one second in all. */
		if (rc && x->tis.timed_out && !x->grace_until)
			x->grace_until = now_ms() + XPORT_GRACE_MS;
		return rc;
	}
#endif
	/* Bytes waiting before a command is sent answer no command (a
	 * response sent twice, or a late one): taking them as the next
	 * answer would pair this command with another's response. */
	if (x->kind != XPORT_DEVICE) {
		struct pollfd pf = { .fd = x->fd, .events = POLLIN };
		uint8_t junk[16];

		if (poll(&pf, 1, 0) > 0 && (pf.revents & POLLIN) &&
		    recv(x->fd, junk, sizeof(junk),
			 MSG_PEEK | MSG_DONTWAIT) > 0)
			return err_set(e, EX_IO, "%s sent bytes that answer "
				       "no command (a repeated or late "
				       "response)", x->desc);
	}
	while (off < clen) {
		ssize_t w;

		if ((rc = wait_fd(x, POLLOUT, deadline, e)))
			return rc;
		w = xwrite(x, cmd + off, clen - off);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0)
			return err_set(e, EX_IO, "writing to %s: %s", x->desc,
				       w < 0 ? strerror(errno) : "short write");
		off += (size_t)w;
	}
	/* A device answers in one read; a pty or socket may give pieces.
	 * Read the header first, then exactly the size it announces. */
	off = 0;
	while (off < want) {
		ssize_t r;

		if ((rc = wait_fd(x, POLLIN, deadline, e)))
			return rc;
		r = read(x->fd, rsp + off, cap - off);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return err_set(e, EX_IO, "reading from %s: %s",
				       x->desc, strerror(errno));
		if (r == 0)
			return err_set(e, EX_IO, "%s closed the connection "
				       "after %zu of %zu response bytes",
				       x->desc, off, want);
		off += (size_t)r;
		if (want == TPM_HEADER && off >= 6) {
			/* The header's size, before trusting any of it. */
			uint32_t sz = ((uint32_t)rsp[2] << 24) |
				      ((uint32_t)rsp[3] << 16) |
				      ((uint32_t)rsp[4] << 8) | rsp[5];

			if (sz < TPM_HEADER || sz > cap)
				return err_set(e, EX_IO, "%s sent a response "
					       "with an impossible size (%u "
					       "bytes)", x->desc, sz);
			want = sz;
		}
	}
	if (off != want)
		return err_set(e, EX_IO, "%s sent %zu bytes for a response "
			       "whose header says %zu", x->desc, off, want);
	*rlen = off;
	return 0;
}

void xport_close(struct xport *x)
{
#ifndef TPMBOX_NO_TIS
	if (x->kind == XPORT_TIS) {
		tis_close(&x->tis);
		return;
	}
#endif
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
}

int xport_has_rm(const struct xport *x)
{
	const char *base;

	if (x->kind != XPORT_DEVICE)
		return 0;
	base = strrchr(x->desc, '/');
	base = base ? base + 1 : x->desc;
	return strncmp(base, "tpmrm", 5) == 0;
}
