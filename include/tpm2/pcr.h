/* PCR selections (tpm2-tools grammar), bank discovery, read and extend. */
#ifndef TPMBOX_TPM2_PCR_H
#define TPMBOX_TPM2_PCR_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/tpm2const.h"

struct tpm;
struct tpm2_auth;

struct pcr_sel {
	int n;			/* banks, in the order given */
	int all;		/* the string was "all": every allocated bank */
	struct {
		uint16_t alg;
		uint32_t mask;	/* bit i = PCR i */
		int all;	/* "bank:all" */
	} b[TPM2_MAX_BANKS];
};

struct pcr_val {
	uint16_t alg;
	uint8_t idx;
	uint8_t len;
	uint8_t d[TPM2_MAX_DIGEST];
};

struct pcr_vals {
	int n;
	struct pcr_val v[TPM2_MAX_BANKS * 32];
};

/* The value of bank alg's PCR idx among v[0..n), NULL when absent (not
 * const: the caller's array may be; as strchr). */
struct pcr_val *pcr_val_find(const struct pcr_val *v, int n, uint16_t alg,
			     unsigned idx);

/* Bank names: "sha1" "sha256" "sha384" "sha512" "sm3_256". */
const char *alg_name(uint16_t alg);
/* Name or number (0x000b) -> alg; 0 when unknown. */
uint16_t alg_from_name(const char *s);

/* Parse a bank list "sha1,sha256" (',' or '+' between names) into
 * algs[0..*n), at most TPM2_MAX_BANKS.  Exit 2 naming an unknown bank, one
 * given twice, or an empty list. */
int pcr_banks_parse(const char *s, uint16_t *algs, int *n, struct tberr *e);

/* Parse "sha256:0,1,2+sha1:7", ranges "0-7", "sha256:all", "all".
 * Grammar only (exit 2 on errors); indices < 32. */
int pcr_sel_parse(const char *s, struct pcr_sel *sel, struct tberr *e);
/* Check against the TPM's allocated banks and PCR count, and expand
 * "all".  Exit 2 naming an unknown or unallocated bank or a bad index. */
int pcr_sel_resolve(struct pcr_sel *sel, const struct pcr_sel *alloc,
		    unsigned npcrs, struct tberr *e);
/* TPML_PCR_SELECTION with sizeofSelect = 3 (24 PCRs) or 4 when needed. */
void pcr_sel_marshal(struct tb *b, const struct pcr_sel *sel);
/* Read a TPML_PCR_SELECTION (untrusted bytes: at most TPM2_MAX_BANKS
 * banks of at most 4 bytes); -1 with b failed when malformed. */
int pcr_sel_unmarshal(struct tb *b, struct pcr_sel *sel);
/* Count of selected PCRs. */
int pcr_sel_count(const struct pcr_sel *sel);
/* Whether sel names its PCRs one by one (no "all", no "bank:all"): then
 * it can be read without asking for the banks first (tpm2_pcr_read says
 * which bank or PCR this TPM lacks, should it come to that). */
int pcr_sel_resolved(const struct pcr_sel *sel);

/* Every bank the TPM implements, as TPM_CAP_PCRS lists it (a bank with
 * an empty selection is implemented but not allocated), and the PCR count
 * (TPM_PT_PCR_COUNT). */
int tpm2_pcr_implemented(struct tpm *t, struct pcr_sel *impl,
			 unsigned *npcrs);
/* TPM2_PCR_Allocate's answer. */
struct pcr_alloc {
	int success;		/* allocationSuccess */
	uint32_t max_pcr, size_needed, size_available;
};
/* TPM2_PCR_Allocate with the platform hierarchy (pa): sel lists every
 * implemented bank with the PCRs it is to have after the next TPM reset
 * (a bank left out keeps its allocation).  The TPM keeps the request for
 * the next _TPM_Init; the answer says whether it can. */
int tpm2_pcr_allocate(struct tpm *t, struct tpm2_auth *pa,
		      const struct pcr_sel *sel, struct pcr_alloc *out);
/* "sha1, sha256": the banks of sel with a selection (all: every bank
 * listed), "none" when there is none. */
void pcr_bank_names(const struct pcr_sel *sel, int all, char *out,
		    size_t cap);
/* The allocation that makes want[0..nwant) the active banks, every PCR
 * in each, and no other bank: now is the TPM's allocation, next the one
 * to ask TPM2_PCR_Allocate for.  0 when they are the same, TPM2_PCR_CHANGE
 * when they differ, else an error (exit 2 naming the implemented banks
 * when one asked for is not). */
#define TPM2_PCR_CHANGE 100
int tpm2_pcr_plan(struct tpm *t, const uint16_t *want, int nwant,
		  struct pcr_sel *now, struct pcr_sel *next);
/* TPM2_PCR_Allocate of next (from tpm2_pcr_plan), pa authorizing the
 * platform hierarchy; the TPM's refusals in words (hierarchy disabled:
 * exit 1 with the hint to ask the firmware; wrong value: exit 4; no room
 * for the banks: exit 1). */
int tpm2_pcr_allocate_auth(struct tpm *t, struct tpm2_auth *pa,
			   const struct pcr_sel *next);
/* Allocated banks (TPM_CAP_PCRS; a bank with an empty selection is not
 * allocated) and the PCR count (the highest PCR an allocated bank has;
 * TPM_PT_PCR_COUNT when none is). */
int tpm2_pcr_banks(struct tpm *t, struct pcr_sel *alloc, unsigned *npcrs);
/* Read every selected PCR; values come back in selection order (banks as
 * given, indices ascending).  At most 8 a command; after
 * tpm2_trust_last, the last of them ends the process session.  A
 * resolved selection (pcr_sel_resolved) the TPM does not answer in full
 * is checked against its banks: a bank it lacks or a PCR beyond its
 * count is exit 2, as pcr_sel_resolve says it. */
int tpm2_pcr_read(struct tpm *t, const struct pcr_sel *sel,
		  struct pcr_vals *out);
/* Extend one PCR with one digest per bank (TPM2_PCR_Extend). */
int tpm2_pcr_extend(struct tpm *t, unsigned pcr, int n,
		    const uint16_t *algs, const uint8_t (*digests)[64]);

#endif
