/* PCR values as text: pcrread's format "BANK:INDEX HEX" one per line, and
 * JSON {"sha256": {"7": "hex"}}.  Used by pcrread, extend -v, seal's
 * PCRFILE, checkquote and the log replays. */
#ifndef TPMBOX_FMT_PCRFILE_H
#define TPMBOX_FMT_PCRFILE_H

#include "base/err.h"
#include "tpm2/pcr.h"

/* malloc'd NUL-terminated text; NULL on out-of-memory. */
char *pcr_format_text(const struct pcr_vals *v);
char *pcr_format_json(const struct pcr_vals *v);
/* Parse pcrread's text format (blank lines and # comments allowed).
 * Exit 2 on a malformed line, naming its number. */
int pcr_parse_text(const char *text, struct pcr_vals *v, struct tberr *e);

#endif
