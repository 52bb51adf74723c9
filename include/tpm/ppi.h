/* The Linux physical presence interface (PPI) under
 * /sys/class/tpm/tpmN/ppi/: the kernel's texts read back strictly, the
 * folder found, a request written.  The formats (drivers/char/tpm/
 * tpm_ppi.c): version "1.3"; request "OP" or, for operation 23 on PPI
 * 1.3, "OP ARG"; response "0: No Recent Request" or "OP CODE: TEXT"
 * (CODE decimal or 0xHEX); transition_action "N: TEXT"; tcg_operations
 * and vs_operations one "OP STATUS: TEXT" line per operation the firmware
 * knows (status 1..4). */
#ifndef TPMBOX_TPM_PPI_H
#define TPMBOX_TPM_PPI_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define PPI_OPS 256		/* operations 0..255 (vendor ops 128..255) */
#define PPI_FILE_MAX 8192	/* a sysfs text is at most a page */
#define PPI_OP_SET_BANKS 23	/* PPI 1.3: its argument is a bank bitmap */

/* Operation status (the kernel's tcg_operations). */
enum {
	PPI_ST_NONE = 0,	/* not implemented (not listed) */
	PPI_ST_BIOS_ONLY = 1,
	PPI_ST_BLOCKED = 2,
	PPI_ST_USER = 3,	/* allowed; a person confirms at boot */
	PPI_ST_NO_USER = 4,	/* allowed without confirmation */
};

struct ppi_request {
	uint32_t op;
	int has_arg;
	uint32_t arg;
};

struct ppi_response {
	uint32_t op;		/* 0: no recent request */
	uint32_t code;		/* 0 success, 0xFFFFFFF0 user abort, ... */
};

/* Each parser takes the file's bytes (s, n; no terminator needed) and
 * returns 0, or EX_IO with e set when the text is not the kernel's. */
int ppi_parse_version(const char *s, size_t n, char out[8],
		      struct tberr *e);
int ppi_parse_request(const char *s, size_t n, struct ppi_request *r,
		      struct tberr *e);
int ppi_parse_response(const char *s, size_t n, struct ppi_response *r,
		       struct tberr *e);
int ppi_parse_action(const char *s, size_t n, uint32_t *action,
		     struct tberr *e);
/* Fill st[op] for each listed line (ops not listed stay as they were). */
int ppi_parse_ops(const char *s, size_t n, uint8_t st[PPI_OPS],
		  struct tberr *e);

/* Names; never NULL. */
const char *ppi_op_name(uint32_t op);
const char *ppi_status_name(uint32_t st);
const char *ppi_action_name(uint32_t a);	/* what happens at boot */
/* The response code in words ("succeeded", "declined at the console"). */
const char *ppi_code_name(uint32_t code);

/* "sha1,sha256" -> the EFI TCG2 hash bitmap (sha1 1, sha256 2, sha384 4,
 * sha512 8, sm3_256 16); EX_USAGE for an unknown or repeated name.
 * ppi_banks_format writes the names of a bitmap into out (size n). */
int ppi_banks_parse(const char *list, uint32_t *bits, struct tberr *e);
void ppi_banks_format(uint32_t bits, char *out, size_t n);

/* The ppi folder: ROOT/class/tpm/tpmN/ppi with ROOT the environment's
 * TPMBOX_SYSFS or /sys; dev "/dev/tpm0" or "/dev/tpmrm0" picks tpm0,
 * NULL the first tpmN.  EX_IO when there is no such folder. */
int ppi_find(const char *dev, char *dir, size_t n, struct tberr *e);
/* Read DIR/NAME into buf (at most PPI_FILE_MAX bytes); *len set. */
int ppi_read(const char *dir, const char *name, char *buf, size_t *len,
	     struct tberr *e);
/* Write the request ("OP" or "OP ARG") to DIR/request.  EX_IO when the
 * file cannot be opened (not root, read-only), EX_FAIL when the kernel
 * or firmware refuses the operation. */
int ppi_write_request(const char *dir, const struct ppi_request *r,
		      struct tberr *e);

#endif
