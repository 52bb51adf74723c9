/* HMAC and the TPM 2.0 key derivation functions (TPM 2.0 Library Part 1,
 * 11.4.9 "Key Derivation Function": KDFa is SP800-108 counter mode with
 * HMAC, KDFe is the SP800-56A concatenation KDF).  Hash algorithms are TPM
 * algorithm IDs (TPM2_ALG_SHA256...). */
#ifndef TPMBOX_CRYPTO_KDF_H
#define TPMBOX_CRYPTO_KDF_H

#include <stddef.h>
#include <stdint.h>

struct hmac_ctx;

/* Start an HMAC with key[0..klen).  NULL if the hash is unsupported or
 * memory is short. */
struct hmac_ctx *hmac_new(uint16_t alg, const void *key, size_t klen);
void hmac_update(struct hmac_ctx *h, const void *p, size_t n);
/* Write hash_size(alg) bytes to out, wipe and free h. */
void hmac_final(struct hmac_ctx *h, uint8_t *out);
/* One-shot HMAC; -1 if the hash is unsupported. */
int hmac_buf(uint16_t alg, const void *key, size_t klen, const void *p,
	     size_t n, uint8_t *out);

/* KDFa(hashAlg, key, label, contextU, contextV, bits): writes bits/8 bytes
 * (bits a multiple of 8) to out.  label is a C string; the terminating NUL
 * is part of the KDF input, as the spec requires.  Each
 * iteration: HMAC(key, counter32 || label || 00 || U || V || bits32).
 * When bits is not a multiple of the digest size the last block is
 * truncated (the spec masks leading bits of the result only for bit counts
 * that are not multiples of 8, which no caller needs).  Returns 0, or -1 on
 * an unsupported hash or bits not a multiple of 8. */
int kdfa(uint16_t alg, const void *key, size_t klen, const char *label,
	 const void *u, size_t ulen, const void *v, size_t vlen,
	 uint8_t *out, size_t bits);

/* KDFe(hashAlg, Z, label, partyUInfo, partyVInfo, bits): each iteration
 * H(counter32 || Z || label || 00 || U || V).  Same conventions as kdfa. */
int kdfe(uint16_t alg, const void *z, size_t zlen, const char *label,
	 const void *u, size_t ulen, const void *v, size_t vlen,
	 uint8_t *out, size_t bits);

#endif
