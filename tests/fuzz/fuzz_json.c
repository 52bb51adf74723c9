/* The bounded JSON reader (lib/base/json.c), with tight limits on odd
 * first bytes so that every limit is reached. */
#include <string.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct json_limits wide = { 16, 65536, 1024, 65536 };
	static const struct json_limits tight = { 3, 8, 4, 16 };
	struct json *j;
	struct tberr e;

	if (size < 1)
		return 0;
	memset(&e, 0, sizeof(e));
	if (json_parse((const char *)data + 1, size - 1,
		       data[0] & 1 ? &tight : &wide, "fuzz", &j, &e) == 0) {
		(void)json_get(j, "type");
		json_free(j);
	}
	return 0;
}
