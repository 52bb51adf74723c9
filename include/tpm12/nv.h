/* TPM 1.2 NV storage (Main Specification Part 2, 19: TPM_NV_DATA_PUBLIC,
 * TPM_NV_ATTRIBUTES). */
#ifndef TPMBOX_TPM12_NV_H
#define TPMBOX_TPM12_NV_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm12/structs.h"

struct tpm;

#define TPM12_CAP_NV_INDEX	0x11

struct tpm12_nv_public {
	uint32_t index;
	struct tpm12_pcr_info read, write;	/* TPM_PCR_INFO_SHORT each */
	uint32_t perm;		/* TPM_NV_ATTRIBUTES.attributes */
	int read_stclear, write_stclear, write_define;
	uint32_t size;
};

/* The largest index size taken from a TPM_NV_DATA_PUBLIC: its dataSize
 * is not authenticated, and a 1.2 holds a few KiB of NV in all (swtpm
 * 64 KiB), so a larger one is a damaged or forged answer, refused
 * before anything of that size is allocated (fault12 found nvread busy
 * for more than 10 s with dataSize 0xffffffff). */
#define TPM12_NV_SIZE_MAX	(1024 * 1024)

/* Parse a TPM_NV_DATA_PUBLIC, all of p[0..n): 0 or -1 (also for a size
 * above TPM12_NV_SIZE_MAX). */
int tpm12_nv_public_parse(const uint8_t *p, size_t n,
			  struct tpm12_nv_public *out);
/* TPM_GetCapability(TPM_CAP_NV_INDEX, index).  A missing index is exit
 * 6 "NV index 0x.. is not defined", as on a TPM 2.0. */
int tpm12_nv_public(struct tpm *t, uint32_t index,
		    struct tpm12_nv_public *out);
/* "OWNERWRITE|PPREAD": the permission bits by tpm-tools' names (what
 * tpm_nvdefine -p takes), "0" for none, unknown bits in hex. */
void tpm12_nv_perm_format(uint32_t perm, char *out, size_t cap);

#define TPM12_ORD_NV_DefineSpace	0x000000cc
#define TPM12_ORD_NV_WriteValue		0x000000cd
#define TPM12_ORD_NV_WriteValueAuth	0x000000ce
#define TPM12_ORD_NV_ReadValue		0x000000cf
#define TPM12_ORD_NV_ReadValueAuth	0x000000d0

/* TPM_NV_ATTRIBUTES bits (Part 2, 19.2) */
#define TPM12_NV_PER_READ_STCLEAR	0x80000000u
#define TPM12_NV_PER_AUTHREAD		0x00040000u
#define TPM12_NV_PER_OWNERREAD		0x00020000u
#define TPM12_NV_PER_PPREAD		0x00010000u
#define TPM12_NV_PER_GLOBALLOCK		0x00008000u
#define TPM12_NV_PER_WRITE_STCLEAR	0x00004000u
#define TPM12_NV_PER_WRITEDEFINE	0x00002000u
#define TPM12_NV_PER_WRITEALL		0x00001000u
#define TPM12_NV_PER_AUTHWRITE		0x00000004u
#define TPM12_NV_PER_OWNERWRITE		0x00000002u
#define TPM12_NV_PER_PPWRITE		0x00000001u
#define TPM12_NV_PER_ALL		0x8007f007u
/* TPM_LOCALITY_SELECTION: every locality */
#define TPM12_LOC_ALL			0x1f

/* TPM_NV_INDEX: the D bit (defined by the maker, never by DefineSpace),
 * TPM_NV_INDEX_LOCK (defining it turns NV permission checks on for
 * good), TPM_NV_INDEX0 (a 0-byte write sets the global lock). */
#define TPM12_NV_INDEX_D	0x10000000u
#define TPM12_NV_INDEX_LOCK	0xffffffffu
#define TPM12_NV_INDEX0		0x00000000u
/* TPM_CAP_PROPERTY TPM_CAP_PROP_INPUT_BUFFER: the TPM's input buffer. */
#define TPM12_CAP_PROP_INPUT_BUFFER	0x124
/* The chunk when the TPM does not say (every 1.2 takes a 1 KiB
 * command). */
#define TPM12_NV_CHUNK_DEFAULT	768

/* "OWNERREAD|OWNERWRITE": tpm-tools' names (case ignored) or numbers
 * (hex 0x... or decimal), or-ed with '|', as tpm_nvdefine -p takes them.
 * 0, or exit 2 with e set. */
int tpm12_nv_perm_parse(const char *s, uint32_t *perm, struct tberr *e);
/* A new index's public part: no PCR binding (a 3-byte empty selection,
 * every locality, as TrouSerS sends), the flags clear. */
void tpm12_nv_public_init(struct tpm12_nv_public *p, uint32_t index,
			  uint32_t perm, uint32_t size);
