/* The credential file of tpm2-tools (tpm2_makecredential -o,
 * tpm2_activatecredential -i), which Keylime's verifier writes too:
 *   u32 0xBADCC0DE, u32 version 1,
 *   TPM2B_ID_OBJECT credentialBlob, TPM2B_ENCRYPTED_SECRET secret
 * (big-endian, nothing after). */
#ifndef TPMBOX_FMT_CREDFILE_H
#define TPMBOX_FMT_CREDFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define CREDFILE_MAGIC		0xbadcc0deu
#define CREDFILE_VERSION	1u
#define CREDFILE_ID_MAX		(2 + 64 + 2 + 64)	/* TPM2B_ID_OBJECT */
#define CREDFILE_SECRET_MAX	(2 + 512)	/* TPM2B_ENCRYPTED_SECRET */
#define CREDFILE_MAX		(8 + 2 + CREDFILE_ID_MAX + CREDFILE_SECRET_MAX)

struct credfile {
	uint8_t id[CREDFILE_ID_MAX];	/* credentialBlob, without its size */
	size_t idlen;
	/* the marshalled TPM2B_ENCRYPTED_SECRET, size included */
	uint8_t secret[CREDFILE_SECRET_MAX];
	size_t secretlen;
};

/* out holds CREDFILE_MAX bytes.  0, or -1 when a field is too large. */
int credfile_encode(const struct credfile *c, uint8_t *out, size_t *n);
/* Exit 1 with "credential: why" on anything but the format above. */
int credfile_decode(const uint8_t *d, size_t n, struct credfile *c,
		    struct tberr *e);

#endif
