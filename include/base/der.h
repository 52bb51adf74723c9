/* The DER subset the TPM 2.0 key file and SubjectPublicKeyInfo need:
 * definite lengths up to 4 bytes, non-negative INTEGERs, explicit [n]
 * BOOLEAN TRUE.
 * Writers append to a struct tb (its sticky error covers overflow);
 * readers take from one and refuse anything that is not minimal DER. */
#ifndef TPMBOX_BASE_DER_H
#define TPMBOX_BASE_DER_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

#define DER_BOOL	0x01
#define DER_INT		0x02
#define DER_BITS	0x03
#define DER_OCTETS	0x04
#define DER_NULL	0x05
#define DER_OID		0x06
#define DER_SEQ		0x30
#define DER_CTX(n)	(0xa0 | (n))	/* [n] EXPLICIT, constructed */

/* Bytes of a TLV with n content bytes. */
size_t der_size(size_t n);
/* Tag and length (the n content bytes follow, written by the caller). */
void der_tl(struct tb *b, uint8_t tag, size_t n);
/* INTEGER v (minimal two's complement) and its TLV size. */
void der_int(struct tb *b, uint32_t v);
size_t der_int_size(uint32_t v);
/* INTEGER of the unsigned big-endian magnitude v[0..n) (leading zeros
 * dropped, a 0x00 before a set high bit), and its TLV size. */
void der_mag(struct tb *b, const uint8_t *v, size_t n);
size_t der_mag_size(const uint8_t *v, size_t n);
/* ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 3279) of the
 * big-endian magnitudes r and s. */
void der_ecdsa_sig(struct tb *b, const uint8_t *r, size_t rlen,
		   const uint8_t *s, size_t slen);
/* [ctx] EXPLICIT BOOLEAN TRUE (5 bytes). */
void der_true(struct tb *b, int ctx);

/* Take one TLV with this tag; sub covers its contents.  0 or -1. */
int der_get(struct tb *b, uint8_t tag, struct tb *sub);
/* The next tag, -1 at the end. */
int der_peek(const struct tb *b);
/* An INTEGER in 0..2^32-1; a [ctx] EXPLICIT BOOLEAN.  0 or -1. */
int der_get_uint(struct tb *b, uint32_t *v);
int der_get_true(struct tb *b, int ctx, int *v);
/* A non-negative INTEGER of any size: *v, *n cover its magnitude (no sign
 * byte; one 0x00 for zero).  0 or -1. */
int der_get_mag(struct tb *b, const uint8_t **v, size_t *n);

/* Whether the OID o (its contents octets) is oid[0..n). */
int der_oid_is(const struct tb *o, const uint8_t *oid, size_t n);
/* The TPM curve ID (TPM2_ECC_NIST_P256, _P384) a namedCurve OID names, 0
 * for another. */
uint16_t der_curve(const struct tb *o);
/* A key's AlgorithmIdentifier (SubjectPublicKeyInfo, PrivateKeyInfo):
 * oid is its algorithm, alg what follows it.  rsaEncryption with absent
 * or NULL parameters: 0 and *curve 0; id-ecPublicKey with a namedCurve
 * der_curve knows: 0 and *curve that curve.  -1 for anything else. */
int der_key_alg(const struct tb *oid, struct tb *alg, uint16_t *curve);

#endif
