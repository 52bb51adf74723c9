/* The command-line grammars: PCR selections, AUTH values (str:, hex:,
 * env:), NV index/attributes/type, numbers and hex. */
#include <stdlib.h>
#include <string.h>

#include "base/auth.h"
#include "base/hex.h"
#include "tpm2/nv.h"
#include "tpm2/pcr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcr_sel sel, alloc;
	struct authval a;
	struct tberr e;
	uint8_t out[64];
	uint32_t u32;
	uint64_t u64;
	char *s;

	if (size < 1 || size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&e, 0, sizeof(e));
	if (pcr_sel_parse(s, &sel, &e) == 0) {
		pcr_sel_parse("sha1:all+sha256:all+sha384:all", &alloc, &e);
		(void)pcr_sel_count(&sel);
		pcr_sel_resolve(&sel, &alloc, 24, &e);
	}
	/* file: would read the file system: only the others. */
	if (strncmp(s, "file:", 5) != 0) {
		setenv("FUZZ_AUTH", s, 1);
		if (auth_parse(s, &a, &e) == 0 && a.n > AUTH_MAX)
			abort();
		auth_wipe(&a);
		if (auth_parse("env:FUZZ_AUTH", &a, &e) == 0 &&
		    a.n > AUTH_MAX)
			abort();
		auth_wipe(&a);
	}
	nv_index_parse(s, &u32, &e);
	if (nv_attr_parse(s, &u32, &e) == 0) {
		char buf[512];

		nv_attr_format(u32, buf, sizeof(buf));
	}
	(void)nv_type_parse(s);
	(void)alg_from_name(s);
	parse_u64(s, &u64);
	if (hex_decode(s, out, sizeof(out)) > (long)sizeof(out))
		abort();
	free(s);
	return 0;
}
