/* Escrow copies of a sealed secret (docs/blob-format.md, "Escrow copies").
 *
 * seal makes them on the host from the same secret, before sealing:
 *   - one CMS AuthEnvelopedData (lib/fmt/cms.c) for every X.509 certificate
 *     or PEM public key recipient (RSA, EC P-256/P-384), plus the
 *     recovery code's key-encryption key when one is asked for;
 *   - one age v1 file (lib/fmt/age.c) for every age X25519 recipient.
 * They travel inside the blob, after the two blocks unseal reads (which
 * ignores the rest), so that `recover BLOB` needs nothing else:
 *   "TPMBOX ESCROW"       the versioned index (binary, big-endian): magic
 *                         "TBES", version u16 (1), count u16 (1 or 2),
 *                         then per copy { kind u16 (1 CMS, 2 age),
 *                         length u32, SHA-256 of the copy }, kinds
 *                         ascending, each once, nothing after;
 *   "CMS"                 the CMS copy, DER (RFC 7468's label, so
 *                         `openssl cms -inform PEM -in BLOB` finds it);
 *   "AGE ENCRYPTED FILE"  the age copy (age's own armor);
 *   "TPMBOX ESCROW RECIPIENTS"  the recipients record, when the secret is
 *                         at least 16 bytes: every CMS recipient's
 *                         certificate or SubjectPublicKeyInfo and every
 *                         age recipient, authenticated with HMAC-SHA256
 *                         keyed by PBKDF2-HMAC-SHA256 of the secret, so
 *                         that reseal re-encrypts to them once it has the
 *                         secret (docs/blob-format.md, "The recipients
 *                         record").  A block of its own: readers of the
 *                         index (version 1) before it skip it.
 * seal --escrow-out also writes them in their stock tools' own files
 * (PREFIX.cms as PEM, PREFIX.age binary). */
#ifndef TPMBOX_JOB_ESCROW_H
#define TPMBOX_JOB_ESCROW_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define ESCROW_LABEL "TPMBOX ESCROW"
#define ESCROW_CMS_LABEL "CMS"
#define ESCROW_AGE_LABEL "AGE ENCRYPTED FILE"
#define ESCROW_VERSION 1
#define ESCROW_RCPT_LABEL "TPMBOX ESCROW RECIPIENTS"
#define ESCROW_RCPT_VERSION 1
#define ESCROW_RCPT_ITER 100000		/* PBKDF2 iterations written */
#define ESCROW_RCPT_ITER_MIN 10000	/* and accepted */
#define ESCROW_RCPT_ITER_MAX 10000000
#define ESCROW_RCPT_SECRET_MIN 16	/* a shorter secret: no record */
#define ESCROW_RCPT_SALT 16
#define ESCROW_RCPT_DER_MAX 65535	/* a stored certificate or key */
#define ESCROW_MAX 16		/* recipients of each kind */
/* The largest blob text: the sealed data and two escrow copies of a
 * 64 MiB secret in base64 of 64 columns (65 bytes a line), and room for
 * headers and recipients (a 64 MiB secret with one CMS and one age copy
 * measured 272,653,475 bytes). */
#define ESCROW_BLOB_MAX ((size_t)(64u << 20) / 48 * 65 * 3 + (8u << 20))
enum { ESCROW_CMS = 1, ESCROW_AGE = 2 };

/* The recipients seal was given and the copies made for them. */
struct escrow;

struct escrow *escrow_new(void);
/* Wipe and free. */
void escrow_free(struct escrow *x);
/* Add --escrow's RECIPIENT: an age recipient (age1...), or a file with a
 * PEM certificate or public key (RSA >= 2048, EC P-256/P-384) or with
 * age recipients, one a line.  Exit 2 "--escrow ARG: why" (6 when the
 * file does not exist). */
int escrow_add(struct escrow *x, const char *arg, struct tberr *e);
/* Ask for a recovery code (one more CMS recipient). */
void escrow_want_code(struct escrow *x);
/* Make the recovery code's copy for this code (as typed: checked like
 * recover's) rather than a new one: reseal keeping a blob's code.  Exit 2
 * naming a mistyped group. */
int escrow_keep_code(struct escrow *x, const char *code, size_t n,
		     struct tberr *e);
/* Whether any copy is asked for. */
int escrow_wanted(const struct escrow *x);
/* How many RSA, EC and age recipients x has, and whether a recovery
 * code. */
void escrow_recipients(const struct escrow *x, size_t *rsa, size_t *ec,
		       size_t *age, int *code);
/* Whether escrow_make wrote a recipients record (the secret was long
 * enough and there was a recipient to store). */
int escrow_stored(const struct escrow *x);

/* Make every copy of data[0..len), the index and, when len is at least
 * ESCROW_RCPT_SECRET_MIN and there is a recipient, the recipients record
 * (keyed by data).  Exit 1 or 2 with e. */
int escrow_make(struct escrow *x, const uint8_t *data, size_t len,
		struct tberr *e);
/* Append the block as PEM to the blob text (*pem, *pemlen: malloc'd,
 * NUL-terminated). */
int escrow_append(const struct escrow *x, char **pem, size_t *pemlen,
		  struct tberr *e);
/* Write PREFIX.cms (PEM "CMS") and PREFIX.age for the copies made,
 * atomically (flags: base/file.h's OUT_*). */
