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
 * as a DER ECDSA-Sig-Value (what OpenSSL writes).
 * The reader treats the file as untrusted input: strict JSON (RFC 8259),
 * unknown keys at the top level (other banks) kept, unknown keys inside
 * an entry refused, every length checked. */
#ifndef TPMBOX_POLSIG_H
#define TPMBOX_POLSIG_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

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
 * systemd-measure writes it; banks in the order first seen).  -1 on out
 * of memory. */
int polsig_format(const struct polsig *p, char **text, size_t *n);

#endif
