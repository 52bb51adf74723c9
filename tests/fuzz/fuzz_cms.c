/* The CMS reader behind recover (lib/fmt/cms.c): parse a message, then try to
 * open it with a fixed P-256 key and a fixed key-encryption key (the
 * seeds in corpus/fuzz_cms are made for both), so the RecipientInfo
 * readers, the X9.63 KDF, AES key unwrap and the GCM check all see the
 * fuzzer's bytes.  Then bind_decrypt (unbind's reader) with an RSA key
 * whose private half is a stand-in that "opens" every 256-byte block. */
#include <stdlib.h>
#include <string.h>

#include "fmt/cms.h"
#include "fmt/x509.h"
#include "job/bind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A throwaway test key (openssl ecparam -name prime256v1 -genkey). */
static const char fuzz_ec_key[] =
	"-----BEGIN EC PRIVATE KEY-----\n"
	"MHcCAQEEIJAwHCS6Hd52Fl/SKMf10U3TvcQLP8oiUT24bASFMGB2oAoGCCqGSM49\n"
	"AwEHoUQDQgAE2iKxxQKpLnE1/7hJRfbQPNOlRDk/chDON4EYwVBJs840am3bwWew\n"
	"3jEkmXtFvqS6SHhpNrdrluszN+M16I6Ydw==\n"
	"-----END EC PRIVATE KEY-----\n";

/* A throwaway RSA-2048 public key (openssl genpkey). */
static const char fuzz_rsa_pub[] =
	"-----BEGIN PUBLIC KEY-----\n"
	"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhZriFWqtpv9b+5nycVNd\n"
	"9Jj4CSWxo+8cOh99YhjgbjgptqIwgpFg/+Kig1tFpNrB5CSukrF6AF1A9uUemmg3\n"
	"nxuUEjsPeMcoDEgUD1Ouvs7czwM83g+If/8T/XMb98CdA5aiRs/8nUt2gNHIhSXD\n"
	"gdbpw7v7yO6iixfnfpcdNwEEDvKCKuXE0m8YTszh9IsSUJxJ7/YWoW2Kqom15NZy\n"
	"MrLo/GqX1bM0rPqJOpLyBWG1EXV0n8YqLVoUL1xQMlnuW+mBvw4ZUDKqyRuDy/1C\n"
	"+bRj7uMWGwNySNx9LPmFV9KXdBgoVepDMW1HpUdB3B5+Mp09Z59vMoalFLc7luv6\n"
	"iwIDAQAB\n"
	"-----END PUBLIC KEY-----\n";

/* The stand-in private half: a 256-byte block whose first byte is odd
 * opens to 32 bytes of 7 (a content key), another says "not mine". */
static int fake_oaep(void *ctx, uint16_t hash, const uint8_t *ct,
		     size_t ctlen, uint8_t *out, size_t cap, size_t *outlen)
{
	(void)ctx;
	(void)hash;
	if (ctlen != 256 || !(ct[0] & 1) || cap < 32)
		return 1;
	memset(out, 7, 32);
	*outlen = 32;
	return 0;
}

static void fuzz_unbind(const uint8_t *data, size_t size)
{
	static struct pubkey k;
	static int have;
	struct tberr e;
	uint8_t *out = NULL;
	size_t n = 0;

	if (!have)
		have = x509_read_public(fuzz_rsa_pub, sizeof(fuzz_rsa_pub) - 1,
					&k, &e) == 0 ? 1 : -1;
	memset(&e, 0, sizeof(e));
	if (have == 1 && bind_decrypt(&k, data, size, fake_oaep, NULL, &out,
				      &n, &e) == 0)
		free(out);
}

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
	fuzz_unbind(data, size);
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
