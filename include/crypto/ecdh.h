/* ECDH on NIST P-256 and P-384 for CMS key agreement (RFC 5753): an
 * ephemeral key against a recipient's public point, and the recipient's
 * side with its private scalar.  Curves are named by their TPM curve IDs
 * (EC_NIST_P256, EC_NIST_P384 below); points are uncompressed
 * (04 || X || Y), scalars and Z big-endian, each coordinate ec_bytes()
 * long. */
#ifndef TPMBOX_CRYPTO_ECDH_H
#define TPMBOX_CRYPTO_ECDH_H

#include <stddef.h>
#include <stdint.h>

#define EC_NIST_P256 0x0003	/* TPM2_ECC_NIST_P256 */
#define EC_NIST_P384 0x0004	/* TPM2_ECC_NIST_P384 */
#define EC_MAX_BYTES 48
#define EC_POINT_MAX (1 + 2 * EC_MAX_BYTES)

/* Coordinate size of a supported curve, 0 for any other. */
size_t ec_bytes(uint16_t curve);
/* Whether q[0..qlen) is an uncompressed point on the curve. */
int ec_point_check(uint16_t curve, const uint8_t *q, size_t qlen);
/* A fresh ephemeral key: its point to e (1 + 2 * ec_bytes), and
 * Z = x(d_e * Q) to z (ec_bytes).  -1 when Q is not on the curve. */
int ecdh_ephemeral(uint16_t curve, const uint8_t *q, size_t qlen,
		   uint8_t *e, uint8_t *z);
/* Z = x(d * P) with the private scalar d[0..dlen).  -1 when P is not on
 * the curve or d is not a valid scalar. */
int ecdh_shared(uint16_t curve, const uint8_t *d, size_t dlen,
		const uint8_t *p, size_t plen, uint8_t *z);
/* The public point of d (1 + 2 * ec_bytes to q).  -1 on a bad scalar. */
int ec_public(uint16_t curve, const uint8_t *d, size_t dlen, uint8_t *q);

#endif
