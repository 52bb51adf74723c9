/* Hashes.  Only lib/crypto/ includes mbedTLS headers; everything else
 * sees TPM algorithm IDs. */
#ifndef TPMBOX_CRYPTO_HASH_H
#define TPMBOX_CRYPTO_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Digest size for a TPM hash algorithm ID, 0 if unknown. */
size_t hash_size(uint16_t alg);
/* Whether this build can compute the hash (sha1/256/384/512). */
int hash_supported(uint16_t alg);

struct hash_ctx;
struct hash_ctx *hash_new(uint16_t alg);	/* NULL if unsupported */
void hash_update(struct hash_ctx *h, const void *p, size_t n);
/* Writes hash_size(alg) bytes and frees h. */
void hash_final(struct hash_ctx *h, uint8_t *out);
/* One-shot; returns -1 if the algorithm is unsupported. */
int hash_buf(uint16_t alg, const void *p, size_t n, uint8_t *out);
/* For lib/crypto/: the mbedtls_md_type_t of a TPM hash algorithm ID (sha1,
 * 256, 384, 512), 0 (MBEDTLS_MD_NONE) for another.  An int, so that this
 * header needs no mbedTLS one. */
int hash_md_type(uint16_t alg);

#endif
