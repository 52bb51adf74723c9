/* The TPM tokens of a LUKS2 header, read into what listing and unlocking
 * need; nothing here talks to a TPM.
 *
 * systemd-tpm2 (systemd 252 to 258; ../shared/ORACLES.md "LUKS2 tokens"):
 *   keyslots          ["N", ...] (checked by fmt/luks2.c)
 *   tpm2-blob         base64 of TPM2B_PRIVATE || TPM2B_PUBLIC, or (257+)
 *                     an array of such strings
 *   tpm2-pcrs         [index, ...] (0..23), the PCRs of PolicyPCR
 *   tpm2-pcr-bank     "sha1" | "sha256" | ... (absent: sha256)
 *   tpm2-primary-alg  "ecc" | "rsa" (absent: ecc): the legacy primary
 *   tpm2-policy-hash  hex of the policy digest, or (257+) an array of them
 *   tpm2-pin          boolean (absent: false)
 *   tpm2_salt         base64, the PIN's PBKDF2 salt (253+)
 *   tpm2_srk          base64 of a serialized ESYS_TR: u32 handle,
 *                     TPM2B_NAME, u32 1, TPM2B_PUBLIC (254+)
 *   tpm2_pubkey       base64 of a PEM public key: PolicyAuthorize
 *   tpm2_pubkey_pcrs  [index, ...]: the PCRs the signed policy covers
 *   tpm2_pcrlock      boolean (255+): PolicyAuthorizeNV on a pcrlock index
 *   tpm2_pcrlock_nv   base64 of the index's TPM2B_NV_PUBLIC
 * Unknown members are ignored (a later systemd's additions); a known one
 * of the wrong type or shape is refused.
 *
 * clevis: {"type":"clevis","keyslots":[...],"jwe":{"protected":B64URL,
 * "encrypted_key":"","iv":...,"ciphertext":...,"tag":...}} (RFC 7516's
 * flattened JSON serialization); the protected header's "clevis" object
 * names the pin: "tpm2" with clevis.tpm2 {hash, key, jwk_pub, jwk_priv
 * (base64url of TPM2B_PUBLIC and TPM2B_PRIVATE), pcr_bank, pcr_ids ("0,7")}
 * or "sss" with clevis.sss {t, p, jwe: [compact JWE, ...]}, each nested
 * JWE a pin of its own (read to a depth of CLEVIS_DEPTH); any other pin
 * (tang, ...) is named and its fields skipped. */
#ifndef TPMBOX_FMT_LUKS2TOK_H
#define TPMBOX_FMT_LUKS2TOK_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"
#include "tpm2/object.h"

#define SDTPM2_BLOBS	4	/* array-valued tpm2-blob (257+) */

struct tpm2_sealed {
	struct tpm2_private priv;
	struct tpm2_public pub;
};

struct sdtpm2 {
	int nblob;
	struct tpm2_sealed blob[SDTPM2_BLOBS];
	uint32_t pcrs;		/* tpm2-pcrs, bit i: PCR i */
	uint16_t bank;		/* tpm2-pcr-bank (TPM2_ALG_*) */
	uint16_t primary_alg;	/* TPM2_ALG_ECC or TPM2_ALG_RSA */
	int npolicy;
	uint8_t policy[SDTPM2_BLOBS][64];
	size_t policylen[SDTPM2_BLOBS];
	int pin;
	uint8_t salt[64];
	size_t saltlen;
	int has_srk;		/* tpm2_srk */
	uint32_t srk_handle;
	uint8_t srk_name[TPM2_NAME_MAX];
	size_t srk_namelen;
	struct tpm2_public srk_pub;
	int has_pubkey;		/* tpm2_pubkey */
	char *pubkey_pem;	/* malloc'd, NUL-terminated */
	size_t pubkey_len;
	int pubkey_rsa;
	uint8_t pubkey_fp[32];	/* SHA-256 as systemd's "pkfp" */
	uint32_t pubkey_pcrs;
	int pcrlock;
	int has_nv;		/* tpm2_pcrlock_nv */
	uint32_t nv_index;
	uint8_t nv_public[256];	/* the TPM2B_NV_PUBLIC's contents */
	size_t nv_publen;
};

/* Read a systemd-tpm2 token (what: "DEV: token N" for messages).  Exit 1
 * "WHAT: MEMBER: why" when malformed; exit 3 out of memory. */
int sdtpm2_parse(const struct json *tok, const char *what, struct sdtpm2 *t,
		 struct tberr *e);
void sdtpm2_free(struct sdtpm2 *t);

#define CLEVIS_DEPTH	4	/* sss inside sss inside ... */
#define CLEVIS_PINS	16	/* pins of one token, every level */

enum { CLEVIS_TPM2 = 1, CLEVIS_SSS, CLEVIS_OTHER };

struct clevis_pin {
	int kind;
	char name[32];		/* the pin's name as the header gives it */
	int parent;		/* index of the sss pin holding it, -1 */
	int depth;
	/* the JWE (RFC 7516): protected header text (base64url, the AAD)
	 * and the decoded parts */
	char *prot;
	size_t protlen;
	char alg[16], enc[32];
	uint8_t *iv, *ct, *tag;
	size_t ivlen, ctlen, taglen;
	/* tpm2 */
	uint16_t hash;		/* the sealed object's policy hash */
	uint16_t key;		/* TPM2_ALG_ECC or TPM2_ALG_RSA: the primary */
	uint16_t pcr_bank;
	uint32_t pcr_ids;	/* 0: no PCR policy */
	struct tpm2_sealed obj;
	/* sss */
	int t;			/* threshold */
	int nshare;		/* nested JWEs */
	uint8_t *p;		/* the prime (base64url-decoded) */
	size_t plen;
};

struct clevis {
	int n;
	struct clevis_pin pin[CLEVIS_PINS];
};

/* Read a clevis token's "jwe" (flattened JSON serialization). */
int clevis_parse_token(const struct json *tok, const char *what,
		       struct clevis *c, struct tberr *e);
/* Read a compact-serialization JWE (what `clevis encrypt` writes, what
 * sss nests) of n bytes. */
int clevis_parse_compact(const char *s, size_t n, const char *what,
			 struct clevis *c, struct tberr *e);
void clevis_free(struct clevis *c);
/* Whether pin p's JWE is one unlocking reads: alg "dir", enc "A256GCM"
 * (exit 1 naming the other one). */
int clevis_jwe_check(const struct clevis_pin *p, const char *what,
		     struct tberr *e);
/* The key of the JWK a tpm2 pin unseals ({"alg":"A256GCM","k":B64URL},
 * kty "oct" when present, a trailing newline allowed): exit 1 unless k
 * is 32 bytes. */
int clevis_jwk_key(const uint8_t *text, size_t n, const char *what,
		   uint8_t key[32], struct tberr *e);

/* tpmbox's own token (luks enroll --as tpmbox): {"type":"tpmbox",
 * "keyslots":["N"],"tpmbox-version":1,"tpmbox-blob":BASE64}, the blob
 * seal writes (docs/blob-format.md; escrow copies included) in standard
 * base64.  Unknown members are ignored; another version is refused. */
#define TPMBOXTOK_VERSION	1
#define TPMBOXTOK_MAX		(1u << 20)	/* the blob's text */

struct tpmboxtok {
	char *text;		/* the blob's text, malloc'd, NUL-terminated */
	size_t n;
};

int tpmboxtok_parse(const struct json *tok, const char *what,
		    struct tpmboxtok *t, struct tberr *e);
void tpmboxtok_free(struct tpmboxtok *t);

#endif
