/* lib/base/der.c, lib/base/pem.c, lib/fmt/tpmkey.c: DER vectors, the TPMKey layout for
 * both key types, and every refusal of the decoder. */
#include <stdlib.h>
#include <string.h>

#include "base/der.h"
#include "base/pem.h"
#include "fmt/tpmkey.h"
#include "job/attest.h"
#include "job/key.h"
#include "unit.h"

static int tl_is(uint8_t tag, size_t n, const char *want, size_t wn)
{
	uint8_t buf[8];
	struct tb b;

	tb_init(&b, buf, sizeof(buf));
	der_tl(&b, tag, n);
	return !tb_err(&b) && b.len == wn && der_size(n) == wn + n &&
	       memcmp(buf, want, wn) == 0;
}

static int int_is(uint32_t v, const char *want, size_t wn)
{
	uint8_t buf[8];
	struct tb b, r;
	uint32_t back = 0xdeadbeef;

	tb_init(&b, buf, sizeof(buf));
	der_int(&b, v);
	tb_init_read(&r, buf, b.len);
	return !tb_err(&b) && b.len == wn && der_int_size(v) == wn &&
	       memcmp(buf, want, wn) == 0 && der_get_uint(&r, &back) == 0 &&
	       back == v && !tb_left(&r);
}

static int uint_refused(const char *der, size_t n)
{
	struct tb r;
	uint32_t v;

	tb_init_read(&r, (const uint8_t *)der, n);
	return der_get_uint(&r, &v) != 0;
}

static void sample(struct tpmkey *k, int type)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->type = type;
	k->empty_auth = 1;
	k->parent = 0x81000001;
	k->publen = 300;
	k->pub[0] = 0x01;
	k->pub[1] = 300 - 2 - 256;
	for (i = 2; i < k->publen; i++)
		k->pub[i] = (uint8_t)i;
	k->privlen = 100;
	k->priv[0] = 0;
	k->priv[1] = 98;
	for (i = 2; i < k->privlen; i++)
		k->priv[i] = (uint8_t)(i * 7);
}

static int same(const struct tpmkey *a, const struct tpmkey *b)
{
	int i;

	if (a->type != b->type || a->empty_auth != b->empty_auth ||
	    a->rsa_parent != b->rsa_parent || a->parent != b->parent ||
	    a->npolicy != b->npolicy || a->publen != b->publen ||
	    a->privlen != b->privlen || memcmp(a->pub, b->pub, a->publen) ||
	    memcmp(a->priv, b->priv, a->privlen) ||
	    a->secretlen != b->secretlen ||
	    memcmp(a->secret, b->secret, a->secretlen))
		return 0;
	for (i = 0; i < a->npolicy; i++)
		if (a->policy[i].cc != b->policy[i].cc ||
		    a->policy[i].len != b->policy[i].len ||
		    memcmp(a->policy[i].body, b->policy[i].body,
			   a->policy[i].len))
			return 0;
	return 1;
}

/* Parse DER and expect a refusal whose message holds msg. */
static int parse_refused(const uint8_t *d, size_t n, const char *msg)
{
	struct tpmkey k;
	struct tberr e;

	if (tpmkey_parse(d, n, &k, "T", &e) == 0)
		return 0;
	if (!strstr(e.msg, msg)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", e.msg, msg);
		return 0;
	}
	return e.code == EX_FAIL && strncmp(e.msg, "T: ", 3) == 0;
}

static size_t der_of(const struct tpmkey *k, uint8_t *out, size_t cap)
{
	struct tb b;

	tb_init(&b, out, cap);
	return tpmkey_der(k, &b) ? 0 : b.len;
}

