/* Escrow copies: recipients, making the copies, the blob's block, and
 * opening a copy (include/escrow.h). */
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "buf.h"
#include "cms.h"
#include "escrow.h"
#include "file.h"
#include "pem.h"
#include "crypto/pk.h"
#include "recovery.h"
#include "x509.h"

#define ESCROW_MAGIC "TBES"
#define ESCROW_FILE_MAX (1u << 20)	/* a recipient's file */

struct escrow {
	struct pubkey keys[ESCROW_MAX];	/* CMS recipients */
	size_t nkeys;
	uint8_t age[ESCROW_MAX][AGE_KEY];	/* age X25519 recipients */
	size_t nage;
	uint8_t *cms, *agefile;		/* the copies made */
	size_t cmslen, agelen;
	uint8_t *blk;			/* the block */
	size_t blklen;
	int want_code;			/* a recovery code: */
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
	x->nage++;
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
	x->nkeys++;
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

/* The block: magic, version, count, then each copy's kind, length and
 * bytes. */
static int make_block(struct escrow *x, struct tberr *e)
{
	size_t all = 8 + (x->cms ? 6 + x->cmslen : 0) +
		     (x->agefile ? 6 + x->agelen : 0);
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
		tb_put_bytes(&b, x->cms, x->cmslen);
	}
	if (x->agefile) {
		tb_put_u16(&b, ESCROW_AGE);
		tb_put_u32(&b, (uint32_t)x->agelen);
		tb_put_bytes(&b, x->agefile, x->agelen);
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
		if (rng_bytes(x->code, sizeof(x->code)) ||
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
	return make_block(x, e);
}

int escrow_append(const struct escrow *x, char **pem, size_t *pemlen,
		  struct tberr *e)
{
	if (!x->blk)
		return 0;
	if (pem_append(pem, pemlen, ESCROW_LABEL, x->blk, x->blklen))
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
