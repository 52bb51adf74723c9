/* The session layer past the response HMAC check.  A fuzzed response
 * cannot carry a valid HMAC, so fuzz_tpm stops at the check; here the
 * harness plays the TPM (a small model of one, below) and signs what the
 * fuzzer makes it say: it answers TPM2_StartAuthSession itself, derives
 * the session key (it holds the salt key: an ECC key whose public point
 * is the P-256 generator, so the ECDH secret is the caller's ephemeral
 * x coordinate, or an RSA-2048 key it made), decrypts command parameters
 * and encrypts the first response parameter with AES-128-CFB as a TPM
 * does (Part 1, 19.6 and 21; tpmbox only asks for AES-CFB sessions, never
 * XOR), and computes each response HMAC over whatever parameters the
 * fuzzer chose.  lib/ then accepts the authorization and parses.
 *
 * Input: flow, flags, arg, then one record per command.
 *   flow   bits 0-2 the flow (the lib/ calls of unseal, seal, an NV
 *          access, nvdefine+nvrelease, takeown, clearall, a multi-session
 *          NV access), 4-5 the NV index type, 3 and 6-7 the odd key
 *   flags  bit 0 RSA salt key (else ECC), 1 nothing persisted at
 *          0x81000001, 2 empty auth values, 3 NV by --owner-auth,
 *          4 policy sessions in the multi-session flow, 5 a 32-byte
 *          secret, 6 the index is written, 7 CreatePrimary makes an odd
 *          key (odd_key)
 *   arg    options of the flow
 * The records (when the stream runs out every command gets the model's
 * good answer):
 *   ctl            bits 0-2 what to answer:
 *                    0, 6, 7  the model's answer
 *                    1  response parameters from the stream: u16 n, bytes
 *                    2  an error: u16 rc (0 becomes TPM_RC_FAILURE)
 *                    3  raw response bytes: u16 n, bytes (no HMAC fix)
 *                    4  the model's answer with one byte changed: u16 at,
 *                       u8 xor
 *                    5  the model's answer cut or extended: u16 n, bytes
 *                  bits 3-5 damage to the response authorization (below)
 *                  bit 6  nonceTPM size from the stream: u8
 *                  bit 7  response handle from the stream: u32
 * Damage: 1 HMAC bit flipped, 2 HMAC over another nonceCaller, 3 sent
 * attributes differ from the HMACed ones, 4 HMAC cut to 16 bytes, 5 HMAC
 * keyed without/with the authValue the other way round, 6 the first
 * parameter left in clear although the session encrypts.
 *
 * Besides the sanitizers, two checks abort: lib/ accepted an answer whose
 * HMAC the harness broke (or raw bytes for a command with an HMAC
 * session), and a decrypted secret differs from the one the TPM sent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/rsa.h>

#include "base/auth.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "tpm2/cmd.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"
#include "xport_stub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSESS		6
#define NV_INDEX	0x01500001u
#define PRIMARY		0x80000000u
#define SEALED		0x80000001u
#define RC_FAILURE	0x101u
#define RC_HANDLE1	0x18bu
#define RC_COMMAND_CODE	0x143u

/* P-256 generator: the salt key's public point (private key 1). */
static const uint8_t gx[32] = {
	0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6,
	0xe5, 0x63, 0xa4, 0x40, 0xf2, 0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb,
	0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96 };
static const uint8_t gy[32] = {
	0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb,
	0x4a, 0x7c, 0x0f, 0x9e, 0x16, 0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31,
	0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5 };

struct fsess {
	int used;
	uint32_t handle;
	int type;
	uint32_t bind;
	uint8_t key[32];
	size_t keylen;
	uint8_t ntpm[64];
	size_t nn;
	int pauth;		/* PolicyAuthValue ran in it */
	int ppw;		/* PolicyPassword ran in it */
};

/* The TPM's state for one input. */
static struct {
	const uint8_t *in;
	size_t left;
	struct fsess s[NSESS];
	unsigned counter;
	uint8_t auth[64];	/* every entity's authValue but the keys' */
	size_t authlen;
	int rsa;		/* the salt key is the RSA one */
	int no_srk;		/* nothing persisted at 0x81000001 */
	struct nv_public nv;
	size_t secretlen;	/* Unseal's outData size */
	int damaged;		/* an HMAC that cannot verify was sent */
	uint8_t plain[TPM_BUF_SIZE];	/* the last response's parameters */
	size_t plainlen;		/* before encryption */
	int clear;		/* ... sent in clear although encrypted */
	uint32_t primary;	/* the handle CreatePrimary answered */
	int has_primary;
	const struct tpm2_public *pk;	/* the key CreatePrimary makes */
} T;

static struct tpm2_public srk_ecc, srk_rsa, odd;
static mbedtls_rsa_context rsa_key;

/* ---- the fuzzer's stream ---- */

static uint8_t get8(void)
{
	if (!T.left)
		return 0;
	T.left--;
	return *T.in++;
}

static uint16_t get16(void)
{
	uint16_t v = get8();

	return (uint16_t)(v << 8 | get8());
}

static uint32_t get32(void)
{
	uint32_t v = get16();

	return v << 16 | get16();
}

/* Up to n bytes from the stream into out; returns how many came. */
static size_t getn(uint8_t *out, size_t n)
{
	if (n > T.left)
		n = T.left;
	memcpy(out, T.in, n);
	T.in += n;
	T.left -= n;
	return n;
}

/* ---- keys ---- */

static int rng_cb(void *unused, unsigned char *out, size_t n)
{
	(void)unused;
	return rng_bytes(out, n) ? -1 : 0;
}

