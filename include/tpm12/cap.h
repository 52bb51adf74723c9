/* TPM 1.2 TPM_GetCapability (Main Specification Part 2, 21). */
#ifndef TPMBOX_TPM12_CAP_H
#define TPMBOX_TPM12_CAP_H

#include <stddef.h>
#include <stdint.h>

struct tpm;

#define TPM12_CAP_FLAG		0x04
#define TPM12_CAP_PROPERTY	0x05
#define TPM12_CAP_NV_LIST	0x0d
#define TPM12_CAP_HANDLE	0x14
#define TPM12_CAP_VERSION_VAL	0x1a

#define TPM12_CAP_PROP_PCR		0x101
#define TPM12_CAP_PROP_MANUFACTURER	0x103
#define TPM12_CAP_PROP_KEYS		0x104
#define TPM12_CAP_PROP_MAX_AUTHSESS	0x10d
#define TPM12_CAP_PROP_MAX_KEYS		0x110
#define TPM12_CAP_PROP_OWNER		0x111
#define TPM12_CAP_FLAG_PERMANENT	0x108
#define TPM12_CAP_FLAG_VOLATILE		0x109

#define TPM12_NV_MAX	256
#define TPM12_KEYS_MAX	256

/* One capability: *resp points into the TPM's response buffer (valid
 * until the next command), *n its size (checked against the response). */
int tpm12_getcap(struct tpm *t, uint32_t area, uint32_t sub,
		 const uint8_t **resp, size_t *n);
/* A TPM_CAP_PROPERTY value: a UINT32, or a BOOL for flag properties. */
int tpm12_getprop(struct tpm *t, uint32_t prop, uint32_t *v);

struct tpm12_info {
	/* TPM_CAP_VERSION_VAL (TPM_CAP_VERSION_INFO) */
	uint8_t version[4];	/* major, minor, revMajor, revMinor */
	uint16_t spec_level;
	uint8_t errata_rev;
	uint8_t vendor_id[4];
	uint32_t manufacturer;	/* TPM_CAP_PROP_MANUFACTURER */
	int owner;
	int disabled;		/* TPM_PERMANENT_FLAGS.disable */
	int deactivated;	/* permanent deactivated */
	int temp_deactivated;	/* TPM_STCLEAR_FLAGS.deactivated */
	int nv_locked;
	uint32_t npcrs;
	uint32_t max_keys;	/* TPM_CAP_PROP_MAX_KEYS */
	uint32_t free_keys;	/* TPM_CAP_PROP_KEYS: slots free now */
	size_t nkeys;		/* loaded keys (TPM_CAP_HANDLE, TPM_RT_KEY) */
	uint32_t max_sessions;
	size_t nnv;
	uint32_t nv[TPM12_NV_MAX];
};

/* TPM_CAP_PROP_OWNER: whether the TPM has an owner (not authenticated:
 * a 1.2 answers capabilities without a session). */
int tpm12_owned(struct tpm *t, int *owned);
/* TPM_CAP_NV_LIST: the defined NV indices (at most TPM12_NV_MAX). */
int tpm12_nv_list(struct tpm *t, uint32_t nv[TPM12_NV_MAX], size_t *n);

/* TPM_STCLEAR_FLAGS.disableForceClear (TPM_DisableForceClear since the
 * last TPM_Startup(ST_CLEAR)). */
int tpm12_force_clear_disabled(struct tpm *t, int *disabled);

/* Everything info shows, in one go. */
int tpm12_info(struct tpm *t, struct tpm12_info *i);

#endif
