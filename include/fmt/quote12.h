/* TPM 1.2 quotes on the host, no TPM needed: what TPM_Quote and
 * TPM_Quote2 sign (TPM_QUOTE_INFO, TPM_QUOTE_INFO2; PKCS#1 v1.5 with
 * SHA-1), tpmbox's 1.2 QUOTE file (docs/quote-format.md), tpm-quote-tools'
 * tpm_getquote output (a bare signature and "N=HEX" PCR lines), the AIK
 * public key in the forms checkquote takes, and the checks. */
#ifndef TPMBOX_FMT_QUOTE12_H
#define TPMBOX_FMT_QUOTE12_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm12/structs.h"

#define QUOTE12_FILE_MAGIC	"TBQUO12\0"
#define QUOTE12_FILE_VERSION	1
/* TPM_QUOTE_INFO2 is 52 bytes for 3 select bytes; the version info
 * TPM_Quote2 may add (TPM_CAP_VERSION_INFO) is bounded here. */
#define QUOTE12_INFO_MAX	512

/* One quote: the bytes the TPM signed, the signature, and the PCR
 * values (TPM_PCR_COMPOSITE: sel and vals ascending) they cover. */
struct quote12 {
	uint8_t info[QUOTE12_INFO_MAX];
	size_t infolen;
	uint8_t sig[TPM12_RSA_MAX];
	size_t siglen;
	struct tpm12_pcr_sel sel;
	size_t nvals;
	uint8_t vals[TPM12_PCR_MAX][TPM12_SHA1];
};

/* The signed bytes taken apart: kind 1 TPM_QUOTE_INFO, 2
 * TPM_QUOTE_INFO2. */
struct quote12_info {
	int kind;
	uint8_t nonce[TPM12_SHA1];
	uint8_t digest[TPM12_SHA1];	/* composite hash / digestAtRelease */
	struct tpm12_pcr_info pcr;	/* kind 2: the TPM_PCR_INFO_SHORT */
	size_t vlen;			/* kind 2: version info bytes */
};

/* The TPM_NONCE a hex nonce stands for on a TPM 1.2: 20 bytes as they
 * are, any other length (1..64) its SHA-1. */
void quote12_nonce(const uint8_t *n, size_t len, uint8_t out[TPM12_SHA1]);

/* Parse the signed bytes (EX_FAIL naming the field). */
int quote12_info_parse(const uint8_t *p, size_t n, struct quote12_info *i,
		       struct tberr *e);

/* The QUOTE file.  *out is malloc'd. */
int quote12_file_is(const uint8_t *p, size_t n);
int quote12_file_write(const struct quote12 *q, uint8_t **out, size_t *n,
		       struct tberr *e);
int quote12_file_read(const uint8_t *p, size_t n, struct quote12 *q,
		      struct tberr *e);

/* tpm_getquote -p's PCR file: "N=HEX\n" per PCR, ascending (HEX 40
 * digits, upper case as tpm_getquote writes; lower case read too). */
int quote12_pcrs_text(const struct quote12 *q, char **out, size_t *n,
		      struct tberr *e);
/* A tpm_getquote quote: sig is its OUT file (the bare signature), pcrs
 * its -p file; the signed TPM_QUOTE_INFO2 is rebuilt as tpm_getquote's
 * TPM_Quote2 makes it (3 select bytes, locality 0, no version) with
 * nonce. */
int quote12_from_getquote(const uint8_t *sig, size_t siglen,
			  const char *pcrs, size_t pcrslen,
			  const uint8_t nonce[TPM12_SHA1], struct quote12 *q,
			  struct tberr *e);

/* Whether p starts as a TPM_KEY or a TPM_KEY12 does (an AIK blob). */
int quote12_is_tpm_key(const uint8_t *p, size_t n);
/* An AIK's public key from -k: tpmbox's or tpm_mkaik's AIK blob (a
 * TPM_KEY of usage TPM_KEY_IDENTITY: *aik = 1), tpm_mkaik's public key
 * file (TrouSerS' DER blob), a bare TPM_PUBKEY, or an RSA public key in
 * PEM or DER (*aik = 0 for these).  EX_FAIL for a TPM_KEY that is not an
 * identity key, EX_USAGE for anything else that is not such a key. */
int quote12_key_load(const uint8_t *p, size_t n, struct tpm12_pubkey *k,
		     int *aik, struct tberr *e);
/* PKCS#1 v1.5 SHA-1 signature over msg with k: 0, or EX_FAIL saying why
 * not. */
int quote12_sig_verify(const struct tpm12_pubkey *k, const uint8_t *msg,
		       size_t n, const uint8_t *sig, size_t siglen,
		       struct tberr *e);
/* SHA-1 of k as a TPM_PUBKEY (what akcreate prints on a 1.2). */
void quote12_key_hash(const struct tpm12_pubkey *k, uint8_t out[20]);

/* The values as pcr_vals (the sha1 bank, ascending) for printing. */
struct pcr_vals;
void quote12_pcr_vals(const struct quote12 *q, struct pcr_vals *v);

struct quote12_want {
	const struct tpm12_pubkey *key;
	const uint8_t *nonce;	/* 20 bytes; NULL: not checked */
	int has_mask;		/* the PCRs the quote must cover */
	uint32_t mask;
};

/* -p SEL for a 1.2 quote: the sha1 bank only, a bare list ("0,7") or
 * "all" meaning it; the PCRs as a mask.  Exit 2 otherwise. */
int quote12_sel_parse(const char *s, uint32_t *mask, struct tberr *e);

/* Every check, in order: signature, structure, nonce, PCR selection,
 * PCR digest.  0, or EX_FAIL with "CHECK check failed: why". */
int quote12_check(const struct quote12 *q, const struct quote12_want *w,
		  struct tberr *e);

#endif
