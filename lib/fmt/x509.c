/* Certificates, public and private keys in PEM (include/fmt/x509.h). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/pem.h"
#include "crypto/ecdh.h"
#include "crypto/pk.h"
#include "fmt/x509.h"

/* Take one TLV of this tag and report where it lies, whole. */
static int der_span(struct tb *b, uint8_t tag, const uint8_t **p,
		    size_t *n)
{
	size_t at = b->pos;
	struct tb s;

	if (der_get(b, tag, &s))
		return -1;
	*p = b->p + at;
	*n = b->pos - at;
	return 0;
}

/* RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } */
static int read_rsa_pub(struct tb *b, struct pubkey *k)
{
	struct tb seq;

	if (der_get(b, DER_SEQ, &seq) || tb_left(b) ||
	    der_get_mag(&seq, &k->n, &k->nlen) ||
	    der_get_mag(&seq, &k->e, &k->elen) || tb_left(&seq))
		return -1;
	k->type = KEY_RSA;
	return 0;
}

int x509_spki(const uint8_t *der, size_t len, struct pubkey *k)
{
	struct tb b, spki, alg, oid, bits;

	tb_init_read(&b, der, len);
	if (der_get(&b, DER_SEQ, &spki) || tb_left(&b) ||
	    der_get(&spki, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid) ||
	    der_get(&spki, DER_BITS, &bits) || tb_left(&spki) ||
	    tb_get_u8(&bits) != 0 || tb_err(&bits))
		return -1;	/* a key is a whole number of bytes */
	k->bitslen = tb_left(&bits);
	k->bits = bits.p + bits.pos;
	if (der_key_alg(&oid, &alg, &k->curve))
		return -1;
	if (!k->curve)
		return read_rsa_pub(&bits, k);
	k->type = KEY_EC;
	k->point = k->bits;
	k->pointlen = k->bitslen;
	return ec_point_check(k->curve, k->point, k->pointlen) ? 0 : -1;
}

/* Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm,
 * signatureValue }; tbsCertificate ::= SEQUENCE { [0] version OPTIONAL,
 * serialNumber, signature, issuer, validity, subject,
 * subjectPublicKeyInfo, ... } */
static int read_cert(const uint8_t *der, size_t len, struct pubkey *k)
{
	struct tb b, cert, tbs, skip;
	const uint8_t *spki;
	size_t spkilen;

	tb_init_read(&b, der, len);
	if (der_get(&b, DER_SEQ, &cert) || tb_left(&b) ||
	    der_get(&cert, DER_SEQ, &tbs))
		return -1;
	if (der_peek(&tbs) == DER_CTX(0) && der_get(&tbs, DER_CTX(0), &skip))
		return -1;
	if (der_span(&tbs, DER_INT, &k->serial, &k->seriallen) ||
	    der_get(&tbs, DER_SEQ, &skip) ||
	    der_span(&tbs, DER_SEQ, &k->issuer, &k->issuerlen) ||
	    der_get(&tbs, DER_SEQ, &skip) || der_get(&tbs, DER_SEQ, &skip) ||
	    der_span(&tbs, DER_SEQ, &spki, &spkilen))
		return -1;
	k->is_cert = 1;
	return x509_spki(spki, spkilen, k);
}

int x509_read_public(const char *text, size_t n, struct pubkey *k,
		     struct tberr *e)
{
	static const char *const labels[] = {
		"CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY" };
	size_t i;
	int r = PEM_NONE;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < 3 && r == PEM_NONE; i++)
		r = pem_block(text, n, labels[i], &k->der, &k->derlen);
	if (r == PEM_NOMEM)
		return err_set(e, EX_FAIL, "out of memory");
	if (r == PEM_NONE)
		return err_set(e, EX_USAGE, "not a PEM certificate or public "
			       "key");
	if (r != PEM_OK)
		return err_set(e, EX_USAGE, "the %s PEM block is damaged (%s)",
			       labels[i - 1], r == PEM_NOEND ? "no END line" :
			       r == PEM_TWICE ? "more than one" :
			       "not valid base64");
	switch (i - 1) {
	case 0:
		r = read_cert(k->der, k->derlen, k);
		break;
	case 1:
		r = x509_spki(k->der, k->derlen, k);
		break;
	default: {
		struct tb b;

		tb_init_read(&b, k->der, k->derlen);
		r = read_rsa_pub(&b, k);
		k->bits = k->der;
		k->bitslen = k->derlen;
	}
	}
	if (r) {
		pubkey_free(k);
		return err_set(e, EX_USAGE, "not an RSA or EC (P-256, P-384) "
			       "%s", i == 1 ? "certificate" : "public key");
	}
	return 0;
}

