/* Quotes: the TPMS_ATTEST a TPM2_Quote signs, its TPMT_SIGNATURE, the
 * PCR values it covers, the checks a verifier makes, and the files that
 * carry them: tpmbox's QUOTE file (docs/quote-format.md) and tpm2-tools'
 * three pieces (tpm2_quote -m / -s / -o).  No TPM needed here. */
#ifndef TPMBOX_FMT_QUOTE_H
#define TPMBOX_FMT_QUOTE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm2/pcr.h"

/* sizeof(TPMS_ATTEST) bounds TPM2B_ATTEST; 1024 is ample for a quote. */
#define QUOTE_ATTEST_MAX	1024
#define QUOTE_SIG_MAX		(2 + 2 + 2 + 512)
/* The file magic, 8 bytes, then a UINT16 version. */
#define QUOTE_FILE_MAGIC	"TBQUOTE\0"
#define QUOTE_FILE_VERSION	1

/* A parsed TPMS_ATTEST.  The quote body (sel, digest) is filled only
 * when type is TPM_ST_ATTEST_QUOTE. */
struct quote_attest {
	uint32_t magic;
	uint16_t type;
	uint8_t signer[68];	/* qualifiedSigner (TPM2B_NAME) */
	size_t signer_len;
	uint8_t extra[68];	/* extraData: the verifier's nonce */
	size_t extra_len;
	uint64_t clock;
	uint32_t reset_count, restart_count;
	uint8_t safe;
	uint64_t firmware;
	struct pcr_sel sel;	/* TPMS_QUOTE_INFO.pcrSelect */
	uint8_t digest[TPM2_MAX_DIGEST];	/* .pcrDigest */
	size_t digest_len;
};

/* A TPMT_SIGNATURE (ECDSA: r and s; RSASSA: sig in r). */
struct quote_sig {
	uint16_t alg;
	uint16_t hash;
	uint8_t r[512];
	size_t rlen;
	uint8_t s[72];
	size_t slen;
};

/* Everything a verifier needs: the signed bytes, the signature, and the
 * PCR values with the selection they claim to be. */
struct quote {
	uint8_t attest[QUOTE_ATTEST_MAX];	/* TPMS_ATTEST as signed */
	size_t attest_len;
	uint8_t sig[QUOTE_SIG_MAX];	/* TPMT_SIGNATURE, marshalled */
	size_t sig_len;
	struct pcr_sel sel;			/* selection of vals */
	struct pcr_vals vals;			/* selection order */
};

/* Parse TPMS_ATTEST (exit 1 when malformed, naming the field). */
int quote_attest_parse(const uint8_t *p, size_t n, struct quote_attest *a,
		       struct tberr *e);
/* Parse TPMT_SIGNATURE; nothing may follow it.  Exit 1 when malformed or
 * of an algorithm tpmbox does not verify. */
int quote_sig_parse(const uint8_t *p, size_t n, struct quote_sig *s,
		    struct tberr *e);
/* Read a TPML_PCR_SELECTION (TPM wire order) from a cursor; banks with
 * an empty mask are dropped.  -1 on malformed input. */
int quote_sel_get(struct tb *b, struct pcr_sel *sel);
/* Same selection: same banks with the same PCRs in the same order. */
int quote_sel_equal(const struct pcr_sel *a, const struct pcr_sel *b);
/* "sha256:0,1,7+sha1:3" into buf. */
void quote_sel_format(const struct pcr_sel *sel, char *buf, size_t n);
/* Whether vals are exactly sel in selection order with the right sizes. */
int quote_vals_match(const struct pcr_sel *sel, const struct pcr_vals *v);
/* H_alg of the concatenated values (pcrDigest).  -1 if alg unsupported. */
int quote_pcr_digest(uint16_t alg, const struct pcr_vals *v, uint8_t *out);

/* tpmbox QUOTE file. *out is malloc'd. */
int quote_file_write(const struct quote *q, uint8_t **out, size_t *n,
		     struct tberr *e);
int quote_file_read(const uint8_t *p, size_t n, struct quote *q,
		    struct tberr *e);

/* tpm2-tools' pieces: msg = TPMS_ATTEST bytes, sig = TPMT_SIGNATURE,
 * pcrs = tpm2_quote -o (TPML_PCR_SELECTION, UINT32 count, count
 * TPML_DIGEST, in the writer's byte order: read in either, written
 * little-endian). */
int quote_from_tools(const uint8_t *msg, size_t msglen, const uint8_t *sig,
		     size_t siglen, const uint8_t *pcrs, size_t pcrslen,
		     struct quote *q, struct tberr *e);
int quote_tools_pcrs_write(const struct pcr_sel *sel,
			   const struct pcr_vals *v, uint8_t **out, size_t *n,
			   struct tberr *e);

/* The verifier's expectations. */
struct quote_want {
	const uint8_t *key;	/* public key file contents (PEM or DER) */
	size_t keylen;
	const uint8_t *nonce;	/* NULL: the nonce is not checked */
	size_t nonce_len;
	const struct pcr_sel *sel;	/* NULL: any selection */
	/* The AK's name, when its public area is known (a TPM2B_PUBLIC or
	 * an AK blob; NULL for a bare public key): qualifiedSigner must
	 * name this key.  With its parent's qualified name (parent_qn,
	 * e.g. the SRK's, job/attest.h ak_srk_qn) it must be exactly
	 * nameAlg || H(parent_qn || name); without, only its algorithm and
	 * size are checked. */
	const uint8_t *name;
	size_t namelen;
	const uint8_t *parent_qn;
	size_t parent_qnlen;
	/* The key's own signing scheme (TPM2_ALG_ECDSA/RSASSA and hash;
	 * 0: not known): the signature must use it. */
	uint16_t scheme, scheme_hash;
};

/* Every check, in order: signature, magic, type, signer, nonce, PCR
 * selection, PCR digest.  Returns 0, or 1 with e = "CHECK check failed: why". */
/* Exit 1 with "CHECK check failed: WHY" (printf-style WHY): the one form
 * of every verification failure of checkquote, on both families. */
int quote_failed(struct tberr *e, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int quote_check(const struct quote *q, const struct quote_want *w,
		struct tberr *e);

/* -n HEX: a nonce of min to 64 bytes into out; exit 2 "bad nonce" when it
 * is not one. */
int quote_nonce_parse(const char *hex, size_t min, uint8_t out[64],
		      size_t *len, struct tberr *e);
/* -p SEL: the selection a quote must cover, its banks named ("all" alone
 * is exit 2), a bank's "all" standing for PCRs 0-23. */
int quote_sel_want(const char *s, struct pcr_sel *sel, struct tberr *e);

/* A log replay against the quoted values (check is "event log" or "IMA
 * log"): every PCR both hold must be equal, and at least one must be in
 * both, else the log proves nothing about the quote.  Returns 0, or 1
 * with e = "CHECK check failed: why". */
int quote_match_replay(const struct pcr_vals *quoted,
		       const struct pcr_vals *replayed, const char *check,
		       struct tberr *e);

#endif
