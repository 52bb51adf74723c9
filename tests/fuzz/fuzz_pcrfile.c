/* pcrread's text format as read back by seal, checkquote, the replays;
 * a parsed list must format again. */
#include <stdlib.h>
#include <string.h>

#include "fmt/pcrfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pcr_vals v;
	struct tberr e;
	char *s;

	if (size > 1 << 16)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&e, 0, sizeof(e));
	if (pcr_parse_text(s, &v, &e) == 0) {
		free(pcr_format_text(&v));
		free(pcr_format_json(&v));
	}
	free(s);
	return 0;
}
