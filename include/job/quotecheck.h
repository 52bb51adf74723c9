/* checkquote's job: a quote verified on the host, no TPM needed, read
 * from its files (tpmbox's QUOTE file or tpm2-tools' three pieces on 2.0;
 * tpmbox's 1.2 file or tpm_getquote's two on 1.2), checked against the AK
 * (fmt/quote.h, fmt/quote12.h), and on 2.0 the boot and IMA logs replayed
 * against the quoted values. */
#ifndef TPMBOX_JOB_QUOTECHECK_H
#define TPMBOX_JOB_QUOTECHECK_H

#include "base/err.h"
#include "fmt/quote.h"
#include "tpm2/pcr.h"

struct srk_pin;

/* The command line's files and expectations (NULL: not given). */
struct quotecheck {
	const char *key;	/* -k: the AK's public key, blob, ... */
	const char *nonce_hex;	/* -n: NULL, the nonce is not checked */
	const char *sel;	/* -p: NULL, any selection */
	const char *quote;	/* QUOTE, or NULL: the pieces below */
	const char *msg, *sig, *pcrs;
	const char *eventlog, *imalog;	/* 2.0 only */
	const struct srk_pin *pin;	/* 2.0: the attesting TPM's SRK */
};

/* Whether path holds tpmbox's TPM 1.2 quote file (errors are left to the
 * reader proper). */
int quotecheck_is12(const char *path);

/* A TPM 1.2 quote, o->quote or tpm_getquote's o->sig and o->pcrs (then
 * o->nonce_hex is required): every check of quote12_check; v gets the
 * verified values. */
int quotecheck12(const struct quotecheck *o, struct pcr_vals *v,
		 struct tberr *e);

struct quotecheck_result {
	struct quote *q;	/* malloc'd: the verified quote */
	int ak_public;		/* -k held the AK's public area, not a bare
				 * key (qualifiedSigner checked by name) */
	char *notes;		/* malloc'd or NULL: lines for stderr about
				 * the IMA log, also on failure */
};

/* A TPM 2.0 quote: every check of quote_check, then the logs (a log that
 * does not replay to the quoted values is "event log check failed" or
 * "IMA log check failed", exit 1).  Free r with quotecheck_free, also
 * on failure. */
int quotecheck2(const struct quotecheck *o, struct quotecheck_result *r,
		struct tberr *e);
void quotecheck_free(struct quotecheck_result *r);

#endif
