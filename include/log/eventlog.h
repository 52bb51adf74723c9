/* TCG PC Client platform firmware event logs (the kernel's
 * binary_bios_measurements): the SHA-1-only legacy format
 * (TCG_PCClientPCREvent) and the crypto-agile format (a "Spec ID Event03"
 * header event followed by TCG_PCR_EVENT2 records with a digest list).
 *
 * The log is untrusted input: every length is checked against the bytes
 * left, the event count and sizes are bounded, and a short log is reported
 * as "truncated at offset N" (exit 1), never guessed at. */
#ifndef TPMBOX_LOG_EVENTLOG_H
#define TPMBOX_LOG_EVENTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm2/pcr.h"

#define EVL_DEFAULT_PATH "/sys/kernel/security/tpm0/binary_bios_measurements"
#define EVL_MAX_FILE	(64u << 20)	/* bytes of log read */
#define EVL_MAX_EVENTS	100000u
#define EVL_MAX_DATA	(16u << 20)	/* one event's data */

/* Event types (PC Client PFP spec, section 10.4.1). */
#define EV_PREBOOT_CERT			0x00000000u
#define EV_POST_CODE			0x00000001u
#define EV_NO_ACTION			0x00000003u
#define EV_SEPARATOR			0x00000004u
#define EV_ACTION			0x00000005u
#define EV_EVENT_TAG			0x00000006u
#define EV_S_CRTM_CONTENTS		0x00000007u
#define EV_S_CRTM_VERSION		0x00000008u
#define EV_CPU_MICROCODE		0x00000009u
#define EV_PLATFORM_CONFIG_FLAGS	0x0000000au
#define EV_TABLE_OF_DEVICES		0x0000000bu
#define EV_COMPACT_HASH			0x0000000cu
#define EV_IPL				0x0000000du
#define EV_IPL_PARTITION_DATA		0x0000000eu
#define EV_NONHOST_CODE			0x0000000fu
#define EV_NONHOST_CONFIG		0x00000010u
#define EV_NONHOST_INFO			0x00000011u
#define EV_OMIT_BOOT_DEVICE_EVENTS	0x00000012u
#define EV_EFI_EVENT_BASE		0x80000000u
#define EV_EFI_VARIABLE_DRIVER_CONFIG	0x80000001u
#define EV_EFI_VARIABLE_BOOT		0x80000002u
#define EV_EFI_BOOT_SERVICES_APPLICATION 0x80000003u
#define EV_EFI_BOOT_SERVICES_DRIVER	0x80000004u
#define EV_EFI_RUNTIME_SERVICES_DRIVER	0x80000005u
#define EV_EFI_GPT_EVENT		0x80000006u
#define EV_EFI_ACTION			0x80000007u
#define EV_EFI_PLATFORM_FIRMWARE_BLOB	0x80000008u
#define EV_EFI_HANDOFF_TABLES		0x80000009u
#define EV_EFI_PLATFORM_FIRMWARE_BLOB2	0x8000000au
#define EV_EFI_HANDOFF_TABLES2		0x8000000bu
#define EV_EFI_VARIABLE_BOOT2		0x8000000cu
#define EV_EFI_HCRTM_EVENT		0x80000010u
#define EV_EFI_VARIABLE_AUTHORITY	0x800000e0u
#define EV_EFI_SPDM_FIRMWARE_BLOB	0x800000e1u
#define EV_EFI_SPDM_FIRMWARE_CONFIG	0x800000e2u

struct evl_digest {
	uint16_t alg;
	uint16_t len;
	const uint8_t *d;	/* points into the log buffer */
};

struct evl_event {
	uint32_t num;		/* 0 = the first record of the log */
	size_t offset;		/* where the record starts in the log */
	uint32_t pcr;
	uint32_t type;
	int ndig;
	struct evl_digest dig[TPM2_MAX_BANKS];
	uint32_t dlen;
	const uint8_t *data;	/* points into the log buffer */
};

struct evl_alg {
	uint16_t alg;
	uint16_t size;
};

