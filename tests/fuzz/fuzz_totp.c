/* The totp blob (fmt/otpauth.h's block on a sealed blob of either
 * family): what opens must carry parameters enroll would take, write back
 * as the same block, and give a URI. */
#include <stdlib.h>
#include <string.h>

#include "fmt/otpauth.h"
#include "job/tpm.h"
#include "job/totp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t secret[OTP_SECRET_LEN] = { 1, 2, 3 };
	struct totp_blob b;
	struct otp_params q;
	struct tberr e;
	char *pem = NULL, *uri = NULL;
	size_t n = 0;

	memset(&e, 0, sizeof(e));
	if (totp_blob_open(&b, "fuzz", (const char *)data, size, &e) == 0) {
		if (otp_params_check(&b.p, &e) ||
		    (b.family != TPM_FAMILY_12 && b.family != TPM_FAMILY_20))
			abort();
		/* the block round-trips */
		if (otp_params_append(&b.p, &pem, &n, &e) ||
		    otp_params_decode(pem, n, &q, &e) ||
		    memcmp(&q, &b.p, sizeof(q)))
			abort();
		if (otp_uri(&b.p, secret, sizeof(secret), 7, &uri, &e) ||
		    strncmp(uri, "otpauth://", 10))
			abort();
		free(uri);
		free(pem);
	}
	totp_blob_close(&b);
	return 0;
}
