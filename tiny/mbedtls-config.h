/* mbedTLS 2.28 configuration for the small static build (make tiny): only
 * what lib/crypto uses, and what the issues' formats need next.  The
 * linker's --gc-sections drops whatever the binary does not call, so an
 * entry here costs size only when used.  Speed settings are measured in
 * docs/tiny.md: the ECP window and the fixed-point tables decide how fast
 * a P-256 point multiplication is in each process. */
#ifndef TPMBOX_MBEDTLS_CONFIG_H
#define TPMBOX_MBEDTLS_CONFIG_H

/* system */
#define MBEDTLS_HAVE_ASM
#define MBEDTLS_NO_PLATFORM_ENTROPY	/* tpmbox seeds from getrandom(2) */
/* mbedTLS's allocations from a static arena (tiny/alloc.c): musl's
 * allocator mapped and unmapped a page for them about 80 times a quote */
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_PLATFORM_CALLOC_MACRO tpmbox_mbedtls_calloc
#define MBEDTLS_PLATFORM_FREE_MACRO tpmbox_mbedtls_free
#include <stddef.h>
void *tpmbox_mbedtls_calloc(size_t n, size_t size);
void tpmbox_mbedtls_free(void *p);

/* hashes and MACs */
#define MBEDTLS_MD_C
#define MBEDTLS_SHA1_C
#define MBEDTLS_SHA1_PROCESS_ALT	/* tiny/sha1_small.c */
#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA512_C		/* SHA-384 and SHA-512 */
#define MBEDTLS_SHA256_SMALLER		/* loops, not unrolled rounds */
#define MBEDTLS_SHA512_SMALLER
#define MBEDTLS_HKDF_C

/* symmetric: AES in CFB (TPM parameter encryption), GCM, CBC */
#define MBEDTLS_AES_C
#define MBEDTLS_AES_FEWER_TABLES	/* 2 KiB of tables, built at run time */
#define MBEDTLS_CIPHER_MODE_CFB
#define MBEDTLS_CIPHER_MODE_CBC
#define MBEDTLS_CIPHER_C
#define MBEDTLS_GCM_C
/* age escrow copies (issue 10): ChaCha20-Poly1305 */
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C

/* random numbers */
#define MBEDTLS_CTR_DRBG_C

/* big numbers, RSA (OAEP, PKCS#1 v1.5, PSS) */
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_GENPRIME
#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_PKCS1_V21
#define MBEDTLS_OID_C

/* elliptic curves: P-256 and P-384, ECDH and ECDSA */
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_DP_SECP384R1_ENABLED
#define MBEDTLS_ECP_DP_CURVE25519_ENABLED	/* age's X25519 */
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECDH_C
#define MBEDTLS_ECDSA_C
/* Measured (docs/tiny.md): one or two point multiplications per process,
 * so precomputed tables for the base point do not pay for themselves;
 * windows 4 to 6 cost the same, 2 and 3 are slower. */
#define MBEDTLS_ECP_WINDOW_SIZE 4
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0

/* Encodings: lib/base/der.c and lib/base/pem.c read and write the keys' DER and
 * PEM, so mbedTLS's key layer (pk, and the private-key code its tables
 * pull in) is not here; ASN.1 stays for ECDSA and PKCS#1 v1.5. */
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C

#include "mbedtls/check_config.h"

#endif
