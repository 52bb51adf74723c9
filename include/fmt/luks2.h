/* The LUKS2 header (LUKS2 On-Disk Format Specification): the one reader,
 * read-only, no cryptsetup.
 *
 * Two copies, each a 4096-byte binary header then its JSON area:
 *   0 magic[6] ("LUKS\xba\xbe" primary, "SKUL\xba\xbe" secondary)
 *   6 version u16 (2)   8 hdr_size u64 (binary header + JSON area)
 *  16 seqid u64   24 label[48]   72 checksum_alg[32]   104 salt[64]
 * 168 uuid[40]   208 subsystem[48]   256 hdr_offset u64   448 csum[64]
 * all big-endian; the primary at 0, the secondary at hdr_size (one of
 * 16 KiB, 32 KiB ... 4 MiB, the offsets tried when the primary is too
 * damaged to say).  The checksum (sha256, the only algorithm read here)
 * is over the hdr_size bytes with the csum field zeroed.  The copy used:
 * the valid one with the higher seqid (the primary on a tie).  The JSON
 * text ends at the area's first NUL.
 *
 * The metadata is checked as far as a token's reader relies on it:
 * "keyslots", "tokens" and "config" objects; ids 0..31; config.json_size
 * equal to the area's size; keyslot areas inside the keyslots area after
 * both copies and not overlapping; a token's keyslots existing. */
#ifndef TPMBOX_FMT_LUKS2_H
#define TPMBOX_FMT_LUKS2_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"

#define LUKS2_BIN_SIZE		4096
#define LUKS2_HDR_MIN		0x4000ull	/* 16 KiB */
#define LUKS2_HDR_MAX		0x400000ull	/* 4 MiB */
#define LUKS2_SLOTS		32	/* keyslot and token ids 0..31 */

struct luks2_keyslot {
	int id;
	char type[32];		/* "luks2" */
	int64_t key_size;
	char kdf[32];		/* "pbkdf2", "argon2i", "argon2id" */
	int priority;		/* 0 ignore, 1 normal, 2 high */
	uint64_t area_off, area_size;
};

struct luks2_token {
	int id;
	char type[64];
	uint32_t keyslots;	/* bit i: keyslot i */
	const struct json *j;	/* the token's object (in luks2.meta) */
};

struct luks2 {
	int copy;		/* 0 primary, 1 secondary */
	int other_ok;		/* the other copy verified too */
	char other_why[96];	/* why it did not, when it did not */
	uint64_t offset;	/* of the copy used */
	uint64_t hdr_size, seqid;
	char label[49], subsystem[49], uuid[41], csum_alg[33];
	uint8_t salt[64];
	uint64_t keyslots_size;
	struct json *meta;
	int nkeyslot;
	struct luks2_keyslot ks[LUKS2_SLOTS];
	int ntoken;
	struct luks2_token tok[LUKS2_SLOTS];
};

/* Read n bytes at off into buf: 0, or -1 (short or I/O error). */
typedef int (*luks2_read_fn)(void *arg, uint64_t off, void *buf, size_t n);

/* Read the header through rd (what names the device in messages).  Exit
 * 1 "WHAT: why" for anything that is not a valid LUKS2 header, exit 3 on
 * a read error of the primary's first 4096 bytes. */
int luks2_read(luks2_read_fn rd, void *arg, const char *what,
	       struct luks2 *h, struct tberr *e);
/* The same from a file or block device (O_RDONLY; nothing written). */
int luks2_open(const char *path, struct luks2 *h, struct tberr *e);
/* The same from memory (tests, fuzzing). */
int luks2_mem(const uint8_t *p, size_t n, const char *what, struct luks2 *h,
	      struct tberr *e);
void luks2_free(struct luks2 *h);

/* A decimal string of the metadata ("32768") as a number: 0, or -1. */
int luks2_u64(const struct json *j, uint64_t *v);

#endif
