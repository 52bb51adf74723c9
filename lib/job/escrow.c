/* Escrow copies: recipients, making the copies, the blob's block, and
 * opening a copy (include/job/escrow.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/pbkdf2.h"
#include "crypto/pk.h"
#include "fmt/age.h"
#include "fmt/cms.h"
#include "fmt/recovery.h"
#include "fmt/x509.h"
#include "job/escrow.h"

#define ESCROW_MAGIC "TBES"
#define ESCROW_FILE_MAX (1u << 20)	/* a recipient's file */
#define ENTRY (2 + 4 + 32)		/* an index entry */
#define RCPT_MAGIC "TBER"
#define RCPT_HEAD (4 + 2 + 4 + ESCROW_RCPT_SALT + 2)
#define RCPT_MAC 32
/* The recipients record's kinds of entry. */
enum { RCPT_CERT = 1, RCPT_SPKI = 2, RCPT_AGE = 3 };
/* What the record's HMAC covers starts with this (its NUL included). */
static const char rcpt_domain[] = "tpmbox escrow recipients v1";

struct escrow {
	struct pubkey keys[ESCROW_MAX];	/* CMS recipients */
	size_t nkeys;
	uint8_t age[ESCROW_MAX][AGE_KEY];	/* age X25519 recipients */
	size_t nage;
	uint8_t *cms, *agefile;		/* the copies made */
	size_t cmslen, agelen;
	uint8_t *blk;			/* the block */
	size_t blklen;
	uint8_t *rec;			/* the recipients record */
	size_t reclen;
	const char *keyarg[ESCROW_MAX];	/* what named each, for messages */
	const char *agearg[ESCROW_MAX];
	int want_code;			/* a recovery code: */
	int code_given;			/* the code is the one kept */
	uint8_t code[RECOVERY_BYTES];
	char code_text[RECOVERY_TEXT + 1];	/* with a line end */
};

struct escrow *escrow_new(void)
{
	return calloc(1, sizeof(struct escrow));
}

void escrow_free(struct escrow *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nkeys; i++)
		pubkey_free(&x->keys[i]);
	free(x->cms);
	free(x->agefile);
	free(x->blk);
	free(x->rec);
	explicit_bzero(x, sizeof(*x));
	free(x);
}

static int add_age(struct escrow *x, const char *s, size_t n,
		   const char *arg, struct tberr *e)
{
	if (x->nage == ESCROW_MAX)
		return err_set(e, EX_USAGE, "--escrow: at most %d age "
			       "recipients", ESCROW_MAX);
	if (age_recipient_parse(s, n, x->age[x->nage]))
		return err_set(e, EX_USAGE, "--escrow %s: not an age "
			       "recipient (age1... as age-keygen prints it)",
			       arg);
	x->agearg[x->nage++] = arg;
	return 0;
}

/* A file of age recipients: one a line, blank and '#' lines skipped. */
static int add_age_file(struct escrow *x, const char *text, size_t n,
			const char *arg, struct tberr *e)
{
	size_t at = 0, found = 0;

	while (at < n) {
		const char *p = text + at, *nl = memchr(p, '\n', n - at);
		size_t len = nl ? (size_t)(nl - p) : n - at;

		at += len + (nl != NULL);
		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		if (!len || p[0] == '#')
			continue;
		if (add_age(x, p, len, arg, e))
			return EX_USAGE;
		found++;
	}
	return found ? 0 : err_set(e, EX_USAGE, "--escrow %s: no PEM "
				   "certificate or key, no age recipient", arg);
}

int escrow_add(struct escrow *x, const char *arg, struct tberr *e)
{
	uint8_t *text = NULL;
	size_t n;
	int rc;

	if (strncmp(arg, "age1", 4) == 0)
		return add_age(x, arg, strlen(arg), arg, e);
	if (x->nkeys == ESCROW_MAX)
		return err_set(e, EX_USAGE, "--escrow: at most %d "
			       "certificates or keys", ESCROW_MAX);
	if (file_read(arg, ESCROW_FILE_MAX, &text, &n, e))
		return err_prefix(e, "--escrow %s", arg);
	if (!memmem(text, n, "-----BEGIN ", 11)) {
		rc = add_age_file(x, (const char *)text, n, arg, e);
		free(text);
		return rc;
	}
	rc = x509_read_public((const char *)text, n, &x->keys[x->nkeys], e);
	free(text);
	if (rc)
		return err_prefix(e, "--escrow %s", arg);
	if (x->keys[x->nkeys].type == KEY_RSA &&
	    pubkey_rsa_bits(&x->keys[x->nkeys]) < 2048) {
		err_set(e, EX_USAGE, "--escrow %s: an RSA key of %zu bits is "
			"too small (2048 or more)", arg,
			pubkey_rsa_bits(&x->keys[x->nkeys]));
		pubkey_free(&x->keys[x->nkeys]);
		return EX_USAGE;
	}
	/* stored in the blob's recipients record (docs/blob-format.md) */
	if (x->keys[x->nkeys].derlen > ESCROW_RCPT_DER_MAX) {
		err_set(e, EX_USAGE, "--escrow %s: a certificate of %zu bytes "
			"is too large to keep in the blob (%d at most)", arg,
			x->keys[x->nkeys].derlen, ESCROW_RCPT_DER_MAX);
		pubkey_free(&x->keys[x->nkeys]);
		return EX_USAGE;
	}
	x->keyarg[x->nkeys++] = arg;
	return 0;
}

