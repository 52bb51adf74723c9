/* proxy: what the test proxies between tpmbox and swtpm share
 * (faultproxy.c, interposer.c): unix sockets, TPM message framing, a
 * round trip to swtpm and the tiny resource manager behind -F. */
#ifndef PROXY_H
#define PROXY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define MAXMSG 16384
#define HDR 10

/* Set by SIGTERM (proxy_signals): the proxies end between connections. */
extern volatile sig_atomic_t stop;

uint32_t get32(const uint8_t *p);
void put32(uint8_t *p, uint32_t v);
void proxy_signals(void);
int write_all(int fd, const uint8_t *p, size_t n);
int read_msg(int fd, uint8_t *buf, size_t *len, int timeout_ms);
int connect_unix(const char *path);
int listen_unix(const char *path);
int roundtrip(int tfd, const uint8_t *cmd, size_t clen, uint8_t *rsp,
	      size_t *rlen);
void flush_leftovers(int tfd);

#endif
