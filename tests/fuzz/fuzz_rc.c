/* The response-code decoder: every 32-bit code gives a name, a sentence
 * and a documented exit code. */
#include <stdlib.h>
#include <string.h>

#include "tpm2/rc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[256], small[8];
	uint32_t rc;
	int x;

	if (size < 4)
		return 0;
	rc = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
	     (uint32_t)data[2] << 8 | data[3];
	rc_describe(rc, buf, sizeof(buf));
	rc_describe(rc, small, sizeof(small));	/* truncation is safe */
	rc_name(rc, buf, sizeof(buf));
	(void)rc_text(rc);
	(void)rc_base(rc);
	x = rc_exit(rc);
	if (x < 0 || x > 6)
		abort();
	return 0;
}