struct evl {
	int agile;		/* crypto-agile (Spec ID Event03 header) */
	int nalgs;		/* banks, in the header's order */
	struct evl_alg algs[TPM2_MAX_BANKS];
	int locality;		/* StartupLocality value, -1 when absent */
	uint32_t n;		/* events (including the header event) */
	struct evl_event *ev;	/* malloc'd; evl_free() */
};

/* Parse buf[0..len) (which must outlive log).  Exit 1 with "truncated at
 * offset N" or "event N at offset M: why" on a malformed log. */
int evl_parse(const uint8_t *buf, size_t len, struct evl *log,
	      struct tberr *e);
void evl_free(struct evl *log);

/* Replay into PCR values: banks in the header's order (sha1 only for a
 * legacy log), PCRs ascending, only PCRs that some event extends.
 * EV_NO_ACTION events are not extended; PCR 0 starts at the
 * StartupLocality value when the log carries that event.  Banks this build
 * cannot hash are left out. */
int evl_replay(const struct evl *log, struct pcr_vals *out, struct tberr *e);

/* evl_replay, with the PCRs in reset_too (bit i = PCR i) given in every
 * bank even when no event extends them (at their reset value). */
int evl_replay_reset(const struct evl *log, uint32_t reset_too,
		     struct pcr_vals *out, struct tberr *e);

/* UEFI_VARIABLE_DATA, the data of the EV_EFI_VARIABLE_* events:
 * VariableName GUID, UnicodeNameLength u64, VariableDataLength u64,
 * UnicodeName (UTF-16LE, no NUL), VariableData.  Pointers into the event's
 * data. */
struct evl_var {
	const uint8_t *guid;	/* 16 bytes, as in the log */
	const uint8_t *name;	/* nlen UTF-16LE code units */
	size_t nlen;
	const uint8_t *val;
	size_t vlen;
};

/* Parse an event's data as UEFI_VARIABLE_DATA that fills it exactly;
 * -1 when it is not one. */
int evl_var_parse(const struct evl_event *ev, struct evl_var *v);

/* Read (bounded) and parse a log file: *buf (malloc'd) holds the bytes
 * log points into; free it after evl_free.  Exit 6 when missing, 3 on I/O
 * error, 1 when malformed (the message names path). */
int evl_read_file(const char *path, uint8_t **buf, struct evl *log,
		  struct tberr *e);
/* Read (bounded), parse and replay a log file in one call (for checkquote).
 * Unlike evl_replay, PCRs 0-7 of every bank the log covers are given even
 * when no event extends them (at their reset value: 0, or the
 * StartupLocality value in PCR 0), so a log with a PCR's events removed
 * does not match a quote of that PCR.
 * Exit 6 when missing, 3 on I/O error, 1 when malformed. */
int eventlog_replay_file(const char *path, struct pcr_vals *out,
			 struct tberr *e);

/* The TPM's values of the PCRs in want, for eventlog/imalog --check:
 * got->v[i] pairs with want->v[i]; got->v[i].len is 0 where the TPM has no
 * such bank or PCR.  TPM errors are reported through the tpm's error. */
int evl_tpm_values(struct tpm *t, const struct pcr_vals *want,
		   struct pcr_vals *got);

/* --check for eventlog and imalog: compare want with the TPM.  *report
 * (malloc'd) gets one line per PCR: "BANK:IDX differs: log HEX tpm HEX",
 * "BANK:IDX not on this TPM; not checked", and at the end
 * "N PCRs match the log" when none differs.  Returns 0 when every
 * compared PCR matches, 1 naming the PCRs that differ (or saying that
 * none could be compared), or the TPM error's code. */
int evl_check(struct tpm *t, const struct pcr_vals *want, char **report,
	      struct tberr *e);

/* "EV_SEPARATOR"; NULL for a type without a name. */
const char *evl_type_name(uint32_t type);
/* A short printable summary of an event's data into out[0..cap). */
void evl_summary(const struct evl_event *ev, char *out, size_t cap);

#endif
