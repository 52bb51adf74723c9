/* NV storage: index public areas and names, the attribute grammar of
 * tpm2-tools, and the NV commands (define, undefine, read public, read and
 * write chunked by TPM_PT_NV_BUFFER_MAX, increment, extend, set bits). */
#ifndef TPMBOX_TPM2_NV_H
#define TPMBOX_TPM2_NV_H

#include <stddef.h>
#include <stdint.h>

#include "base/auth.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/tpm2const.h"
#include "tpm2/cmd.h"

/* TPMA_NV (TCG TPM 2.0 Part 2, TPMA_NV). */
#define TPMA_NV_PPWRITE		(1u << 0)
#define TPMA_NV_OWNERWRITE	(1u << 1)
#define TPMA_NV_AUTHWRITE	(1u << 2)
#define TPMA_NV_POLICYWRITE	(1u << 3)
#define TPMA_NV_TPM_NT_SHIFT	4
#define TPMA_NV_TPM_NT_MASK	(0xfu << 4)
#define TPMA_NV_POLICY_DELETE	(1u << 10)
#define TPMA_NV_WRITELOCKED	(1u << 11)
#define TPMA_NV_WRITEALL	(1u << 12)
#define TPMA_NV_WRITEDEFINE	(1u << 13)
#define TPMA_NV_WRITE_STCLEAR	(1u << 14)
#define TPMA_NV_GLOBALLOCK	(1u << 15)
#define TPMA_NV_PPREAD		(1u << 16)
#define TPMA_NV_OWNERREAD	(1u << 17)
#define TPMA_NV_AUTHREAD	(1u << 18)
#define TPMA_NV_POLICYREAD	(1u << 19)
#define TPMA_NV_NO_DA		(1u << 25)
#define TPMA_NV_ORDERLY		(1u << 26)
#define TPMA_NV_CLEAR_STCLEAR	(1u << 27)
#define TPMA_NV_READLOCKED	(1u << 28)
#define TPMA_NV_WRITTEN		(1u << 29)
#define TPMA_NV_PLATFORMCREATE	(1u << 30)
#define TPMA_NV_READ_STCLEAR	(1u << 31)
/* Bits 8-9 and 20-24 are reserved. */
#define TPMA_NV_RESERVED	((3u << 8) | (0x1fu << 20))

#define TPMA_NV_ANYWRITE	(TPMA_NV_PPWRITE | TPMA_NV_OWNERWRITE | \
				 TPMA_NV_AUTHWRITE | TPMA_NV_POLICYWRITE)
#define TPMA_NV_ANYREAD		(TPMA_NV_PPREAD | TPMA_NV_OWNERREAD | \
				 TPMA_NV_AUTHREAD | TPMA_NV_POLICYREAD)
/* Set by the TPM, never at definition. */
#define TPMA_NV_STATE		(TPMA_NV_WRITELOCKED | TPMA_NV_READLOCKED | \
				 TPMA_NV_WRITTEN)
/* Cannot be undone, or lock the index beyond the caller's control:
 * nvdefine asks for --allow-irreversible. */
#define TPMA_NV_IRREVERSIBLE	(TPMA_NV_POLICY_DELETE | \
				 TPMA_NV_WRITEDEFINE | \
				 TPMA_NV_WRITE_STCLEAR | \
				 TPMA_NV_READ_STCLEAR | TPMA_NV_GLOBALLOCK | \
				 TPMA_NV_PLATFORMCREATE)

/* TPM_NT */
#define TPM2_NT_ORDINARY	0x0
#define TPM2_NT_COUNTER		0x1
#define TPM2_NT_BITS		0x2
#define TPM2_NT_EXTEND		0x4
#define TPM2_NT_PIN_FAIL	0x8
#define TPM2_NT_PIN_PASS	0x9

/* Handles 0x01000000-0x01ffffff; 0x01c00000 and up are TCG-reserved
 * (EK certificates and the like) but still NV indices. */
#define NV_INDEX_FIRST		0x01000000u
#define NV_INDEX_LAST		0x01ffffffu

static inline unsigned nv_type(uint32_t attrs)
{
	return (attrs & TPMA_NV_TPM_NT_MASK) >> TPMA_NV_TPM_NT_SHIFT;
}

/* TPMS_NV_PUBLIC plus the index name (nameAlg || H(TPMS_NV_PUBLIC)). */
struct nv_public {
	uint32_t index;
	uint16_t name_alg;
	uint32_t attrs;
	uint8_t policy[TPM2_MAX_DIGEST];
	size_t policy_len;
	uint16_t size;
	uint8_t name[2 + TPM2_MAX_DIGEST];
	size_t name_len;
};

/* "0x01000001" or decimal; only the NV range 0x01xxxxxx.  Exit 2. */
int nv_index_parse(const char *s, uint32_t *index, struct tberr *e);

/* Attribute grammar (tpm2-tools): names joined by '|', e.g.
 * "ownerread|ownerwrite|authread|authwrite|nt=counter", or one number
 * ("0x2000a").  nt= takes ordinary|counter|bits|extend|pinfail|pinpass or
 * a number.  Exit 2 naming an unknown word. */
int nv_attr_parse(const char *s, uint32_t *attrs, struct tberr *e);
/* Names in bit order joined by '|', "nt=TYPE" in place of the type bits;
 * reserved bits as "0x..".  Returns the length (truncated to n-1). */
