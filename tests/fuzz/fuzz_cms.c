/* The CMS reader behind recover (lib/cms.c): parse a message, then try to
 * open it with a fixed P-256 key and a fixed key-encryption key (the
 * seeds in corpus/fuzz_cms are made for both), so the RecipientInfo
 * readers, the X9.63 KDF, AES key unwrap and the GCM check all see the
 * fuzzer's bytes. */
#include <stdlib.h>
#include <string.h>

#include "cms.h"
#include "x509.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A throwaway test key (openssl ecparam -name prime256v1 -genkey). */
static const char fuzz_ec_key[] =
	"-----BEGIN EC PRIVATE KEY-----\n"
	"MHcCAQEEIJAwHCS6Hd52Fl/SKMf10U3TvcQLP8oiUT24bASFMGB2oAoGCCqGSM49\n"
	"AwEHoUQDQgAE2iKxxQKpLnE1/7hJRfbQPNOlRDk/chDON4EYwVBJs840am3bwWew\n"
	"3jEkmXtFvqS6SHhpNrdrluszN+M16I6Ydw==\n"
	"-----END EC PRIVATE KEY-----\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct privkey k;
	static int have;
	struct cms_msg m;
	struct tberr e;
	uint8_t kek[CMS_KEK], *out = NULL;
	size_t n, i;

	if (!have)
		have = x509_read_private(fuzz_ec_key, sizeof(fuzz_ec_key) - 1,
					 &k, &e) == 0 ? 1 : -1;
	memset(&e, 0, sizeof(e));
	if (cms_parse(data, size, &m, &e))
		return 0;
	if (have == 1 && cms_open_key(&m, &k, &out, &n, &e) == 0)
		free(out);
	memset(kek, 7, sizeof(kek));
	for (i = 0; i < cms_count(&m, CMS_KEKRI); i++) {
		const uint8_t *id;
		size_t idlen;

		(void)cms_kekid(&m, i, &id, &idlen);
		if (cms_open_kek(&m, i, kek, &out, &n, &e) == 0)
			free(out);
	}
	return 0;
}
