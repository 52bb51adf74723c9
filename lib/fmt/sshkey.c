/* The OpenSSH public key line: see include/fmt/sshkey.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "fmt/sshkey.h"
#include "tpm2/object.h"

/* string: uint32 length, then the bytes */
static void put_string(struct tb *b, const void *p, size_t n)
{
	tb_put_u32(b, (uint32_t)n);
	tb_put_bytes(b, p, n);
}

/* mpint: a positive big-endian integer, minimal, a 0x00 before a set
 * high bit */
static void put_mpint(struct tb *b, const uint8_t *v, size_t n)
{
	while (n && !*v) {
		v++;
		n--;
	}
	tb_put_u32(b, (uint32_t)(n + (n && (v[0] & 0x80))));
	if (n && (v[0] & 0x80))
		tb_put_u8(b, 0);
	tb_put_bytes(b, v, n);
}

/* a coordinate left-padded to w bytes (n <= w) */
static void put_padded(struct tb *b, const uint8_t *v, size_t n, size_t w)
{
	for (; w > n; w--)
		tb_put_u8(b, 0);
	tb_put_bytes(b, v, n);
}

int ssh_pub_line(const struct tpm2_public *p, const char *comment,
		 char **line, size_t *n, struct tberr *e)
{
	uint8_t blob[1024], ex[4];
	const char *type, *curve;
	uint32_t exp = p->rsa_exp ? p->rsa_exp : 65537;
	char *b64;
	size_t bn, cap;
	struct tb b;

	*line = NULL;
	tb_init(&b, blob, sizeof(blob));
	if (p->type == TPM2_ALG_RSA) {
		type = "ssh-rsa";
		ex[0] = (uint8_t)(exp >> 24);
		ex[1] = (uint8_t)(exp >> 16);
		ex[2] = (uint8_t)(exp >> 8);
		ex[3] = (uint8_t)exp;
		put_string(&b, type, strlen(type));
		put_mpint(&b, ex, 4);
		put_mpint(&b, p->rsa_n, p->rsa_nlen);
	} else if (p->type == TPM2_ALG_ECC &&
		   (p->curve == TPM2_ECC_NIST_P256 ||
		    p->curve == TPM2_ECC_NIST_P384)) {
		size_t w = p->curve == TPM2_ECC_NIST_P256 ? 32 : 48;

		type = w == 32 ? "ecdsa-sha2-nistp256" : "ecdsa-sha2-nistp384";
		curve = w == 32 ? "nistp256" : "nistp384";
		if (p->ecc_xlen > w || p->ecc_ylen > w)
			return err_set(e, EX_FAIL, "the key's point is not "
				       "on its curve's size");
		put_string(&b, type, strlen(type));
		put_string(&b, curve, strlen(curve));
		/* Q: uncompressed point, coordinates left-padded */
		tb_put_u32(&b, (uint32_t)(1 + 2 * w));
		tb_put_u8(&b, 0x04);
		put_padded(&b, p->ecc_x, p->ecc_xlen, w);
		put_padded(&b, p->ecc_y, p->ecc_ylen, w);
	} else {
		return err_set(e, EX_FAIL, "an OpenSSH line is for RSA, P-256 "
			       "and P-384 keys");
	}
	if (tb_err(&b) || !(b64 = b64_encode(blob, b.len, &bn)))
		return err_set(e, EX_FAIL, "the OpenSSH line: out of memory");
	cap = strlen(type) + bn + (comment ? strlen(comment) : 0) + 4;
	if (!(*line = malloc(cap))) {
		free(b64);
		return err_set(e, EX_FAIL, "the OpenSSH line: out of memory");
	}
	*n = (size_t)snprintf(*line, cap, "%s %s%s%s\n", type, b64,
			      comment ? " " : "", comment ? comment : "");
	free(b64);
	return 0;
}
