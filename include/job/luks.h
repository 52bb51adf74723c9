/* LUKS2 volumes' TPM tokens as one job: the header and every token read
 * (fmt/luks2.h, fmt/luks2tok.h) before anything is sent to a TPM, then
 * whether this TPM's PCRs satisfy each token's policy now: the policy
 * digest the token's sealed object needs, computed on the host from one
 * PCR_Read (tpm2/policy.h), compared with what the token recorded
 * (systemd: tpm2-policy-hash; clevis: the sealed object's authPolicy).
 * The policy order is systemd's (../shared/ORACLES.md): PolicyAuthorize,
 * pcrlock, PolicyPCR, PolicyAuthValue; clevis: PolicyPCR alone. */
#ifndef TPMBOX_JOB_LUKS_H
#define TPMBOX_JOB_LUKS_H

#include "base/err.h"
#include "fmt/luks2.h"
#include "fmt/keyfile.h"
#include "fmt/luks2tok.h"
#include "job/escrow.h"

struct pcr_vals;

struct tpm;
struct tpm2_public;

enum { LUKS_TOK_OTHER = 0, LUKS_TOK_SYSTEMD, LUKS_TOK_CLEVIS, LUKS_TOK_TPMBOX };

/* What the PCRs say now. */
enum {
	LUKS_MATCH_UNKNOWN = 0,	/* no TPM asked */
	LUKS_MATCH_YES,
	LUKS_MATCH_NO,
	LUKS_MATCH_NOBANK,	/* this TPM has no such PCR bank allocated */
	LUKS_MATCH_UNCHECKED,	/* a signed policy or pcrlock: not here */
	LUKS_MATCH_NA,		/* not a TPM pin (clevis sss, tang) */
};

struct luks_tok {
	int id;
	int kind;
	const struct luks2_token *t;
	struct sdtpm2 *sd;	/* LUKS_TOK_SYSTEMD */
	struct clevis *cl;	/* LUKS_TOK_CLEVIS */
	struct tpmboxtok *tb;	/* LUKS_TOK_TPMBOX: the blob's text, */
	struct keyfile *kf;	/* decoded, */
	int escrow;		/* with escrow copies: */
	struct escrow_counts ec;	/* for whom */
	int match[CLEVIS_PINS];	/* systemd: [0]; clevis: per pin */
};

struct luks_vol {
	struct luks2 h;
	int n;
	struct luks_tok tok[LUKS2_SLOTS];
};

/* Read the header and every TPM token of path (exit 1 on anything
 * malformed, naming the token and member; 3/6 as the file's errors). */
int luks_load(const char *path, struct luks_vol *v, struct tberr *e);
/* The same from memory (fuzzing). */
int luks_load_mem(const uint8_t *p, size_t n, const char *what,
		  struct luks_vol *v, struct tberr *e);
/* Which TPM tokens' policies this TPM's PCRs satisfy: the allocated banks
 * and one PCR_Read of every PCR any token names. */
int luks_match(struct tpm *t, struct luks_vol *v, struct tberr *e);
void luks_vol_free(struct luks_vol *v);
/* The legacy primary systemd (before 254) and clevis seal under:
 * tpm2_createprimary's default template (the standard SRK's without
 * noDA), RSA-2048 or ECC P-256, name_alg (0: SHA-256), made under the
 * owner hierarchy with an empty value into *h and *pub.  The caller
 * prefixes the error with what it was for. */
int luks_legacy_primary(struct tpm *t, int rsa, uint16_t name_alg,
			uint32_t *h, struct tpm2_public *pub, struct tberr *e);
/* The policy digest (halg) d, holding the digest so far (zeros, or
 * PolicyAuthorize's), extended by PolicyPCR over bank:mask with their
 * values out of all (when mask; sub is room for them) and PolicyAuthValue
 * (when pin).  Returns its size, 0 when a value is missing. */
size_t luks_policy_expect(uint16_t halg, uint16_t bank, uint32_t mask,
			  int pin, const struct pcr_vals *all,
			  struct pcr_vals *sub, uint8_t *d);

#endif
