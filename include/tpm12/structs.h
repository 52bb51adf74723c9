/* TPM 1.2 structures that sealing, keys and quotes carry (TPM Main
 * Specification Part 2): TPM_KEY / TPM_KEY12, TPM_STORED_DATA /
 * TPM_STORED_DATA12, TPM_PCR_SELECTION, TPM_PCR_INFO (_LONG, _SHORT),
 * the TPM_PCR_COMPOSITE digest, TPM_QUOTE_INFO and TPM_QUOTE_INFO2.
 *
 * Readers take a struct tb and set its sticky error on anything out of
 * bounds (a wire size larger than its destination is an error, never a
 * truncation); the *_parse functions take a whole buffer and refuse bytes
 * left over.  Writers re-marshal what a reader read byte for byte.
 * Constants carry the spec's names with TPM12_ in front, as TPM 2.0's
 * carry TPM2_. */
#ifndef TPMBOX_TPM12_STRUCTS_H
#define TPMBOX_TPM12_STRUCTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define TPM12_SHA1			20
#define TPM12_TAG_PCR_INFO_LONG		0x0006
#define TPM12_TAG_STORED_DATA12		0x0016
#define TPM12_TAG_KEY12			0x0028
#define TPM12_TAG_QUOTE_INFO2		0x0036
#define TPM12_ALG_RSA			0x00000001
#define TPM12_ES_NONE			0x0001
#define TPM12_ES_RSAESPKCSv15		0x0002
#define TPM12_ES_RSAESOAEP_SHA1_MGF1	0x0003
#define TPM12_SS_NONE			0x0001
#define TPM12_SS_RSASSAPKCS1v15_SHA1	0x0002
#define TPM12_KEY_SIGNING		0x0010
#define TPM12_KEY_STORAGE		0x0011
#define TPM12_KEY_IDENTITY		0x0012
#define TPM12_KEY_BIND			0x0014
#define TPM12_KEY_LEGACY		0x0015
#define TPM12_AUTH_NEVER		0x00
#define TPM12_AUTH_ALWAYS		0x01
#define TPM12_AUTH_PRIV_USE_ONLY	0x03
#define TPM12_ET_NONE			0x0000	/* TPM_STORED_DATA12's et */

/* PCRs a selection can name: up to 4 select bytes (the PC Client's 24
 * PCRs take 3; TrouSerS writes 2 when every PCR is below 16). */
#define TPM12_PCR_SELECT_MAX		4
#define TPM12_PCR_MAX			(TPM12_PCR_SELECT_MAX * 8)
#define TPM12_RSA_MAX			512	/* modulus / one RSA block */
#define TPM12_PARMS_MAX			64	/* non-RSA key parms, raw */
#define TPM12_EXP_MAX			8	/* RSA exponent bytes */

/* TPM_PCR_SELECTION: PCR i is bit i of mask (bit i%8 of byte i/8 on the
 * wire); size is sizeOfSelect, kept as read. */
struct tpm12_pcr_sel {
	uint16_t size;
	uint32_t mask;
};

enum tpm12_pcr_info_kind {
	TPM12_PCR_INFO = 1,		/* TPM_PCR_INFO */
	TPM12_PCR_INFO_LONG,		/* TPM_PCR_INFO_LONG */
	TPM12_PCR_INFO_SHORT,		/* TPM_PCR_INFO_SHORT */
};

/* One of the three.  TPM_PCR_INFO has one selection (in release) and no
 * localities; _SHORT has release, its locality and digest only. */
struct tpm12_pcr_info {
	enum tpm12_pcr_info_kind kind;
	uint8_t loc_creation, loc_release;
	struct tpm12_pcr_sel creation, release;
	uint8_t digest_creation[TPM12_SHA1];
	uint8_t digest_release[TPM12_SHA1];
};

/* TPM_KEY_PARMS.  RSA parms (TPM_RSA_KEY_PARMS) are read into fields;
 * other algorithms' parms are kept as bytes. */
struct tpm12_key_parms {
	uint32_t alg;
	uint16_t enc_scheme, sig_scheme;
	/* TPM_RSA_KEY_PARMS when alg is RSA */
	uint32_t key_bits, num_primes;
	uint32_t explen;	/* 0: the default exponent, 65537 */
	uint8_t exp[TPM12_EXP_MAX];
	/* otherwise */
	uint32_t rawlen;
	uint8_t raw[TPM12_PARMS_MAX];
};

/* TPM_KEY (is12 = 0: ver is its TPM_STRUCT_VER) or TPM_KEY12 (tag 0028,
 * fill 0). */
struct tpm12_key {
	int is12;
	uint8_t ver[4];
	uint16_t usage;
	uint32_t flags;
	uint8_t auth_usage;
	struct tpm12_key_parms parms;
	int has_pcr;		/* PCRInfoSize > 0: pcr is TPM_PCR_INFO(_LONG) */
	struct tpm12_pcr_info pcr;
	uint32_t publen;	/* TPM_STORE_PUBKEY */
	uint8_t pub[TPM12_RSA_MAX];
	uint32_t enclen;	/* encData */
	uint8_t enc[TPM12_RSA_MAX];
};

