/* The OpenSSH public key line (RFC 4253 6.6, RFC 5656 3.1): "ssh-rsa" or
 * "ecdsa-sha2-nistp256"/"-nistp384", the base64 of the key blob, and a
 * comment. */
#ifndef TPMBOX_FMT_SSHKEY_H
#define TPMBOX_FMT_SSHKEY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct tpm2_public;

/* The line for an RSA or ECC (P-256, P-384) public area, ending in a
 * newline (malloc'd, NUL-terminated; *n without the NUL).  comment may be
 * NULL.  Exit 1 for another key. */
int ssh_pub_line(const struct tpm2_public *p, const char *comment,
		 char **line, size_t *n, struct tberr *e);

#endif