size_t nv_attr_format(uint32_t attrs, char *buf, size_t n);
/* TPM_NT from "ordinary" "counter" "bits" "extend" "pinfail" "pinpass";
 * -1 if unknown. */
int nv_type_parse(const char *s);
/* "ordinary", ..., "nt=0x7" style for unknown values (static buffer-free:
 * unknown types return "unknown"). */
const char *nv_type_name(unsigned nt);

/* TPMS_NV_PUBLIC on the wire. */
void nv_public_marshal(struct tb *b, const struct nv_public *p);
/* Parse a TPMS_NV_PUBLIC (inside its TPM2B); sets err on malformed. */
void nv_public_unmarshal(struct tb *b, struct nv_public *p);
/* Compute p->name from the public area.  Exit 1 when the nameAlg is not
 * one tpmbox can hash. */
int nv_compute_name(struct nv_public *p, struct tberr *e);

/* TPM_PT_NV_INDEX_MAX and TPM_PT_NV_BUFFER_MAX. */
int tpm2_nv_limits(struct tpm *t, uint32_t *index_max, uint32_t *buffer_max);

/* TPM2_NV_ReadPublic; the name the TPM returns is checked against the one
 * computed here.  A missing index is exit 6 "NV index 0x.. is not
 * defined". */
int tpm2_nv_readpublic(struct tpm *t, uint32_t index, struct nv_public *p);

/* TPM2_NV_DefineSpace under hierarchy hier (TPM2_RH_OWNER or
 * TPM2_RH_PLATFORM) authorized by ha, with the index's authValue. */
int tpm2_nv_define(struct tpm *t, uint32_t hier, struct tpm2_auth *ha,
		   const uint8_t *auth, size_t authlen,
		   const struct nv_public *p);
/* TPM2_NV_UndefineSpace. */
int tpm2_nv_undefine(struct tpm *t, uint32_t hier, struct tpm2_auth *ha,
		     const struct nv_public *p);

/* The authorization for an NV access: authHandle is the index itself
 * (its authValue) or TPM2_RH_OWNER / TPM2_RH_PLATFORM; a is the password
 * or session.  p's attrs and name are updated when a write sets WRITTEN
 * (the name changes with it; a session's cpHash needs the new one). */
struct nv_access {
	struct nv_public *p;
	uint32_t auth_handle;
	struct tpm2_auth *a;
	uint32_t chunk;		/* TPM_PT_NV_BUFFER_MAX */
};

/* The authorization an applet asked for, and what it became.  An auth
 * value given on the command line is never sent as a plain password: it
 * keys the process's HMAC session salted to the SRK (tpm2/srk.h: pinned
 * when a pin is set; with no pin and no SRK persisted, a NULL-hierarchy
 * key), which also encrypts the data of reads and writes (AES-CFB).
 * Without one, the empty password is used. */
struct nv_auth {
	struct authval v;
	struct tpm2_auth a;
	void *sess;		/* struct tpm2_session *, or NULL */
	const struct nv_access *x;	/* index access (nv_auth_begin) */
	int given;		/* --auth or --owner-auth was given */
};

/* What the authorization is for. */
#define NV_OP_READ	0	/* read; the response data is encrypted */
#define NV_OP_WRITE	1	/* write data (first parameter encrypted) */
#define NV_OP_MODIFY	2	/* write access without data (increment,
				 * set bits) */

/* Choose the authorization for op on x->p: index_auth (--auth AUTH) uses
 * the index's authValue, owner_auth (--owner-auth AUTH) the owner's;
 * neither: what the attributes allow (authread/authwrite first, then
 * ownerread/ownerwrite) with an empty value.  Fills x->auth_handle and
 * x->a.  Exit 2 when the index does not allow the access that way. */
int nv_auth_begin(struct tpm *t, struct nv_access *x, struct nv_auth *na,
		  int op, const char *index_auth, const char *owner_auth);
/* The authorization for hierarchy hier (owner or platform) from spec
 * (NULL: empty).  With encrypt, the first command parameter is encrypted
 * (NV_DefineSpace: the new index's auth value). */
int nv_hier_auth_begin(struct tpm *t, struct nv_auth *na, uint32_t hier,
		       const char *spec, int encrypt);
/* Wipe the auth value (the session is the process's: it stays), keeping
 * the error being reported.  Returns rc; after an authorization failure
 * (exit 4) of an index access, the error gets a hint naming what was
 * used and what to try. */
int nv_auth_end(struct tpm *t, struct nv_auth *na, int rc);

/* Read n bytes at offset, in chunks. */
int tpm2_nv_read(struct tpm *t, struct nv_access *x, uint8_t *out,
		 size_t n, size_t offset);
/* Write n bytes at offset, in chunks. */
int tpm2_nv_write(struct tpm *t, struct nv_access *x, const uint8_t *data,
		  size_t n, size_t offset);
int tpm2_nv_increment(struct tpm *t, struct nv_access *x);
/* One TPM2_NV_Extend: the index becomes H(old || data). */
int tpm2_nv_extend(struct tpm *t, struct nv_access *x, const uint8_t *data,
		   size_t n);
int tpm2_nv_setbits(struct tpm *t, struct nv_access *x, uint64_t bits);

#endif