static void keys_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	tpm2_srk_template(&srk_ecc, 0);
	memcpy(srk_ecc.ecc_x, gx, 32);
	memcpy(srk_ecc.ecc_y, gy, 32);
	if (tpm2_public_finish(&srk_ecc))
		abort();
	mbedtls_rsa_init(&rsa_key, MBEDTLS_RSA_PKCS_V21, MBEDTLS_MD_SHA256);
	tpm2_srk_template(&srk_rsa, 1);
	if (mbedtls_rsa_gen_key(&rsa_key, rng_cb, NULL, 2048, 65537) ||
	    mbedtls_rsa_export_raw(&rsa_key, srk_rsa.rsa_n, 256, NULL, 0,
				   NULL, 0, NULL, 0, NULL, 0) ||
	    tpm2_public_finish(&srk_rsa))
		abort();
}

static const struct tpm2_public *srk(void)
{
	return T.rsa ? &srk_rsa : &srk_ecc;
}

/* A primary key lib/ must salt to with another hash, or refuse. */
static const struct tpm2_public *odd_key(int v)
{
	odd = *srk();
	switch (v) {
	case 0: odd.name_alg = TPM2_ALG_SHA1; break;
	case 1: odd.name_alg = TPM2_ALG_SHA384; break;
	case 2: odd.name_alg = TPM2_ALG_SHA512; break;
	case 3: odd.attrs &= ~TPMA_OBJECT_DECRYPT; break;
	case 4: odd.attrs &= ~TPMA_OBJECT_RESTRICTED; break;
	case 5:		/* off the curve; an even modulus */
		if (T.rsa)
			odd.rsa_n[255] ^= 1;
		else
			odd.ecc_y[31] ^= 1;
		break;
	case 6: odd.name_alg = TPM2_ALG_SM3_256; break;
	default:
		odd.type = TPM2_ALG_KEYEDHASH;
		odd.scheme = TPM2_ALG_NULL;
		odd.uniquelen = 0;
	}
	if (tpm2_public_finish(&odd))
		odd.namelen = 0;
	return &odd;
}

static mbedtls_md_type_t md_of(uint16_t alg)
{
	switch (alg) {
	case TPM2_ALG_SHA1: return MBEDTLS_MD_SHA1;
	case TPM2_ALG_SHA384: return MBEDTLS_MD_SHA384;
	case TPM2_ALG_SHA512: return MBEDTLS_MD_SHA512;
	}
	return MBEDTLS_MD_SHA256;
}

/* ---- the model TPM ---- */

static size_t trim(const uint8_t *v, size_t n)
{
	while (n && v[n - 1] == 0)
		n--;
	return n;
}

static struct fsess *sess_find(uint32_t h)
{
	int i;

	for (i = 0; i < NSESS; i++)
		if (T.s[i].used && T.s[i].handle == h)
			return &T.s[i];
	return NULL;
}

static int cmd_handles(uint32_t cc)
{
	switch (cc) {
	case TPM2_CC_StartAuthSession:
	case TPM2_CC_NV_Read:
	case TPM2_CC_NV_Write:
	case TPM2_CC_NV_Increment:
	case TPM2_CC_NV_Extend:
	case TPM2_CC_NV_SetBits:
	case TPM2_CC_NV_UndefineSpace:
	case TPM2_CC_EvictControl:
		return 2;
	case TPM2_CC_FlushContext:
	case TPM2_CC_GetCapability:
	case TPM2_CC_PCR_Read:
	case TPM2_CC_GetRandom:
		return 0;
	}
	return 1;
}

/* The authValue of an entity, as the TPM keeps it. */
static size_t entity_auth(uint32_t h, const uint8_t **p)
{
	static const uint8_t none[1];

	if (h == TPM2_SRK_HANDLE || (T.has_primary && h == T.primary)) {
		*p = none;
		return 0;
	}
	*p = T.auth;
	return T.authlen;
}

/* AES-128-CFB over the TPM2B at p (its size in clear), keyed by
 * KDFa(sessionKey || authValue, "CFB", newer, older). */
static void cfb(const struct fsess *s, const uint8_t *auth, size_t alen,
		uint8_t *p, size_t plen, const uint8_t *newer, size_t nnewer,
		const uint8_t *older, size_t nolder, int decrypt)
{
	uint8_t k[32 + 64], kiv[32];
	size_t sz;

	if (plen < 2 || (sz = (size_t)p[0] << 8 | p[1]) > plen - 2)
		return;		/* not a TPM2B: lib/ refuses it */
	memcpy(k, s->key, s->keylen);
	memcpy(k + s->keylen, auth, alen);
	if (kdfa(TPM2_ALG_SHA256, k, s->keylen + alen, "CFB", newer, nnewer,
		 older, nolder, kiv, 256) ||
	    aes_cfb(kiv, 16, kiv + 16, p + 2, sz, decrypt))
		abort();
}

/* StartAuthSession: the salt and session key, from the command and the
 * nonceTPM of the final answer. */
