/* The Authenticode image digest of a PE/COFF file (PE32 and PE32+): what
 * UEFI firmware extends into PCR 2/4 for an EV_EFI_BOOT_SERVICES_DRIVER or
 * EV_EFI_BOOT_SERVICES_APPLICATION event, and what a signature covers.
 *
 * Following Microsoft's "Windows Authenticode Portable Executable Signature
 * Format" (Calculating the PE Image Hash) as EDK2 measures it: the headers
 * up to SizeOfHeaders without the CheckSum field and the Certificate Table
 * data-directory entry, then each section's raw data in PointerToRawData
 * order (sections with no raw data left out), then the bytes from the sum
 * of everything hashed so far up to the attribute certificate table (which
 * must end the file) or the end of the file.
 *
 * The file is untrusted input: every offset and size is checked against
 * the file (overflow-safe) before a byte is hashed; a malformed image is
 * exit 1 with the reason. */
#ifndef TPMBOX_FMT_AUTHENTICODE_H
#define TPMBOX_FMT_AUTHENTICODE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define PE_MAX_FILE	(256u << 20)	/* bytes of image read */
#define PE_MAX_SECTIONS	96u		/* the PE loader's limit */

/* Digests of buf[0..len) for each algs[i] (TPM hash IDs this build can
 * compute: sha1, sha256, sha384, sha512) into out[i] (hash_size(algs[i])
 * bytes).  The image is parsed once.  Exit 1 with "why" on a malformed
 * image, 2 for an algorithm this build cannot compute. */
int authenticode_digests(const uint8_t *buf, size_t len,
			 const uint16_t *algs, int n, uint8_t (*out)[64],
			 struct tberr *e);

#endif