int escrow_keep_code(struct escrow *x, const char *code, size_t n,
		     struct tberr *e)
{
	if (recovery_parse(code, n, x->code, e))
		return EX_USAGE;
	x->want_code = 1;
	x->code_given = 1;
	return 0;
}

int escrow_wanted(const struct escrow *x)
{
	return x->nkeys > 0 || x->nage > 0 || x->want_code;
}

void escrow_want_code(struct escrow *x)
{
	x->want_code = 1;
}

void escrow_recipients(const struct escrow *x, size_t *rsa, size_t *ec,
		       size_t *age, int *code)
{
	size_t i;

	*rsa = *ec = 0;
	for (i = 0; i < x->nkeys; i++)
		*(x->keys[i].type == KEY_RSA ? rsa : ec) += 1;
	*age = x->nage;
	*code = x->want_code;
}

int escrow_stored(const struct escrow *x)
{
	return x->rec != NULL;
}

/* Not data-dependent in time: the whole length is compared. */
static int ct_differ(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= (uint8_t)(a[i] ^ b[i]);
	return d != 0;
}

/* The record's HMAC-SHA256: key PBKDF2-HMAC-SHA256(secret, salt, iter,
 * 32); message the domain string (with its NUL), then the record up to
 * its MAC and the index, each after its length (u32). */
static int rcpt_mac(const uint8_t *secret, size_t slen, const uint8_t *salt,
		    uint32_t iter, const uint8_t *rec, size_t reclen,
		    const uint8_t *idx, size_t idxlen, uint8_t mac[RCPT_MAC])
{
	uint8_t k[32], be[4];
	struct hmac_ctx *h;

	if (pbkdf2_hmac(TPM2_ALG_SHA256, secret, slen, salt,
			ESCROW_RCPT_SALT, iter, k, sizeof(k)) ||
	    !(h = hmac_new(TPM2_ALG_SHA256, k, sizeof(k)))) {
		explicit_bzero(k, sizeof(k));
		return -1;
	}
	explicit_bzero(k, sizeof(k));
	hmac_update(h, rcpt_domain, sizeof(rcpt_domain));
	be[0] = (uint8_t)(reclen >> 24);
	be[1] = (uint8_t)(reclen >> 16);
	be[2] = (uint8_t)(reclen >> 8);
	be[3] = (uint8_t)reclen;
	hmac_update(h, be, 4);
	hmac_update(h, rec, reclen);
	be[0] = (uint8_t)(idxlen >> 24);
	be[1] = (uint8_t)(idxlen >> 16);
	be[2] = (uint8_t)(idxlen >> 8);
	be[3] = (uint8_t)idxlen;
	hmac_update(h, be, 4);
	hmac_update(h, idx, idxlen);
	hmac_final(h, mac);
	return 0;
}

/* The recipients record, after the index (docs/blob-format.md): magic,
 * version, iterations, salt, count, then each recipient's kind, length
 * and bytes, then the HMAC. */
static int make_record(struct escrow *x, const uint8_t *data, size_t len,
		       struct tberr *e)
{
	uint8_t *der[ESCROW_MAX] = { NULL };
	size_t derlen[ESCROW_MAX], i, all = RCPT_HEAD + RCPT_MAC;
	uint8_t salt[ESCROW_RCPT_SALT];
	int cert[ESCROW_MAX], rc = EX_FAIL;
	struct tb b;

