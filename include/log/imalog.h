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
#ifndef TPMBOX_LOG_IMALOG_H
#define TPMBOX_LOG_IMALOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
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

/* How the kernel made a bank's template digests, as found by imalog_match:
 * the bank's own hash over the template data, or -- when the kernel could
 * not allocate that hash when IMA started (Debian's 6.1 builds sha384 and
 * sha512 as modules: "ima: Can not allocate sha384") -- the SHA-1 template
 * digest zero-padded to the bank's size.  Which banks are padded depends on
 * the kernel's configuration, not on anything in the list. */
enum { IMA_DIGEST_OWN = 0, IMA_DIGEST_SHA1_PADDED = 1 };

struct ima_match {
	uint16_t bank;
	int compared;		/* PCRs of this bank that had a value */
	int matched;		/* a prefix of the list replays to them */
	int how;		/* IMA_DIGEST_OWN or IMA_DIGEST_SHA1_PADDED */
	uint32_t upto;		/* entries in that prefix (log->n: all) */
};

/* Match the list against PCR values read BEFORE it (from the TPM or a
 * quote): the kernel appends an entry to the list before it extends the
 * PCR, so a list read later may run ahead of the values, never behind.
 * Replays the bank both ways (own digests first, then SHA-1 zero-padded)
 * entry by entry and finds the longest prefix after which every PCR the
 * whole list extends and `pcrs` holds (in this bank) has that value.
 * PCRs the list extends but `pcrs` lacks are not compared.  Exit 2 for a
 * bank that cannot be replayed. */
int imalog_match(const struct imalog *log, uint16_t bank,
		 const struct pcr_vals *pcrs, struct ima_match *m,
		 struct tberr *e);

/* The PCRs (bit i: PCR i) the list extends. */
uint32_t imalog_pcrs(const struct imalog *log);

/* One template field: the template data is a list of (u32 length, bytes)
 * for every template but "ima" (whose two fields, a 20-byte digest and a
 * name, are returned the same way). */
struct ima_field {
	const uint8_t *p;
	uint32_t len;
};
#define IMA_MAX_FIELDS 16

/* Split an entry's template data into its fields; returns how many
 * (at most max; the parser already checked the lengths). */
int imalog_fields(const struct ima_entry *en, struct ima_field *f, int max);

/* Read path (at most IMA_MAX_FILE bytes) and parse it into log, which
 * points into *buf: free it after imalog_free.  A parse error is prefixed
 * with the path (file_read's own message names it already). */
int imalog_read_file(const char *path, uint8_t **buf, struct imalog *log,
		     struct tberr *e);
/* A bank list (-b "sha1,sha256") of banks an IMA log can be replayed in;
 * exit 2 naming one it cannot. */
int imalog_banks_parse(const char *s, uint16_t *algs, int *n,
		       struct tberr *e);

/* The list as ascii_runtime_measurements shows it (the fields of the
 * kernel's built-in templates; another template's data as hex), or as
 * JSON {"entries": [...]}: malloc'd text, NULL on out-of-memory. */
char *imalog_format(const struct imalog *log, int json);

struct tpm;
/* The TPM's allocated banks an IMA log can be replayed in (algs holds
 * TPM2_MAX_BANKS); exit 1 when there is none.  Errors in t->e. */
int imalog_tpm_banks(struct tpm *t, uint16_t *algs, int *n);
/* The PCRs the list in path extends (a first read, before the TPM's
 * values are, for imalog_check). */
int imalog_file_pcrs(const char *path, uint32_t *touched, struct tberr *e);
/* imalog --check: the PCRs in touched of banks algs read from the TPM
 * first, then the list in path (so the list can only be ahead of them),
 * then per bank the prefix of the list that replays to them.  *report
 * (malloc'd, also on failure: print it before the error) says per bank
 * how far it matches, or how it differs.  0 when every bank compared
 * matches; exit 1 naming the banks that differ, or when none could be
 * compared.  Errors in t->e. */
int imalog_check(struct tpm *t, const char *path, const uint16_t *algs,
		 int nb, uint32_t touched, char **report);

#endif
