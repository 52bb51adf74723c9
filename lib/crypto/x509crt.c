/* X.509 certificates with mbedTLS (include/crypto/x509crt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/error.h>
#include <mbedtls/x509_crt.h>

#include "crypto/x509crt.h"

#if defined(MBEDTLS_X509_CRT_PARSE_C)

struct crtset {
	mbedtls_x509_crt c;
	size_t n;
};

static void fmt_time(const mbedtls_x509_time *t, char *out, size_t n)
{
	snprintf(out, n, "%04u-%02u-%02uT%02u:%02u:%02uZ",
		 (unsigned)t->year % 10000u, (unsigned)t->mon % 100u,
		 (unsigned)t->day % 100u, (unsigned)t->hour % 100u,
		 (unsigned)t->min % 100u, (unsigned)t->sec % 100u);
}

/* The text of an mbedTLS error code. */
static void why(int ret, char *out, size_t n)
{
	char b[160];

	mbedtls_strerror(ret, b, sizeof(b));
	snprintf(out, n, "%s", b);
}

int crt_parse(const uint8_t *der, size_t n, struct crt_info *ci,
	      struct tberr *e)
{
	mbedtls_x509_crt c;
	char b[160];
	int ret;

	memset(ci, 0, sizeof(*ci));
	mbedtls_x509_crt_init(&c);
	ret = mbedtls_x509_crt_parse_der(&c, der, n);
	if (ret || c.raw.len != n) {
		mbedtls_x509_crt_free(&c);
		why(ret, b, sizeof(b));
		return err_set(e, EX_FAIL, "not an X.509 certificate "
			       "mbedTLS reads (%s)", ret ? b : "length");
	}
	if (mbedtls_x509_dn_gets(ci->subject, sizeof(ci->subject),
				 &c.subject) < 0)
		snprintf(ci->subject, sizeof(ci->subject), "(too long)");
	if (mbedtls_x509_dn_gets(ci->issuer, sizeof(ci->issuer),
				 &c.issuer) < 0)
		snprintf(ci->issuer, sizeof(ci->issuer), "(too long)");
	if (mbedtls_x509_serial_gets(ci->serial, sizeof(ci->serial),
				     &c.serial) < 0)
		snprintf(ci->serial, sizeof(ci->serial), "(too long)");
	fmt_time(&c.valid_from, ci->not_before, sizeof(ci->not_before));
	fmt_time(&c.valid_to, ci->not_after, sizeof(ci->not_after));
	ci->spki_off = (size_t)(c.pk_raw.p - c.raw.p);
	ci->spki_len = c.pk_raw.len;
	mbedtls_x509_crt_free(&c);
	return 0;
}

int crt_available(void)
{
	return 1;
}

struct crtset *crtset_new(void)
{
	struct crtset *s = calloc(1, sizeof(*s));

	if (s)
		mbedtls_x509_crt_init(&s->c);
	return s;
}

void crtset_free(struct crtset *s)
{
	if (!s)
		return;
	mbedtls_x509_crt_free(&s->c);
	free(s);
}

size_t crtset_count(const struct crtset *s)
{
	return s->n;
}

/* How many certificates a chain holds (mbedTLS keeps an empty head). */
static size_t chain_len(const mbedtls_x509_crt *c)
{
	size_t n = 0;

	for (; c && c->raw.len; c = c->next)
		n++;
	return n;
}

int crtset_add(struct crtset *s, const uint8_t *data, size_t n,
	       size_t *added, struct tberr *e)
{
	size_t before = chain_len(&s->c);
	char b[160];
	int ret;

	*added = 0;
	if (n >= 11 && memmem(data, n, "-----BEGIN ", 11)) {
		/* mbedTLS reads PEM from a NUL-terminated buffer */
		uint8_t *z = malloc(n + 1);

		if (!z)
			return err_set(e, EX_FAIL, "out of memory");
		memcpy(z, data, n);
		z[n] = 0;
		ret = mbedtls_x509_crt_parse(&s->c, z, n + 1);
		free(z);
		if (ret > 0)
			return err_set(e, EX_USAGE, "%d of its PEM "
				       "certificates cannot be read", ret);
	} else {
		ret = mbedtls_x509_crt_parse_der(&s->c, data, n);
	}
	if (ret < 0) {
		why(ret, b, sizeof(b));
		return err_set(e, EX_USAGE, "no certificate mbedTLS reads "
			       "(%s)", b);
	}
	*added = chain_len(&s->c) - before;
	if (!*added)
		return err_set(e, EX_USAGE, "no certificate in it");
	s->n += *added;
	return 0;
}

