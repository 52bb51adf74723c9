/* HKDF-SHA-256 through mbedTLS's hkdf module. */
#include <mbedtls/hkdf.h>
#include <mbedtls/md.h>

#include "crypto/hkdf.h"

int hkdf_sha256(const void *ikm, size_t ikmlen, const void *salt,
		size_t saltlen, const void *info, size_t infolen,
		uint8_t *out, size_t outlen)
{
	static const unsigned char none[1];
	const mbedtls_md_info_t *md =
		mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);

	if (!md)
		return -1;
	return mbedtls_hkdf(md, saltlen ? salt : none, saltlen,
			    ikmlen ? ikm : none, ikmlen,
			    infolen ? info : none, infolen, out, outlen) ?
	       -1 : 0;
}
