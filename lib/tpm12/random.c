#include <string.h>

#include "tpm12/cmd.h"
#include "tpm12/random.h"

/* Well inside the 8 KiB response buffer. */
#define CHUNK 4096

int tpm12_getrandom(struct tpm *t, uint8_t *out, size_t n)
{
	size_t off = 0, prev = 0;
	int empty = 0, rc;

	while (off < n) {
		struct tpm12_call c = { .ord = TPM12_ORD_GetRandom };
		uint32_t want = (uint32_t)(n - off > CHUNK ? CHUNK : n - off);
		uint8_t in[4];
		struct tb b, r;
		uint32_t got;

		tb_init(&b, in, sizeof(in));
		tb_put_u32(&b, want);
		c.in = in;
		c.inlen = b.len;
		if ((rc = tpm12_call(t, &c)))
			return rc;
		tb_init_read(&r, c.out, c.outlen);
		got = tb_get_u32(&r);
		if (tb_err(&r) || got > want)
			return err_set(t->e, EX_IO, "TPM_GetRandom: the TPM "
				       "returned more bytes than the %u asked "
				       "for, or a malformed response", want);
		tb_get_bytes(&r, out + off, got);
		if (tb_err(&r))
			return err_set(t->e, EX_IO, "TPM_GetRandom: truncated "
				       "response");
		if (tb_left(&r))
			return err_set(t->e, EX_IO, "TPM_GetRandom: %zu "
				       "unexpected bytes after the response",
				       tb_left(&r));
		/* The continuous test tpm2_getrandom also makes. */
		if (got >= 16 && got == prev &&
		    memcmp(out + off, out + off - prev, got) == 0)
			return err_set(t->e, EX_IO, "TPM_GetRandom: the TPM "
				       "returned the same %u bytes twice (a "
				       "stuck generator or a replayed "
				       "response)", got);
		if (got == 0 && ++empty > 3)
			return err_set(t->e, EX_IO, "TPM_GetRandom: the TPM "
				       "keeps returning no bytes");
		off += got;
		prev = got;
	}
	tpm_wipe(t);
	return 0;
}
