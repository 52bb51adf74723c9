/* TCG boot event logs (crypto-agile and SHA-1): parse, summarize every
 * event, replay. */
#include <stdlib.h>
#include <string.h>

#include "log/eventlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pcr_vals v;
	struct evl log;
	struct tberr e;
	struct evl_var var;
	char sum[512];
	uint32_t i;

	memset(&e, 0, sizeof(e));
	memset(&log, 0, sizeof(log));
	if (evl_parse(data, size, &log, &e) == 0) {
		for (i = 0; i < log.n; i++) {
			evl_summary(&log.ev[i], sum, sizeof(sum));
			(void)evl_type_name(log.ev[i].type);
			(void)evl_var_parse(&log.ev[i], &var);
		}
		evl_replay(&log, &v, &e);
		evl_replay_reset(&log, 0xffu, &v, &e);
	}
	evl_free(&log);
	return 0;
}
