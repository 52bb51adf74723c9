/* HMAC, KDFa (SP800-108 counter mode, HMAC) and KDFe (SP800-56A
 * concatenation KDF) as TPM 2.0 Part 1, 11.4.9 defines them. */
#include <stdlib.h>
#include <string.h>

#include <mbedtls/md.h>

#include "crypto/hash.h"
#include "crypto/kdf.h"

struct hmac_ctx {
	mbedtls_md_context_t md;
};

/* NULL for MBEDTLS_MD_NONE: an algorithm hash_md_type does not know. */
static const mbedtls_md_info_t *md_info(uint16_t alg)
{
	return mbedtls_md_info_from_type((mbedtls_md_type_t)
					 hash_md_type(alg));
}

struct hmac_ctx *hmac_new(uint16_t alg, const void *key, size_t klen)
{
	const mbedtls_md_info_t *info = md_info(alg);
	struct hmac_ctx *h;

	if (!info || !(h = calloc(1, sizeof(*h))))
		return NULL;
	mbedtls_md_init(&h->md);
	if (mbedtls_md_setup(&h->md, info, 1) ||
	    mbedtls_md_hmac_starts(&h->md, key, klen)) {
		mbedtls_md_free(&h->md);
		free(h);
		return NULL;
	}
	return h;
}

void hmac_update(struct hmac_ctx *h, const void *p, size_t n)
{
	if (n)
		mbedtls_md_hmac_update(&h->md, p, n);
}

void hmac_final(struct hmac_ctx *h, uint8_t *out)
{
	mbedtls_md_hmac_finish(&h->md, out);
	mbedtls_md_free(&h->md);	/* zeroizes the key pads */
	free(h);
}

int hmac_buf(uint16_t alg, const void *key, size_t klen, const void *p,
	     size_t n, uint8_t *out)
{
	struct hmac_ctx *h = hmac_new(alg, key, klen);

	if (!h)
		return -1;
	hmac_update(h, p, n);
	hmac_final(h, out);
	return 0;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The label with its terminating NUL (an empty label is just the NUL). */
static size_t label_len(const char *label)
{
	return label ? strlen(label) + 1 : 0;
}

int kdfa(uint16_t alg, const void *key, size_t klen, const char *label,
	 const void *u, size_t ulen, const void *v, size_t vlen,
	 uint8_t *out, size_t bits)
{
	size_t dlen = hash_size(alg), done = 0, want = bits / 8;
	uint8_t ctr[4], lbits[4], blk[64];
	uint32_t i;

	if (!md_info(alg) || bits % 8 || bits > 0xffffffffu)
		return -1;
	be32(lbits, (uint32_t)bits);
	for (i = 1; done < want; i++) {
		struct hmac_ctx *h = hmac_new(alg, key, klen);
		size_t n;

		if (!h)
			return -1;
		be32(ctr, i);
		hmac_update(h, ctr, 4);
		hmac_update(h, label, label_len(label));
		hmac_update(h, u, ulen);
		hmac_update(h, v, vlen);
		hmac_update(h, lbits, 4);
		hmac_final(h, blk);
		n = want - done < dlen ? want - done : dlen;
		memcpy(out + done, blk, n);
		done += n;
	}
	explicit_bzero(blk, sizeof(blk));
	return 0;
}

int kdfe(uint16_t alg, const void *z, size_t zlen, const char *label,
	 const void *u, size_t ulen, const void *v, size_t vlen,
	 uint8_t *out, size_t bits)
{
	size_t dlen = hash_size(alg), done = 0, want = bits / 8;
	uint8_t ctr[4], blk[64];
	uint32_t i;

	if (!md_info(alg) || bits % 8)
		return -1;
	for (i = 1; done < want; i++) {
		struct hash_ctx *h = hash_new(alg);
		size_t n;

		if (!h)
			return -1;
		be32(ctr, i);
		hash_update(h, ctr, 4);
		hash_update(h, z, zlen);
		if (label)
			hash_update(h, label, label_len(label));
		if (ulen)
			hash_update(h, u, ulen);
		if (vlen)
			hash_update(h, v, vlen);
		hash_final(h, blk);
		n = want - done < dlen ? want - done : dlen;
		memcpy(out + done, blk, n);
		done += n;
	}
	explicit_bzero(blk, sizeof(blk));
	return 0;
}
