/* The PPI sysfs texts (lib/tpm/ppi.c): the first byte picks the file, the
 * rest is its content; a parsed value is named and formatted again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tpm/ppi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ppi_request rq;
	struct ppi_response rs;
	uint8_t st[PPI_OPS];
	struct tberr e;
	char v[8], out[96], *s;
	uint32_t a, b;
	size_t n;

	if (size < 1 || size > PPI_FILE_MAX)
		return 0;
	n = size - 1;
	/* An exact-size copy: the parsers must not read past n. */
	s = malloc(n ? n : 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, n);
	memset(&e, 0, sizeof(e));
	memset(st, 0, sizeof(st));
	switch (data[0] % 6) {
	case 0:
		(void)ppi_parse_version(s, n, v, &e);
		break;
	case 1:
		if (ppi_parse_request(s, n, &rq, &e) == 0) {
			(void)ppi_op_name(rq.op);
			ppi_banks_format(rq.arg, out, sizeof(out));
		}
		break;
	case 2:
		if (ppi_parse_response(s, n, &rs, &e) == 0) {
			(void)ppi_op_name(rs.op);
			(void)ppi_code_name(rs.code);
		}
		break;
	case 3:
		if (ppi_parse_action(s, n, &a, &e) == 0)
			(void)ppi_action_name(a);
		break;
	case 4:
		if (ppi_parse_ops(s, n, st, &e) == 0)
			for (a = 0; a < PPI_OPS; a++)
				(void)ppi_status_name(st[a]);
		break;
	default: {
		/* the bank list as typed: a C string */
		char *t = malloc(n + 1);

		if (t) {
			memcpy(t, s, n);
			t[n] = '\0';
			if (ppi_banks_parse(t, &b, &e) == 0)
				ppi_banks_format(b, out, sizeof(out));
			free(t);
		}
	}
	}
	free(s);
	return 0;
}
