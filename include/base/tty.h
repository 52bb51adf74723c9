/* The controlling terminal (/dev/tty), for what must not go to stdout,
 * stderr or argv: a recovery code shown once, a code typed without echo.
 * Writing to the terminal is this module's job; lib/ still never writes
 * to stdout or stderr. */
#ifndef TPMBOX_BASE_TTY_H
#define TPMBOX_BASE_TTY_H

#include <stddef.h>

#include "base/err.h"

/* 0 when there is a controlling terminal to talk to; exit 2 otherwise
 * (what: says which option needs it). */
int tty_check(const char *what, struct tberr *e);
/* Write text to the terminal.  Exit 3 on failure. */
int tty_show(const char *text, struct tberr *e);
/* Show prompt, read one line with echo off (restored on every path);
 * buf[0..cap) gets it NUL-terminated without the line end, *n its
 * length.  Exit 2 without a terminal, 3 on a read error or end of
 * input, 2 when the line is longer than cap - 1. */
int tty_ask(const char *prompt, char *buf, size_t cap, size_t *n,
	    struct tberr *e);

#endif
