/* Files: atomic output, bounded input. */
#ifndef TPMBOX_BASE_FILE_H
#define TPMBOX_BASE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum {
	OUT_FORCE = 1,		/* replace an existing file */
	OUT_SECRET = 2,		/* mode 0600 (else 0644 less umask) */
	OUT_PUBLIC = 4,		/* mode 0644 whatever the umask: a file every
				 * user must read (the remembered SRK) */
};

/* Write data atomically to path: a temp file in the same directory,
 * write, fsync, rename, fsync the directory.  An existing file is kept
 * unless OUT_FORCE.  "-" writes to stdout.  On failure the old file (or
 * none) remains.  A symbolic link is never followed (with OUT_FORCE the
 * link itself is replaced); a FIFO, device or socket is written in place
 * only when the caller owns it or OUT_FORCE, and a FIFO with no reader is
 * an error, not a wait.  /dev/stdout, /dev/stderr, /dev/fd/N and
 * /proc/self/fd/N are the caller's own descriptors and are written. */
int file_write_atomic(const char *path, const void *data, size_t n,
		      int flags, struct tberr *e);
/* Whether file_write_atomic writes into path as it is (the caller's own
 * descriptor, or an existing FIFO, device or socket: its owner is checked
 * then) rather than creating or replacing a file. */
int file_out_in_place(const char *path);
/* file_write_atomic of n bytes, raw or (hex) as lowercase hex and a
 * newline, the hex text wiped after; data stays the caller's to wipe.
 * Out of memory is exit 2. */
int file_write_bytes(const char *path, const uint8_t *data, size_t n,
		     int hex, int flags, struct tberr *e);
/* file_write_atomic, except that a file already holding exactly data is
 * left alone (0): writing the same output again changes nothing. */
int file_write_same(const char *path, const void *data, size_t n,
		    int flags, struct tberr *e);
/* Read a whole file ("-" = stdin) of at most max bytes into a malloc'd
 * buffer.  Exit 6 when missing, 3 on I/O error or an input silent for
 * longer than the timeout, 2 when too large.  Reads at most max + 1
 * bytes and never allocates more. */
int file_read(const char *path, size_t max, uint8_t **data, size_t *n,
	      struct tberr *e);
/* Bound file_read's wait for a silent input (a FIFO, a pipe on stdin) to
 * this many seconds (--timeout); 0: no bound.  Set once by main.c. */
void file_set_timeout(int seconds);
/* Write all of p to fd (EINTR-safe); -1 on error. */
int write_all(int fd, const void *p, size_t n);

#endif
