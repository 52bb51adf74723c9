/* Linux IMA measurement lists (securityfs binary_runtime_measurements):
 * templates "ima", "ima-ng" and "ima-sig" (and any other template whose
 * data is a list of length-prefixed fields).
 *
 * Each record: PCR (u32), template hash (SHA-1, 20 bytes), template name
 * (u32 length + bytes), template data (u32 length + bytes; for "ima" the
 * data is a 20-byte digest then a u32-length name, with no overall length).
 * Integers are little-endian (the kernel's canonical format, and the native
 * order of every little-endian machine).  Untrusted input: every length is
 * checked, a short log is "truncated at offset N" (exit 1). */
#ifndef TPMBOX_IMALOG_H
#define TPMBOX_IMALOG_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "tpm2/pcr.h"

#define IMA_DEFAULT_PATH "/sys/kernel/security/ima/binary_runtime_measurements"
#define IMA_MAX_FILE	(256u << 20)
#define IMA_MAX_ENTRIES	2000000u
#define IMA_MAX_NAME	255u		/* template name length */
#define IMA_MAX_TDATA	(1u << 20)	/* one entry's template data */
#define IMA_PCR		10

struct ima_entry {
	uint32_t num;		/* 0 = first entry */
	size_t offset;		/* where the entry starts in the log */
	uint32_t pcr;
	const uint8_t *hash;	/* SHA-1 template hash, 20 bytes */
	int invalid;		/* all-zero template hash: a violation */
	char name[IMA_MAX_NAME + 1];
	uint32_t tlen;
	const uint8_t *tdata;	/* template data as in the log */
	/* Decoded fields (NULL/0 when the template has no such field). */
	char dalg[16];		/* file digest algorithm ("sha1": ima) */
	const uint8_t *digest;	/* file digest */
	uint32_t dsize;
	const uint8_t *path;	/* file name, not NUL-terminated */
	uint32_t plen;
	const uint8_t *sig;	/* ima-sig signature */
	uint32_t slen;
};

struct imalog {
	uint32_t n;
	struct ima_entry *ent;	/* malloc'd; imalog_free() */
};

/* Parse buf[0..len) (which must outlive log).  Also checks each valid
 * entry's SHA-1 template hash against its template data. */
int imalog_parse(const uint8_t *buf, size_t len, struct imalog *log,
		 struct tberr *e);
void imalog_free(struct imalog *log);

/* Whether a bank can be replayed from this log: sha1 always (the template
 * hashes), sha256/sha384/sha512 by recomputing the template hash over the
 * template data as the kernel does for non-SHA-1 banks. */
int imalog_bank_ok(uint16_t bank);

/* Append the replayed values of one bank to out (out->n is not reset),
 * one per PCR the log extends, ascending.  Invalidated entries extend
 * 0xff * digest size. */
int imalog_replay(const struct imalog *log, uint16_t bank,
		  struct pcr_vals *out, struct tberr *e);

/* Read, parse and replay one bank (for checkquote); out is reset first.
 * Exit 6 when missing, 3 on I/O error, 1 when malformed, 2 for a bank
 * that cannot be replayed. */
int imalog_replay_file(const char *path, uint16_t bank, struct pcr_vals *out,
		       struct tberr *e);

#endif
