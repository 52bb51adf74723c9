/* Signed PCR policies in systemd's JSON (what `systemd-measure sign`
 * writes and systemd-cryptsetup reads), the one reader and writer:
 *
 *   {"sha256":[{"pcrs":[11],"pkfp":"<hex>","pol":"<hex>","sig":"<b64>"},
 *              ...], "sha1":[...]}
 *
 * Each key names a PCR bank; each entry is one signed state: the PCR
 * indices (ascending, 0..23), pkfp = SHA-256 of the signer's public key as
 * i2d_PublicKey writes it (pk_fingerprint), pol = the SHA-256 PolicyPCR
 * digest of that bank's PCRs with those values (from an all-zero start),
 * sig = the signature over SHA-256(pol): RSASSA-PKCS1-v1_5 (systemd 252
 * signs with RSA only), or for P-256 keys, tpmbox's own addition, ECDSA
 * as a DER ECDSA-Sig-Value (what OpenSSL writes).  Measured: systemd-
 * measure 252 signs the entries of the sha1, sha384 and sha512 banks over
 * that bank's hash of pol instead; PolicyAuthorize hashes pol with the
 * signer's name algorithm (SHA-256), so those entries cannot authorize,
 * and policysign signs over SHA-256 for every bank.
 * The reader treats the file as untrusted input: strict JSON (RFC 8259)
 * in exactly this shape (ASCII only; a value of another type, a nesting
 * deeper than the shape, a key given twice, trailing data refused), a bank
 * other than sha1/sha256/sha384/sha512 refused, unknown keys inside an
 * entry refused, every length checked: pkfp and pol 64 hex digits, sig
 * canonical padded base64 of 1..POLSIG_SIG_MAX bytes, pcrs non-empty,
 * strictly ascending integers 0..23. */
#ifndef TPMBOX_FMT_POLSIG_H
#define TPMBOX_FMT_POLSIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define POLSIG_MAX	64	/* entries in one file, all banks */
#define POLSIG_SIG_MAX	512	/* RSA-4096 */

struct polsig_entry {
	uint16_t bank;		/* TPM2_ALG_SHA1/SHA256/SHA384/SHA512 */
	uint32_t pcrs;		/* bit i: PCR i */
	uint8_t pkfp[32];
	uint8_t pol[32];	/* SHA-256 policy digest */
	uint8_t sig[POLSIG_SIG_MAX];
	size_t siglen;
};

struct polsig {
	int n;
	struct polsig_entry e[POLSIG_MAX];
};

/* Parse text[0..n) (what names the file in messages).  Exit 1 with
 * "WHAT: why" on anything malformed; an entry for an unknown bank name is
 * refused too.  Entries keep the file's order. */
int polsig_parse(const char *text, size_t n, const char *what,
		 struct polsig *out, struct tberr *e);
/* The JSON text of p (malloc'd, NUL-terminated, one line and a newline as
 * systemd-measure writes it: keys pcrs, pkfp, pol, sig, no spaces, hex in
 * lowercase; banks in the order first seen).  -1 on out of memory, or for
 * an entry the reader would refuse (unknown bank, no PCR or one above 23,
 * no signature). */
int polsig_format(const struct polsig *p, char **text, size_t *n);

/* Add en to p, or replace the entry for the same state (bank, pcrs, pkfp
 * and pol; any further copies of it are dropped) where it stands.  Exit 1
 * when p is full. */
int polsig_put(struct polsig *p, const struct polsig_entry *en,
	       struct tberr *e);
/* The bank of a name the format uses ("sha256"), 0 for any other; and
 * back (NULL for a bank the format has no name for). */
uint16_t polsig_bank(const char *name);
const char *polsig_bank_name(uint16_t alg);

#endif
