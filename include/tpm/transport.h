/* Transport to a TPM: a character device (/dev/tpmrm0, /dev/tpm0, or a pty
 * bridge), swtpm's data channel over a unix or TCP socket, or the TPM's
 * FIFO registers over SPI or I2C with no kernel driver (tpm/tis.h).  Raw
 * TPM command bytes in, raw response bytes out; no framing. */
#ifndef TPMBOX_TPM_TRANSPORT_H
#define TPMBOX_TPM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm/tis.h"

enum xport_kind { XPORT_DEVICE, XPORT_UNIX, XPORT_TCP, XPORT_TIS };

struct xport {
	enum xport_kind kind;
	int fd;
	int timeout_ms;
	long grace_until;	/* after a timeout: the end of cleanup, ms */
	char desc[300];		/* for messages: "/dev/tpm0", "swtpm unix:..." */
	struct tis tis;		/* XPORT_TIS: the bus and its state */
};

/* Pick the configuration string: conf if given, else $TPMBOX_TCTI, else
 * $TPM2TOOLS_TCTI, else /dev/tpmrm0 when it exists, else /dev/tpm0. */
const char *xport_choose(const char *conf);
/* Open the TPM described by conf (device:PATH | PATH | swtpm:path=SOCK |
 * swtpm:host=H,port=P | spi:DEV[,hz=N][,locality=L] | spi:sock=PATH |
 * i2c:DEV[,addr=A][,locality=L] | i2c:sock=PATH).  Returns 0 or an exit
 * code with e set. */
int xport_open(struct xport *x, const char *conf, int timeout_s,
	       struct tberr *e);
/* Send one command and read one complete response (until the size in its
 * header).  *rlen gets the bytes read. */
int xport_transmit(struct xport *x, const uint8_t *cmd, size_t clen,
		   uint8_t *rsp, size_t cap, size_t *rlen, struct tberr *e);
void xport_close(struct xport *x);
/* Whether a resource manager stands between tpmbox and the TPM (the
 * kernel's /dev/tpmrm*): it flushes what a process leaves loaded.  On
 * /dev/tpm*, swtpm's sockets and the buses nothing does. */
int xport_has_rm(const struct xport *x);
/* Find key=value in a comma list "a=1,b=2" and copy the value into out:
 * 1 found, 0 absent, -1 too long for out. */
int xport_opt(const char *list, const char *key, char *out, size_t n);

#endif
