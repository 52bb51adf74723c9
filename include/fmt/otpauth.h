/* The totp blob's parameters block and the otpauth URI (Google
 * Authenticator's Key Uri Format) that enrolls a phone.
 *
 * A totp blob is a sealed blob (fmt/keyfile.h on a TPM 2.0, holding an
 * HMAC key; job/sealing12.h's on a TPM 1.2, holding the secret) followed
 * by one more PEM block, "TPMBOX OTP", binary, big-endian:
 *	"TBOT" | u16 version 1 | u8 kind (0 TOTP, 1 HOTP) | u8 digits (6, 8)
 *	| u32 period (TOTP: 1..86400 s; HOTP: 0)
 *	| u32 NV counter index (HOTP; TOTP: 0)
 *	| u16 n | n bytes: the counter index's name (HOTP; 0 for TOTP)
 *	| u16 n | issuer (n <= 64) | u16 n | label (1..64)
 * nothing after.  Issuer and label are UTF-8 text without control
 * characters; the issuer has no ':' (the URI's separator). */
#ifndef TPMBOX_FMT_OTPAUTH_H
#define TPMBOX_FMT_OTPAUTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define OTP_LABEL	"TPMBOX OTP"
#define OTP_TEXT_MAX	64
#define OTP_PERIOD_MAX	86400
#define OTP_SECRET_LEN	20
#define OTP_NVNAME_MAX	(2 + 64)

enum { OTP_TOTP = 0, OTP_HOTP = 1 };

struct otp_params {
	int kind;		/* OTP_TOTP or OTP_HOTP */
	int digits;		/* 6 or 8 */
	uint32_t period;	/* seconds (TOTP) */
	uint32_t nv;		/* the counter's NV index (HOTP) */
	uint8_t nvname[OTP_NVNAME_MAX];	/* its name when enrolled */
	size_t nvnamelen;
	char issuer[OTP_TEXT_MAX + 1];	/* may be empty */
	char label[OTP_TEXT_MAX + 1];
};

/* Check issuer, label, digits and period as enroll takes them: 0, or
 * exit 2 naming the option. */
int otp_params_check(const struct otp_params *p, struct tberr *e);
/* Append the block to the malloc'd text *pem of *n bytes.  Exit 1 out
 * of memory or for parameters otp_params_check refuses. */
int otp_params_append(const struct otp_params *p, char **pem, size_t *n,
		      struct tberr *e);
/* The block of text[0..n), parsed strictly into p: exit 1 "blob: why". */
int otp_params_decode(const char *text, size_t n, struct otp_params *p,
		      struct tberr *e);
/* otpauth://totp/ISSUER:LABEL?secret=BASE32&issuer=ISSUER&digits=D&
 * period=P (HOTP: otpauth://hotp/...&counter=C), issuer and label
 * percent-encoded, the secret without padding; malloc'd in *uri (wipe
 * it: it holds the secret).  Exit 1 out of memory. */
int otp_uri(const struct otp_params *p, const uint8_t *secret, size_t len,
	    uint64_t counter, char **uri, struct tberr *e);

#endif
