/* age v1 with X25519 recipients (include/fmt/age.h). */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/chachapoly.h"
#include "crypto/hkdf.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "crypto/x25519.h"
#include "fmt/age.h"
#include "fmt/bech32.h"

#define FILE_KEY 16
#define CHUNK 65536
#define TAG CHACHAPOLY_TAG
#define PNONCE 16		/* the payload's nonce */
#define MAC 32
/* The whole file is built in memory: at most 1 TiB, and where size_t has
 * 32 bits (armhf) at most half the address space, so that the file's
 * size (the payload plus its header and tags) cannot wrap. */
#define PAYLOAD_MAX ((uint64_t)SIZE_MAX >> 41 ? (uint64_t)1 << 40 : \
		     (uint64_t)SIZE_MAX / 2)

static const char version_line[] = "age-encryption.org/v1\n";
static const char x25519_info[] = "age-encryption.org/v1/X25519";
static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* ---- keys ---- */

int age_recipient_parse(const char *s, size_t n, uint8_t pub[AGE_KEY])
{
	char hrp[8];
	size_t got;

	if (bech32_decode(s, n, hrp, sizeof(hrp), pub, AGE_KEY, &got) ||
	    strcmp(hrp, "age") || got != AGE_KEY)
		return -1;
	/* age writes recipients in lower case only */
	return s[0] == 'a' ? 0 : -1;
}

int age_recipient_string(const uint8_t pub[AGE_KEY], char *out, size_t cap)
{
	return bech32_encode("age", pub, AGE_KEY, 0, out, cap);
}

int age_identities(const char *text, size_t n, uint8_t (*ids)[AGE_KEY],
		   size_t max, size_t *count, struct tberr *e)
{
	size_t at = 0, line = 0;

	*count = 0;
	while (at < n) {
		const char *p = text + at, *nl = memchr(p, '\n', n - at);
		size_t len = nl ? (size_t)(nl - p) : n - at, got;
		char hrp[24];

		at += len + (nl != NULL);
		line++;
		while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' ||
			       p[len - 1] == '\t'))
			len--;
		if (!len || p[0] == '#')
			continue;
		if (*count == max)
			return err_set(e, EX_USAGE, "more than %zu age "
				       "identities", max);
		if (bech32_decode(p, len, hrp, sizeof(hrp), ids[*count],
				  AGE_KEY, &got) ||
		    strcmp(hrp, "age-secret-key-") || got != AGE_KEY ||
		    p[0] != 'A')
			return err_set(e, EX_USAGE, "line %zu is not an age "
				       "identity (AGE-SECRET-KEY-1...)", line);
		(*count)++;
	}
	if (!*count)
		return err_set(e, EX_USAGE, "no age identity in the file");
	return 0;
}

/* ---- unpadded canonical base64 ---- */

static size_t b64raw(const uint8_t *p, size_t n, char *out)
{
	size_t i, o = 0;
	uint32_t acc = 0;
	int bits = 0;

	for (i = 0; i < n; i++) {
		acc = acc << 8 | p[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = b64[acc >> bits & 63];
		}
	}
	if (bits)
		out[o++] = b64[acc << (6 - bits) & 63];
	return o;
}