	if (len < ESCROW_RCPT_SECRET_MIN || x->nkeys + x->nage == 0)
		return 0;
	for (i = 0; i < x->nkeys; i++) {
		if (x509_public_der(&x->keys[i], &der[i], &derlen[i],
				    &cert[i]) ||
		    derlen[i] > ESCROW_RCPT_DER_MAX) {
			err_set(e, EX_FAIL, "escrow: encoding recipient %s "
				"for the blob failed", x->keyarg[i] ?
				x->keyarg[i] : "");
			goto out;
		}
		all += 3 + derlen[i];
	}
	all += x->nage * (3 + AGE_KEY);
	if (rng_bytes(salt, sizeof(salt))) {
		err_set(e, EX_FAIL, "no random bytes for the escrow "
			"recipients' salt");
		goto out;
	}
	if (!(x->rec = malloc(all))) {
		err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	tb_init(&b, x->rec, all);
	tb_put_bytes(&b, RCPT_MAGIC, 4);
	tb_put_u16(&b, ESCROW_RCPT_VERSION);
	tb_put_u32(&b, ESCROW_RCPT_ITER);
	tb_put_bytes(&b, salt, sizeof(salt));
	tb_put_u16(&b, (uint16_t)(x->nkeys + x->nage));
	for (i = 0; i < x->nkeys; i++) {
		tb_put_u8(&b, cert[i] ? RCPT_CERT : RCPT_SPKI);
		tb_put_u16(&b, (uint16_t)derlen[i]);
		tb_put_bytes(&b, der[i], derlen[i]);
	}
	for (i = 0; i < x->nage; i++) {
		tb_put_u8(&b, RCPT_AGE);
		tb_put_u16(&b, AGE_KEY);
		tb_put_bytes(&b, x->age[i], AGE_KEY);
	}
	if (tb_err(&b) || b.len != all - RCPT_MAC ||
	    rcpt_mac(data, len, salt, ESCROW_RCPT_ITER, x->rec, b.len,
		     x->blk, x->blklen, x->rec + b.len)) {
		err_set(e, EX_FAIL, "encoding the escrow recipients failed");
		free(x->rec);
		x->rec = NULL;
		goto out;
	}
	x->reclen = all;
	rc = 0;
out:
	for (i = 0; i < x->nkeys; i++)
		free(der[i]);
	return rc;
}

/* The index: magic, version, count, then each copy's kind, length and
 * SHA-256. */
static int make_block(struct escrow *x, struct tberr *e)
{
	size_t all = 8 + ((x->cms != NULL) + (x->agefile != NULL)) * ENTRY;
	uint8_t h[32];
	struct tb b;

	if (!(x->blk = malloc(all)))
		return err_set(e, EX_FAIL, "out of memory");
	tb_init(&b, x->blk, all);
	tb_put_bytes(&b, ESCROW_MAGIC, 4);
	tb_put_u16(&b, ESCROW_VERSION);
	tb_put_u16(&b, (uint16_t)((x->cms != NULL) + (x->agefile != NULL)));
	if (x->cms) {
		tb_put_u16(&b, ESCROW_CMS);
		tb_put_u32(&b, (uint32_t)x->cmslen);
		if (hash_buf(TPM2_ALG_SHA256, x->cms, x->cmslen, h))
			tb_fail(&b);
		tb_put_bytes(&b, h, 32);
	}
	if (x->agefile) {
		tb_put_u16(&b, ESCROW_AGE);
		tb_put_u32(&b, (uint32_t)x->agelen);
		if (hash_buf(TPM2_ALG_SHA256, x->agefile, x->agelen, h))
			tb_fail(&b);
		tb_put_bytes(&b, h, 32);
	}
	if (tb_err(&b) || b.len != all)
		return err_set(e, EX_FAIL, "encoding the escrow block failed");
	x->blklen = all;
	return 0;
}

int escrow_make(struct escrow *x, const uint8_t *data, size_t len,
		struct tberr *e)
{
	struct cms_rcpt r[CMS_RCPT_MAX];
	size_t i, n = 0;

