/* The AUTH grammar shared by every applet that takes a secret:
 *   str:TEXT   the bytes of TEXT (visible in ps: unsafe, for compatibility)
 *   hex:HEX    bytes in hex
 *   file:PATH  the file's bytes exactly (no newline stripping)
 *   file:-     standard input
 *   env:VAR    the value of environment variable VAR
 * A value without a prefix is taken as str:, as tpm2-tools does. */
#ifndef TPMBOX_BASE_AUTH_H
#define TPMBOX_BASE_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define AUTH_MAX 64

struct authval {
	uint8_t v[AUTH_MAX];
	size_t n;
};

int auth_parse(const char *spec, struct authval *a, struct tberr *e);
void auth_wipe(struct authval *a);
/* A text secret (a recovery code): from AUTH spec, or asked on the
 * terminal with prompt when spec is NULL.  NUL-terminated in buf (cap
 * bytes, the length in *n); too long is exit 2. */
int auth_text(const char *spec, const char *prompt, char *buf, size_t cap,
	      size_t *n, struct tberr *e);

#endif
