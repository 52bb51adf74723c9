/* CMS AuthEnvelopedData (RFC 5083) with AES-256-GCM content encryption
 * (RFC 5084), the escrow copy that `openssl cms -decrypt` opens.  One
 * content key, wrapped for every recipient:
 *   - RSA (2048 bits or more): KeyTransRecipientInfo, RSAES-OAEP with
 *     SHA-256 and MGF1-SHA-256 (RFC 8017, parameters per RFC 4055);
 *   - EC P-256/P-384: KeyAgreeRecipientInfo, ephemeral-static ECDH with
 *     dhSinglePass-stdDH-sha256kdf-scheme (RFC 5753: the X9.63 KDF over
 *     ECC-CMS-SharedInfo) and id-aes256-wrap (RFC 3394/3565);
 *   - a key-encryption key (the recovery code's): KEKRecipientInfo with
 *     id-aes256-wrap, its keyIdentifier chosen by the caller.
 * A recipient from a certificate is named by issuerAndSerialNumber, a
 * bare public key by its subject key identifier (SHA-1 of the
 * subjectPublicKey bits, RFC 5280 4.2.1.2 method 1).  DER throughout. */
#ifndef TPMBOX_FMT_CMS_H
#define TPMBOX_FMT_CMS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/x509.h"

#define CMS_KEK 32		/* an AES-256 key-encryption key */
#define CMS_KEKID_MAX 64
#define CMS_RCPT_MAX 32		/* recipients in one message */

struct cms_rcpt {
	const struct pubkey *key;	/* RSA or EC; NULL for a KEK */
	uint8_t kek[CMS_KEK];		/* KEK recipient: the key */
	uint8_t kekid[CMS_KEKID_MAX];	/* and its keyIdentifier */
	size_t kekidlen;
};

/* The ContentInfo DER of data[0..len) for r[0..n) (1 to CMS_RCPT_MAX),
 * malloc'd.  Exit 2 for an unusable recipient (RSA under 2048 bits, an
 * exponent over 32 bits), 1 on failure. */
int cms_encrypt(const struct cms_rcpt *r, size_t n, const uint8_t *data,
		size_t len, uint8_t **der, size_t *derlen, struct tberr *e);

/* A parsed message; pointers into the DER given to cms_parse. */
enum { CMS_KTRI = 1, CMS_KARI = 2, CMS_KEKRI = 3, CMS_OTHER = 4 };
struct cms_ri {
	int type;
	const uint8_t *p;	/* the RecipientInfo's contents */
	size_t n;
};
struct cms_msg {
	struct cms_ri ri[CMS_RCPT_MAX];
	size_t nri;
	const uint8_t *nonce;	/* GCM */
	size_t noncelen;
	const uint8_t *ct;	/* encrypted content */
	size_t ctlen;
	const uint8_t *tag;	/* mac */
	size_t taglen;
};

/* Parse ContentInfo { authEnvelopedData } strictly (DER, the content
 * present, AES-256-GCM, no authenticated attributes).  Exit 1 "why". */
int cms_parse(const uint8_t *der, size_t len, struct cms_msg *m,
	      struct tberr *e);
/* How many recipients of each type (CMS_KTRI...) the message has. */
size_t cms_count(const struct cms_msg *m, int type);
/* Whether the i-th RecipientInfo (of any type) is for key k: an RSA
 * key's KeyTransRecipientInfo or an EC key's KeyAgreeRecipientInfo
 * naming it as cms_encrypt would (issuerAndSerialNumber, or the subject
 * key identifier of its bits). */
int cms_names_key(const struct cms_msg *m, size_t i, const struct pubkey *k);
/* The keyIdentifier of the i-th KEK recipient (i counts KEKRIs only). */
int cms_kekid(const struct cms_msg *m, size_t i, const uint8_t **id,
	      size_t *idlen);

/* Open with a private key: every RSA (or EC) recipient is tried.  Exit 4
 * when none opens with it, 1 when the content does not decrypt (the tag
 * fails: damaged or altered), 0 with out malloc'd. */
int cms_open_key(const struct cms_msg *m, const struct privkey *k,
		 uint8_t **out, size_t *outlen, struct tberr *e);
/* An RSA private key held elsewhere (a TPM): RSAES-OAEP-decrypt ct with
 * hash (SHA-1/SHA-256/..., MGF1 with the same, no label) into out.
 * 0 opened, 1 not this key's (a padding or range failure), -1 any other
 * failure (reported through the caller's own error). */
typedef int (*cms_oaep_fn)(void *ctx, uint16_t hash, const uint8_t *ct,
			   size_t ctlen, uint8_t *out, size_t cap,
			   size_t *outlen);
/* Open with RSA key k whose private half dec holds: the recipients that
 * name k are tried, or every RSA recipient when none does.  Codes as
 * cms_open_key; -1 when dec said -1. */
int cms_open_oaep(const struct cms_msg *m, const struct pubkey *k,
		  cms_oaep_fn dec, void *ctx, uint8_t **out, size_t *outlen,
		  struct tberr *e);
/* Open with the key-encryption key of the i-th KEK recipient.  Same
 * codes. */
int cms_open_kek(const struct cms_msg *m, size_t i,
		 const uint8_t kek[CMS_KEK], uint8_t **out, size_t *outlen,
		 struct tberr *e);

#endif
