/* The family-neutral entry per job (the Linux kernel's tpm-interface.c
 * model): the family is detected once per process (tpm_family) and each
 * entry calls lib/tpm2/ or lib/tpm12/. */
#ifndef TPMBOX_JOB_TPM_H
#define TPMBOX_JOB_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "tpm2/cmd.h"

struct pcr_sel;
struct pcr_vals;

#define TPM_FAMILY_12	1
#define TPM_FAMILY_20	2

/* TPM_FAMILY_12 or TPM_FAMILY_20, cached in t; 0 on a transport error
 * (t->e set).  /dev/tpmrmN is 2.0; /dev/tpmN asks sysfs
 * (tpm_version_major); anything else (swtpm sockets, a pty, old kernels)
 * gets the kernel's probe, one TPM2_GetCapability: a 0x8001 tag answers
 * 2.0, a 1.2 tag 1.2 (no side effect on either). */
int tpm_family(struct tpm *t);
/* The family, when what the caller holds (a bare PCR list, a blob or
 * key of one family, an option only one family has) wants the family
 * want: a family that contradicts it and came from an answer on the bus
 * is asked again before the caller blames its arguments, and two answers
 * that differ are exit 3 ("the TPM's answers are inconsistent"), 0
 * returned.  Returns the family (the caller refuses a different one as
 * before), or 0 with t->e set.  want 0: tpm_family. */
int tpm_family_confirm(struct tpm *t, int want);
/* The family when known without sending anything (the device's name or
 * sysfs, or an earlier answer); 0: not known yet. */
int tpm_family_known(struct tpm *t);
/* For a job of unknown family sent to lib/tpm2/ first (before: what
 * tpm_family_known said then): whether it failed (rc) because its first
 * command went to a TPM 1.2, which refused it having done nothing.  The
 * error is cleared then, for the job's lib/tpm12/ run. */
int tpm_answered_12(struct tpm *t, int rc, int before);
/* Whether the TPM is a device (/dev/tpmrm0, /dev/tpm0): the machine's own,
 * not a socket. */
int tpm_is_device(const struct tpm *t);
/* Name of a command code of either family (for traces). */
const char *tpm_cc_name(uint32_t cc);

/* The job's next command is its last that needs the process session:
 * it goes with the session ending with it (no FlushContext; TPM 2.0, a
 * session salted to the persistent SRK: tpm2_trust_last). */
void tpm_last(struct tpm *t);
/* The SRK pin's salted session (tpm2_trust_begin) on 2.0; on 1.2 a pin
 * is a usage error: there is no SRK name to pin. */
int tpm_trust_begin(struct tpm *t);

/* TPM2_Shutdown(STATE), or (clear) TPM2_Shutdown(CLEAR); on a TPM 1.2
 * TPM_SaveState (clear is the caller's refusal). */
int tpm_shutdown(struct tpm *t, int clear);
int tpm_getrandom(struct tpm *t, uint8_t *out, size_t n);
/* Banks and PCR count; on 1.2 the one sha1 bank. */
int tpm_pcr_banks(struct tpm *t, struct pcr_sel *alloc, unsigned *npcrs);
/* A PCR selection string: on 1.2 a bare list ("0,7") means sha1. */
int tpm_pcr_parse(struct tpm *t, const char *spec, struct pcr_sel *sel);
/* pcr_sel_resolve, saying that a 1.2 TPM has only sha1. */
int tpm_pcr_resolve(struct tpm *t, struct pcr_sel *sel,
		    const struct pcr_sel *alloc, unsigned npcrs);
/* Whether bank alg is in alloc: 0, or exit 2 saying why not. */
int tpm_bank_check(struct tpm *t, const struct pcr_sel *alloc, uint16_t alg);
int tpm_pcr_read(struct tpm *t, const struct pcr_sel *sel,
		 struct pcr_vals *out);
int tpm_pcr_extend(struct tpm *t, unsigned pcr, int n, const uint16_t *algs,
		   const uint8_t (*digests)[64]);

#endif