	memset(r, 0, sizeof(r));
	for (i = 0; i < x->nkeys; i++)
		r[n++].key = &x->keys[i];
	if (x->want_code) {
		/* the code's KEK recipient, its salt as keyIdentifier */
		r[n].kekidlen = RECOVERY_SALT;
		if ((!x->code_given &&
		     rng_bytes(x->code, sizeof(x->code))) ||
		    rng_bytes(r[n].kekid, RECOVERY_SALT) ||
		    recovery_kek(x->code, r[n].kekid, RECOVERY_SALT,
				 r[n].kek)) {
			explicit_bzero(r, sizeof(r));
			return err_set(e, EX_FAIL, "no random bytes for the "
				       "recovery code");
		}
		recovery_format(x->code, x->code_text);
		strcat(x->code_text, "\n");
		n++;
	}
	if (n && cms_encrypt(r, n, data, len, &x->cms, &x->cmslen, e))
		return err_prefix(e, "escrow copy (CMS)");
	explicit_bzero(r, sizeof(r));
	if (x->nage && age_encrypt((const uint8_t (*)[AGE_KEY])x->age,
				   x->nage, data, len, &x->agefile,
				   &x->agelen, e))
		return err_prefix(e, "escrow copy (age)");
	return make_block(x, e) || make_record(x, data, len, e) ? e->code :
	       0;
}

int escrow_append(const struct escrow *x, char **pem, size_t *pemlen,
		  struct tberr *e)
{
	if (!x->blk)
		return 0;
	if (pem_append(pem, pemlen, ESCROW_LABEL, x->blk, x->blklen) ||
	    (x->cms && pem_append(pem, pemlen, ESCROW_CMS_LABEL, x->cms,
				  x->cmslen)) ||
	    (x->agefile && pem_append(pem, pemlen, ESCROW_AGE_LABEL,
				      x->agefile, x->agelen)) ||
	    (x->rec && pem_append(pem, pemlen, ESCROW_RCPT_LABEL, x->rec,
				  x->reclen)))
		return err_set(e, EX_FAIL, "out of memory");
	return 0;
}

/* PREFIX + suffix, malloc'd. */
static char *path_of(const char *prefix, const char *suffix)
{
	size_t n = strlen(prefix), m = strlen(suffix);
	char *p = malloc(n + m + 1);

	if (p) {
		memcpy(p, prefix, n);
		memcpy(p + n, suffix, m + 1);
	}
	return p;
}

int escrow_write_files(const struct escrow *x, const char *prefix,
		       int flags, struct tberr *e)
{
	char *path, *pem = NULL;
	size_t pemlen = 0;
	int rc = 0;

	if (x->cms) {
		if (!(path = path_of(prefix, ".cms")) ||
		    pem_encode("CMS", x->cms, x->cmslen, &pem, &pemlen, e)) {
			free(path);
			return err_set(e, EX_FAIL, "out of memory");
		}
		rc = file_write_atomic(path, pem, pemlen, flags, e);
		free(pem);
		free(path);
	}
	if (!rc && x->agefile) {
		if (!(path = path_of(prefix, ".age")))
			return err_set(e, EX_FAIL, "out of memory");
		rc = file_write_atomic(path, x->agefile, x->agelen, flags, e);
		free(path);
	}
	return rc;
}

int escrow_write_code(const struct escrow *x, const char *path, int flags,
		      struct tberr *e)
{
	if (!x->want_code || !x->code_text[0])
		return err_set(e, EX_FAIL, "no recovery code was made");
	return file_write_atomic(path, x->code_text, strlen(x->code_text),
				 flags | OUT_SECRET, e);
}

const char *escrow_code(const struct escrow *x)
{
	return x->want_code && x->code_text[0] ? x->code_text : NULL;
}

/* ---- reading ---- */

int escrow_parse(const uint8_t *p, size_t n, struct escrow_blk *b,
		 struct tberr *e)
{
	struct tb t;
	uint8_t magic[4];
	uint16_t ver, count, i, kind, last = 0;

	tb_init_read(&t, p, n);
	tb_get_bytes(&t, magic, 4);
	ver = tb_get_u16(&t);
	if (tb_err(&t) || memcmp(magic, ESCROW_MAGIC, 4))
		return err_set(e, EX_FAIL, "escrow: the %s block does not "
			       "start with TBES (damaged)", ESCROW_LABEL);
	if (ver != ESCROW_VERSION)
		return err_set(e, EX_FAIL, "escrow: format version %u is not "
			       "supported (this tpmbox reads version %d)", ver,
			       ESCROW_VERSION);
	count = tb_get_u16(&t);
	if (tb_err(&t) || count < 1 || count > 2)
		return err_set(e, EX_FAIL, "escrow: the index lists %u copies "
			       "(1 or 2 expected)", count);
	for (i = 0; i < count; i++) {
		struct escrow_copy *c;

		kind = tb_get_u16(&t);
		if (tb_err(&t) || kind <= last || kind > ESCROW_AGE)
			return err_set(e, EX_FAIL, "escrow: entry %u of the "
				       "index is of kind %u (1 CMS, then 2 "
				       "age, once each)", i + 1, kind);
		last = kind;
		c = kind == ESCROW_CMS ? &b->cms : &b->age;
		c->listed = 1;
		c->len = tb_get_u32(&t);
		tb_get_bytes(&t, c->sha256, 32);
	}
	if (tb_err(&t))
		return err_set(e, EX_FAIL, "escrow: the index is truncated");
	if (tb_left(&t))
		return err_set(e, EX_FAIL, "escrow: %zu bytes after the index",
			       tb_left(&t));
	return 0;
}

/* A PEM block that lib/base/pem.c did not read, as a message. */
static int pem_err(int r, const char *label, struct tberr *e)
{
	switch (r) {
	case PEM_NOEND:
		return err_set(e, EX_FAIL, "escrow: the %s block has no END "
			       "line (truncated?)", label);
	case PEM_TWICE:
		return err_set(e, EX_FAIL, "escrow: more than one %s block",
			       label);
	case PEM_BADB64:
		return err_set(e, EX_FAIL, "escrow: the %s block is not valid "
			       "base64 (damaged)", label);
	}
	return err_set(e, EX_FAIL, "out of memory");
}

/* One copy's PEM block, checked against its index entry. */
static int read_copy(const char *text, size_t n, const char *label,
		     struct escrow_copy *c, struct tberr *e)
{
	uint8_t h[32];
	int r = pem_block(text, n, label, &c->p, &c->n);

