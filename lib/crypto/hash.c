#include <stdlib.h>
#include <string.h>

#include <mbedtls/md.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"

struct hash_ctx {
	mbedtls_md_context_t md;
};

int hash_md_type(uint16_t alg)
{
	switch (alg) {
	case TPM2_ALG_SHA1:
		return MBEDTLS_MD_SHA1;
	case TPM2_ALG_SHA256:
		return MBEDTLS_MD_SHA256;
	case TPM2_ALG_SHA384:
		return MBEDTLS_MD_SHA384;
	case TPM2_ALG_SHA512:
		return MBEDTLS_MD_SHA512;
	}
	return MBEDTLS_MD_NONE;
}

static mbedtls_md_type_t md_type(uint16_t alg)
{
	return (mbedtls_md_type_t)hash_md_type(alg);
}

size_t hash_size(uint16_t alg)
{
	switch (alg) {
	case TPM2_ALG_SHA1:
		return 20;
	case TPM2_ALG_SHA256:
	case TPM2_ALG_SM3_256:
		return 32;
	case TPM2_ALG_SHA384:
		return 48;
	case TPM2_ALG_SHA512:
		return 64;
	}
	return 0;
}

int hash_supported(uint16_t alg)
{
	return md_type(alg) != MBEDTLS_MD_NONE;
}

struct hash_ctx *hash_new(uint16_t alg)
{
	const mbedtls_md_info_t *info = mbedtls_md_info_from_type(md_type(alg));
	struct hash_ctx *h;

	if (!info)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	mbedtls_md_init(&h->md);
	if (mbedtls_md_setup(&h->md, info, 0) || mbedtls_md_starts(&h->md)) {
		mbedtls_md_free(&h->md);
		free(h);
		return NULL;
	}
	return h;
}

void hash_update(struct hash_ctx *h, const void *p, size_t n)
{
	mbedtls_md_update(&h->md, p, n);
}

void hash_final(struct hash_ctx *h, uint8_t *out)
{
	mbedtls_md_finish(&h->md, out);
	mbedtls_md_free(&h->md);
	free(h);
}

int hash_buf(uint16_t alg, const void *p, size_t n, uint8_t *out)
{
	struct hash_ctx *h = hash_new(alg);

	if (!h)
		return -1;
	hash_update(h, p, n);
	hash_final(h, out);
	return 0;
}