/* TPM_PUBKEY: what ReadPubek, OwnerReadInternalPub, GetPubKey and
 * MakeIdentity return, and what TrouSerS' public key blob holds. */
struct tpm12_pubkey {
	struct tpm12_key_parms parms;
	uint32_t publen;	/* the modulus for RSA */
	uint8_t pub[TPM12_RSA_MAX];
};

/* TPM_STORED_DATA (is12 = 0) or TPM_STORED_DATA12 (tag 0016). */
struct tpm12_stored {
	int is12;
	uint8_t ver[4];
	uint16_t et;
	int has_pcr;		/* sealInfoSize > 0 */
	struct tpm12_pcr_info pcr;	/* TPM_PCR_INFO or _LONG */
	uint32_t enclen;
	uint8_t enc[TPM12_RSA_MAX];
};

/* TPM_PCR_SELECTION.  A size above TPM12_PCR_SELECT_MAX, or bits set past
 * size * 8 on write, is an error. */
void tpm12_put_pcr_sel(struct tb *b, const struct tpm12_pcr_sel *s);
void tpm12_get_pcr_sel(struct tb *b, struct tpm12_pcr_sel *s);
/* The smallest selection holding mask, at least min_size bytes. */
void tpm12_pcr_sel_set(struct tpm12_pcr_sel *s, uint32_t mask,
		       uint16_t min_size);

/* TPM_PCR_INFO, _LONG (tag checked) or _SHORT, by i->kind / kind. */
void tpm12_put_pcr_info(struct tb *b, const struct tpm12_pcr_info *i);
void tpm12_get_pcr_info(struct tb *b, enum tpm12_pcr_info_kind kind,
			struct tpm12_pcr_info *i);

void tpm12_put_key_parms(struct tb *b, const struct tpm12_key_parms *p);
void tpm12_get_key_parms(struct tb *b, struct tpm12_key_parms *p);
/* RSA parms of bits bits, 2 primes, the default exponent. */
void tpm12_key_parms_rsa(struct tpm12_key_parms *p, uint32_t bits,
			 uint16_t enc_scheme, uint16_t sig_scheme);
/* The RSA public exponent (65537 for explen 0); 0 when it is longer
 * than 4 bytes or the key is not RSA. */
uint32_t tpm12_rsa_exponent(const struct tpm12_key_parms *p);

void tpm12_put_key(struct tb *b, const struct tpm12_key *k);
void tpm12_get_key(struct tb *b, struct tpm12_key *k);
void tpm12_put_stored(struct tb *b, const struct tpm12_stored *s);
void tpm12_get_stored(struct tb *b, struct tpm12_stored *s);

void tpm12_put_pubkey(struct tb *b, const struct tpm12_pubkey *k);
void tpm12_get_pubkey(struct tb *b, struct tpm12_pubkey *k);

/* A whole buffer holding exactly one structure: EX_FAIL "WHAT: why". */
int tpm12_pubkey_parse(const uint8_t *p, size_t n, struct tpm12_pubkey *k,
		       const char *what, struct tberr *e);
int tpm12_key_parse(const uint8_t *p, size_t n, struct tpm12_key *k,
		    const char *what, struct tberr *e);
int tpm12_stored_parse(const uint8_t *p, size_t n, struct tpm12_stored *s,
		       const char *what, struct tberr *e);

/* SHA-1 of TPM_PCR_COMPOSITE {sel, u32 20 * count, the values of the
 * selected PCRs in ascending order}: vals[j] is the j-th selected PCR's
 * value, count must equal the number of PCRs selected.  -1 otherwise. */
int tpm12_pcr_composite_hash(const struct tpm12_pcr_sel *sel,
			     const uint8_t (*vals)[TPM12_SHA1], size_t count,
			     uint8_t out[TPM12_SHA1]);

/* TPM_QUOTE_INFO (what TPM_Quote signs): 01 01 00 00 'QUOT'
 * composite-digest nonce (48 bytes). */
#define TPM12_QUOTE_INFO_SIZE	48
void tpm12_quote_info(const uint8_t composite[TPM12_SHA1],
		      const uint8_t nonce[TPM12_SHA1],
		      uint8_t out[TPM12_QUOTE_INFO_SIZE]);
/* TPM_QUOTE_INFO2 (what TPM_Quote2 signs): tag 0036 'QUT2' nonce
 * TPM_PCR_INFO_SHORT, then version[0..vlen) (the TPM_CAP_VERSION_INFO
 * Quote2 returns when addVersion was set; vlen 0 otherwise).  info must
 * be of kind TPM12_PCR_INFO_SHORT. */
void tpm12_put_quote_info2(struct tb *b, const uint8_t nonce[TPM12_SHA1],
			   const struct tpm12_pcr_info *info,
			   const uint8_t *version, size_t vlen);

#endif