	if (r == PEM_NONE)
		return c->listed ? err_set(e, EX_FAIL, "escrow: the index "
					   "lists a copy in a %s block, and "
					   "there is none (cut off?)", label) :
		       0;
	if (r)
		return pem_err(r, label, e);
	if (!c->listed)
		return err_set(e, EX_FAIL, "escrow: a %s block the index does "
			       "not list", label);
	if (c->n != c->len ||
	    hash_buf(TPM2_ALG_SHA256, c->p, c->n, h) ||
	    memcmp(h, c->sha256, 32))
		return err_set(e, EX_FAIL, "escrow: the %s copy is not the "
			       "one the index lists (%zu bytes, %u listed; "
			       "damaged or altered)", label, c->n, c->len);
	return 0;
}

int escrow_read(const char *text, size_t n, struct escrow_blk *b,
		struct tberr *e)
{
	struct cms_msg *m;
	int r;

	memset(b, 0, sizeof(*b));
	r = pem_block(text, n, ESCROW_LABEL, &b->raw, &b->rawlen);
	if (r == PEM_NONE) {
		err_set(e, EX_NOENT, "the blob has no escrow copies (no %s "
			"block)", ESCROW_LABEL);
		err_hint(e, "only blobs sealed with --escrow or a recovery "
			 "code can be recovered without their TPM");
		return EX_NOENT;
	}
	if (r)
		return pem_err(r, ESCROW_LABEL, e);
	if (escrow_parse(b->raw, b->rawlen, b, e) ||
	    read_copy(text, n, ESCROW_CMS_LABEL, &b->cms, e) ||
	    read_copy(text, n, ESCROW_AGE_LABEL, &b->age, e))
		goto bad;
	/* Each copy's own structure, checked before anything is opened. */
	if (b->cms.p) {
		if (!(m = malloc(sizeof(*m)))) {
			err_set(e, EX_FAIL, "out of memory");
			goto bad;
		}
		r = cms_parse(b->cms.p, b->cms.n, m, e);
		free(m);
		if (r) {
			err_prefix(e, "escrow");
			goto bad;
		}
	}
	if (b->age.p && age_count(b->age.p, b->age.n) < 0) {
		err_set(e, EX_FAIL, "escrow: the age copy's header is damaged");
		goto bad;
	}
	return 0;
bad:
	escrow_blk_free(b);
	return e->code;
}

static void rcpts_free(struct escrow_rcpts *r)
{
	size_t i;

	if (r->keys)
		for (i = 0; i < r->nkeys; i++)
			pubkey_free(&r->keys[i]);
	free(r->keys);
	free(r->raw);
	memset(r, 0, sizeof(*r));
}

void escrow_blk_free(struct escrow_blk *b)
{
	rcpts_free(&b->rc);
	free(b->raw);
	free(b->cms.p);
	free(b->age.p);
	memset(b, 0, sizeof(*b));
}

/* ---- the recipients record ---- */

int escrow_rcpts_parse(const uint8_t *p, size_t n, struct escrow_rcpts *r,
		       struct tberr *e)
{
	struct tb t;
	uint8_t magic[4], kind, last = 0;
	uint16_t ver, count, i, len;
	const uint8_t *v;

