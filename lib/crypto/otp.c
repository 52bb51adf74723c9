/* HOTP and TOTP, include/crypto/otp.h. */
#include <stdio.h>
#include <string.h>

#include "crypto/kdf.h"
#include "crypto/otp.h"
#include "base/tpm2const.h"

void otp_counter(uint64_t c, uint8_t out[8])
{
	int i;

	for (i = 7; i >= 0; i--, c >>= 8)
		out[i] = (uint8_t)c;
}

uint32_t otp_truncate(const uint8_t mac[OTP_SHA1_LEN], int digits)
{
	unsigned off = mac[OTP_SHA1_LEN - 1] & 0xf;
	uint32_t v, mod = 1;
	int i;

	v = (uint32_t)(mac[off] & 0x7f) << 24 | (uint32_t)mac[off + 1] << 16 |
	    (uint32_t)mac[off + 2] << 8 | mac[off + 3];
	for (i = 0; i < digits; i++)
		mod *= 10;
	return v % mod;
}

int otp_hotp(const uint8_t *key, size_t klen, uint64_t c, int digits,
	     uint32_t *code)
{
	uint8_t ctr[8], mac[OTP_SHA1_LEN];

	otp_counter(c, ctr);
	if (hmac_buf(TPM2_ALG_SHA1, key, klen, ctr, sizeof(ctr), mac))
		return -1;
	*code = otp_truncate(mac, digits);
	explicit_bzero(mac, sizeof(mac));
	return 0;
}

uint64_t otp_step(uint64_t t, unsigned period)
{
	return period ? t / period : 0;
}

void otp_format(uint32_t code, int digits, char out[9])
{
	snprintf(out, 9, "%0*u", digits, (unsigned)code);
}
