/* TPM2_GetCapability: properties and handle lists. */
#ifndef TPMBOX_TPM2_CAP_H
#define TPMBOX_TPM2_CAP_H

#include <stddef.h>
#include <stdint.h>

struct tpm;

/* One GetCapability call; the capabilityData after the capability
 * selector is copied to buf.  *more gets moreData. */
int tpm2_getcap_raw(struct tpm *t, uint32_t cap, uint32_t prop,
		    uint32_t count, uint8_t *buf, size_t bufcap, size_t *len);
/* One TPM property; exit 1 if the TPM does not report it. */
int tpm2_getprop(struct tpm *t, uint32_t prop, uint32_t *val);
/* Handles of one type starting at first (all pages).  More than cap is
 * an error (exit 1), never a silently short list; TPM2_HANDLES_MAX is
 * what the applets give. */
#define TPM2_HANDLES_MAX	2048
int tpm2_gethandles(struct tpm *t, uint32_t first, uint32_t *out,
		    size_t cap, size_t *n);
/* Whether a command code is implemented. */
int tpm2_has_command(struct tpm *t, uint32_t cc, int *yes);

#endif

#ifndef TPMBOX_TPM2_CAP_PROPS
#define TPMBOX_TPM2_CAP_PROPS
struct tpm2_prop {
	uint32_t prop;
	uint32_t val;
};
/* All properties in [first, first+count), following moreData. */
int tpm2_getprops(struct tpm *t, uint32_t first, uint32_t count,
		  struct tpm2_prop *out, size_t cap, size_t *n);
/* Look up a property in a list from tpm2_getprops; 0 if absent. */
int tpm2_prop_find(const struct tpm2_prop *p, size_t n, uint32_t prop,
		   uint32_t *val);
#endif
