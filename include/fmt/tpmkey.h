/* The TPM 2.0 key file ("TSS2 PRIVATE KEY" PEM, the ASN.1 TPMKey of the
 * TCG/OpenSSL-provider key file format), the one encoder and decoder for
 * both files tpmbox writes with it: sealed blobs (fmt/keyfile.h) and AK blobs
 * (job/attest.h).
 *
 *   TPMKey ::= SEQUENCE {
 *     type        OBJECT IDENTIFIER,   -- 2.23.133.10.1.3 loadable,
 *                                      -- .4 importable, .5 sealed
 *     emptyAuth   [0] EXPLICIT BOOLEAN OPTIONAL,
 *     policy      [1] EXPLICIT SEQUENCE OF TPMPolicy OPTIONAL,
 *     secret      [2] EXPLICIT OCTET STRING OPTIONAL,   -- importable:
 *                                      -- TPM2B_ENCRYPTED_SECRET
 *     authPolicy  [3] EXPLICIT SEQUENCE OF ... OPTIONAL, -- refused
 *     description [4] EXPLICIT UTF8String OPTIONAL,      -- skipped
 *     rsaParent   [5] EXPLICIT BOOLEAN OPTIONAL,
 *     parent      INTEGER,
 *     pubkey      OCTET STRING,        -- TPM2B_PUBLIC
 *     privkey     OCTET STRING }       -- TPM2B_PRIVATE (importable:
 *                                      -- the duplicate)
 *   TPMPolicy ::= SEQUENCE { commandCode [0] EXPLICIT INTEGER,
 *                            commandPolicy [1] EXPLICIT OCTET STRING } */
#ifndef TPMBOX_FMT_TPMKEY_H
#define TPMBOX_FMT_TPMKEY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TPMKEY_LABEL		"TSS2 PRIVATE KEY"
#define TPMKEY_PUB_MAX		(2 + 1024)	/* TPM2B_PUBLIC */
#define TPMKEY_PRIV_MAX		(2 + 1024)	/* TPM2B_PRIVATE */
#define TPMKEY_SECRET_MAX	(2 + 512)	/* TPM2B_ENCRYPTED_SECRET */
#define TPMKEY_POLICY_MAX	4	/* policy commands */
#define TPMKEY_POLICY_BODY	600	/* bytes of one commandPolicy (a
					 * PolicyAuthorize with an RSA-3072
					 * key, a PolicyOR of 8) */
/* DER bytes of the largest TPMKey tpmkey_der writes */
#define TPMKEY_DER_MAX		(64 + TPMKEY_POLICY_MAX * \
				 (TPMKEY_POLICY_BODY + 16) + TPMKEY_PUB_MAX + \
				 TPMKEY_PRIV_MAX + TPMKEY_SECRET_MAX + 24)

/* the OID's last arc */
enum { TPMKEY_LOADABLE = 3, TPMKEY_IMPORTABLE = 4, TPMKEY_SEALED = 5 };

struct tpmkey {
	int type;		/* TPMKEY_LOADABLE, _IMPORTABLE or _SEALED */
	int empty_auth;
	int npolicy;
	struct {
		uint32_t cc;
		uint8_t body[TPMKEY_POLICY_BODY];
		size_t len;
	} policy[TPMKEY_POLICY_MAX];
	int rsa_parent;
	uint32_t parent;
	uint8_t pub[TPMKEY_PUB_MAX];	/* TPM2B_PUBLIC, size included */
	size_t publen;
	uint8_t priv[TPMKEY_PRIV_MAX];	/* TPM2B_PRIVATE, likewise */
	size_t privlen;
	/* importable keys only: the seed for TPM2_Import's inSymSeed */
	uint8_t secret[TPMKEY_SECRET_MAX];	/* TPM2B_ENCRYPTED_SECRET */
	size_t secretlen;
};

/* Append the DER.  0, or -1 when a field is out of range or out fills. */
int tpmkey_der(const struct tpmkey *k, struct tb *out);
/* Parse DER d[0..n).  Exit 1 with "WHAT: why" (what: "blob", "AKBLOB")
 * on anything malformed, another key type than loadable, importable or
 * sealed, an importable key without its secret (or another with one) or
 * a signed policy.  Callers check the type they take. */
int tpmkey_parse(const uint8_t *d, size_t n, struct tpmkey *k,
		 const char *what, struct tberr *e);

/* PEM around tpmkey_der (one block, malloc'd, NUL-terminated). */
int tpmkey_encode(const struct tpmkey *k, char **pem, size_t *n,
		  const char *what, struct tberr *e);
/* Find the one TSS2 PRIVATE KEY block in text and parse it. */
int tpmkey_decode(const char *text, size_t n, struct tpmkey *k,
		  const char *what, struct tberr *e);

#endif
