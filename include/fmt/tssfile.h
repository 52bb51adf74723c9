/* tpm-tools' sealed file (tpm_sealdata / tpm_unsealdata), read and
 * written exactly as tpm-tools 1.3.9 does (docs/blob-format.md):
 *
 *	-----BEGIN TSS-----
 *	-----TSS KEY-----
 *	base64(TPM_KEY: the storage key the data key is sealed under)
 *	-----ENC KEY-----
 *	Symmetric Key: AES-256-CBC
 *	base64(TPM_STORED_DATA or TPM_STORED_DATA12: the sealed AES key)
 *	-----ENC DAT-----
 *	base64(AES-256-CBC of the data, IV "IBM SEALIBM SEAL", PKCS#7)
 *	-----END TSS-----
 *
 * base64 in lines of 64 characters, the last line of a section shorter or
 * equal.  Reading is strict: these lines exactly, in this order, "\n"
 * line ends, canonical base64, no empty section, nothing after the END
 * line, every section bounded.  The structures inside are
 * tpm12/structs.h's business. */
#ifndef TPMBOX_FMT_TSSFILE_H
#define TPMBOX_FMT_TSSFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TSSFILE_IV		"IBM SEALIBM SEAL"	/* 16 bytes, no NUL */
#define TSSFILE_AES_KEY		32	/* AES-256: the sealed data key */
#define TSSFILE_KEY_MAX		4096	/* TSS KEY: a TPM_KEY(12) */
#define TSSFILE_ENCKEY_MAX	4096	/* ENC KEY: a TPM_STORED_DATA(12) */
#define TSSFILE_DATA_MAX	(64u << 20)	/* plain data */
/* ENC DAT: the data plus at most one block of padding. */
#define TSSFILE_ENCDAT_MAX	(TSSFILE_DATA_MAX + 16)
/* The whole text: base64 of the three sections, line ends, headers. */
#define TSSFILE_TEXT_MAX	((TSSFILE_KEY_MAX + TSSFILE_ENCKEY_MAX + \
				  TSSFILE_ENCDAT_MAX) / 48 * 65 + 1024)

struct tssfile {
	uint8_t *key;		/* TSS KEY bytes (malloc'd) */
	size_t keylen;
	uint8_t *enckey;	/* ENC KEY bytes (malloc'd) */
	size_t enckeylen;
	uint8_t *encdat;	/* ENC DAT bytes (malloc'd) */
	size_t encdatlen;
};

/* Parse text[0..n) into f (zeroed first).  0, or EX_FAIL with "tpm-tools
 * file: line L: why" (the line number of the first fault). */
int tssfile_parse(const char *text, size_t n, struct tssfile *f,
		  struct tberr *e);
/* The file's text (malloc'd, NUL-terminated, *n without the NUL). */
int tssfile_format(const struct tssfile *f, char **text, size_t *n,
		   struct tberr *e);
void tssfile_free(struct tssfile *f);

/* ENC DAT from data[0..n) and the data key (f->encdat replaced). */
int tssfile_encrypt(struct tssfile *f, const uint8_t key[TSSFILE_AES_KEY],
		    const uint8_t *data, size_t n, struct tberr *e);
/* The data from ENC DAT (*out malloc'd; wipe and free it).  EX_FAIL when
 * the padding is wrong: the wrong key, or a damaged file. */
int tssfile_decrypt(const struct tssfile *f,
		    const uint8_t key[TSSFILE_AES_KEY], uint8_t **out,
		    size_t *n, struct tberr *e);

/* TrouSerS' public key blob, as tpm_mkaik writes its PUB file: DER
 * SEQUENCE { INTEGER 1 (version), INTEGER 2 (TSS_BLOB_TYPE_PUBKEY),
 * INTEGER length, OCTET STRING TPM_PUBKEY of that length }; nothing
 * after it.  The INTEGERs may carry leading zero bytes (TrouSerS writes
 * the length in 4), nothing else that strict DER refuses is accepted.
 * EX_FAIL "WHAT: why". */
struct tpm12_pubkey;
int tss_pubkey_blob_parse(const uint8_t *der, size_t n,
			  struct tpm12_pubkey *k, const char *what,
			  struct tberr *e);

#endif
