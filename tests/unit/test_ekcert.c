/* EK certificates: the NV bytes to DER (the TPM 1.2 header taken off
 * when present, never required; padding left by the DER's length) and
 * the Intel/AMD online locations (expected values computed with Python's
 * hashlib/base64 from the rule in include/job/ekcert.h). */
#include <stdint.h>
#include <string.h>

#include "base/tpm2const.h"
#include "job/ekcert.h"
#include "tpm2/object.h"
#include "unit.h"

/* A SEQUENCE of n content bytes (long form when n >= 128). */
static size_t seq(uint8_t *p, size_t n)
{
	size_t h;

	p[0] = 0x30;
	if (n < 128) {
		p[1] = (uint8_t)n;
		h = 2;
	} else {
		p[1] = 0x82;
		p[2] = (uint8_t)(n >> 8);
		p[3] = (uint8_t)n;
		h = 4;
	}
	memset(p + h, 0xa5, n);
	return h + n;
}

static void test_der(void)
{
	uint8_t b[600], h[700];
	struct tberr e;
	size_t off, len, n;

	memset(&e, 0, sizeof(e));
	n = seq(b, 500);		/* 504 bytes */
	memset(b + n, 0xff, 20);	/* padding */
	CHECK(ekcert_der(b, n + 20, &off, &len, &e) == 0);
	CHECK(off == 0 && len == 504);
	CHECK(ekcert_der(b, n, &off, &len, &e) == 0 && len == 504);
	/* truncated */
	CHECK(ekcert_der(b, n - 1, &off, &len, &e) == EX_FAIL);
	CHECK(ekcert_der(b, 1, &off, &len, &e) == EX_FAIL);
	CHECK(ekcert_der(b, 0, &off, &len, &e) == EX_FAIL);
	/* not minimal, indefinite, too many length bytes */
	CHECK(ekcert_der((const uint8_t *)"\x30\x81\x05\0\0\0\0\0", 8, &off,
			 &len, &e) == EX_FAIL);
	CHECK(ekcert_der((const uint8_t *)"\x30\x80\0\0", 4, &off, &len,
			 &e) == EX_FAIL);
	CHECK(ekcert_der((const uint8_t *)"\x30\x84\0\0\0\x01\0", 7, &off,
			 &len, &e) == EX_FAIL);
	CHECK(ekcert_der((const uint8_t *)"\x31\x01\0", 3, &off, &len,
			 &e) == EX_FAIL);
	/* 1.2 header: 10 01 00 SIZE(2 + DER) 10 02 DER, then padding */
	memcpy(h, "\x10\x01\x00\x01\xfa\x10\x02", 7);
	memcpy(h + 7, b, 504);
	memset(h + 511, 0, 9);
	CHECK(ekcert_der(h, 520, &off, &len, &e) == 0);
	CHECK(off == 7 && len == 504);
	h[4] = 0xfb;			/* size one too large */
	CHECK(ekcert_der(h, 520, &off, &len, &e) == EX_FAIL);
	h[4] = 0xfa;
	h[6] = 0x03;			/* not TCG_FULL_CERT */
	CHECK(ekcert_der(h, 520, &off, &len, &e) == EX_FAIL);
	h[6] = 0x02;
	CHECK(ekcert_der(h, 300, &off, &len, &e) == EX_FAIL);	/* cut */
}

static void test_vendor_url(void)
{
	static struct tpm2_public rsa, ecc;
	char url[160];
	size_t i;

	rsa.type = TPM2_ALG_RSA;
	rsa.rsa_nlen = 256;
	for (i = 0; i < 256; i++)
		rsa.rsa_n[i] = (uint8_t)(i * 7 + 1);
	ecc.type = TPM2_ALG_ECC;
	ecc.curve = TPM2_ECC_NIST_P384;
	ecc.ecc_xlen = ecc.ecc_ylen = 48;
	for (i = 0; i < 48; i++) {
		ecc.ecc_x[i] = (uint8_t)i;
		ecc.ecc_y[i] = (uint8_t)(100 + i);
	}
	CHECK(ekcert_vendor_url(TPM_MANUF_INTC, &rsa, url, sizeof(url)) == 0);
	CHECK(strcmp(url, "https://ekop.intel.com/ekcertservice/"
		     "7zip6vRRrEmU0Y310WMCM6cXDNmBqewzU7IEWVWTuhg%3D") == 0);
	CHECK(ekcert_vendor_url(TPM_MANUF_INTC, &ecc, url, sizeof(url)) == 0);
	CHECK(strcmp(url, "https://ekop.intel.com/ekcertservice/"
		     "XuycKp2lb7KMfV348uIcuBzpkRRmkX_FetKbWnPmz0U%3D") == 0);
	CHECK(ekcert_vendor_url(TPM_MANUF_AMD, &rsa, url, sizeof(url)) == 0);
	CHECK(strcmp(url, "https://ftpm.amd.com/pki/aia/"
		     "db8c2d9304735e8a8816e30978fb1c46") == 0);
	CHECK(ekcert_vendor_url(TPM_MANUF_AMD, &ecc, url, sizeof(url)) == 0);
	CHECK(strcmp(url, "https://ftpm.amd.com/pki/aia/"
		     "a51e7bb38ecfa392b98bb3112c5147f0") == 0);
	/* IBM (swtpm), Infineon: none */
	CHECK(ekcert_vendor_url(0x49424d00u, &rsa, url, sizeof(url)) == -1);
	CHECK(ekcert_vendor_url(0x49465800u, &rsa, url, sizeof(url)) == -1);
}

int main(void)
{
	test_der();
	test_vendor_url();
	return unit_done("ekcert");
}
