/* proxy: the socket, framing and swtpm helpers faultproxy.c and
 * interposer.c share (proxy.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proxy.h"

volatile sig_atomic_t stop;

uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* A client that goes away mid-answer must not kill the proxy; SIGTERM
 * ends it between connections, after the current one's log or stats
 * line is written. */
void proxy_signals(void)
{
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;	/* no SA_RESTART: wakes accept */
	sigaction(SIGTERM, &sa, NULL);
}

int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read one TPM message (header size) from fd.  0 ok, -1 EOF/error. */
int read_msg(int fd, uint8_t *buf, size_t *len, int timeout_ms)
{
	size_t off = 0, want = HDR;

	while (off < want) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int pr = poll(&pf, 1, timeout_ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return -1;
		r = read(fd, buf + off, want - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
		if (want == HDR && off == HDR) {
			uint32_t sz = get32(buf + 2);

			if (sz < HDR || sz > MAXMSG)
				return -1;
			want = sz;
		}
	}
	*len = off;
	return 0;
}

/* A stream socket and an empty unix address for it. */
static int unix_socket(struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

int connect_unix(const char *path)
{
	struct sockaddr_un sa;
	int fd = unix_socket(&sa);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int listen_unix(const char *path)
{
	struct sockaddr_un sa;
	int fd = unix_socket(&sa);

	if (fd < 0)
		return -1;
	/* Bound under a temporary name and renamed once listening: a
	 * client that sees the path never gets ECONNREFUSED. */
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.new", path) >=
	    (int)sizeof(sa.sun_path)) {
		close(fd);
		return -1;
	}
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 16) < 0 || rename(sa.sun_path, path) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One command to swtpm, its response back.  0 ok. */
int roundtrip(int tfd, const uint8_t *cmd, size_t clen, uint8_t *rsp,
	      size_t *rlen)
{
	if (write_all(tfd, cmd, clen))
		return -1;
	return read_msg(tfd, rsp, rlen, 30000);
}

/* Flush what the client left loaded: transient objects, sessions. */
void flush_leftovers(int tfd)
{
	static const uint32_t firsts[] = { 0x80000000u, 0x02000000u,
					   0x03000000u };
	size_t i;

	for (i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		uint8_t cmd[22], rsp[MAXMSG];
		size_t rlen, j, n;

		cmd[0] = 0x80; cmd[1] = 0x01;
		put32(cmd + 2, sizeof(cmd));
		put32(cmd + 6, 0x17a);		/* GetCapability */
		put32(cmd + 10, 1);		/* TPM_CAP_HANDLES */
		put32(cmd + 14, firsts[i]);
		put32(cmd + 18, 64);
		if (roundtrip(tfd, cmd, sizeof(cmd), rsp, &rlen) ||
		    rlen < 19 || get32(rsp + 6) != 0)
			continue;
		n = get32(rsp + 15);
		for (j = 0; j < n && 19 + 4 * j + 4 <= rlen; j++) {
			uint32_t h = get32(rsp + 19 + 4 * j);
			uint8_t f[14], fr[64];
			size_t frl;

			/* The loaded-session list holds HMAC (0x02) and
			 * policy (0x03) handles alike. */
			if ((h >> 24) != 0x02 && (h >> 24) != 0x03 &&
			    (h >> 24) != 0x80)
				break;
			f[0] = 0x80; f[1] = 0x01;
			put32(f + 2, sizeof(f));
			put32(f + 6, 0x165);	/* FlushContext */
			put32(f + 10, h);
			if (roundtrip(tfd, f, sizeof(f), fr, &frl))
				return;
		}
	}
}