static void start_session(const uint32_t *h, const uint8_t *params,
			  size_t plen, uint32_t handle, const uint8_t *rp,
			  size_t rplen)
{
	uint8_t nc[64], es[600], kin[64 + 64], salt[64];
	const struct tpm2_public *k = T.has_primary && h[0] == T.primary ?
				      T.pk : srk();
	size_t d = hash_size(k->name_alg);
	size_t ncn, esn, kinlen = 0;
	struct fsess *s = NULL;
	struct tb b;
	int i, type;

	tb_init_read(&b, params, plen);
	ncn = tb_get_tpm2b(&b, nc, sizeof(nc));
	esn = tb_get_tpm2b(&b, es, sizeof(es));
	type = tb_get_u8(&b);
	if (tb_err(&b))
		return;
	for (i = 0; i < NSESS && !s; i++)
		if (!T.s[i].used)
			s = &T.s[i];
	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	tb_init_read(&b, rp, rplen);
	s->nn = tb_get_tpm2b(&b, s->ntpm, sizeof(s->ntpm));
	if (tb_err(&b))
		return;
	s->used = 1;
	s->handle = handle;
	s->type = type;
	s->bind = h[1];
	if (h[1] != TPM2_RH_NULL) {
		const uint8_t *a;
		size_t n = entity_auth(h[1], &a);

		n = trim(a, n);

		memcpy(kin, a, n);
		kinlen = n;
	}
	if (h[0] != TPM2_RH_NULL) {
		/* The salt: nameAlg-sized, OAEP or KDFe with nameAlg. */
		if (!d || d > sizeof(salt))
			d = 32;
		if (T.rsa) {
			size_t n = 0;

			mbedtls_rsa_set_padding(&rsa_key, MBEDTLS_RSA_PKCS_V21,
						md_of(k->name_alg));
			if (esn != 256 ||
			    mbedtls_rsa_rsaes_oaep_decrypt(&rsa_key, rng_cb,
					NULL, MBEDTLS_RSA_PRIVATE,
					(const uint8_t *)"SECRET", 7, &n, es,
					salt, sizeof(salt)) || n != d)
				memset(salt, 0, sizeof(salt));
		} else {
			uint8_t ex[32];

			/* d = 1: Z = d * Qe = Qe, so Z.x is the caller's
			 * ephemeral x. */
			tb_init_read(&b, es, esn);
			if (tb_get_tpm2b(&b, ex, 32) != 32 ||
			    kdfe(k->name_alg, ex, 32, "SECRET", ex, 32,
				 k->ecc_x, k->ecc_xlen, salt, d * 8))
				memset(salt, 0, sizeof(salt));
		}
		memcpy(kin + kinlen, salt, d);
		kinlen += d;
	}
	if (kinlen) {
		if (kdfa(TPM2_ALG_SHA256, kin, kinlen, "ATH", s->ntpm, s->nn,
			 nc, ncn, s->key, 256))
			abort();
		s->keylen = 32;
	}
}

/* The model's answer to one command: response handle and parameters. */
static uint32_t model(uint32_t cc, const uint32_t *h, const uint8_t *params,
		      size_t plen, struct tb *o, uint32_t *rc)
{
	const struct tpm2_public *k = srk();
	uint8_t fill[1024];
	struct tb b;
	uint32_t rh = 0;
	size_t n;

	memset(fill, 0x5a, sizeof(fill));
	tb_init_read(&b, params, plen);
	switch (cc) {
	case TPM2_CC_StartAuthSession:
		tb_skip(&b, tb_get_u16(&b));
		tb_skip(&b, tb_get_u16(&b));
		rh = (tb_get_u8(&b) == TPM2_SE_HMAC ? 0x02000000u :
		      0x03000000u) + T.counter;
		memset(fill, (int)T.counter, 32);
		tb_put_tpm2b(o, fill, 32);
		break;
	case TPM2_CC_ReadPublic:
		if (h[0] == TPM2_SRK_HANDLE && T.no_srk) {
			*rc = RC_HANDLE1;
			break;
		}
		tb_put_tpm2b(o, k->raw, k->rawlen);
		tb_put_tpm2b(o, k->name, k->namelen);
		tb_put_tpm2b(o, k->name, k->namelen);
		break;
	case TPM2_CC_CreatePrimary:
		k = T.pk;
		rh = PRIMARY;
		tb_put_tpm2b(o, k->raw, k->rawlen);
		tb_put_tpm2b(o, fill, 10);		/* creationData */
		tb_put_tpm2b(o, fill, 32);		/* creationHash */
		tb_put_u16(o, 0x8021);			/* TPM_ST_CREATION */
		tb_put_u32(o, h[0]);
		tb_put_tpm2b(o, fill, 32);
		tb_put_tpm2b(o, k->name, k->namelen);
		break;
	case TPM2_CC_Create: {
		const uint8_t *pub;

		tb_skip(&b, tb_get_u16(&b));		/* inSensitive */
		n = tb_get_tpm2b_ref(&b, &pub);
		tb_put_tpm2b(o, fill, 80);		/* outPrivate */
		tb_put_tpm2b(o, tb_err(&b) ? fill : pub, tb_err(&b) ? 0 : n);
		tb_put_tpm2b(o, fill, 10);
		tb_put_tpm2b(o, fill, 32);
		tb_put_u16(o, 0x8021);
		tb_put_u32(o, TPM2_RH_OWNER);
		tb_put_tpm2b(o, fill, 32);
		break;
	}
	case TPM2_CC_Load: {
		const uint8_t *pub;
		uint8_t name[TPM2_NAME_MAX];

		tb_skip(&b, tb_get_u16(&b));
		n = tb_get_tpm2b_ref(&b, &pub);
		rh = SEALED;
		if (tb_err(&b) || n < 4)
			n = 0;
		else
			n = tpm2_name_of((uint16_t)(pub[2] << 8 | pub[3]), pub,
					 n, name);
		tb_put_tpm2b(o, name, n);
		break;
	}
	case TPM2_CC_Unseal:
		tb_put_tpm2b(o, fill, T.secretlen);
		break;
	case TPM2_CC_NV_ReadPublic: {
		size_t at = tb_reserve16(o);

		nv_public_marshal(o, &T.nv);
		tb_patch16(o, at);
		tb_put_tpm2b(o, T.nv.name, T.nv.name_len);
		break;
	}
	case TPM2_CC_NV_Read:
		n = tb_get_u16(&b);
		tb_put_tpm2b(o, fill, n > sizeof(fill) ? 0 : n);
		break;
	case TPM2_CC_NV_Write:
	case TPM2_CC_NV_Increment:
	case TPM2_CC_NV_Extend:
	case TPM2_CC_NV_SetBits:
		if (!(T.nv.attrs & TPMA_NV_WRITTEN)) {
			struct tberr e;

			T.nv.attrs |= TPMA_NV_WRITTEN;
			nv_compute_name(&T.nv, &e);
		}
		break;
	case TPM2_CC_PolicyGetDigest:
		tb_put_tpm2b(o, fill, 32);
		break;
	case TPM2_CC_PolicyAuthValue:
	case TPM2_CC_PolicyPassword:
	case TPM2_CC_PolicyRestart: {
		struct fsess *s = sess_find(h[0]);

		if (!s) {
			*rc = RC_HANDLE1;
			break;
		}
		s->pauth = cc == TPM2_CC_PolicyAuthValue;
		s->ppw = cc == TPM2_CC_PolicyPassword;
		break;
	}
	case TPM2_CC_FlushContext: {
		struct fsess *s = sess_find(tb_get_u32(&b));

		if (s)
			s->used = 0;
		break;
	}
	case TPM2_CC_GetCapability: {
		uint32_t cap = tb_get_u32(&b), prop = tb_get_u32(&b);
		uint32_t cnt = tb_get_u32(&b), i;

		tb_put_u8(o, 0);
		tb_put_u32(o, cap);
		if (cap != TPM2_CAP_TPM_PROPERTIES) {
			tb_put_u32(o, 0);
			break;
		}
		cnt = cnt > 4 ? 4 : cnt;
		tb_put_u32(o, cnt);
		for (i = 0; i < cnt; i++) {
			tb_put_u32(o, prop + i);
			tb_put_u32(o, 600);
		}
		break;
	}
	case TPM2_CC_HierarchyChangeAuth:
	case TPM2_CC_DictionaryAttackParameters:
	case TPM2_CC_Clear:
	case TPM2_CC_EvictControl:
	case TPM2_CC_NV_DefineSpace:
	case TPM2_CC_NV_UndefineSpace:
	case TPM2_CC_PolicyPCR:
	case TPM2_CC_PolicyCommandCode:
		break;
	default:
		*rc = RC_COMMAND_CODE;
	}
	return rh;
}

