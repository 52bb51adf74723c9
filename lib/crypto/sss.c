/* Shamir's secret sharing, combining (include/crypto/sss.h): Lagrange
 * interpolation at 0 with mbedTLS's bignums. */
#include <string.h>

#include <mbedtls/bignum.h>

#include "crypto/sss.h"

#define SSS_MAX_BYTES	512

int sss_combine(const uint8_t *p, size_t plen, const uint8_t *const *pts,
		int n, uint8_t *out)
{
	mbedtls_mpi P, K, L, T, Xi, Xj, Y;
	int i, j, r = 0;

	if (!plen || plen > SSS_MAX_BYTES || n < 1)
		return -1;
	mbedtls_mpi_init(&P);
	mbedtls_mpi_init(&K);
	mbedtls_mpi_init(&L);
	mbedtls_mpi_init(&T);
	mbedtls_mpi_init(&Xi);
	mbedtls_mpi_init(&Xj);
	mbedtls_mpi_init(&Y);
	r = mbedtls_mpi_read_binary(&P, p, plen) ||
	    mbedtls_mpi_cmp_int(&P, 2) < 0 || mbedtls_mpi_lset(&K, 0);
	for (i = 0; !r && i < n; i++) {
		r = mbedtls_mpi_read_binary(&Xi, pts[i], plen) ||
		    mbedtls_mpi_read_binary(&Y, pts[i] + plen, plen) ||
		    mbedtls_mpi_cmp_mpi(&Xi, &P) >= 0 ||
		    mbedtls_mpi_cmp_mpi(&Y, &P) >= 0 || mbedtls_mpi_lset(&L, 1);
		for (j = 0; !r && j < n; j++) {
			if (j == i)
				continue;
			/* L *= x_j / (x_j - x_i) */
			r = mbedtls_mpi_read_binary(&Xj, pts[j], plen) ||
			    mbedtls_mpi_cmp_mpi(&Xj, &P) >= 0 ||
			    mbedtls_mpi_cmp_mpi(&Xj, &Xi) == 0 ||
			    mbedtls_mpi_mul_mpi(&L, &L, &Xj) ||
			    mbedtls_mpi_mod_mpi(&L, &L, &P) ||
			    mbedtls_mpi_sub_mpi(&T, &Xj, &Xi) ||
			    mbedtls_mpi_mod_mpi(&T, &T, &P) ||
			    mbedtls_mpi_inv_mod(&T, &T, &P) ||
			    mbedtls_mpi_mul_mpi(&L, &L, &T) ||
			    mbedtls_mpi_mod_mpi(&L, &L, &P);
		}
		/* K += L * y_i */
		r = r || mbedtls_mpi_mul_mpi(&L, &L, &Y) ||
		    mbedtls_mpi_add_mpi(&K, &K, &L) ||
		    mbedtls_mpi_mod_mpi(&K, &K, &P);
	}
	r = r || mbedtls_mpi_write_binary(&K, out, plen);
	if (r)
		memset(out, 0, plen);
	mbedtls_mpi_free(&P);
	mbedtls_mpi_free(&K);
	mbedtls_mpi_free(&L);
	mbedtls_mpi_free(&T);
	mbedtls_mpi_free(&Xi);
	mbedtls_mpi_free(&Xj);
	mbedtls_mpi_free(&Y);
	return r ? -1 : 0;
}