int x509_read_der(int is_cert, const uint8_t *der, size_t n,
		  struct pubkey *k)
{
	memset(k, 0, sizeof(*k));
	if (!n || !(k->der = malloc(n)))
		return -1;
	memcpy(k->der, der, n);
	k->derlen = n;
	if ((is_cert ? read_cert(k->der, n, k) : x509_spki(k->der, n, k))) {
		pubkey_free(k);
		return -1;
	}
	return 0;
}

int x509_public_der(const struct pubkey *k, uint8_t **der, size_t *n,
		    int *is_cert)
{
	uint32_t ev;

	*is_cert = k->is_cert;
	/* a PKCS#1 RSAPublicKey is its own subjectPublicKey bits */
	if (k->is_cert || k->bits != k->der) {
		if (!(*der = malloc(k->derlen)))
			return -1;
		memcpy(*der, k->der, k->derlen);
		*n = k->derlen;
		return 0;
	}
	if (k->type != KEY_RSA || pubkey_rsa_exp(k, &ev))
		return -1;
	return pk_der_rsa(k->n, k->nlen, ev, der, n);
}

int pubkey_same(const struct pubkey *a, const struct pubkey *b)
{
	return a->type == b->type && a->bitslen == b->bitslen &&
	       memcmp(a->bits, b->bits, a->bitslen) == 0;
}

void pubkey_free(struct pubkey *k)
{
	free(k->der);
	memset(k, 0, sizeof(*k));
}

size_t pubkey_rsa_bits(const struct pubkey *k)
{
	size_t bits;
	uint8_t top;

	if (k->type != KEY_RSA || !k->nlen)
		return 0;
	bits = 8 * k->nlen;
	for (top = k->n[0]; !(top & 0x80) && bits; top <<= 1)
		bits--;
	return bits;
}

int pubkey_rsa_exp(const struct pubkey *k, uint32_t *ev)
{
	size_t i;

	if (k->type != KEY_RSA || k->elen > 4)
		return -1;
	for (*ev = 0, i = 0; i < k->elen; i++)
		*ev = *ev << 8 | k->e[i];
	return 0;
}

/* RSAPrivateKey ::= SEQUENCE { version 0, n, e, d, p, q, dp, dq, qinv } */
static int read_rsa_priv(struct tb *b, struct privkey *k)
{
	struct tb seq;
	const uint8_t *v;
	size_t vl, i;
	uint32_t ver;

	if (der_get(b, DER_SEQ, &seq) || tb_left(b) ||
	    der_get_uint(&seq, &ver) || ver != 0 ||
	    der_get_mag(&seq, &k->rsa.n, &k->rsa.nlen) ||
	    der_get_mag(&seq, &k->rsa.e, &k->rsa.elen) ||
	    der_get_mag(&seq, &k->rsa.d, &k->rsa.dlen) ||
	    der_get_mag(&seq, &k->rsa.p, &k->rsa.plen) ||
	    der_get_mag(&seq, &k->rsa.q, &k->rsa.qlen))
		return -1;
	for (i = 0; i < 3; i++)		/* the CRT values, recomputed */
		if (der_get_mag(&seq, &v, &vl))
			return -1;
	if (tb_left(&seq))
		return -1;
	k->type = KEY_RSA;
	return rsa_priv_check(&k->rsa) ? 0 : -1;
}

/* ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING,
 * [0] ECParameters OPTIONAL, [1] publicKey BIT STRING OPTIONAL }.
 * curve: known from PKCS#8 (0: [0] must name it). */
