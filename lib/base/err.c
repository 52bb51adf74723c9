#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"

void err_put(struct tberr *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	e->hint[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void err_hint(struct tberr *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->hint, sizeof(e->hint), fmt, ap);
	va_end(ap);
}

int err_prefix(struct tberr *e, const char *fmt, ...)
{
	char pre[256], old[sizeof(e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	/* Truncation is acceptable for a message; build it piecewise so the
	 * compiler need not prove it fits. */
	e->msg[0] = '\0';
	strncat(e->msg, pre, sizeof(e->msg) - 1);
	strncat(e->msg, ": ", sizeof(e->msg) - 1 - strlen(e->msg));
	strncat(e->msg, old, sizeof(e->msg) - 1 - strlen(e->msg));
	return e->code;
}

void err_clear(struct tberr *e)
{
	e->code = 0;
	e->rc = 0;
	e->msg[0] = '\0';
	e->hint[0] = '\0';
}
