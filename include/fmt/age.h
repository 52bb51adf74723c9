/* The age v1 file format (age-encryption.org/v1, C2SP) with X25519
 * recipients, the escrow copy that `age -d -i key.txt` opens:
 *   header: "age-encryption.org/v1", one "-> X25519 SHARE" stanza per
 *           recipient (the 16-byte file key under ChaCha20-Poly1305 with
 *           a key from HKDF-SHA-256 of the X25519 shared secret), and
 *           "--- MAC", HMAC-SHA-256 of the header under HKDF(file key,
 *           "header");
 *   payload: a 16-byte nonce, then the data in 64 KiB chunks, each
 *           sealed with ChaCha20-Poly1305 under HKDF(file key, nonce,
 *           "payload") with nonce = 11-byte counter || last-chunk flag.
 * Binary (not armored).  The reader is strict: canonical unpadded base64,
 * LF line ends, the stanza and chunk rules of the spec. */
#ifndef TPMBOX_FMT_AGE_H
#define TPMBOX_FMT_AGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define AGE_KEY 32		/* an X25519 recipient or identity */
#define AGE_RCPT_MAX 32
#define AGE_RECIPIENT_LEN 62	/* "age1" + 52 + 6 checksum */

/* An "age1..." recipient string (s[0..n)) to its 32-byte public key.
 * -1 when it is not one. */
int age_recipient_parse(const char *s, size_t n, uint8_t pub[AGE_KEY]);
/* The "age1..." string of a public key (out: AGE_RECIPIENT_LEN + 1). */
int age_recipient_string(const uint8_t pub[AGE_KEY], char *out,
			 size_t cap);
/* The identities ("AGE-SECRET-KEY-1...") of an identity file: blank and
 * '#' lines skipped, anything else refused (exit 2).  At most max. */
int age_identities(const char *text, size_t n, uint8_t (*ids)[AGE_KEY],
		   size_t max, size_t *count, struct tberr *e);

/* The age file of data[0..len) for rcpts[0..n) (1 to AGE_RCPT_MAX),
 * malloc'd. */
int age_encrypt(const uint8_t (*rcpts)[AGE_KEY], size_t n,
		const uint8_t *data, size_t len, uint8_t **out,
		size_t *outlen, struct tberr *e);
/* How many X25519 stanzas a file's header has; -1 when the header does
 * not parse. */
long age_count(const uint8_t *f, size_t n);
/* Decrypt with any of ids[0..nids).  Exit 1 when the header does not
 * parse, its MAC fails or the payload does not decrypt to its end
 * ("age: why"), 4 when no stanza opens with the identities; 0 with *out
 * malloc'd (nothing is returned unless the whole payload verified). */
int age_decrypt(const uint8_t *f, size_t n, const uint8_t (*ids)[AGE_KEY],
		size_t nids, uint8_t **out, size_t *outlen, struct tberr *e);

#endif