	memset(r, 0, sizeof(*r));
	tb_init_read(&t, p, n);
	tb_get_bytes(&t, magic, 4);
	ver = tb_get_u16(&t);
	if (tb_err(&t) || memcmp(magic, RCPT_MAGIC, 4))
		return err_set(e, EX_FAIL, "escrow: the %s block does not "
			       "start with TBER (damaged)", ESCROW_RCPT_LABEL);
	if (ver != ESCROW_RCPT_VERSION)
		return err_set(e, EX_FAIL, "escrow: recipients record version "
			       "%u is not supported (this tpmbox reads version "
			       "%d)", ver, ESCROW_RCPT_VERSION);
	/* before anything is computed with it */
	r->iter = tb_get_u32(&t);
	if (tb_err(&t) || r->iter < ESCROW_RCPT_ITER_MIN ||
	    r->iter > ESCROW_RCPT_ITER_MAX)
		return err_set(e, EX_FAIL, "escrow: the recipients record asks "
			       "for %lu PBKDF2 iterations (%d to %d accepted; "
			       "altered blob?)", (unsigned long)r->iter,
			       ESCROW_RCPT_ITER_MIN, ESCROW_RCPT_ITER_MAX);
	r->salt = p + t.pos;
	tb_skip(&t, ESCROW_RCPT_SALT);
	count = tb_get_u16(&t);
	if (tb_err(&t) || count < 1 || count > 2 * ESCROW_MAX)
		return err_set(e, EX_FAIL, "escrow: the recipients record lists "
			       "%u recipients (1 to %d)", count,
			       2 * ESCROW_MAX);
	if (!(r->keys = calloc(ESCROW_MAX, sizeof(*r->keys))))
		return err_set(e, EX_FAIL, "out of memory");
	for (i = 0; i < count; i++) {
		kind = tb_get_u8(&t);
		len = tb_get_u16(&t);
		v = p + t.pos;
		tb_skip(&t, len);
		if (tb_err(&t))
			break;
		/* certificates and keys (in the order given), then age */
		if (kind < RCPT_CERT || kind > RCPT_AGE ||
		    (last == RCPT_AGE && kind != RCPT_AGE)) {
			err_set(e, EX_FAIL, "escrow: recipient %u of the record "
				"is of kind %u (1 certificate, 2 public key, "
				"then 3 age)", i + 1, kind);
			goto bad;
		}
		last = kind;
		if (kind == RCPT_AGE) {
			if (len != AGE_KEY || r->nage == ESCROW_MAX) {
				err_set(e, EX_FAIL, "escrow: age recipient %u of "
					"the record is damaged", i + 1);
				goto bad;
			}
			memcpy(r->age[r->nage++], v, AGE_KEY);
		} else if (r->nkeys == ESCROW_MAX ||
			   x509_read_der(kind == RCPT_CERT, v, len,
					 &r->keys[r->nkeys])) {
			err_set(e, EX_FAIL, "escrow: recipient %u of the record "
				"is not an RSA or EC %s", i + 1,
				kind == RCPT_CERT ? "certificate" :
				"public key");
			goto bad;
		} else {
			r->nkeys++;
		}
	}
	r->mac = p + t.pos;
	tb_skip(&t, RCPT_MAC);
	if (tb_err(&t)) {
		err_set(e, EX_FAIL, "escrow: the recipients record is "
			"truncated");
		goto bad;
	}
	if (tb_left(&t)) {
		err_set(e, EX_FAIL, "escrow: %zu bytes after the recipients "
			"record", tb_left(&t));
		goto bad;
	}
	return 0;
bad:
	rcpts_free(r);
	return EX_FAIL;
}

int escrow_read_rcpts(const char *text, size_t n, struct escrow_blk *b,
		      struct tberr *e)
{
	uint8_t *raw = NULL;
	size_t rawlen = 0;
	int r;

