/* Error value that lib/ fills and applets report.  lib/ never prints or
 * exits: it returns one of the exit codes below with a one-line message
 * ("what failed: why") and an optional hint. */
#ifndef TPMBOX_BASE_ERR_H
#define TPMBOX_BASE_ERR_H

#include <stdint.h>

enum {
	EX_OK = 0,
	EX_FAIL = 1,		/* TPM error, verification failed */
	EX_USAGE = 2,
	EX_IO = 3,		/* no TPM / transport / file I/O */
	EX_AUTH = 4,		/* wrong auth, PCR or policy mismatch */
	EX_LOCKOUT = 5,
	EX_NOENT = 6,		/* no such object */
	EX_REBOOT = 7,		/* done; takes effect after a TPM reset */
	EX_NOAPPLET = 127,
};

struct tberr {
	int code;
	uint32_t rc;		/* TPM response code when the error came from one */
	char msg[512];
	char hint[256];
};

/* Set code and message (printf-style); returns code.  A macro so that
 * every caller (and the static analyzer) sees the value returned is the
 * code given, never 0 for an error code. */
void err_put(struct tberr *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define err_set(e, code, ...) __extension__ ({			\
	int err_code_ = (code);						\
	err_put((e), err_code_, __VA_ARGS__);				\
	err_code_;							\
})
/* Set the hint line shown after the message. */
void err_hint(struct tberr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Prefix the message with "what: " (keeps code and hint). */
int err_prefix(struct tberr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void err_clear(struct tberr *e);

#endif
