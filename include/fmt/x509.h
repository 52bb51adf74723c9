/* Keys and certificates for escrow: an X.509 certificate or a
 * SubjectPublicKeyInfo to encrypt to (RFC 5280, RFC 3279, RFC 5480), and
 * a private key to open a copy with (PKCS#8 RFC 5208, PKCS#1 RFC 8017,
 * SEC 1 ECPrivateKey RFC 5915), in PEM.  Read with lib/base/der.c, strictly;
 * only RSA and EC on P-256 and P-384.  Nothing here checks a
 * certificate's signature, validity dates or key usage: the admin names
 * the recipient. */
#ifndef TPMBOX_FMT_X509_H
#define TPMBOX_FMT_X509_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "crypto/rsapriv.h"

enum { KEY_RSA = 1, KEY_EC = 2 };

/* A public key (every pointer into der). */
struct pubkey {
	int type;			/* KEY_RSA or KEY_EC */
	uint16_t curve;			/* EC: EC_NIST_P256 / EC_NIST_P384 */
	const uint8_t *n, *e;		/* RSA modulus, exponent */
	size_t nlen, elen;
	const uint8_t *point;		/* EC: 04 || X || Y */
	size_t pointlen;
	const uint8_t *bits;		/* subjectPublicKey's bits (for the
					 * subject key identifier) */
	size_t bitslen;
	int is_cert;			/* read from a certificate: */
	const uint8_t *issuer;		/* its issuer Name, whole DER */
	size_t issuerlen;
	const uint8_t *serial;		/* its serialNumber, whole DER */
	size_t seriallen;
	uint8_t *der;			/* malloc'd */
	size_t derlen;
};

/* Read a PEM "CERTIFICATE", "PUBLIC KEY" (SubjectPublicKeyInfo) or "RSA
 * PUBLIC KEY" (PKCS#1).  Exit 2 "what: why" when it is none of them or
 * of a kind not supported. */
int x509_read_public(const char *text, size_t n, struct pubkey *k,
		     struct tberr *e);
/* Read SubjectPublicKeyInfo DER (the key's fields point into spki). */
int x509_spki(const uint8_t *spki, size_t n, struct pubkey *k);
void pubkey_free(struct pubkey *k);
/* Read a certificate's DER (is_cert) or a SubjectPublicKeyInfo's, copied
 * into k->der.  -1 when it is not one of an RSA or EC key (as above). */
int x509_read_der(int is_cert, const uint8_t *der, size_t n,
		  struct pubkey *k);
/* The DER that names k as it was given, for storing: the certificate's
 * when it came in one, else a SubjectPublicKeyInfo (PKCS#1 "RSA PUBLIC
 * KEY" turned into one).  *der malloc'd; -1 on failure. */
int x509_public_der(const struct pubkey *k, uint8_t **der, size_t *n,
		    int *is_cert);
/* Whether a and b are the same key (bare or in a certificate). */
int pubkey_same(const struct pubkey *a, const struct pubkey *b);
/* Bits of an RSA modulus (leading zeros dropped). */
size_t pubkey_rsa_bits(const struct pubkey *k);
/* An RSA public exponent as a number; -1 when longer than 32 bits. */
int pubkey_rsa_exp(const struct pubkey *k, uint32_t *ev);

/* A private key (every pointer into der, which is wiped when freed). */
struct privkey {
	int type;			/* KEY_RSA or KEY_EC */
	uint16_t curve;			/* EC */
	struct rsa_priv rsa;		/* RSA integers */
	const uint8_t *d;		/* EC private scalar */
	size_t dlen;
	uint8_t *der;			/* malloc'd */
	size_t derlen;
};

/* Read a PEM "PRIVATE KEY" (PKCS#8), "RSA PRIVATE KEY" or "EC PRIVATE
 * KEY".  An encrypted key is refused with a hint (exit 2), as is any
 * other kind. */
int x509_read_private(const char *text, size_t n, struct privkey *k,
		      struct tberr *e);
void privkey_free(struct privkey *k);

#endif