struct cauth {			/* one command authorization */
	uint32_t handle;
	const uint8_t *nonce;
	size_t nn;
	uint8_t attrs;
	size_t hmaclen;
	struct fsess *s;
};

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The authValue in session i's response key (*av, *al); 0 when the
 * response carries no HMAC (a policy password, or no key at all).  The
 * key is sessionKey || the authorized entity's authValue, left out for
 * the entity a session is bound to and for a policy session without
 * PolicyAuthValue; HierarchyChangeAuth answers with the new value, Clear
 * with the lockout value it just emptied. */
static int rsp_key(const struct cauth *ca, int i, int ncauth, uint32_t cc,
		   const uint32_t *h, const uint8_t *params, size_t plen,
		   const uint8_t **av, size_t *al)
{
	const struct fsess *s = ca[i].s;

	*av = T.auth;
	*al = 0;
	if (i < ncauth && (s->type == TPM2_SE_HMAC ? s->bind != h[i] :
			   s->pauth)) {
		*al = entity_auth(h[i], av);
		if (cc == TPM2_CC_HierarchyChangeAuth && plen >= 2) {
			size_t sz = (size_t)params[0] << 8 | params[1];

			if (sz <= 64 && sz <= plen - 2) {
				*av = params + 2;
				*al = sz;
			}
		}
		if (cc == TPM2_CC_Clear && h[0] == TPM2_RH_LOCKOUT)
			*al = 0;
		*al = trim(*av, *al);
	}
	return s->type == TPM2_SE_HMAC || (!s->ppw && s->keylen + *al);
}

