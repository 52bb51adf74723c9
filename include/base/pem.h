/* PEM and base64 (RFC 7468 / RFC 4648), one codec for every file tpmbox
 * writes or reads: sealed blobs, AK blobs, public keys.  Strict on input:
 * a block with the label must appear exactly once, the base64 must be
 * canonical (whitespace is skipped). */
#ifndef TPMBOX_BASE_PEM_H
#define TPMBOX_BASE_PEM_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Base64, no line breaks (malloc'd, NUL-terminated); NULL: no memory. */
char *b64_encode(const uint8_t *p, size_t n, size_t *outlen);
/* The same in base64url without padding (JOSE's form). */
char *b64url_encode(const uint8_t *p, size_t n, size_t *outlen);
/* Returns the decoded length, or -1 on a bad character or padding or
 * when cap is too small. */
long b64_decode(const char *s, size_t n, uint8_t *out, size_t cap);
/* base64url without padding (RFC 4648 section 5, RFC 7515's form): the
 * same contract; whitespace, '=' and the standard alphabet's '+' and '/'
 * are refused. */
long b64url_decode(const char *s, size_t n, uint8_t *out, size_t cap);

/* Append "-----BEGIN label-----", 64-column base64, "-----END
 * label-----" to the malloc'd *buf of *len bytes (NUL-terminated after).
 * 0, or -1 when out of memory. */
int pem_append(char **buf, size_t *len, const char *label,
	       const uint8_t *der, size_t n);

/* What pem_block found. */
enum {
	PEM_OK = 0,
	PEM_NONE = -1,		/* no BEGIN line for the label */
	PEM_NOEND = -2,		/* BEGIN without END */
	PEM_TWICE = -3,		/* more than one block with the label */
	PEM_BADB64 = -4,	/* the body is not valid base64 (or empty) */
	PEM_NOMEM = -5,
};
/* Decode the one block labelled label in text[0..n); *der malloc'd. */
int pem_block(const char *text, size_t n, const char *label, uint8_t **der,
	      size_t *len);

/* pem_block with the error set: exit 1 "WHAT: no LABEL PEM block", "WHAT:
 * the LABEL block has no END line (truncated?)", "WHAT: more than one
 * LABEL block", "WHAT: the LABEL block is not valid base64". */
int pem_get(const char *text, size_t n, const char *label, const char *what,
	    uint8_t **der, size_t *len, struct tberr *e);
/* PEM text of der under label (malloc'd, NUL-terminated; *n excludes
 * the NUL). */
int pem_encode(const char *label, const uint8_t *der, size_t len,
	       char **pem, size_t *n, struct tberr *e);

#endif
