/* ekcert: an NV index's bytes as the EK certificate reader takes them
 * (the 1.2 header and padding stripper, mbedTLS's certificate reader, the
 * key comparison against an RSA and a P-384 EK), and the same bytes as a
 * --ca file (PEM or DER) verifying the certificate found. */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/x509crt.h"
#include "job/ekcert.h"
#include "tpm2/object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tpm2_public rsa, ecc;
	struct crt_info ci;
	struct crtset *set;
	struct tberr e;
	size_t off, len, added;
	char anchor[256], url[160];

	memset(&e, 0, sizeof(e));
	rsa.type = TPM2_ALG_RSA;
	rsa.rsa_nlen = 256;
	memset(rsa.rsa_n, 0xc5, sizeof(rsa.rsa_n));
	ecc.type = TPM2_ALG_ECC;
	ecc.curve = TPM2_ECC_NIST_P384;
	ecc.ecc_xlen = ecc.ecc_ylen = 48;
	if (ekcert_der(data, size, &off, &len, &e) == 0 &&
	    crt_parse(data + off, len, &ci, &e) == 0) {
		if (ci.spki_off > len || ci.spki_len > len - ci.spki_off)
			abort();
		ekcert_key_is(data + off + ci.spki_off, ci.spki_len, &rsa);
		ekcert_key_is(data + off + ci.spki_off, ci.spki_len, &ecc);
	}
	if ((set = crtset_new())) {
		if (crtset_add(set, data, size, &added, &e) == 0 &&
		    ekcert_der(data, size, &off, &len, &e) == 0)
			crt_verify(data + off, len, set, NULL, anchor,
				   sizeof(anchor), &e);
		crtset_free(set);
	}
	ekcert_vendor_url(TPM_MANUF_INTC, &rsa, url, sizeof(url));
	ekcert_vendor_url(TPM_MANUF_AMD, &ecc, url, sizeof(url));
	return 0;
}