	rcpts_free(&b->rc);
	r = pem_block(text, n, ESCROW_RCPT_LABEL, &raw, &rawlen);
	if (r == PEM_NONE)
		return 0;
	if (r)
		return pem_err(r, ESCROW_RCPT_LABEL, e);
	if (!b->raw) {
		free(raw);
		return err_set(e, EX_FAIL, "escrow: a %s block and no %s "
			       "block", ESCROW_RCPT_LABEL, ESCROW_LABEL);
	}
	if ((r = escrow_rcpts_parse(raw, rawlen, &b->rc, e))) {
		free(raw);
		return r;
	}
	/* the record's pointers stay valid: raw is kept as parsed */
	b->rc.raw = raw;
	b->rc.rawlen = rawlen;
	return 0;
}

int escrow_rcpts_verify(struct escrow_blk *b, const uint8_t *secret,
			size_t len, struct tberr *e)
{
	struct escrow_rcpts *r = &b->rc;
	uint8_t mac[RCPT_MAC];
	int bad;

	r->verified = 0;
	if (!r->raw || !b->raw)
		return err_set(e, EX_FAIL, "escrow: no recipients record");
	if (len < ESCROW_RCPT_SECRET_MIN)
		return err_set(e, EX_FAIL, "escrow: a recipients record with a "
			       "secret of %zu bytes (seal writes none under "
			       "%d)", len, ESCROW_RCPT_SECRET_MIN);
	if (rcpt_mac(secret, len, r->salt, r->iter, r->raw,
		     r->rawlen - RCPT_MAC, b->raw, b->rawlen, mac))
		return err_set(e, EX_FAIL, "escrow: computing the recipients' "
			       "authenticator failed");
	bad = ct_differ(mac, r->mac, RCPT_MAC);
	explicit_bzero(mac, sizeof(mac));
	if (bad)
		return err_set(e, EX_FAIL, "escrow: the recipients do not "
			       "match the secret");
	r->verified = 1;
	return 0;
}

long escrow_secret_len(const struct escrow_blk *b)
{
	struct cms_msg *m;
	struct tberr e;
	long n = -1;

	if (!b->cms.p || !(m = malloc(sizeof(*m))))
		return -1;
	if (!cms_parse(b->cms.p, b->cms.n, m, &e))
		n = (long)m->ctlen;
	free(m);
	return n;
}

/* Whether x has key k / age recipient a already. */
static int has_key(const struct escrow *x, const struct pubkey *k)
{
	size_t i;

	for (i = 0; i < x->nkeys; i++)
		if (pubkey_same(&x->keys[i], k))
			return 1;
	return 0;
}

static int has_age(const uint8_t (*age)[AGE_KEY], size_t n,
		   const uint8_t *a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (memcmp(age[i], a, AGE_KEY) == 0)
			return 1;
	return 0;
}

int escrow_keep_stored(struct escrow *x, const struct escrow_blk *b,
		       const struct escrow *drop, size_t *kept,
		       size_t *dropped, struct tberr *e)
{
	const struct escrow_rcpts *r = &b->rc;
	size_t i, j;

	*kept = *dropped = 0;
	if (!r->verified)
		return err_set(e, EX_FAIL, "escrow: the recipients record is "
			       "not verified");
	/* what --drop-escrow names must be stored, and not given again */
	for (i = 0; drop && i < drop->nkeys; i++) {
		for (j = 0; j < r->nkeys; j++)
			if (pubkey_same(&r->keys[j], &drop->keys[i]))
				break;
		if (j == r->nkeys)
			return err_set(e, EX_USAGE, "--drop-escrow=%s: not one "
				       "of the old blob's recipients",
				       drop->keyarg[i]);
		if (has_key(x, &drop->keys[i]))
			return err_set(e, EX_USAGE, "--drop-escrow=%s is given "
				       "with --escrow too", drop->keyarg[i]);
	}
	for (i = 0; drop && i < drop->nage; i++) {
		if (!has_age((const uint8_t (*)[AGE_KEY])r->age, r->nage,
			     drop->age[i]))
			return err_set(e, EX_USAGE, "--drop-escrow=%s: not one "
				       "of the old blob's recipients",
				       drop->agearg[i]);
		if (has_age((const uint8_t (*)[AGE_KEY])x->age, x->nage,
			    drop->age[i]))
			return err_set(e, EX_USAGE, "--drop-escrow=%s is given "
				       "with --escrow too", drop->agearg[i]);
	}
	for (i = 0; i < r->nkeys; i++) {
		if (drop && has_key(drop, &r->keys[i])) {
			(*dropped)++;
			continue;
		}
		(*kept)++;
		if (has_key(x, &r->keys[i]))
			continue;
		if (x->nkeys == ESCROW_MAX)
			return err_set(e, EX_USAGE, "--escrow: at most %d "
				       "certificates or keys, with the old "
				       "blob's", ESCROW_MAX);
		if (x509_read_der(r->keys[i].is_cert, r->keys[i].der,
				  r->keys[i].derlen, &x->keys[x->nkeys]))
			return err_set(e, EX_FAIL, "out of memory");
		x->keyarg[x->nkeys++] = "(stored)";
	}
	for (i = 0; i < r->nage; i++) {
		if (drop && has_age((const uint8_t (*)[AGE_KEY])drop->age,
				    drop->nage, r->age[i])) {
			(*dropped)++;
			continue;
		}
		(*kept)++;
		if (has_age((const uint8_t (*)[AGE_KEY])x->age, x->nage,
			    r->age[i]))
			continue;
		if (x->nage == ESCROW_MAX)
			return err_set(e, EX_USAGE, "--escrow: at most %d age "
				       "recipients, with the old blob's",
				       ESCROW_MAX);
		memcpy(x->age[x->nage], r->age[i], AGE_KEY);
		x->agearg[x->nage++] = "(stored)";
	}
	return 0;
}

void escrow_count(const struct escrow_blk *b, struct escrow_counts *n)
{
	struct cms_msg *m = malloc(sizeof(*m));
	struct tberr e;

	memset(n, 0, sizeof(*n));
	if (b->cms.p && m && !cms_parse(b->cms.p, b->cms.n, m, &e)) {
		n->rsa = cms_count(m, CMS_KTRI);
		n->ec = cms_count(m, CMS_KARI);
		n->code = cms_count(m, CMS_KEKRI);
	}
	if (b->age.p && age_count(b->age.p, b->age.n) > 0)
		n->age = (size_t)age_count(b->age.p, b->age.n);
	free(m);
}

int escrow_covers(const struct escrow *x, const struct escrow_blk *b,
		  struct tberr *e)
{
	struct cms_msg *m = malloc(sizeof(*m));
	size_t i, j, nk = 0;
	long na = b->age.p ? age_count(b->age.p, b->age.n) : 0;