static int self_signed(const mbedtls_x509_crt *c)
{
	return c->subject_raw.len == c->issuer_raw.len &&
	       memcmp(c->subject_raw.p, c->issuer_raw.p,
		      c->subject_raw.len) == 0;
}

/* Remember the subject of the certificate highest in the chain: the
 * anchor the verification ended at. */
struct top {
	int depth;
	char *subject;
	size_t len;
};

static int on_cert(void *arg, mbedtls_x509_crt *c, int depth,
		   uint32_t *flags)
{
	struct top *t = arg;

	(void)flags;
	if (depth >= t->depth) {
		t->depth = depth;
		if (mbedtls_x509_dn_gets(t->subject, t->len, &c->subject) < 0)
			snprintf(t->subject, t->len, "(too long)");
	}
	return 0;
}

int crt_verify(const uint8_t *leaf, size_t n, const struct crtset *cas,
	       const struct crtset *extra, char *anchor, size_t anchorlen,
	       struct tberr *e)
{
	mbedtls_x509_crt chain, trust;
	const mbedtls_x509_crt *c;
	struct top top = { -1, anchor, anchorlen };
	uint32_t flags = 0;
	int ret, roots = 0, rc = 0;
	char info[512], *nl;

	mbedtls_x509_crt_init(&chain);
	mbedtls_x509_crt_init(&trust);
	snprintf(anchor, anchorlen, "(none)");
	for (c = &cas->c; c && c->raw.len; c = c->next)
		roots += self_signed(c);
	if ((ret = mbedtls_x509_crt_parse_der(&chain, leaf, n)))
		goto parse;
	/* the leaf's chain: every non-anchor the caller has */
	for (c = &cas->c; c && c->raw.len; c = c->next) {
		int anchor_c = !roots || self_signed(c);

		ret = mbedtls_x509_crt_parse_der(anchor_c ? &trust : &chain,
						 c->raw.p, c->raw.len);
		if (ret)
			goto parse;
	}
	for (c = extra ? &extra->c : NULL; c && c->raw.len; c = c->next)
		if ((ret = mbedtls_x509_crt_parse_der(&chain, c->raw.p,
						      c->raw.len)))
			goto parse;
	ret = mbedtls_x509_crt_verify(&chain, &trust, NULL, NULL, &flags,
				      on_cert, &top);
	if (ret) {
		if (flags) {
			mbedtls_x509_crt_verify_info(info, sizeof(info), "",
						     flags);
			/* one line: the reasons joined */
			while ((nl = strchr(info, '\n')))
				*nl = nl[1] ? ';' : 0;
		} else {
			why(ret, info, sizeof(info));
		}
		rc = err_set(e, EX_FAIL, "%s", info);
	}
	goto out;
parse:
	why(ret, info, sizeof(info));
	rc = err_set(e, EX_FAIL, "a certificate cannot be read (%s)", info);
out:
	mbedtls_x509_crt_free(&chain);
	mbedtls_x509_crt_free(&trust);
	return rc;
}

#else	/* a build whose mbedTLS has no X.509 (make tiny) */

static int none(struct tberr *e)
{
	return err_set(e, EX_FAIL, "this build has no X.509 certificates");
}

int crt_parse(const uint8_t *der, size_t n, struct crt_info *ci,
	      struct tberr *e)
{
	(void)der; (void)n;
	memset(ci, 0, sizeof(*ci));
	return none(e);
}

int crt_available(void) { return 0; }
struct crtset *crtset_new(void) { return NULL; }
void crtset_free(struct crtset *s) { (void)s; }
size_t crtset_count(const struct crtset *s) { (void)s; return 0; }

int crtset_add(struct crtset *s, const uint8_t *data, size_t n,
	       size_t *added, struct tberr *e)
{
	(void)s; (void)data; (void)n;
	*added = 0;
	return none(e);
}

int crt_verify(const uint8_t *leaf, size_t n, const struct crtset *cas,
	       const struct crtset *extra, char *anchor, size_t anchorlen,
	       struct tberr *e)
{
	(void)leaf; (void)n; (void)cas; (void)extra;
	snprintf(anchor, anchorlen, "(none)");
	return none(e);
}

#endif