int main(void)
{
	static uint8_t d[8192], d2[8192];
	struct tpmkey k, back;
	struct ak_blob ak, akback;
	struct tberr e;
	char *pem, *pem2;
	size_t n;

	/* DER lengths and integers (X.690 8.1.3, 8.3). */
	CHECK(tl_is(0x04, 0, "\x04\x00", 2));
	CHECK(tl_is(0x04, 0x7f, "\x04\x7f", 2));
	CHECK(tl_is(0x04, 0x80, "\x04\x81\x80", 3));
	CHECK(tl_is(0x04, 0xff, "\x04\x81\xff", 3));
	CHECK(tl_is(0x04, 0x100, "\x04\x82\x01\x00", 4));
	CHECK(tl_is(0x30, 0x10000, "\x30\x83\x01\x00\x00", 5));
	CHECK(int_is(0, "\x02\x01\x00", 3));
	CHECK(int_is(0x7f, "\x02\x01\x7f", 3));
	CHECK(int_is(0x80, "\x02\x02\x00\x80", 4));
	CHECK(int_is(0x17f, "\x02\x02\x01\x7f", 4));
	CHECK(int_is(0x40000001, "\x02\x04\x40\x00\x00\x01", 6));
	CHECK(int_is(0x81000001, "\x02\x05\x00\x81\x00\x00\x01", 7));
	CHECK(uint_refused("\x02\x02\x00\x7f", 4));	/* not minimal */
	CHECK(uint_refused("\x02\x01\x80", 3));		/* negative */
	CHECK(uint_refused("\x02\x00", 2));		/* empty */
	CHECK(uint_refused("\x02\x06\x00\x01\x00\x00\x00\x00", 8));
	{
		struct tb r, s;

		tb_init_read(&r, (const uint8_t *)"\x04\x81\x05xxxxx", 8);
		CHECK(der_get(&r, 0x04, &s) != 0);	/* long form < 0x80 */
		tb_init_read(&r, (const uint8_t *)"\x04\x03xx", 4);
		CHECK(der_get(&r, 0x04, &s) != 0);	/* past the end */
		tb_init_read(&r, (const uint8_t *)"\x04\x80", 2);
		CHECK(der_get(&r, 0x04, &s) != 0);	/* indefinite */
	}

	/* Round trips: a loadable key, sealed data with two policy
	 * commands and rsaParent. */
	sample(&k, TPMKEY_LOADABLE);
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(strncmp(pem, "-----BEGIN TSS2 PRIVATE KEY-----\n", 33) == 0);
	CHECK(strlen(pem) == n && pem[n - 1] == '\n');
	CHECK(tpmkey_decode(pem, n, &back, "T", &e) == 0 && same(&k, &back));
	free(pem);
	n = der_of(&k, d, sizeof(d));
	/* SEQUENCE, OID 2.23.133.10.1.3, [0] TRUE, parent INTEGER */
	CHECK(n > 0 && memcmp(d, "\x30\x82", 2) == 0);
	CHECK(memcmp(d + 4, "\x06\x06\x67\x81\x05\x0a\x01\x03"
		     "\xa0\x03\x01\x01\xff"
		     "\x02\x05\x00\x81\x00\x00\x01", 20) == 0);

	sample(&k, TPMKEY_SEALED);
	k.rsa_parent = 1;
	k.empty_auth = 0;
	k.npolicy = 2;
	k.policy[0].cc = 0x17f;
	k.policy[0].len = 40;
	memset(k.policy[0].body, 0x5a, 40);
	k.policy[1].cc = 0x16b;
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(tpmkey_decode(pem, n, &back, "T", &e) == 0 && same(&k, &back));
	free(pem);
	n = der_of(&k, d, sizeof(d));
	CHECK(memmem(d, n, "\x06\x06\x67\x81\x05\x0a\x01\x05", 8) != NULL);
	/* PolicyPCR as [0] INTEGER 0x17f, then rsaParent [5] TRUE */
	CHECK(memmem(d, n, "\xa0\x04\x02\x02\x01\x7f", 6) != NULL);
	CHECK(memmem(d, n, "\xa5\x03\x01\x01\xff\x02\x05", 7) != NULL);

	/* An importable key: its secret ([2], a TPM2B_ENCRYPTED_SECRET)
	 * round-trips; the writer refuses a secret on another type and an
	 * importable key without one. */
	sample(&k, TPMKEY_IMPORTABLE);
	k.empty_auth = 0;
	k.secretlen = 70;
	k.secret[1] = 68;
	memset(k.secret + 2, 0x5a, 68);
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(tpmkey_decode(pem, n, &back, "T", &e) == 0 && same(&k, &back));
	free(pem);
	n = der_of(&k, d, sizeof(d));
	CHECK(memmem(d, n, "\x06\x06\x67\x81\x05\x0a\x01\x04\xa2\x48\x04\x46"
		     "\x00\x44", 14) != NULL);
	memcpy(d2, d, n);
	d2[17] ^= 1;		/* the secret's TPM2B size != its octets */
	CHECK(parse_refused(d2, n, "malformed secret"));
	memcpy(d2, d, n);
	d2[11] = TPMKEY_LOADABLE;	/* a loadable key with a secret */
	CHECK(parse_refused(d2, n, "not importable"));
	k.type = TPMKEY_SEALED;
	CHECK(der_of(&k, d2, sizeof(d2)) == 0);
	k.type = TPMKEY_IMPORTABLE;
	k.secretlen = 0;
	CHECK(der_of(&k, d2, sizeof(d2)) == 0);

	/* A description [4] is skipped. */
	sample(&k, TPMKEY_LOADABLE);
	k.empty_auth = 0;
	n = der_of(&k, d, sizeof(d));
	{
		/* insert [4] { UTF8String "ak" } after the OID (at 4 + 8) */
		static const uint8_t desc[] = { 0xa4, 0x04, 0x0c, 0x02, 'a',
						'k' };
		size_t body = n - 4 + sizeof(desc);

		memcpy(d2, "\x30\x82", 2);
		d2[2] = (uint8_t)(body >> 8);
		d2[3] = (uint8_t)body;
		memcpy(d2 + 4, d + 4, 8);
		memcpy(d2 + 12, desc, sizeof(desc));
		memcpy(d2 + 12 + sizeof(desc), d + 12, n - 12);
		CHECK(tpmkey_parse(d2, n + sizeof(desc), &back, "T", &e) == 0 &&
		      same(&k, &back));
		/* [2] holding no OCTET STRING: refused */
		d2[12] = 0xa2;
		CHECK(parse_refused(d2, n + sizeof(desc), "malformed secret"));
		d2[12] = 0xa3;
		CHECK(parse_refused(d2, n + sizeof(desc), "signed policies"));
		d2[12] = 0xa6;
		CHECK(parse_refused(d2, n + sizeof(desc), "unexpected field"));
	}

	/* Refusals. */
	sample(&k, TPMKEY_LOADABLE);
	n = der_of(&k, d, sizeof(d));
	memcpy(d2, d, n);
	d2[11] = 0x04;		/* importable key OID, no secret */
	CHECK(parse_refused(d2, n, "without its secret"));
	memcpy(d2, d, n);
	d2[11] = 0x06;		/* an unknown key type */
	CHECK(parse_refused(d2, n, "not a loadable key"));
	memcpy(d2, d, n);
	d2[2] = 0x7f;		/* SEQUENCE length past the end */
	CHECK(parse_refused(d2, n, "not one DER SEQUENCE"));
	d2[2] = d[2];
	d2[n] = 0;		/* a byte after the SEQUENCE */
	CHECK(parse_refused(d2, n + 1, "not one DER SEQUENCE"));
	memcpy(d2, d, n);
	d2[4] = 0x04;		/* no OID */
	CHECK(parse_refused(d2, n, "no key type OID"));
	memcpy(d2, d, n);
	d2[n - k.privlen + 1] ^= 1;	/* TPM2B_PRIVATE size != octets */
	CHECK(parse_refused(d2, n, "TPM2B_PRIVATE"));
	memcpy(d2, d, n);
	d2[24 + 4] ^= 1;	/* TPM2B_PUBLIC size (OCTETS at 24) */
	CHECK(parse_refused(d2, n, "TPM2B_PUBLIC"));
	k.npolicy = TPMKEY_POLICY_MAX + 1;
	CHECK(der_of(&k, d2, sizeof(d2)) == 0);
	k.npolicy = 0;
	k.publen = TPMKEY_PUB_MAX + 1;
	CHECK(der_of(&k, d2, sizeof(d2)) == 0);

	/* PEM: missing, twice, truncated, bad base64. */
	sample(&k, TPMKEY_LOADABLE);
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(tpmkey_decode("hello", 5, &back, "T", &e) != 0 &&
	      strstr(e.msg, "T: no TSS2 PRIVATE KEY PEM block"));
	CHECK(tpmkey_decode(pem, 60, &back, "T", &e) != 0 &&
	      strstr(e.msg, "no END line"));
	pem2 = malloc(2 * n + 1);
	memcpy(pem2, pem, n);
	memcpy(pem2 + n, pem, n + 1);
	CHECK(tpmkey_decode(pem2, 2 * n, &back, "T", &e) != 0 &&
	      strstr(e.msg, "more than one"));
	memcpy(pem2, pem, n + 1);
	pem2[40] = '!';
	CHECK(tpmkey_decode(pem2, n, &back, "T", &e) != 0 &&
	      strstr(e.msg, "not valid base64"));
	free(pem2);
	free(pem);

	/* The AK blob goes through the same code and refuses sealed data. */
	memset(&ak, 0, sizeof(ak));
	ak.parent = 0x40000001;
	ak.empty_auth = 1;
	memcpy(ak.pub, k.pub, k.publen);
	ak.publen = k.publen;
	memcpy(ak.priv, k.priv, k.privlen);
	ak.privlen = k.privlen;
	CHECK(ak_blob_encode(&ak, &pem, &n, &e) == 0);
	CHECK(ak_blob_decode((const uint8_t *)pem, n, &akback, &e) == 0 &&
	      akback.parent == ak.parent && akback.empty_auth &&
	      akback.publen == ak.publen && akback.privlen == ak.privlen &&
	      memcmp(akback.pub, ak.pub, ak.publen) == 0);
	free(pem);
	sample(&k, TPMKEY_SEALED);
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(ak_blob_decode((const uint8_t *)pem, n, &akback, &e) != 0 &&
	      strstr(e.msg, "a sealed blob is no key"));
	free(pem);
	sample(&k, TPMKEY_LOADABLE);
	k.npolicy = 1;
	k.policy[0].cc = 0x16b;
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(ak_blob_decode((const uint8_t *)pem, n, &akback, &e) != 0 &&
	      strstr(e.msg, "an attestation key has no policy"));
	/* a key (keycreate --auth -p ...) may say PolicyAuthValue */
	CHECK(key_file_decode((const uint8_t *)pem, n, &akback, "KEY",
			      &e) == 0 && akback.pol.authvalue &&
	      !akback.pol.pcr);
	free(pem);
	/* another policy command is no key tpmbox uses */
	sample(&k, TPMKEY_LOADABLE);
	k.npolicy = 1;
	k.policy[0].cc = 0x171;	/* PolicySigned */
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(key_file_decode((const uint8_t *)pem, n, &akback, "KEY",
			      &e) != 0 && strstr(e.msg, "is not supported"));
	free(pem);
	/* a PolicyPCR whose parameters do not parse */
	sample(&k, TPMKEY_LOADABLE);
	k.npolicy = 1;
	k.policy[0].cc = 0x17f;
	k.policy[0].len = 40;
	memset(k.policy[0].body, 0x5a, 40);
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(key_file_decode((const uint8_t *)pem, n, &akback, "KEY",
			      &e) != 0 && strstr(e.msg, "damaged PolicyPCR"));
	free(pem);
	sample(&k, TPMKEY_LOADABLE);
	k.parent = 0x01000000;
	CHECK(tpmkey_encode(&k, &pem, &n, "T", &e) == 0);
	CHECK(ak_blob_decode((const uint8_t *)pem, n, &akback, &e) != 0 &&
	      strstr(e.msg, "neither the owner hierarchy nor persistent"));
	free(pem);

	return unit_done("tpmkey");
}
