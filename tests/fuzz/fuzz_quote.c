/* Quote files: tpmbox's QUOTE file, tpm2-tools' msg/sig/pcrs pieces,
 * TPMS_ATTEST and TPMT_SIGNATURE. First byte picks the reader; for the
 * tools pieces the next two bytes give the split points. */
#include <stdlib.h>
#include <string.h>

#include "quote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct quote q;
	struct quote_attest a;
	struct quote_sig s;
	struct tberr e;

	if (size < 3)
		return 0;
	memset(&e, 0, sizeof(e));
	switch (data[0] % 4) {
	case 0:
		quote_file_read(data + 1, size - 1, &q, &e);
		break;
	case 1:
		quote_attest_parse(data + 1, size - 1, &a, &e);
		break;
	case 2:
		quote_sig_parse(data + 1, size - 1, &s, &e);
		break;
	case 3: {
		const uint8_t *p = data + 3;
		size_t n = size - 3, m1 = data[1] * 2u, m2 = data[2] * 4u;

		if (m1 > n)
			m1 = n;
		if (m2 > n - m1)
			m2 = n - m1;
		quote_from_tools(p, m1, p + m1, m2, p + m1 + m2,
				 n - m1 - m2, &q, &e);
		break;
	}
	}
	return 0;
}
