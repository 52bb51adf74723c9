/* Escrow copies of a sealed secret (docs/blob-format.md, "Escrow copies").
 *
 * seal makes them on the host from the same secret, before sealing:
 *   - one CMS AuthEnvelopedData (lib/cms.c) for every X.509 certificate
 *     or PEM public key recipient (RSA, EC P-256/P-384), plus the
 *     recovery code's key-encryption key when one is asked for;
 *   - one age v1 file (lib/age.c) for every age X25519 recipient.
 * They travel inside the blob in a versioned PEM block, "TPMBOX ESCROW",
 * after the two blocks unseal reads (which ignores it), so that `recover
 * BLOB` needs nothing else; seal --escrow-out also writes them in their
 * stock tools' own files (PREFIX.cms as PEM, PREFIX.age).
 *
 * Block (binary, big-endian): magic "TBES", version u16 (1), count u16
 * (1 or 2), then count entries { kind u16 (1 CMS DER, 2 age file),
 * length u32, bytes }, kinds ascending, each at most once, nothing
 * after. */
#ifndef TPMBOX_ESCROW_H
#define TPMBOX_ESCROW_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define ESCROW_LABEL "TPMBOX ESCROW"
#define ESCROW_VERSION 1
#define ESCROW_MAX 16		/* recipients of each kind */
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
/* Whether any copy is asked for. */
int escrow_wanted(const struct escrow *x);

/* Make every copy of data[0..len) and the block.  Exit 1 or 2 with e. */
int escrow_make(struct escrow *x, const uint8_t *data, size_t len,
		struct tberr *e);
/* Append the block as PEM to the blob text (*pem, *pemlen: malloc'd,
 * NUL-terminated). */
int escrow_append(const struct escrow *x, char **pem, size_t *pemlen,
		  struct tberr *e);
/* Write PREFIX.cms (PEM "CMS") and PREFIX.age for the copies made,
 * atomically (flags: file.h's OUT_*). */
int escrow_write_files(const struct escrow *x, const char *prefix,
		       int flags, struct tberr *e);
/* Write the recovery code made (one line) to path, atomically, 0600. */
int escrow_write_code(const struct escrow *x, const char *path, int flags,
		      struct tberr *e);
/* The recovery code made, as it is to be written down (one line,
 * NUL-terminated), or NULL when none was asked for. */
const char *escrow_code(const struct escrow *x);

/* ---- reading: recover ---- */

/* The copies of a blob (pointers into raw). */
struct escrow_blk {
	uint8_t *raw;		/* the block, malloc'd */
	size_t rawlen;
	const uint8_t *cms, *age;
	size_t cmslen, agelen;
};

/* Find and check the block in a blob's text.  Exit 6 when the blob has
 * none, 1 when it is damaged or of another version ("escrow: why"). */
int escrow_read(const char *text, size_t n, struct escrow_blk *b,
		struct tberr *e);
/* Parse the block's binary form (for escrow_read and the fuzzer). */
int escrow_parse(const uint8_t *p, size_t n, struct escrow_blk *b,
		 struct tberr *e);
void escrow_blk_free(struct escrow_blk *b);
/* Open a copy with a key file's text: a PEM private key (RSA, EC) or
 * age identities.  Exit 4 when it opens none, 1 when the copy it opens
 * is damaged, 2 when the key file is not a key; *out malloc'd. */
int escrow_open_key(const struct escrow_blk *b, const char *key,
		    size_t keylen, uint8_t **out, size_t *outlen,
		    struct tberr *e);
/* Open the recovery code's copy with the code as typed.  Exit 2 naming
 * a mistyped group, 4 when the code is wrong, 1 when damaged. */
int escrow_open_code(const struct escrow_blk *b, const char *code,
		     size_t codelen, uint8_t **out, size_t *outlen,
		     struct tberr *e);

#endif
