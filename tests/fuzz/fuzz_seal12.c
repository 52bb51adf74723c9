/* seal and unseal on a TPM 1.2: the blob parser on raw bytes, and the
 * TPM commands' answers (TPM_Sealx / TPM_Seal, TPM_Unseal,
 * TPM_CreateWrapKey, TPM_LoadKey2) from a TPM played here: it answers
 * OIAP and OSAP itself and computes every answer's HMAC, so the fuzzer's
 * bytes reach the parsers behind the HMAC check.  Input: one byte
 * choosing the operation, one parameter byte, then the answers' bodies,
 * each a u16 length and its bytes (an rc instead of a body when the
 * length's top bit is set). */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "job/sealing12.h"
#include "job/tpm.h"
#include "tpm12/key.h"
#include "tpm12/seal.h"
#include "tpm12/session.h"
#include "xport_stub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *in_p;
static size_t in_n;
static uint8_t even[20], secret[20];
static const uint8_t zero[20];

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The next body from the input: 0 with *p, *n set; 1 when an rc is
 * asked for instead (*n = the rc); -1 when the input is used up. */
static int next_body(const uint8_t **p, size_t *n)
{
	size_t len;

	if (in_n < 2)
		return -1;
	len = (size_t)in_p[0] << 8 | in_p[1];
	in_p += 2;
	in_n -= 2;
	if (len & 0x8000) {
		*n = len & 0x7fff;
		return 1;
	}
	if (len > in_n)
		len = in_n;
	*p = in_p;
	*n = len;
	in_p += len;
	in_n -= len;
	return 0;
}

