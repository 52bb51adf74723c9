/* Running another program with a secret on its standard input: fork,
 * exec (PATH searched), the bytes written to a pipe that is the child's
 * stdin; never argv, the environment, a shell or a file. */
#ifndef TPMBOX_BASE_RUN_H
#define TPMBOX_BASE_RUN_H

#include <stddef.h>

#include "base/err.h"

/* Run argv (NULL-terminated) with data[0..n) on its stdin and wait for
 * it.  0 when it exits 0; exit 1 "ARGV0 failed (exit N)" or "(signal
 * N)"; exit 3 when it cannot be started (not found: exit 6). */
int run_feed(char *const *argv, const void *data, size_t n,
	     struct tberr *e);
/* The same with a second secret on the child's descriptor 3 (a pipe:
 * "/dev/fd/3" names it to the program); each at most a pipe's buffer
 * (64 KiB on Linux), written before the child is waited for. */
int run_feed2(char *const *argv, const void *data, size_t n,
	      const void *data3, size_t n3, struct tberr *e);

#endif