	if (!m)
		return err_set(e, EX_FAIL, "out of memory");
	if (b->cms.p && !cms_parse(b->cms.p, b->cms.n, m, e))
		for (i = 0; i < m->nri; i++) {
			if (m->ri[i].type != CMS_KTRI &&
			    m->ri[i].type != CMS_KARI)
				continue;
			for (j = 0; j < x->nkeys; j++)
				if (cms_names_key(m, i, &x->keys[j]))
					break;
			nk += j == x->nkeys;
		}
	free(m);
	if (nk || na > (long)x->nage)
		return err_set(e, EX_USAGE, "%zu RSA/EC recipient(s) of the "
			       "old blob are not among --escrow, and it has %ld "
			       "age recipient(s) for %zu given", nk, na,
			       x->nage);
	return 0;
}

/* What the blob holds, for a message: "CMS (2 RSA, 1 EC, a recovery
 * code), age (1 recipient)". */
void escrow_holds(const struct escrow_blk *b, char *out, size_t cap)
{
	struct cms_msg *m = malloc(sizeof(*m));
	struct tberr e;
	size_t o = 0;

	out[0] = '\0';
	if (b->cms.p && m && !cms_parse(b->cms.p, b->cms.n, m, &e))
		o += (size_t)snprintf(out, cap, "a CMS copy for %zu RSA key(s), "
				      "%zu EC key(s)%s", cms_count(m, CMS_KTRI),
				      cms_count(m, CMS_KARI),
				      cms_count(m, CMS_KEKRI) ?
				      " and a recovery code" : "");
	if (b->age.p && o < cap)
		snprintf(out + o, cap - o, "%san age copy for %ld "
			 "recipient(s)", o ? "; " : "",
			 age_count(b->age.p, b->age.n));
	free(m);
}

int escrow_open_keyfile(const struct escrow_blk *b, const char *path,
			uint8_t **out, size_t *outlen, struct tberr *e)
{
	uint8_t *key = NULL;
	size_t klen = 0;
	int rc;

	if (file_read(path, 1 << 20, &key, &klen, e))
		return err_prefix(e, "key file");
	rc = escrow_open_key(b, (const char *)key, klen, out, outlen, e);
	explicit_bzero(key, klen);
	free(key);
	return rc;
}

int escrow_open_key(const struct escrow_blk *b, const char *key,
		    size_t keylen, uint8_t **out, size_t *outlen,
		    struct tberr *e)
{
	char what[160];
	int rc;

	*out = NULL;
	escrow_holds(b, what, sizeof(what));
	if (memmem(key, keylen, "-----BEGIN ", 11)) {
		struct privkey k;
		struct cms_msg *m;

		if (x509_read_private(key, keylen, &k, e))
			return err_prefix(e, "the key file");
		if (!b->cms.p) {
			privkey_free(&k);
			return err_set(e, EX_AUTH, "the blob has no CMS copy "
				       "for an RSA or EC key (it holds %s)",
				       what);
		}
		if (!(m = malloc(sizeof(*m)))) {
			privkey_free(&k);
			return err_set(e, EX_FAIL, "out of memory");
		}
		rc = cms_parse(b->cms.p, b->cms.n, m, e) ? EX_FAIL :
		     cms_open_key(m, &k, out, outlen, e);
		free(m);
		privkey_free(&k);
	} else {
		uint8_t ids[ESCROW_MAX][AGE_KEY];
		size_t nids;

		if (age_identities(key, keylen, ids, ESCROW_MAX, &nids, e))
			return err_prefix(e, "the key file is neither a PEM "
					  "private key nor age identities");
		if (!b->age.p) {
			explicit_bzero(ids, sizeof(ids));
			return err_set(e, EX_AUTH, "the blob has no age copy "
				       "(it holds %s)", what);
		}
		rc = age_decrypt(b->age.p, b->age.n,
				 (const uint8_t (*)[AGE_KEY])ids, nids, out,
				 outlen, e);
		explicit_bzero(ids, sizeof(ids));
	}
	if (rc == EX_AUTH)
		err_hint(e, "the blob holds %s", what);
	return rc;
}

int escrow_open_code(const struct escrow_blk *b, const char *code,
		     size_t codelen, uint8_t **out, size_t *outlen,
		     struct tberr *e)
{
	uint8_t c[RECOVERY_BYTES], kek[32];
	struct cms_msg *m;
	const uint8_t *id;
	size_t i, idlen, nk;
	int rc = EX_AUTH;

	*out = NULL;
	if (recovery_parse(code, codelen, c, e))
		return EX_USAGE;
	if (!b->cms.p || !(m = malloc(sizeof(*m)))) {
		explicit_bzero(c, sizeof(c));
		return b->cms.p ? err_set(e, EX_FAIL, "out of memory") :
		       err_set(e, EX_AUTH, "the blob has no recovery-code "
			       "copy");
	}
	if (cms_parse(b->cms.p, b->cms.n, m, e)) {
		rc = EX_FAIL;
		goto out;
	}
	nk = cms_count(m, CMS_KEKRI);
	if (!nk) {
		rc = err_set(e, EX_AUTH, "the blob has no recovery-code copy");
		goto out;
	}
	for (i = 0; i < nk && rc == EX_AUTH; i++) {
		if (cms_kekid(m, i, &id, &idlen) ||
		    recovery_kek(c, id, idlen, kek)) {
			rc = err_set(e, EX_FAIL, "escrow: damaged recovery-code "
				     "recipient");
			break;
		}
		rc = cms_open_kek(m, i, kek, out, outlen, e);
	}
	if (rc == EX_AUTH)
		err_set(e, EX_AUTH, "the recovery code is wrong: every group "
			"passes its check, but the code does not open the "
			"escrow copy (a code of another blob, or groups "
			"swapped?)");
out:
	explicit_bzero(c, sizeof(c));
	explicit_bzero(kek, sizeof(kek));
	free(m);
	return rc;
}
