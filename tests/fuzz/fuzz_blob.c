/* Files tpmbox reads back: the sealed blob (PEM, DER, base64), the AK
 * blob and key files (with keycreate -p's policy entries), PEM public
 * keys, TPM2B_PUBLIC, the credential file, keyimport's importable file.
 * First byte picks the reader. */
#include <stdlib.h>
#include <string.h>

#include "base/pem.h"
#include "crypto/verify.h"
#include "fmt/credfile.h"
#include "fmt/keyfile.h"
#include "job/attest.h"
#include "job/key.h"
#include "job/keyimport.h"
#include "tpm2/object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tberr e;
	uint8_t out[4096];

	if (size < 1)
		return 0;
	memset(&e, 0, sizeof(e));
	switch (data[0] % 8) {
	case 0: {
		struct keyfile k;

		memset(&k, 0, sizeof(k));
		if (keyfile_decode((const char *)data + 1, size - 1, &k,
				   &e) == 0)
			keyfile_free(&k);
		break;
	}
	case 1:
		if (b64_decode((const char *)data + 1, size - 1, out,
			       sizeof(out)) > (long)sizeof(out))
			abort();
		break;
	case 2: {
		static struct ak_blob b;

		ak_blob_decode(data + 1, size - 1, &b, &e);
		break;
	}
	case 3: {
		uint8_t *der = NULL;
		size_t n;

		if (pem_get((const char *)data + 1, size - 1, "PUBLIC KEY",
			    "key", &der, &n, &e) == 0)
			free(der);
		break;
	}
	case 4: {
		struct tpm2_public pub;

		tpm2_public_parse(data + 1, size - 1, &pub, &e);
		break;
	}
	case 5: {
		struct credfile cf;

		credfile_decode(data + 1, size - 1, &cf, &e);
		break;
	}
	case 6: {
		static struct ak_blob b;

		key_file_decode(data + 1, size - 1, &b, "KEY", &e);
		break;
	}
	case 7: {
		static struct tpm2_public pub;
		static struct tpm2_dup dup;
		int ea;

		key_importable_decode(data + 1, size - 1, &pub, &dup, &ea,
				      &e);
		break;
	}
	}
	return 0;
}
