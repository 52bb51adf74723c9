#include <string.h>

#include "base/tpm2const.h"
#include "tpm2/cmd.h"
#include "tpm2/random.h"
#include "tpm2/srk.h"

/* The TPM returns at most one digest's worth per call: up to 64 asked,
 * and the last part no more than 32 (SHA-256's), which every TPM 2.0
 * returns in full, so that it is known to be the last before it goes. */
#define CHUNK 64
#define SURE 32

int tpm2_getrandom(struct tpm *t, uint8_t *out, size_t n)
{
	size_t off = 0, prev = 0;
	int empty = 0, last = tpm2_trust_take_last(t), rc;

	while (off < n) {
		uint8_t pb[2];
		struct tpm2_call c = { .cc = TPM2_CC_GetRandom };
		struct tb b, r;
		uint16_t want = (uint16_t)(n - off > CHUNK ? CHUNK : n - off);
		size_t got;

		if (last && n - off <= SURE)
			tpm2_trust_last(t);
		tb_init(&b, pb, sizeof(pb));
		tb_put_u16(&b, want);
		c.params = pb;
		c.plen = b.len;
		if ((rc = tpm2_call(t, &c)))
			return rc;
		tb_init_read(&r, c.rparams, c.rplen);
		got = tb_get_tpm2b(&r, out + off, want);
		if (tb_err(&r))
			return err_set(t->e, EX_IO, "TPM2_GetRandom: the TPM "
				       "returned more bytes than the %u asked "
				       "for, or a malformed response", want);
		if (tb_left(&r))
			return err_set(t->e, EX_IO, "TPM2_GetRandom: %zu "
				       "unexpected bytes after the response",
				       tb_left(&r));
		/* A continuous test, as for any RNG: a chunk equal to the
		 * one before is a stuck generator or a replayed response
		 * (chance 2^-128 or less for 16+ bytes). */
		if (got >= 16 && got == prev &&
		    memcmp(out + off, out + off - prev, got) == 0)
			return err_set(t->e, EX_IO, "TPM2_GetRandom: the TPM "
				       "returned the same %zu bytes twice (a "
				       "stuck generator or a replayed "
				       "response)", got);
		if (got == 0 && ++empty > 3)
			return err_set(t->e, EX_IO, "TPM2_GetRandom: the TPM "
				       "keeps returning no bytes");
		off += got;
		prev = got;
	}
	tpm_wipe(t);
	return 0;
}
