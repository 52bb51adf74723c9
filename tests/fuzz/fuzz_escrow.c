/* The escrow index, the recipients record (parsed, and on a whole blob
 * checked with a fixed secret: the MAC fails, the path runs), and the
 * texts recover reads (lib/job/escrow.c,
 * lib/fmt/recovery.c, lib/fmt/x509.c, lib/fmt/age.c's identity and recipient lines,
 * lib/fmt/bech32.c).  The first byte picks the reader. */
#include <stdlib.h>
#include <string.h>

#include "fmt/age.h"
#include "fmt/bech32.h"
#include "fmt/recovery.h"
#include "fmt/x509.h"
#include "job/escrow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data + 1;
	struct tberr e;

	if (size < 1)
		return 0;
	size--;
	memset(&e, 0, sizeof(e));
	switch (data[0] % 8) {
	case 0: {	/* a whole blob's text: index, copies, both parsed,
			 * then the recipients record */
		struct escrow_blk b;

		if (escrow_read(t, size, &b, &e) == 0) {
			if (escrow_read_rcpts(t, size, &b, &e) == 0 &&
			    b.rc.raw && b.rc.iter == ESCROW_RCPT_ITER_MIN)
				(void)escrow_rcpts_verify(&b, (const uint8_t *)
							  "0123456789abcdef",
							  16, &e);
			escrow_blk_free(&b);
		}
		break;
	}
	case 7: {	/* the recipients record alone */
		struct escrow_blk b;

		memset(&b, 0, sizeof(b));
		if (escrow_rcpts_parse(data + 1, size, &b.rc, &e) == 0) {
			b.rc.raw = NULL;	/* data's, not malloc'd */
			escrow_blk_free(&b);
		}
		break;
	}
	case 1: {	/* the index alone */
		struct escrow_blk b;

		memset(&b, 0, sizeof(b));
		(void)escrow_parse(data + 1, size, &b, &e);
		break;
	}
	case 2: {
		uint8_t code[RECOVERY_BYTES];

		(void)recovery_parse(t, size, code, &e);
		break;
	}
	case 3: {
		struct pubkey k;

		if (x509_read_public(t, size, &k, &e) == 0)
			pubkey_free(&k);
		break;
	}
	case 4: {
		struct privkey k;

		if (x509_read_private(t, size, &k, &e) == 0)
			privkey_free(&k);
		break;
	}
	case 5: {
		uint8_t ids[4][AGE_KEY], pub[AGE_KEY];
		size_t n;

		(void)age_identities(t, size, ids, 4, &n, &e);
		(void)age_recipient_parse(t, size, pub);
		break;
	}
	case 6: {
		char hrp[64];
		uint8_t d[256];
		size_t n;

		(void)bech32_decode(t, size, hrp, sizeof(hrp), d, sizeof(d),
				    &n);
		break;
	}
	}
	return 0;
}
