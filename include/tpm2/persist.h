/* Persistent objects (TPM2_EvictControl with the owner hierarchy). */
#ifndef TPMBOX_TPM2_PERSIST_H
#define TPMBOX_TPM2_PERSIST_H

#include <stdint.h>

struct tpm;
struct tpm2_public;

/* Owner-range persistent handles (platform ones start at 0x81800000). */
#define TPM2_PERSIST_FIRST	0x81000000u
#define TPM2_PERSIST_LAST	0x817fffffu

/* Make the loaded object obj (public area pub) persistent at handle,
 * authorized by the owner value owner_spec (an AUTH; NULL: empty; it keys
 * the process's salted session).  The same object already there:
 * *already = 1 and nothing is sent.  Another object there: exit 1
 * naming it, unless force (it is evicted first). */
int tpm2_persist(struct tpm *t, const char *owner_spec, uint32_t obj,
		 const struct tpm2_public *pub, uint32_t handle, int force,
		 int *already);
/* Remove the persistent object at handle (pub: its public area, read
 * before), authorized as above. */
int tpm2_unpersist(struct tpm *t, const char *owner_spec, uint32_t handle,
		   const struct tpm2_public *pub);
/* A word for what pub is: "the standard SRK", "the RSA EK", "an AK",
 * "a storage key", "a signing key", "sealed data", "a key". */
const char *tpm2_object_kind(const struct tpm2_public *pub);

#endif
