/* Predicted PCRs (pcrpredict): a parsed boot event log with some of its
 * events' digests replaced by what the next boot will measure, then
 * replayed with evl_replay.
 *
 * - A boot application or driver (EV_EFI_BOOT_SERVICES_APPLICATION or
 *   _DRIVER) whose digests are the Authenticode digests of an old image
 *   gets the new image's digests.
 * - A secure-boot variable (EV_EFI_VARIABLE_DRIVER_CONFIG for SecureBoot,
 *   PK, KEK, db, dbx) gets the digest of its UEFI_VARIABLE_DATA with the
 *   new value, when its logged digests are the digests of its logged data.
 *
 * Events the change may alter but that cannot be recomputed are collected
 * as notes (one line each) for the caller to show. */
#ifndef TPMBOX_LOG_PREDICT_H
#define TPMBOX_LOG_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "log/eventlog.h"

struct pred {
	struct evl *log;
	uint8_t (*mem)[64];	/* new digests: [event * banks + bank] */
	char *notes;		/* malloc'd lines; NULL when none */
	size_t nlen;
	int nnotes;
	int authority_noted;
};

int pred_init(struct pred *p, struct evl *log, struct tberr *e);
void pred_free(struct pred *p);

/* The banks digests are computed for: the log's banks this build can
 * hash, in the log's order.  Returns their number. */
int pred_banks(const struct pred *p, uint16_t *algs);

/* Replace the images whose digests (in pred_banks order) are old by new.
 * label names the change in notes.  *count gets the events replaced. */
int pred_app(struct pred *p, const char *label, const uint8_t (*old)[64],
	     const uint8_t (*new)[64], int *count, struct tberr *e);

/* The names --replace-var takes. */
int pred_var_known(const char *name);
/* Check a new variable value (an EFI_SIGNATURE_LIST sequence, or one byte
 * for SecureBoot); a value read from efivarfs (a 4-byte attributes word
 * first) is taken without that word.  *val and *len are moved past it.
 * Exit 1 naming what is wrong. */
int pred_var_value(const char *name, const uint8_t **val, size_t *len,
		   struct tberr *e);
/* Recompute the name's EV_EFI_VARIABLE_DRIVER_CONFIG events with the new
 * value.  *count gets the events recomputed. */
int pred_var(struct pred *p, const char *name, const uint8_t *val,
	     size_t len, int *count, struct tberr *e);

/* Keep of in the values selected by sel ("all", "bank:all", lists).
 * Exit 1 naming a bank or PCR the log does not give. */
int pred_select(const struct pcr_vals *in, const struct pcr_sel *sel,
		struct pcr_vals *out, struct tberr *e);

#endif
