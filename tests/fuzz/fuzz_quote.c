/* Quote files: tpmbox's QUOTE file, tpm2-tools' msg/sig/pcrs pieces,
 * TPMS_ATTEST and TPMT_SIGNATURE; on TPM 1.2 tpmbox's 1.2 QUOTE file,
 * TPM_QUOTE_INFO(2), tpm_getquote's signature and PCR file, the AIK key
 * forms, and checkquote's checks. First byte picks the reader; for the
 * split inputs the next two bytes give the split points. */
#include <stdlib.h>
#include <string.h>

#include "fmt/quote.h"
#include "fmt/quote12.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct quote q;
	static struct quote12 q12;
	static struct tpm12_pubkey k12, fixed;
	struct quote12_info qi;
	int aik;
	struct quote_attest a;
	struct quote_sig s;
	struct tberr e;

	if (size < 3)
		return 0;
	memset(&e, 0, sizeof(e));
	if (!fixed.publen) {
		/* a well-formed RSA-2048 key for the checks to run into */
		tpm12_key_parms_rsa(&fixed.parms, 2048, TPM12_ES_NONE,
				    TPM12_SS_RSASSAPKCS1v15_SHA1);
		fixed.publen = 256;
		memset(fixed.pub, 0xc5, 256);
	}
	switch (data[0] % 8) {
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
	case 4:
		/* checkquote's 1.2 path: the file, then the checks (with a
		 * fixed key, the nonce and -p mask from the first bytes) */
		if (quote12_file_read(data + 3, size - 3, &q12, &e) == 0) {
			struct quote12_want w = { &fixed, size >= 21 ?
						   data + 1 : NULL, 1,
						   data[2] };

			quote12_check(&q12, &w, &e);
		}
		break;
	case 5:
		quote12_info_parse(data + 1, size - 1, &qi, &e);
		break;
	case 6: {
		/* tpm_getquote: the signature, the N=HEX file */
		size_t m = data[1] * 2u, n = size - 3;
		uint8_t nonce[20] = { 0 };

		if (m > n)
			m = n;
		if (quote12_from_getquote(data + 3, m,
					  (const char *)data + 3 + m, n - m,
					  nonce, &q12, &e) == 0 &&
		    data[2] & 1) {
			struct quote12_want w = { &fixed, nonce, 0, 0 };

			quote12_check(&q12, &w, &e);
		}
		break;
	}
	case 7:
		/* -k: TrouSerS' blob, a TPM_KEY, a TPM_PUBKEY, PEM/DER */
		quote12_key_load(data + 1, size - 1, &k12, &aik, &e);
		break;
	}
	return 0;
}