int escrow_write_files(const struct escrow *x, const char *prefix,
		       int flags, struct tberr *e);
/* Write the recovery code made (one line) to path, atomically, 0600. */
int escrow_write_code(const struct escrow *x, const char *path, int flags,
		      struct tberr *e);
/* The recovery code made, as it is to be written down (one line,
 * NUL-terminated), or NULL when none was asked for. */
const char *escrow_code(const struct escrow *x);

/* ---- reading: recover ---- */

/* One copy: what the index lists, and what was found. */
struct escrow_copy {
	int listed;
	uint32_t len;		/* listed length */
	uint8_t sha256[32];	/* listed digest */
	uint8_t *p;		/* the copy, malloc'd */
	size_t n;
};

struct pubkey;

/* A blob's recipients record (escrow_read_rcpts): parsed, and verified
 * only once escrow_rcpts_verify has said so. */
struct escrow_rcpts {
	uint8_t *raw;		/* the record, malloc'd (NULL: none) */
	size_t rawlen;
	uint32_t iter;
	const uint8_t *salt, *mac;	/* into raw */
	size_t nkeys, nage;
	struct pubkey *keys;	/* nkeys of them, malloc'd */
	uint8_t age[ESCROW_MAX][32];
	int verified;
};

/* The copies of a blob. */
struct escrow_blk {
	uint8_t *raw;		/* the index, malloc'd */
	size_t rawlen;
	struct escrow_copy cms, age;
	struct escrow_rcpts rc;	/* read by escrow_read_rcpts only */
};

/* Find the index in a blob's text, then each copy it lists, checked
 * against it (length, SHA-256) and parsed.  Exit 6 when the blob has no
 * index, 1 when anything is missing, damaged, unlisted or of another
 * version ("escrow: why"). */
int escrow_read(const char *text, size_t n, struct escrow_blk *b,
		struct tberr *e);
/* Parse the index's binary form into b (for escrow_read). */
int escrow_parse(const uint8_t *p, size_t n, struct escrow_blk *b,
		 struct tberr *e);
void escrow_blk_free(struct escrow_blk *b);
/* The recipients record of a blob escrow_read has read: none (0,
 * b->rc.raw NULL), or parsed into b->rc.  Exit 1 "escrow: why" when it is
 * damaged, of another version, or asks for an iteration count outside
 * ESCROW_RCPT_ITER_MIN..MAX (refused before anything is computed). */
int escrow_read_rcpts(const char *text, size_t n, struct escrow_blk *b,
		      struct tberr *e);
/* Parse the record's binary form into b->rc (for escrow_read_rcpts). */
int escrow_rcpts_parse(const uint8_t *p, size_t n, struct escrow_rcpts *r,
		       struct tberr *e);
/* Check the record's HMAC with the secret, over the record and b's
 * index, in constant time.  Exit 1 when it does not verify (or the secret
 * is shorter than any seal keys a record with). */
int escrow_rcpts_verify(struct escrow_blk *b, const uint8_t *secret,
			size_t len, struct tberr *e);
/* The secret's length as the CMS copy gives it (AES-GCM keeps it), or -1
 * when the blob has no CMS copy. */
long escrow_secret_len(const struct escrow_blk *b);
/* NEW's recipients (x: those given with --escrow) from OLD's verified
 * record: every stored one that x does not have already (the same key,
 * bare or in a certificate, counts once) and that drop does not name.
 * Every recipient drop names must be a stored one and not one of x's
 * (exit 2 naming it).  *kept, *dropped: how many. */
int escrow_keep_stored(struct escrow *x, const struct escrow_blk *b,
		       const struct escrow *drop, size_t *kept,
		       size_t *dropped, struct tberr *e);
/* How many recipients of each kind a blob's copies are for. */
struct escrow_counts {
	size_t rsa, ec, code, age;
};
void escrow_count(const struct escrow_blk *b, struct escrow_counts *n);
/* Whether x's recipients include every RSA/EC recipient of b's CMS copy
 * (by the name the copy gives it) and as many age recipients as b's age
 * copy has (an age stanza does not name its recipient).  Exit 2 saying
 * what is missing. */
int escrow_covers(const struct escrow *x, const struct escrow_blk *b,
		  struct tberr *e);
/* The same as words for a message ("a CMS copy for 1 RSA key(s), ..."). */
void escrow_holds(const struct escrow_blk *b, char *out, size_t cap);
/* Open a copy with a key file's text: a PEM private key (RSA, EC) or
 * age identities.  Exit 4 when it opens none, 1 when the copy it opens
 * is damaged, 2 when the key file is not a key; *out malloc'd. */
int escrow_open_key(const struct escrow_blk *b, const char *key,
		    size_t keylen, uint8_t **out, size_t *outlen,
		    struct tberr *e);
/* escrow_open_key with the key read from PATH (at most 1 MiB; "key file:
 * why" when it cannot be read), its text wiped. */
int escrow_open_keyfile(const struct escrow_blk *b, const char *path,
			uint8_t **out, size_t *outlen, struct tberr *e);
/* Open the recovery code's copy with the code as typed.  Exit 2 naming
 * a mistyped group, 4 when the code is wrong, 1 when damaged. */
int escrow_open_code(const struct escrow_blk *b, const char *code,
		     size_t codelen, uint8_t **out, size_t *outlen,
		     struct tberr *e);

#endif