static int respond(const uint8_t *cmd, size_t clen, uint8_t *rsp, size_t cap,
		   size_t *rlen)
{
	static uint8_t params[TPM_BUF_SIZE], gp[TPM_BUF_SIZE];
	struct cauth ca[3];
	uint8_t ctl, kind, damage, nonces[3][66], hdr[8];
	size_t nnew[3], plen, gplen, i;
	uint32_t cc, h[3] = {0}, rc = 0, rh;
	const uint8_t *ap;
	int nh, na = 0, ncauth, enc = -1, dec = -1;
	struct tb c, a, o;

	T.counter++;
	tb_init_read(&c, cmd, clen);
	tb_get_u16(&c);			/* tag: lib/ sets it */
	tb_get_u32(&c);
	cc = tb_get_u32(&c);
	nh = cmd_handles(cc);
	for (i = 0; i < (size_t)nh; i++)
		h[i] = tb_get_u32(&c);
	if (cmd[0] == 0x80 && cmd[1] == 0x02) {
		size_t asz = tb_get_u32(&c);

		tb_init_read(&a, tb_get_ref(&c, asz), asz);
		while (!tb_err(&c) && tb_left(&a) && na < 3) {
			ca[na].handle = tb_get_u32(&a);
			ca[na].nn = tb_get_tpm2b_ref(&a, &ca[na].nonce);
			ca[na].attrs = tb_get_u8(&a);
			ca[na].hmaclen = tb_get_tpm2b_ref(&a, &ap);
			ca[na].s = sess_find(ca[na].handle);
			if (ca[na].s && enc < 0 &&
			    (ca[na].attrs & TPMA_SESSION_ENCRYPT))
				enc = na;
			if (ca[na].s && dec < 0 &&
			    (ca[na].attrs & TPMA_SESSION_DECRYPT))
				dec = na;
			na++;
		}
	}
	plen = tb_left(&c);
	if (tb_err(&c) || plen > sizeof(params))
		abort();	/* lib/ sent a malformed command */
	memcpy(params, tb_get_ref(&c, plen), plen);
	ncauth = na ? 1 : 0;	/* every command here has one auth handle */

	/* The TPM decrypts the first command parameter (it needs a new
	 * authValue from HierarchyChangeAuth). */
	if (dec >= 0) {
		const uint8_t *av = T.auth;
		size_t al = 0;
		struct fsess *s = ca[dec].s;

		if (dec < ncauth && (s->type == TPM2_SE_HMAC || s->pauth))
			al = entity_auth(h[dec], &av);
		cfb(s, av, al, params, plen, ca[dec].nonce, ca[dec].nn,
		    s->ntpm, s->nn, 1);
	}

	ctl = get8();
	kind = ctl & 7;
	damage = (ctl >> 3) & 7;
	if (getenv("FUZZ_SESSION_VERBOSE"))
		fprintf(stderr, "  %s: kind %d damage %d sessions %d\n",
			tpm2_cc_name(cc), kind, damage, na);
	if (kind == 3) {
		const uint8_t *av;
		size_t al;

		/* Any bytes; the size field counts them, as the transport
		 * only hands over what the header says. */
		*rlen = getn(rsp, get16() % cap);
		if (*rlen >= 6)
			put_be32(rsp + 2, (uint32_t)*rlen);
		for (i = 0; i < (size_t)na; i++)
			if (ca[i].s && rsp_key(ca, (int)i, ncauth, cc, h,
					       params, plen, &av, &al))
				T.damaged = 1;
		return 0;
	}
	tb_init(&o, gp, sizeof(gp));
	if (kind == 2) {
		rc = get16();
		rc = rc ? rc : RC_FAILURE;
		rh = 0;
	} else {
		rh = model(cc, h, params, plen, &o, &rc);
	}
	if (tb_err(&o))
		abort();
	gplen = o.len;
	if (rc) {
		tb_init(&o, rsp, cap);
		tb_put_u16(&o, TPM2_ST_NO_SESSIONS);
		tb_put_u32(&o, 10);
		tb_put_u32(&o, rc);
		*rlen = o.len;
		return 0;
	}
	if (kind == 1)
		gplen = getn(gp, get16() % sizeof(gp));
	if (kind == 4) {
		size_t at = get16();
		uint8_t x = get8();

		if (at < gplen)
			gp[at] ^= x;
	}
	if (kind == 5) {
		size_t n = get16() % sizeof(gp);

		gplen = n <= gplen ? n : gplen + getn(gp + gplen, n - gplen);
	}
	if (ctl & 0x80)
		rh = get32();

	memcpy(T.plain, gp, gplen);
	T.plainlen = gplen;
	T.clear = enc >= 0 && damage == 6;
	/* New nonces, then the encrypted first parameter, then HMACs. */
	for (i = 0; i < (size_t)na; i++) {
		nnew[i] = (ctl & 0x40) ? get8() % 66 : 32;
		memset(nonces[i], (int)(T.counter * 7 + i), nnew[i]);
	}
	if (enc >= 0 && damage != 6) {
		struct fsess *s = ca[enc].s;
		const uint8_t *av = T.auth;
		size_t al = 0;

		if (enc < ncauth && (s->type == TPM2_SE_HMAC || s->pauth))
			al = entity_auth(h[enc], &av);
		cfb(s, av, al, gp, gplen, nonces[enc], nnew[enc],
		    ca[enc].nonce, ca[enc].nn, 0);
	}
	tb_init(&o, rsp, cap);
	tb_put_u16(&o, na ? TPM2_ST_SESSIONS : TPM2_ST_NO_SESSIONS);
	tb_put_u32(&o, 0);
	tb_put_u32(&o, 0);
	if (cc == TPM2_CC_StartAuthSession || cc == TPM2_CC_CreatePrimary ||
	    cc == TPM2_CC_Load)
		tb_put_u32(&o, rh);
	if (na)
		tb_put_u32(&o, (uint32_t)gplen);
	tb_put_bytes(&o, gp, gplen);
	for (i = 0; i < (size_t)na; i++) {
		struct fsess *s = ca[i].s;
		uint8_t rp[32], key[32 + 64], mac[32], attrs = ca[i].attrs;
		const uint8_t *av = T.auth;
		size_t al = 0, kn, ml = 32;
		struct hmac_ctx *hm;

		if (!s) {		/* a password */
			tb_put_u16(&o, 0);
			tb_put_u8(&o, TPMA_SESSION_CONTINUESESSION);
			tb_put_u16(&o, 0);
			continue;
		}
		tb_put_tpm2b(&o, nonces[i], nnew[i]);
		if (!rsp_key(ca, (int)i, ncauth, cc, h, params, plen, &av,
			     &al)) {
			/* No HMAC: a policy password, or no key at all
			 * (damage: one anyway). */
			tb_put_u8(&o, attrs);
			if (damage >= 1 && damage <= 5) {
				T.damaged = 1;
				memset(mac, 0x5a, sizeof(mac));
				tb_put_tpm2b(&o, mac, sizeof(mac));
			} else {
				tb_put_u16(&o, 0);
			}
			memcpy(s->ntpm, nonces[i], nnew[i] > 64 ? 64 : nnew[i]);
			s->nn = nnew[i] > 64 ? 64 : nnew[i];
			continue;
		}
		if (damage == 5 && al) {
			al = 0;
		} else if (damage == 5) {
			av = (const uint8_t *)"x";
			al = 1;
		}
		memcpy(key, s->key, s->keylen);
		if (al)
			memcpy(key + s->keylen, av, al);
		kn = s->keylen + al;
		put_be32(hdr, 0);
		put_be32(hdr + 4, cc);
		{
			struct hash_ctx *hc = hash_new(TPM2_ALG_SHA256);

			hash_update(hc, hdr, 8);
			hash_update(hc, gp, gplen);
			hash_final(hc, rp);
		}
		hm = hmac_new(TPM2_ALG_SHA256, key, kn);
		if (!hm)
			abort();
		hmac_update(hm, rp, 32);
		hmac_update(hm, nonces[i], nnew[i]);
		if (damage == 2 && ca[i].nn)
			hmac_update(hm, ca[i].nonce, ca[i].nn - 1);
		else
			hmac_update(hm, ca[i].nonce, ca[i].nn);
		hmac_update(hm, &attrs, 1);
		hmac_final(hm, mac);
		if (damage >= 1 && damage <= 5)
			T.damaged = 1;
		if (damage == 1)
			mac[T.counter % 32] ^= 1;
		if (damage == 3)
			attrs ^= TPMA_SESSION_CONTINUESESSION;
		if (damage == 4)
			ml = 16;
		tb_put_u8(&o, attrs);
		tb_put_tpm2b(&o, mac, ml);
		memcpy(s->ntpm, nonces[i], nnew[i] > 64 ? 64 : nnew[i]);
		s->nn = nnew[i] > 64 ? 64 : nnew[i];
	}
	if (tb_err(&o))
		return -1;
	put_be32(rsp + 2, (uint32_t)o.len);
	*rlen = o.len;
	if (cc == TPM2_CC_StartAuthSession)
		start_session(h, params, plen, rh, gp, gplen);
	if (cc == TPM2_CC_CreatePrimary) {
		T.primary = rh;
		T.has_primary = 1;
	}
	return 0;
}

