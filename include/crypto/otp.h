/* One-time passwords: HOTP (RFC 4226) and TOTP (RFC 6238) over HMAC-SHA1.
 * The HMAC may be computed elsewhere (by the TPM, TPM2_HMAC): the
 * counter's bytes and the truncation are then the two halves here. */
#ifndef TPMBOX_CRYPTO_OTP_H
#define TPMBOX_CRYPTO_OTP_H

#include <stddef.h>
#include <stdint.h>

#define OTP_SHA1_LEN	20

/* The 8-byte big-endian counter the HMAC is computed over. */
void otp_counter(uint64_t c, uint8_t out[8]);
/* RFC 4226 5.3: dynamic truncation of a 20-byte HMAC-SHA1, modulo
 * 10^digits (6..8). */
uint32_t otp_truncate(const uint8_t mac[OTP_SHA1_LEN], int digits);
/* HOTP of key[0..klen) at counter c, on the host.  -1 when the HMAC
 * fails. */
int otp_hotp(const uint8_t *key, size_t klen, uint64_t c, int digits,
	     uint32_t *code);
/* TOTP's counter: the time step (T0 = 0) holding unix time t. */
uint64_t otp_step(uint64_t t, unsigned period);
/* code as digits decimal digits, leading zeros kept, into out[9]. */
void otp_format(uint32_t code, int digits, char out[9]);

#endif