/* Decode s[0..n) exactly into out[0..cap); -1 unless canonical. */
static long unb64raw(const char *s, size_t n, uint8_t *out, size_t cap)
{
	size_t i, o = 0;
	uint32_t acc = 0;
	int bits = 0;

	if (n % 4 == 1)
		return -1;
	for (i = 0; i < n; i++) {
		const char *q = s[i] ? strchr(b64, s[i]) : NULL;

		if (!q)
			return -1;
		acc = acc << 6 | (uint32_t)(q - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap)
				return -1;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	if (acc & ((1u << bits) - 1))
		return -1;	/* not canonical: leftover bits set */
	return (long)o;
}

/* ---- writing ---- */

static int mac_key(const uint8_t fk[FILE_KEY], uint8_t k[32])
{
	return hkdf_sha256(fk, FILE_KEY, NULL, 0, "header", 6, k, 32);
}

static int payload_key(const uint8_t fk[FILE_KEY],
		       const uint8_t nonce[PNONCE], uint8_t k[32])
{
	return hkdf_sha256(fk, FILE_KEY, nonce, PNONCE, "payload", 7, k, 32);
}

/* The chunk nonce: 11-byte big-endian counter, then the last flag. */
static void chunk_nonce(uint64_t ctr, int last, uint8_t nonce[12])
{
	int i;

	memset(nonce, 0, 12);
	for (i = 10; i >= 3; i--, ctr >>= 8)
		nonce[i] = (uint8_t)ctr;
	nonce[11] = last ? 1 : 0;
}

/* The wrap key of a stanza: HKDF(shared, share || recipient, info). */
static int wrap_key(const uint8_t shared[32], const uint8_t share[32],
		    const uint8_t rcpt[32], uint8_t k[32])
{
	uint8_t salt[64];

	memcpy(salt, share, 32);
	memcpy(salt + 32, rcpt, 32);
	return hkdf_sha256(shared, 32, salt, 64, x25519_info,
			   sizeof(x25519_info) - 1, k, 32);
}

/* One stanza's lines: "-> X25519 SHARE\nBODY\n" (86 + 7 + 2 bytes). */
#define STANZA_LEN (3 + 7 + 43 + 1 + 43 + 1)

static int stanza(const uint8_t rcpt[32], const uint8_t fk[FILE_KEY],
		  char *out)
{
	uint8_t eph[32], share[32], shared[32], k[32], body[FILE_KEY + TAG];
	static const uint8_t zero[CHACHAPOLY_NONCE];
	char *o = out;
	int rc;

	rc = rng_bytes(eph, sizeof(eph)) || x25519_base(share, eph) ||
	     x25519(shared, eph, rcpt) || wrap_key(shared, share, rcpt, k) ||
	     chachapoly_seal(k, zero, fk, FILE_KEY, body);
	explicit_bzero(eph, sizeof(eph));
	explicit_bzero(shared, sizeof(shared));
	explicit_bzero(k, sizeof(k));
	if (rc)
		return -1;
	memcpy(o, "-> X25519 ", 10);
	o += 10;
	o += b64raw(share, 32, o);
	*o++ = '\n';
	o += b64raw(body, sizeof(body), o);
	*o++ = '\n';
	return o - out == STANZA_LEN ? 0 : -1;
}

int age_encrypt(const uint8_t (*rcpts)[AGE_KEY], size_t n,
		const uint8_t *data, size_t len, uint8_t **out,
		size_t *outlen, struct tberr *e)
{
	size_t hdr = sizeof(version_line) - 1 + n * STANZA_LEN + 3 + 1 + 43 +
		     1, chunks = len ? (len + CHUNK - 1) / CHUNK : 1, all, i;
	uint8_t fk[FILE_KEY], k[32], mac[MAC], nonce[12];
	uint8_t *p, *pl;
	int rc = -1;

	*out = NULL;
	if (!n || n > AGE_RCPT_MAX)
		return err_set(e, EX_USAGE, "1 to %d age recipients",
			       AGE_RCPT_MAX);
	if ((uint64_t)len > PAYLOAD_MAX)
		return err_set(e, EX_USAGE, "too large for one age file");
	all = hdr + PNONCE + len + chunks * TAG;
	if (!(p = malloc(all)))
		return err_set(e, EX_FAIL, "out of memory");
	if (rng_bytes(fk, sizeof(fk)))
		goto out;
	memcpy(p, version_line, sizeof(version_line) - 1);
	for (i = 0; i < n; i++)
		if (stanza(rcpts[i], fk, (char *)p + sizeof(version_line) - 1 +
			   i * STANZA_LEN))
			goto out;
	memcpy(p + hdr - 48, "--- ", 4);
	/* the MAC covers the header up to and including "---" */
	if (mac_key(fk, k) ||
	    hmac_buf(TPM2_ALG_SHA256, k, 32, p, hdr - 45, mac))
		goto out;
	b64raw(mac, MAC, (char *)p + hdr - 44);
	p[hdr - 1] = '\n';
	pl = p + hdr;
	if (rng_bytes(pl, PNONCE) || payload_key(fk, pl, k))
		goto out;
	pl += PNONCE;
	for (i = 0; i < chunks; i++) {
		size_t m = i + 1 < chunks ? CHUNK : len - i * CHUNK;

		chunk_nonce(i, i + 1 == chunks, nonce);
		if (chachapoly_seal(k, nonce, data + i * CHUNK, m, pl))
			goto out;
		pl += m + TAG;
	}
	if ((size_t)(pl - p) != all)
		goto out;
	*out = p;
	*outlen = all;
	rc = 0;
out:
	explicit_bzero(fk, sizeof(fk));
	explicit_bzero(k, sizeof(k));
	if (rc) {
		free(p);
		return err_set(e, EX_FAIL, "making the age file failed");
	}
	return 0;
}

/* ---- reading ---- */

#define STANZA_MAX 64		/* stanzas read from one header */
#define BODY_MAX 1024		/* bytes of one stanza body */

struct stanza {
	int x25519;		/* an X25519 stanza (checked) */
	uint8_t share[32];
	uint8_t body[FILE_KEY + TAG];
};

struct header {
	struct stanza s[STANZA_MAX];
	size_t n;
	size_t maclen;		/* bytes the MAC covers */
	uint8_t mac[MAC];
	size_t end;		/* offset of the payload */
};

/* The next line of f from *at (without its LF); -1 when there is no LF. */
static int next_line(const uint8_t *f, size_t n, size_t *at,
		     const char **line, size_t *len)
{
	const uint8_t *nl;

	if (*at >= n || !(nl = memchr(f + *at, '\n', n - *at)))
		return -1;
	*line = (const char *)f + *at;
	*len = (size_t)(nl - (f + *at));
	*at += *len + 1;
	return 0;
}

static int vchar(char c)
{
	return c >= 0x21 && c <= 0x7e;
}

/* "-> ARG ARG..." then the body lines: -1 when malformed. */
static int read_stanza(const uint8_t *f, size_t n, size_t *at,
		       const char *line, size_t len, struct stanza *st)
{
	const char *arg[3];
	size_t alen[3], na = 0, i, blen = 0;
	uint8_t body[BODY_MAX];
	char *text;
	long got;

	/* arguments: one or more, single spaces, VCHARs */
	for (i = 3; i <= len; i++) {
		size_t s = i;

		while (i < len && line[i] != ' ') {
			if (!vchar(line[i]))
				return -1;
			i++;
		}
		if (i == s)
			return -1;	/* an empty argument */
		if (na < 3) {
			arg[na] = line + s;
			alen[na] = i - s;
		}
		na++;
	}
	if (!na)
		return -1;
	/* body: full 64-column lines, then one shorter (maybe empty) */
	if (!(text = malloc(BODY_MAX / 3 * 4 + 64)))
		return -1;
	for (;;) {
		const char *b;
		size_t bl;

		if (next_line(f, n, at, &b, &bl) || bl > 64 ||
		    blen + bl > BODY_MAX / 3 * 4) {
			free(text);
			return -1;
		}
		memcpy(text + blen, b, bl);
		blen += bl;
		if (bl < 64)
			break;
	}
	got = unb64raw(text, blen, body, sizeof(body));
	free(text);
	if (got < 0)
		return -1;
	memset(st, 0, sizeof(*st));
	if (alen[0] != 6 || memcmp(arg[0], "X25519", 6))
		return 0;	/* another recipient type: ignored */
	/* X25519: exactly two arguments, a 32-byte share, a 32-byte body */
	if (na != 2 || unb64raw(arg[1], alen[1], st->share, 32) != 32 ||
	    got != FILE_KEY + TAG)
		return -1;
	memcpy(st->body, body, FILE_KEY + TAG);
	st->x25519 = 1;
	return 0;
}

static int read_header(const uint8_t *f, size_t n, struct header *h)
{
	const char *line;
	size_t len, at = 0;

	memset(h, 0, sizeof(*h));
	if (next_line(f, n, &at, &line, &len) ||
	    len != sizeof(version_line) - 2 ||
	    memcmp(line, version_line, len))
		return -1;
	for (;;) {
		size_t start = at;

		if (next_line(f, n, &at, &line, &len) || len < 3)
			return -1;
		if (memcmp(line, "---", 3) == 0) {
			/* "--- " and 43 characters of MAC */
			if (!h->n || len != 4 + 43 || line[3] != ' ' ||
			    unb64raw(line + 4, 43, h->mac, MAC) != MAC)
				return -1;
			h->maclen = start + 3;
			h->end = at;
			return 0;
		}
		if (memcmp(line, "-> ", 3) || h->n == STANZA_MAX ||
		    read_stanza(f, n, &at, line, len, &h->s[h->n]))
			return -1;
		h->n++;
	}
}

long age_count(const uint8_t *f, size_t n)
{
	struct header *h = malloc(sizeof(*h));
	long k = 0;
	size_t i;

	if (!h)
		return -1;
	if (read_header(f, n, h))
		k = -1;
	else
		for (i = 0; i < h->n; i++)
			k += h->s[i].x25519;
	free(h);
	return k;
}

/* The file key from the first X25519 stanza an identity opens: 1 found,
 * 0 none, -1 a stanza whose share gives an all-zero secret. */
static int unwrap(const struct header *h, const uint8_t (*ids)[AGE_KEY],
		  size_t nids, uint8_t fk[FILE_KEY])
{
	static const uint8_t zero[CHACHAPOLY_NONCE];
	uint8_t pub[32], shared[32], k[32];
	size_t i, j;
	int found = 0;

	for (j = 0; j < nids && !found; j++) {
		if (x25519_base(pub, ids[j]))
			continue;
		for (i = 0; i < h->n && !found; i++) {
			if (!h->s[i].x25519)
				continue;
			if (x25519(shared, ids[j], h->s[i].share)) {
				found = -1;
				break;
			}
			found = !wrap_key(shared, h->s[i].share, pub, k) &&
				!chachapoly_open(k, zero, h->s[i].body,
						 FILE_KEY + TAG, fk);
		}
	}
	explicit_bzero(shared, sizeof(shared));
	explicit_bzero(k, sizeof(k));
	return found;
}

int age_decrypt(const uint8_t *f, size_t n, const uint8_t (*ids)[AGE_KEY],
		size_t nids, uint8_t **out, size_t *outlen, struct tberr *e)
{
	struct header *h = malloc(sizeof(*h));
	uint8_t fk[FILE_KEY], k[32], mac[MAC], nonce[12], diff = 0;
	size_t at, left, o = 0, i;
	uint64_t ctr = 0;
	uint8_t *p = NULL;
	int r, rc;

	*out = NULL;
	if (!h)
		return err_set(e, EX_FAIL, "out of memory");
	if (read_header(f, n, h)) {
		rc = err_set(e, EX_FAIL, "age: the header is damaged (not an "
			     "age v1 header with X25519 stanzas)");
		goto out;
	}
	r = unwrap(h, ids, nids, fk);
	if (r < 0) {
		rc = err_set(e, EX_FAIL, "age: a stanza's share is of small "
			     "order (a crafted file)");
		goto out;
	}
	if (!r) {
		rc = err_set(e, EX_AUTH, "age: the identity is not one the "
			     "age copy was made for (it has %ld X25519 "
			     "recipient(s))", age_count(f, n));
		goto out;
	}
	if (mac_key(fk, k) ||
	    hmac_buf(TPM2_ALG_SHA256, k, 32, f, h->maclen, mac)) {
		rc = err_set(e, EX_FAIL, "age: HMAC failed");
		goto out;
	}
	for (i = 0; i < MAC; i++)
		diff |= mac[i] ^ h->mac[i];
	if (diff) {
		rc = err_set(e, EX_FAIL, "age: the header MAC does not verify "
			     "(the header was altered)");
		goto out;
	}
	at = h->end;
	if (n - at < PNONCE + TAG || payload_key(fk, f + at, k)) {
		rc = err_set(e, EX_FAIL, "age: the payload is truncated");
		goto out;
	}
	at += PNONCE;
	left = n - at;
	/* the plaintext is never longer than the chunks' contents */
	if (!(p = malloc(left))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	for (;;) {
		int last = left <= CHUNK + TAG;
		size_t m = last ? left : CHUNK + TAG;

		chunk_nonce(ctr, last, nonce);
		if (m < TAG || (last && m == TAG && ctr) ||
		    chachapoly_open(k, nonce, f + at, m, p + o)) {
			rc = err_set(e, EX_FAIL, "age: chunk %llu of the "
				     "payload does not verify (damaged, "
				     "truncated or altered)",
				     (unsigned long long)ctr);
			goto out;
		}
		o += m - TAG;
		at += m;
		left -= m;
		ctr++;
		if (last)
			break;
	}
	*out = p;
	*outlen = o;
	p = NULL;
	rc = 0;
out:
	if (p) {
		explicit_bzero(p, o);
		free(p);
	}
	explicit_bzero(fk, sizeof(fk));
	explicit_bzero(k, sizeof(k));
	free(h);
	return rc;
}