/* ---- flows: the lib/ call sequences of the applets ---- */

/* What must hold when lib/ accepted an answer: no response whose HMAC
 * cannot verify (nor raw bytes) went into it. */
#define OK(call) (T.damaged = 0, (call) == 0 ? \
	(T.damaged ? (abort(), 0) : 1) : 0)

/* A first response parameter lib/ decrypted: the TPM2B the TPM meant,
 * unless the TPM sent it in clear (then lib/ cannot tell). */
static void same_plain(const uint8_t *p, size_t n)
{
	if (T.clear)
		return;
	if (T.plainlen < 2 || (size_t)(T.plain[0] << 8 | T.plain[1]) != n ||
	    memcmp(T.plain + 2, p, n))
		abort();
}

static void set_auth(const char *v)
{
	T.authlen = trim((const uint8_t *)v, strlen(v));
	memcpy(T.auth, v, T.authlen);
}

static void flow_unseal(struct tpm *t, int arg)
{
	struct tpm2_public *sp = calloc(2, sizeof(*sp)), *pub = sp + 1;
	struct tpm2_private priv;
	struct tpm2_session *s = NULL;
	struct tpm2_auth pa, a;
	uint32_t h = 0, obj = 0;
	int transient = 0, other = 0, policy = arg & 1;
	uint8_t secret[128];
	size_t n;

	if (!sp)
		return;
	if (tpm2_srk_get(t, T.rsa, NULL, 0, &h, sp, &transient, &other) ||
	    other)
		goto out;
	pub->type = TPM2_ALG_KEYEDHASH;
	pub->name_alg = TPM2_ALG_SHA256;
	pub->attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		     (policy ? TPMA_OBJECT_ADMINWITHPOLICY :
		      TPMA_OBJECT_USERWITHAUTH);
	pub->policylen = policy ? 32 : 0;
	memset(pub->policy, 0x11, pub->policylen);
	pub->scheme = TPM2_ALG_NULL;
	if (tpm2_public_finish(pub))
		goto out;
	priv.n = 48;
	memset(priv.b, 0x22, priv.n);
	tpm2_auth_pw(&pa, NULL, 0);
	if (tpm2_load(t, h, sp->name, sp->namelen, &pa, &priv, pub, &obj))
		goto out;
	if (tpm2_session_start(t, policy ? TPM2_SE_POLICY : TPM2_SE_HMAC, h,
			       sp, TPM2_RH_NULL, NULL, 0, SESS_ENC_RSP, &s))
		goto out;
	if (policy && (arg & 2)) {
		struct pcr_sel sel;
		struct tberr e;
		uint8_t d[32];

		memset(d, 0x33, sizeof(d));
		if (pcr_sel_parse("sha256:0,7", &sel, &e) ||
		    tpm2_policy_pcr(t, tpm2_session_handle(s), d, 32, &sel))
			goto out;
	}
	if (policy && (arg & 4)) {
		if (tpm2_policy_authvalue(t, tpm2_session_handle(s)))
			goto out;
		tpm2_session_policy_auth(s, SESS_POLICY_AUTHVALUE);
		tpm2_session_enc_auth(s, 1);
	} else if (policy && (arg & 8)) {
		if (tpm2_policy_password(t, tpm2_session_handle(s)))
			goto out;
		tpm2_session_policy_auth(s, SESS_POLICY_PASSWORD);
	}
	tpm2_session_use(s, &a, T.auth, T.authlen);
	if (OK(tpm2_unseal(t, obj, pub->name, pub->namelen, &a, secret,
			   sizeof(secret), &n)))
		same_plain(secret, n);
out:
	tpm2_session_flush(t, s);
	tpm2_flush(t, obj);
	if (transient)
		tpm2_flush(t, h);
	free(sp);
}

static void flow_seal(struct tpm *t, int arg)
{
	struct tpm2_public *sp = calloc(3, sizeof(*sp)), *tmpl = sp + 1;
	struct tpm2_private priv;
	struct tpm2_session *s = NULL;
	struct tpm2_auth a;
	uint32_t h = 0;
	int transient = 0, other = 0;

	if (!sp)
		return;
	if (arg & 1) {
		/* seal's check of the PCR values: a trial session. */
		struct pcr_sel sel;
		struct tberr e;
		uint8_t d[64];
		size_t n;

		if (tpm2_session_start(t, TPM2_SE_TRIAL, TPM2_RH_NULL, NULL,
				       TPM2_RH_NULL, NULL, 0, 0, &s) == 0 &&
		    pcr_sel_parse("sha256:0,7", &sel, &e) == 0 &&
		    tpm2_policy_pcr(t, tpm2_session_handle(s), NULL, 0,
				    &sel) == 0)
			tpm2_policy_getdigest(t, tpm2_session_handle(s), d,
					      sizeof(d), &n);
		tpm2_session_flush(t, s);
		s = NULL;
	}
	if (tpm2_srk_get(t, T.rsa, NULL, 0, &h, sp, &transient, &other) ||
	    other)
		goto out;
	tmpl->type = TPM2_ALG_KEYEDHASH;
	tmpl->name_alg = TPM2_ALG_SHA256;
	tmpl->attrs = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		      TPMA_OBJECT_ADMINWITHPOLICY;
	tmpl->policylen = 32;
	memset(tmpl->policy, 0x44, 32);
	tmpl->scheme = TPM2_ALG_NULL;
	if (tpm2_public_finish(tmpl))
		goto out;
	if (tpm2_session_start(t, TPM2_SE_HMAC, h, sp, TPM2_RH_NULL, NULL, 0,
			       SESS_ENC_CMD | (arg & 2 ? SESS_ENC_RSP : 0),
			       &s))
		goto out;
	tpm2_session_use(s, &a, NULL, 0);
	OK(tpm2_create(t, h, sp->name, sp->namelen, &a, tmpl, T.auth,
		       T.authlen, (const uint8_t *)"secret", 6, &priv, sp + 2));
out:
	tpm2_session_flush(t, s);
	if (transient)
		tpm2_flush(t, h);
	free(sp);
}