static int answer(const uint8_t *cmd, size_t clen, uint8_t *rsp, size_t cap,
		  size_t *rlen)
{
	uint16_t tag;
	uint32_t ord;
	const uint8_t *body = NULL;
	size_t blen = 0, at, oh;
	int na, i, k;

	if (clen < 10)
		return -1;
	tag = (uint16_t)(cmd[0] << 8 | cmd[1]);
	ord = be32(cmd + 6);
	na = tag == 0x00c2 ? 1 : tag == 0x00c3 ? 2 : 0;
	if (ord == 0x0a || ord == 0x0b) {	/* OIAP, OSAP */
		memset(even, 0x11, 20);
		at = 10;
		put32(rsp + at, ord == 0x0a ? 2 : 1);
		memcpy(rsp + at + 4, even, 20);
		at += 24;
		if (ord == 0x0b && clen >= 10 + 26) {
			uint8_t eo[20];

			memset(eo, 0x22, 20);
			memcpy(rsp + at, eo, 20);
			at += 20;
			tpm12_osap_secret(zero, eo, cmd + 16, secret);
		}
		rsp[0] = 0x00;
		rsp[1] = 0xc4;
		put32(rsp + 2, (uint32_t)at);
		put32(rsp + 6, 0);
		*rlen = at;
		return 0;
	}
	k = next_body(&body, &blen);
	if (k < 0)
		return -1;
	if (k == 1 || na == 0 || 10 + blen + (size_t)na * 41 > cap) {
		rsp[0] = 0x00;
		rsp[1] = 0xc4;
		put32(rsp + 2, k == 0 && na == 0 && 10 + blen <= cap ?
		      (uint32_t)(10 + blen) : 10);
		put32(rsp + 6, k == 1 ? (uint32_t)blen : 0);
		if (k == 0 && na == 0 && 10 + blen <= cap) {
			memcpy(rsp + 10, body, blen);
			*rlen = 10 + blen;
		} else {
			*rlen = 10;
		}
		return 0;
	}
	/* An authorized answer with correct HMACs: the key session is an
	 * OSAP (its shared secret), the second an OIAP with the zero
	 * value, as the operations below start them. */
	{
		uint8_t dig[20], mac[20], odd[20];
		const uint8_t *trail = cmd + clen - (size_t)na * 45;
		struct hash_ctx *h = hash_new(TPM2_ALG_SHA1);
		uint8_t hdr[8];

		oh = ord == 0x41 ? 4 : 0;	/* LoadKey2's handle */
		if (oh > blen)
			oh = blen;
		put32(hdr, 0);
		put32(hdr + 4, ord);
		hash_update(h, hdr, 8);
		hash_update(h, body + oh, blen - oh);
		hash_final(h, dig);
		memcpy(rsp + 10, body, blen);
		at = 10 + blen;
		for (i = 0; i < na; i++) {
			const uint8_t *key = i == 0 && ord != 0x41 ? secret :
					     zero;
			uint8_t cont = 0;

			memcpy(odd, trail + (size_t)i * 45 + 4, 20);
			memset(rsp + at, 0x33 + i, 20);
			tpm12_auth_hmac(key, dig, rsp + at, odd, cont, mac);
			rsp[at + 20] = cont;
			memcpy(rsp + at + 21, mac, 20);
			at += 41;
		}
		rsp[0] = 0x00;
		rsp[1] = na == 1 ? 0xc5 : 0xc6;
		put32(rsp + 2, (uint32_t)at);
		put32(rsp + 6, 0);
		*rlen = at;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t vals[24][20];
	struct tberr e;
	struct tpm *t;
	uint8_t op, arg;

	if (size < 2)
		return 0;
	op = data[0];
	arg = data[1];
	memset(&e, 0, sizeof(e));
	if (op % 6 == 0) {
		/* The blob parser on raw bytes. */
		struct seal12_blob *b = malloc(sizeof(*b));

		if (b && seal12_parse(data + 2, size - 2, b, &e) == 0 &&
		    (b->aadlen + 28 + b->ctlen != size - 2 ||
		     b->npcr > SEAL12_PCR_MAX))
			abort();
		free(b);
		return 0;
	}
	in_p = data + 2;
	in_n = size - 2;
	stub_respond(answer);
	if (tpm_open(&t, "fuzz", 2, &e)) {
		stub_respond(NULL);
		return 0;
	}
	memset(vals, arg, sizeof(vals));
	switch (op % 6) {
	case 1:
	case 2: {
		/* TPM_Sealx (1) or TPM_Seal (2) under the SRK: the stored
		 * data, the PCR binding and digestAtCreation checks. */
		struct tpm12_stored *sd = malloc(sizeof(*sd));
		uint32_t mask = arg & 1 ? 0x00010081u : arg & 2 ? 0x81u : 0;

		if (sd)
			tpm12_seal(t, TPM12_KH_SRK, zero, mask,
				   arg & 4 ? mask : 0,
				   (const uint8_t (*)[20])vals, zero,
				   (const uint8_t *)"0123456789abcdef0123456789"
				   "abcdef", 32, op % 6 == 1, sd);
		free(sd);
		break;
	}
	case 3: {
		/* TPM_Unseal: OSAP and OIAP, two HMACs, the length, the
		 * XOR unmasking. */
		struct tpm12_stored *sd = calloc(1, sizeof(*sd));
		uint8_t out[TPM12_RSA_MAX];
		size_t n;

		if (sd) {
			sd->is12 = 1;
			sd->et = arg & 1 ? TPM12_ET_XOR_KEY : 0;
			sd->enclen = 256;
			tpm12_unseal(t, TPM12_KH_SRK, zero, sd, zero, out, &n);
		}
		free(sd);
		break;
	}
	case 4: {
		/* TPM_CreateWrapKey: the wrapped key. */
		struct tpm12_key *tmpl = calloc(1, sizeof(*tmpl));
		struct tpm12_key *k = malloc(sizeof(*k));

		if (tmpl && k) {
			memcpy(tmpl->ver, "\x01\x01\x00\x00", 4);
			tmpl->usage = TPM12_KEY_STORAGE;
			tmpl->auth_usage = 1;
			tpm12_key_parms_rsa(&tmpl->parms, 2048,
					    TPM12_ES_RSAESOAEP_SHA1_MGF1,
					    TPM12_SS_NONE);
			tpm12_create_wrap_key(t, TPM12_KH_SRK, zero, tmpl,
					      zero, k);
		}
		free(tmpl);
		free(k);
		break;
	}
	case 5: {
		/* TPM_LoadKey2 (OIAP: the key's handle outside the HMAC),
		 * then FlushSpecific. */
		struct tpm12_key *k = calloc(1, sizeof(*k));
		uint32_t h;

		if (k && tpm12_loadkey2(t, TPM12_KH_SRK, zero, k, &h) == 0)
			tpm12_flush_key(t, h);
		free(k);
		break;
	}
	}
	tpm_close(t);
	stub_respond(NULL);
	return 0;
}
