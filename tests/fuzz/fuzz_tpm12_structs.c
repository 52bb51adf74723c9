/* TPM 1.2 structures (tpm12/structs): the first byte picks TPM_KEY(12),
 * TPM_STORED_DATA(12), a TPM_PCR_INFO kind, TPM_PUBKEY or TrouSerS'
 * public key blob; whatever reads without error and leaves nothing over
 * must write back as the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "fmt/tssfile.h"
#include "tpm12/structs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tpm12_key k;
	static struct tpm12_stored s;
	static struct tpm12_pcr_info pi;
	static struct tpm12_pubkey pk;
	struct tberr e;
	static uint8_t mem[8192];
	struct tb r, w;
	uint8_t sel;

	if (size < 1 || size > sizeof(mem))
		return 0;
	sel = data[0] % 7;
	tb_init_read(&r, data + 1, size - 1);
	tb_init(&w, mem, sizeof(mem));
	switch (sel) {
	case 0:
		tpm12_get_key(&r, &k);
		if (!tb_err(&r) && !tb_left(&r))
			tpm12_put_key(&w, &k);
		break;
	case 1:
		tpm12_get_stored(&r, &s);
		if (!tb_err(&r) && !tb_left(&r))
			tpm12_put_stored(&w, &s);
		break;
	case 5:
		tpm12_get_pubkey(&r, &pk);
		if (!tb_err(&r) && !tb_left(&r))
			tpm12_put_pubkey(&w, &pk);
		break;
	case 6:
		memset(&e, 0, sizeof(e));
		tss_pubkey_blob_parse(data + 1, size - 1, &pk, "blob", &e);
		return 0;
	default:
		tpm12_get_pcr_info(&r, (enum tpm12_pcr_info_kind)(sel - 1),
				   &pi);
		if (!tb_err(&r) && !tb_left(&r))
			tpm12_put_pcr_info(&w, &pi);
		break;
	}
	if (tb_err(&r) || tb_left(&r))
		return 0;
	if (tb_err(&w) || w.len != size - 1 || memcmp(mem, data + 1, w.len))
		abort();
	if (sel >= 2 && sel <= 4) {
		static uint8_t vals[TPM12_PCR_MAX][TPM12_SHA1];
		uint8_t d[TPM12_SHA1];
		size_t cnt = 0;
		int i;

		for (i = 0; i < TPM12_PCR_MAX; i++)
			cnt += pi.release.mask >> i & 1;
		if (tpm12_pcr_composite_hash(&pi.release,
					     (const uint8_t (*)[20])vals, cnt,
					     d))
			abort();
	}
	return 0;
}