/* TPM_NV_DATA_PUBLIC as the wire has it (what the parser reads). */
void tpm12_put_nv_public(struct tb *b, const struct tpm12_nv_public *p);

/* TPM_NV_DefineSpace authorized by the owner (owner: its 20-byte value)
 * over OSAP, the index's value (auth, 20 bytes) ADIP-encrypted with the
 * session's shared secret; the answer's HMAC checked. */
int tpm12_nv_define(struct tpm *t, const uint8_t owner[20],
		    const uint8_t auth[20], const struct tpm12_nv_public *p);
/* The same with dataSize 0 (p as TPM_CAP_NV_INDEX gave it): the index is
 * gone. */
int tpm12_nv_release(struct tpm *t, const uint8_t owner[20],
		     const struct tpm12_nv_public *p);

/* Who authorizes a read or a write. */
enum tpm12_nv_by {
	TPM12_NV_BY_NONE,	/* TPM_NV_ReadValue / WriteValue, no auth */
	TPM12_NV_BY_OWNER,	/* the same, OSAP on the owner */
	TPM12_NV_BY_INDEX,	/* ..ValueAuth, OSAP on the index (TPM_ET_NV) */
};

struct tpm12_nv_access {
	uint32_t index;
	enum tpm12_nv_by by;
	uint8_t auth[20];	/* owner or index value */
	size_t chunk;		/* bytes per command */
};

/* A TPM 1.2 NV index as given on the command line: any 32-bit value,
 * hex (0x...) or decimal.  0, or exit 2 with e set. */
int tpm12_nv_index_parse(const char *s, uint32_t *index, struct tberr *e);
/* Who authorizes reading (write = 0) or writing (write = 1) the index p,
 * from the AUTH specs given (NULL: not given): --auth needs AUTHREAD
 * (AUTHWRITE), --owner-auth OWNERREAD (OWNERWRITE), as the TPM itself
 * refuses the others (TPM_AUTH_CONFLICT); without either, the index's
 * rule with the well-known secret (20 zero bytes, tpm-tools' -z), and
 * no authorization for an index that asks for none.  The value is
 * SHA-1 of the AUTH's bytes (tpm12_auth_value).  0, or exit 2/3 with e
 * set; x->chunk is left alone. */
int tpm12_nv_access_pick(const struct tpm12_nv_public *p, int write,
			 const char *auth_s, const char *owner_s,
			 struct tpm12_nv_access *x, struct tberr *e);

/* An AUTH spec (NULL: not given) as a TPM 1.2 value: SHA-1 of its
 * bytes, the well-known secret (20 zero bytes) when not given
 * (tpm12_auth_value); the parsed AUTH is wiped.  0, or auth_parse's
 * exit code with e set. */
int tpm12_nv_auth_value(const char *spec, uint8_t out[20], struct tberr *e);

/* What a refused NV command was (tpm12_nv_refused). */
enum tpm12_nv_op {
	TPM12_NV_OP_READ,	/* TPM_NV_ReadValue(Auth) */
	TPM12_NV_OP_WRITE,	/* TPM_NV_WriteValue(Auth) */
	TPM12_NV_OP_DEFINE,	/* TPM_NV_DefineSpace: define or release,
				 * by the owner */
};
/* A refusal of op on index (rc and e as the command left them) in the
 * words every NV applet uses: a wrong value (exit 4), the owner's or
 * the index's by who authorized (by), the option that gives it named,
 * "the well-known secret was tried" unless the value was given; on a
 * read or write, PPREAD / PPWRITE without physical presence (exit 4).
 * Anything else is left as it is.  Returns rc. */
int tpm12_nv_refused(struct tberr *e, int rc, enum tpm12_nv_op op,
		     enum tpm12_nv_by by, int given, uint32_t index);

/* The bytes one NV command may carry: TPM_CAP_PROP_INPUT_BUFFER less the
 * command's own bytes, at most what tpmbox's buffers hold;
 * TPM12_NV_CHUNK_DEFAULT when the TPM refuses the property. */
int tpm12_nv_chunk(struct tpm *t, size_t *chunk);
/* Write n bytes at offset in x->chunk pieces, one OSAP session for all of
 * them (each answer's HMAC checked); n = 0 sends one write of no bytes
 * (the lock of WRITEDEFINE, WRITE_STCLEAR, and on index 0 GLOBALLOCK). */
int tpm12_nv_write(struct tpm *t, const struct tpm12_nv_access *x,
		   const uint8_t *data, size_t n, uint32_t offset);
/* Read n bytes at offset, the same way; each answer's size must be the
 * size asked for.  n = 0 sends one read of no bytes (the lock of
 * READ_STCLEAR). */
int tpm12_nv_read(struct tpm *t, const struct tpm12_nv_access *x,
		  uint8_t *out, size_t n, uint32_t offset);

#endif