/* nvread / nvwrite / nvincrement / nvsetbits / nvextend with --auth or
 * --owner-auth: a salted HMAC session. */
static void flow_nv(struct tpm *t, int flags, int arg)
{
	static uint8_t buf[2048];
	struct nv_public p;
	struct nv_access x;
	struct nv_auth na;
	int op = arg % 5, owner = flags & 8, ok = 0;

	set_auth("pw");
	if (tpm2_nv_readpublic(t, NV_INDEX, &p))
		return;
	x.p = &p;
	x.chunk = 16 << (arg >> 5 & 3);
	if (nv_auth_begin(t, &x, &na, op == 0 ? NV_OP_READ : op == 1 ?
			  NV_OP_WRITE : NV_OP_MODIFY,
			  owner ? NULL : "str:pw", owner ? "str:pw" : NULL))
		return;
	memset(buf, 0x66, sizeof(buf));
	switch (op) {
	case 0:
		if ((ok = OK(tpm2_nv_read(t, &x, buf, p.size, 0))) &&
		    p.size <= x.chunk)
			same_plain(buf, p.size);
		break;
	case 1:
		ok = OK(tpm2_nv_write(t, &x, buf, p.size, 0));
		break;
	case 2:
		ok = OK(tpm2_nv_increment(t, &x));
		break;
	case 3:
		ok = OK(tpm2_nv_setbits(t, &x, 5));
		break;
	case 4:
		ok = OK(tpm2_nv_extend(t, &x, buf, 16));
		break;
	}
	/* A failure goes through the hint path (the code is in t->e). */
	nv_auth_end(t, &na, !ok);
}

/* nvdefine / nvrelease with --owner-auth. */
static void flow_nvdefine(struct tpm *t, int arg)
{
	struct nv_auth na;
	int rc;

	set_auth(arg & 1 ? "pw" : "");
	if (nv_hier_auth_begin(t, &na, TPM2_RH_OWNER, arg & 1 ? "str:pw" :
			       NULL, 1))
		return;
	rc = !OK(tpm2_nv_define(t, TPM2_RH_OWNER, &na.a,
				(const uint8_t *)"pw", 2, &T.nv));
	nv_auth_end(t, &na, rc);
	/* nvrelease: a session of its own that does not encrypt. */
	if (rc || nv_hier_auth_begin(t, &na, TPM2_RH_OWNER, arg & 1 ?
				     "str:pw" : NULL, 0))
		return;
	rc = !OK(tpm2_nv_undefine(t, TPM2_RH_OWNER, &na.a, &T.nv));
	nv_auth_end(t, &na, rc);
}

/* takeown: new auth values over a session salted to the SRK, the TPM
 * answering with an HMAC keyed by the new value; then DA parameters,
 * EvictControl and Clear in the same session. */
static void flow_takeown(struct tpm *t, int arg)
{
	struct tpm2_public *sp = calloc(1, sizeof(*sp));
	struct tpm2_session *s = NULL;
	struct tpm2_auth a;
	uint32_t h = 0;
	int transient = 0, other = 0;
	static const uint8_t nw[] = "newpw\0\0";

	if (!sp)
		return;
	if (tpm2_srk_get(t, T.rsa, NULL, 0, &h, sp, &transient, &other) ||
	    tpm2_session_start(t, TPM2_SE_HMAC, h, sp, TPM2_RH_NULL, NULL, 0,
			       SESS_ENC_CMD, &s))
		goto out;
	tpm2_session_use(s, &a, T.auth, T.authlen);
	if (!OK(tpm2_hierarchy_change_auth(t, TPM2_RH_OWNER, &a, nw,
					   arg & 1 ? sizeof(nw) : 0)))
		goto out;
	set_auth(arg & 1 ? "newpw" : "");
	tpm2_session_set_flags(s, 0);
	tpm2_session_use(s, &a, T.auth, T.authlen);
	if (!OK(tpm2_da_parameters(t, &a, 32, 600, 3600)))
		goto out;
	if (transient) {
		tpm2_session_use(s, &a, T.auth, T.authlen);
		if (OK(tpm2_evict(t, &a, h, sp->name, sp->namelen,
				  TPM2_SRK_HANDLE)))
			transient = 0;
	}
	tpm2_session_use(s, &a, T.auth, T.authlen);
	OK(tpm2_clear(t, TPM2_RH_LOCKOUT, &a));
out:
	tpm2_session_flush(t, s);
	if (transient)
		tpm2_flush(t, h);
	free(sp);
}

/* clearall with a lockout password: an unsalted, unbound HMAC session
 * (an empty password gives a session with no key at all). */
static void flow_clear(struct tpm *t, int arg)
{
	struct tpm2_session *s = NULL;
	struct tpm2_auth a;

	if (arg & 1)
		set_auth("");
	if (tpm2_session_start(t, TPM2_SE_HMAC, TPM2_RH_NULL, NULL,
			       TPM2_RH_NULL, NULL, 0, 0, &s))
		return;
	tpm2_session_use(s, &a, T.auth, T.authlen);
	OK(tpm2_clear(t, arg & 2 ? TPM2_RH_PLATFORM : TPM2_RH_LOCKOUT, &a));
	tpm2_session_flush(t, s);
}