static int read_ec_priv(struct tb *b, struct privkey *k, uint16_t curve)
{
	struct tb seq, d, ctx, oid, pub;
	uint8_t q[EC_POINT_MAX];
	uint32_t ver;
	uint16_t named = 0;

	if (der_get(b, DER_SEQ, &seq) || tb_left(b) ||
	    der_get_uint(&seq, &ver) || ver != 1 ||
	    der_get(&seq, DER_OCTETS, &d))
		return -1;
	if (der_peek(&seq) == DER_CTX(0)) {
		if (der_get(&seq, DER_CTX(0), &ctx) ||
		    der_get(&ctx, DER_OID, &oid) || tb_left(&ctx) ||
		    !(named = der_curve(&oid)))
			return -1;
	}
	if (curve && named && named != curve)
		return -1;
	if (!(curve = curve ? curve : named) || d.len != ec_bytes(curve))
		return -1;
	if (ec_public(curve, d.p, d.len, q))
		return -1;
	if (der_peek(&seq) == DER_CTX(1)) {
		/* The public key, when given, must be the scalar's. */
		if (der_get(&seq, DER_CTX(1), &ctx) ||
		    der_get(&ctx, DER_BITS, &pub) || tb_left(&ctx) ||
		    tb_get_u8(&pub) != 0 || tb_left(&pub) != 1 + 2 * d.len ||
		    memcmp(pub.p + pub.pos, q, 1 + 2 * d.len))
			return -1;
	}
	explicit_bzero(q, sizeof(q));
	if (tb_left(&seq))
		return -1;
	k->type = KEY_EC;
	k->curve = curve;
	k->d = d.p;
	k->dlen = d.len;
	return 0;
}

/* PrivateKeyInfo ::= SEQUENCE { version 0 or 1, AlgorithmIdentifier,
 * privateKey OCTET STRING, [0] attributes OPTIONAL, [1] publicKey
 * OPTIONAL } */
static int read_pkcs8(struct tb *b, struct privkey *k)
{
	struct tb seq, alg, oid, key;
	uint32_t ver;
	uint16_t c;

	if (der_get(b, DER_SEQ, &seq) || tb_left(b) ||
	    der_get_uint(&seq, &ver) || ver > 1 ||
	    der_get(&seq, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid) ||
	    der_get(&seq, DER_OCTETS, &key))
		return -1;
	/* attributes and the public key are not needed: skipped */
	if (der_key_alg(&oid, &alg, &c))
		return -1;
	if (!c)
		return read_rsa_priv(&key, k);
	return read_ec_priv(&key, k, c);
}

int x509_read_private(const char *text, size_t n, struct privkey *k,
		      struct tberr *e)
{
	static const char *const labels[] = {
		"PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY" };
	size_t i;
	struct tb b;
	int r = PEM_NONE;

	memset(k, 0, sizeof(*k));
	if (memmem(text, n, "-----BEGIN ENCRYPTED PRIVATE KEY-----", 37) ||
	    memmem(text, n, "Proc-Type: 4,ENCRYPTED", 22)) {
		err_set(e, EX_USAGE, "the private key is encrypted");
		err_hint(e, "give it decrypted on stdin: openssl pkey -in "
			 "KEY | tpmbox recover -k - ...");
		return EX_USAGE;
	}
	for (i = 0; i < 3 && r == PEM_NONE; i++)
		r = pem_block(text, n, labels[i], &k->der, &k->derlen);
	if (r == PEM_NOMEM)
		return err_set(e, EX_FAIL, "out of memory");
	if (r == PEM_NONE)
		return err_set(e, EX_USAGE, "not a PEM private key");
	if (r != PEM_OK)
		return err_set(e, EX_USAGE, "the %s PEM block is damaged (%s)",
			       labels[i - 1], r == PEM_NOEND ? "no END line" :
			       r == PEM_TWICE ? "more than one" :
			       "not valid base64");
	tb_init_read(&b, k->der, k->derlen);
	r = i == 1 ? read_pkcs8(&b, k) : i == 2 ? read_rsa_priv(&b, k) :
	    read_ec_priv(&b, k, 0);
	if (r) {
		privkey_free(k);
		return err_set(e, EX_USAGE, "not an RSA or EC (P-256, P-384) "
			       "private key");
	}
	return 0;
}

void privkey_free(struct privkey *k)
{
	if (k->der) {
		explicit_bzero(k->der, k->derlen);
		free(k->der);
	}
	memset(k, 0, sizeof(*k));
}
