/* X.509 certificates through mbedTLS's X.509 layer: reading one
 * certificate's fields, sets of certificates (PEM with several, or DER),
 * and verifying a chain to a trust anchor (RFC 5280 path validation as
 * mbedTLS does it: signatures, validity dates, CA basic constraints,
 * key usage, mbedTLS's default profile of algorithms). */
#ifndef TPMBOX_CRYPTO_X509CRT_H
#define TPMBOX_CRYPTO_X509CRT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct crt_info {
	char subject[256], issuer[256];	/* RFC 4514-like, mbedTLS's form */
	char serial[100];		/* hex bytes, ':'-separated */
	char not_before[24], not_after[24];	/* YYYY-MM-DDThh:mm:ssZ */
	size_t spki_off, spki_len;	/* SubjectPublicKeyInfo in the DER */
};

/* Read one DER certificate (exactly n bytes).  Exit 1 "why" when it is
 * not one mbedTLS reads. */
int crt_parse(const uint8_t *der, size_t n, struct crt_info *ci,
	      struct tberr *e);

/* 1 when this build reads certificates (0: make tiny's mbedTLS has no
 * X.509; every function below then fails). */
int crt_available(void);
/* A set of certificates. */
struct crtset;
struct crtset *crtset_new(void);
void crtset_free(struct crtset *s);
/* Add the certificates in data: PEM (every CERTIFICATE block; one that
 * does not read is an error) or one DER certificate.  *added gets how
 * many.  Exit 2 "why" when data holds none or a bad one. */
int crtset_add(struct crtset *s, const uint8_t *data, size_t n,
	       size_t *added, struct tberr *e);
size_t crtset_count(const struct crtset *s);

/* Verify the DER certificate leaf: the trust anchors are the
 * self-signed certificates of cas (every one of cas when none is
 * self-signed), the intermediates the others of cas and those of extra
 * (may be NULL).  0 with the anchor's subject in anchor; exit 1 with
 * mbedTLS's reasons (e->msg "why"). */
int crt_verify(const uint8_t *leaf, size_t n, const struct crtset *cas,
	       const struct crtset *extra, char *anchor, size_t anchorlen,
	       struct tberr *e);

#endif