/* A bound session (bound to the index or to the owner) authorizing an NV
 * read and write, with more sessions that only encrypt: the extra nonces
 * in the first HMAC, decryption by a session that does not authorize. */
static void flow_multi(struct tpm *t, int flags, int arg)
{
	struct tpm2_session *s[3] = { NULL, NULL, NULL };
	struct tpm2_public *sp = calloc(1, sizeof(*sp));
	struct tpm2_auth a[3];
	struct tpm2_call c;
	struct nv_public p;
	uint32_t h = 0, bind;
	int transient = 0, other = 0, i, n = 2 + (arg & 1);
	uint8_t pb[64];
	struct tb b;

	if (!sp)
		return;
	if (tpm2_nv_readpublic(t, NV_INDEX, &p))
		goto out;
	bind = arg & 2 ? NV_INDEX : arg & 4 ? TPM2_RH_OWNER : TPM2_RH_NULL;
	if (tpm2_session_start(t, TPM2_SE_HMAC, TPM2_RH_NULL, NULL, bind,
			       T.auth, T.authlen, arg & 8 ? SESS_ENC_RSP : 0,
			       &s[0]))
		goto out;
	if (tpm2_srk_get(t, T.rsa, NULL, 0, &h, sp, &transient, &other) ||
	    other)
		goto out;
	for (i = 1; i < n; i++)
		if (tpm2_session_start(t, flags & 16 ? TPM2_SE_POLICY :
				       TPM2_SE_HMAC, h, sp, TPM2_RH_NULL,
				       NULL, 0, !(arg & 16) != !(arg & 32) ?
				       SESS_ENC_CMD : SESS_ENC_RSP, &s[i]))
			goto out;
	tpm2_session_use(s[0], &a[0], T.auth, T.authlen);
	for (i = 1; i < n; i++)
		tpm2_session_use(s[i], &a[i], NULL, 0);
	memset(&c, 0, sizeof(c));
	c.nh = 2;
	c.h[0] = c.h[1] = NV_INDEX;
	c.name[0].p = c.name[1].p = p.name;
	c.name[0].n = c.name[1].n = p.name_len;
	c.na = n;
	for (i = 0; i < n; i++)
		c.auth[i] = &a[i];
	tb_init(&b, pb, sizeof(pb));
	if (arg & 16) {
		c.cc = TPM2_CC_NV_Write;
		tb_put_tpm2b(&b, "0123456789abcdef", 16);
		tb_put_u16(&b, 0);
	} else {
		c.cc = TPM2_CC_NV_Read;
		tb_put_u16(&b, 16);
		tb_put_u16(&b, 0);
	}
	c.params = pb;
	c.plen = b.len;
	if (OK(tpm2_call(t, &c)) && c.cc == TPM2_CC_NV_Read) {
		uint8_t d[16];
		struct tb r;
		size_t k;

		tb_init_read(&r, c.rparams, c.rplen);
		k = tb_get_tpm2b(&r, d, sizeof(d));
		if (!tb_err(&r))
			same_plain(d, k);
	}
out:
	for (i = 0; i < 3; i++)
		tpm2_session_flush(t, s[i]);
	if (transient)
		tpm2_flush(t, h);
	free(sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tberr e;
	struct tpm *t;
	uint8_t flow, flags, arg;

	if (size < 3)
		return 0;
	keys_init();
	flow = data[0];
	flags = data[1];
	arg = data[2];
	memset(&T, 0, sizeof(T));
	T.in = data + 3;
	T.left = size - 3;
	T.rsa = flags & 1;
	/* flags bit 7: CreatePrimary makes an odd key (flow bits 3, 6-7). */
	T.pk = flags & 0x80 ? odd_key((flow >> 3 & 1) | (flow >> 5 & 6)) :
	       srk();
	T.no_srk = flags & 2;
	set_auth(flags & 4 ? "" : "pw");
	T.secretlen = flags & 32 ? 32 : 1 + arg % 128;
	T.nv.index = NV_INDEX;
	T.nv.name_alg = TPM2_ALG_SHA256;
	T.nv.attrs = TPMA_NV_AUTHREAD | TPMA_NV_AUTHWRITE |
		     TPMA_NV_OWNERREAD | TPMA_NV_OWNERWRITE |
		     (flags & 64 ? TPMA_NV_WRITTEN : 0) |
		     (uint32_t)(flow >> 4 & 3) << TPMA_NV_TPM_NT_SHIFT;
	if (nv_type(T.nv.attrs) == 3)
		T.nv.attrs += 1u << TPMA_NV_TPM_NT_SHIFT;   /* 3 -> extend */
	T.nv.size = nv_type(T.nv.attrs) == TPM2_NT_ORDINARY ?
		    1 + arg % 200 : nv_type(T.nv.attrs) == TPM2_NT_EXTEND ?
		    32 : 8;
	if (nv_compute_name(&T.nv, &e))
		return 0;
	memset(&e, 0, sizeof(e));
	stub_respond(respond);
	/* Timeout 0: no retry sleeps on TPM_RC_RETRY. */
	if (tpm_open(&t, "fuzz", 0, &e))
		return 0;
	switch (flow % 8) {
	case 0:
	case 1:
		flow_unseal(t, arg);
		break;
	case 2:
		flow_seal(t, arg);
		break;
	case 3:
		flow_nv(t, flags, arg);
		break;
	case 4:
		flow_nvdefine(t, arg);
		break;
	case 5:
		flow_takeown(t, arg);
		break;
	case 6:
		flow_clear(t, arg);
		break;
	case 7:
		flow_multi(t, flags, arg);
		break;
	}
	/* FUZZ_SESSION_VERBOSE=1 TARGET FILE... shows how each run ended. */
	if (getenv("FUZZ_SESSION_VERBOSE"))
		fprintf(stderr, "flow %d flags 0x%02x arg 0x%02x: %d %s\n",
			flow % 8, flags, arg, e.code, e.code ? e.msg : "ok");
	tpm_close(t);
	return 0;
}
