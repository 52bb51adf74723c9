/* CMS AuthEnvelopedData writer and reader (include/fmt/cms.h). */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/der.h"
#include "base/tpm2const.h"
#include "crypto/ecdh.h"
#include "crypto/hash.h"
#include "crypto/keywrap.h"
#include "crypto/pk.h"
#include "crypto/rsa.h"
#include "crypto/rsapriv.h"
#include "crypto/sym.h"
#include "fmt/cms.h"

#define CEK 32			/* AES-256 content-encryption key */
#define NONCE 12		/* GCM nonce (RFC 5084's recommendation) */
#define WRAPPED (CEK + 8)	/* the CEK under AES key wrap */
#define SKI 20			/* SHA-1 subject key identifier */

/* Object identifiers, contents octets. */
static const uint8_t oid_authenv[] = {	/* 1.2.840.113549.1.9.16.1.23 */
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x17 };
static const uint8_t oid_data[] = {	/* 1.2.840.113549.1.7.1 */
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01 };
static const uint8_t oid_gcm256[] = {	/* 2.16.840.1.101.3.4.1.46 */
	0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2e };
static const uint8_t oid_wrap256[] = {	/* 2.16.840.1.101.3.4.1.45 */
	0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2d };
static const uint8_t oid_oaep[] = {	/* 1.2.840.113549.1.1.7 */
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x07 };
static const uint8_t oid_mgf1[] = {	/* 1.2.840.113549.1.1.8 */
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08 };
static const uint8_t oid_ecpub[] = {	/* 1.2.840.10045.2.1 */
	0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };
static const uint8_t oid_sha1[] = { 0x2b, 0x0e, 0x03, 0x02, 0x1a };
/* 2.16.840.1.101.3.4.2.{1,2,3}: SHA-256, SHA-384, SHA-512 */
static const uint8_t oid_sha2[] = {
	0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02 };
/* 1.3.132.1.11.{1,2,3}: dhSinglePass-stdDH-sha{256,384,512}kdf-scheme */
static const uint8_t oid_stddh[] = { 0x2b, 0x81, 0x04, 0x01, 0x0b };

/* Whole AlgorithmIdentifiers as written (the OAEP one as OpenSSL 3.0
 * writes it: sha256 with absent parameters). */
static const uint8_t alg_oaep_sha256[] = {
	0x30, 0x38, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01,
	0x01, 0x07, 0x30, 0x2b, 0xa0, 0x0d, 0x30, 0x0b, 0x06, 0x09, 0x60,
	0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0xa1, 0x1a, 0x30,
	0x18, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01,
	0x08, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03,
	0x04, 0x02, 0x01 };
static const uint8_t alg_wrap256[] = {
	0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04,
	0x01, 0x2d };
static const uint8_t alg_stddh_sha256[] = {
	0x30, 0x15, 0x06, 0x06, 0x2b, 0x81, 0x04, 0x01, 0x0b, 0x01, 0x30,
	0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01,
	0x2d };
static const uint8_t alg_ecpub[] = {
	0x30, 0x09, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01 };

/* A hash named by a SHA-2 OID (or SHA-1), as a TPM algorithm ID; 0 for
 * another. */
static uint16_t hash_oid(const struct tb *o)
{
	if (der_oid_is(o, oid_sha1, sizeof(oid_sha1)))
		return TPM2_ALG_SHA1;
	if (o->len != sizeof(oid_sha2) + 1 ||
	    memcmp(o->p, oid_sha2, sizeof(oid_sha2)))
		return 0;
	switch (o->p[sizeof(oid_sha2)]) {
	case 1: return TPM2_ALG_SHA256;
	case 2: return TPM2_ALG_SHA384;
	case 3: return TPM2_ALG_SHA512;
	}
	return 0;
}

/* ANSI X9.63 KDF as RFC 5753 section 7.2 uses it: K = H(Z || 00000001 ||
 * SharedInfo) || H(Z || 00000002 || SharedInfo) ..., where SharedInfo is
 * the DER of ECC-CMS-SharedInfo { keyInfo id-aes256-wrap, entityUInfo
 * [0] ukm OPTIONAL, suppPubInfo [2] keydatalen in bits }. */
static int x963_kdf(uint16_t halg, const uint8_t *z, size_t zlen,
		    const uint8_t *ukm, size_t ukmlen, uint8_t kek[CEK])
{
	uint8_t info[512], d[64];
	size_t body, hs = hash_size(halg), done = 0;
	uint32_t ctr;
	struct tb b;

	if (!hs || ukmlen > 256)
		return -1;
	body = sizeof(alg_wrap256) + der_size(4) + 2 +
	       (ukm ? der_size(der_size(ukmlen)) : 0);
	tb_init(&b, info, sizeof(info));
	der_tl(&b, DER_SEQ, body);
	tb_put_bytes(&b, alg_wrap256, sizeof(alg_wrap256));
	if (ukm) {
		der_tl(&b, DER_CTX(0), der_size(ukmlen));
		der_tl(&b, DER_OCTETS, ukmlen);
		tb_put_bytes(&b, ukm, ukmlen);
	}
	der_tl(&b, DER_CTX(2), der_size(4));
	der_tl(&b, DER_OCTETS, 4);
	tb_put_u32(&b, CEK * 8);
	if (tb_err(&b))
		return -1;
	for (ctr = 1; done < CEK; ctr++) {
		struct hash_ctx *h = hash_new(halg);
		uint8_t c[4] = { (uint8_t)(ctr >> 24), (uint8_t)(ctr >> 16),
				 (uint8_t)(ctr >> 8), (uint8_t)ctr };
		size_t k = CEK - done < hs ? CEK - done : hs;

		if (!h)
			return -1;
		hash_update(h, z, zlen);
		hash_update(h, c, 4);
		hash_update(h, info, b.len);
		hash_final(h, d);
		memcpy(kek + done, d, k);
		done += k;
	}
	explicit_bzero(d, sizeof(d));
	return 0;
}

/* ---- writer ---- */

/* A RecipientInfo under construction (small: at most an RSA-16384
 * encrypted key and a certificate's issuer name). */
struct ri_buf {
	uint8_t *p;
	size_t n;
};

/* rid: issuerAndSerialNumber, or [0] subjectKeyIdentifier (ktri) /
 * rKeyId [0] { subjectKeyIdentifier } (kari). */
static size_t rid_size(const struct pubkey *k, int kari)
{
	if (k->is_cert)
		return der_size(k->issuerlen + k->seriallen);
	return kari ? der_size(der_size(SKI)) : der_size(SKI);
}

static void rid_put(struct tb *b, const struct pubkey *k, int kari,
		    const uint8_t ski[SKI])
{
	if (k->is_cert) {
		der_tl(b, DER_SEQ, k->issuerlen + k->seriallen);
		tb_put_bytes(b, k->issuer, k->issuerlen);
		tb_put_bytes(b, k->serial, k->seriallen);
	} else if (kari) {
		der_tl(b, DER_CTX(0), der_size(SKI));
		der_tl(b, DER_OCTETS, SKI);
		tb_put_bytes(b, ski, SKI);
	} else {
		der_tl(b, 0x80, SKI);	/* [0] IMPLICIT OCTET STRING */
		tb_put_bytes(b, ski, SKI);
	}
}

static int ri_alloc(struct ri_buf *o, size_t n, struct tb *b)
{
	if (!(o->p = malloc(n)))
		return -1;
	o->n = n;
	tb_init(b, o->p, n);
	return 0;
}

/* KeyTransRecipientInfo ::= SEQUENCE { version, rid, keyEncryptionAlgorithm,
 * encryptedKey } */
static int make_ktri(const struct pubkey *k, const uint8_t cek[CEK],
		     struct ri_buf *o, struct tberr *e)
{
	uint8_t ski[SKI], ek[2048];
	size_t eklen = 0, body;
	uint32_t ev = 0;
	struct tb b;

	if (pubkey_rsa_bits(k) < 2048 || k->nlen > sizeof(ek))
		return err_set(e, EX_USAGE, "an RSA escrow key must have "
			       "2048 to 16384 bits (this one has %zu)",
			       pubkey_rsa_bits(k));
	if (pubkey_rsa_exp(k, &ev))
		return err_set(e, EX_USAGE, "the RSA exponent is longer than "
			       "32 bits");
	if (rsa_oaep_encrypt(k->n, k->nlen, ev, TPM2_ALG_SHA256, NULL, 0,
			     cek, CEK, ek, &eklen))
		return err_set(e, EX_USAGE, "RSA-OAEP encryption to the "
			       "escrow key failed (not a valid RSA key)");
	if (!k->is_cert && hash_buf(TPM2_ALG_SHA1, k->bits, k->bitslen, ski))
		return err_set(e, EX_FAIL, "SHA-1 failed");
	body = der_int_size(0) + rid_size(k, 0) + sizeof(alg_oaep_sha256) +
	       der_size(eklen);
	if (ri_alloc(o, der_size(body), &b))
		return err_set(e, EX_FAIL, "out of memory");
	der_tl(&b, DER_SEQ, body);
	der_int(&b, k->is_cert ? 0 : 2);
	rid_put(&b, k, 0, ski);
	tb_put_bytes(&b, alg_oaep_sha256, sizeof(alg_oaep_sha256));
	der_tl(&b, DER_OCTETS, eklen);
	tb_put_bytes(&b, ek, eklen);
	return tb_err(&b) || b.len != o->n ?
	       err_set(e, EX_FAIL, "encoding the RSA recipient failed") : 0;
}

/* KeyAgreeRecipientInfo ::= [1] SEQUENCE { version 3, originator [0]
 * { originatorKey [1] { algorithm, publicKey } }, keyEncryptionAlgorithm,
 * recipientEncryptedKeys SEQUENCE { SEQUENCE { rid, encryptedKey } } } */
static int make_kari(const struct pubkey *k, const uint8_t cek[CEK],
		     struct ri_buf *o, struct tberr *e)
{
	uint8_t ski[SKI], eph[EC_POINT_MAX], z[EC_MAX_BYTES], kek[CEK];
	uint8_t wrapped[WRAPPED];
	size_t n = ec_bytes(k->curve), pt = 1 + 2 * n, okey, orig, rek,
	       reks, body;
	struct tb b;
	int bad;

	if (!n || ecdh_ephemeral(k->curve, k->point, k->pointlen, eph, z))
		return err_set(e, EX_USAGE, "ECDH with the escrow key failed "
			       "(not a valid P-256 or P-384 point)");
	bad = x963_kdf(TPM2_ALG_SHA256, z, n, NULL, 0, kek) ||
	      aes_kw_wrap(kek, CEK, cek, CEK, wrapped);
	explicit_bzero(z, sizeof(z));
	explicit_bzero(kek, sizeof(kek));
	if (bad)
		return err_set(e, EX_FAIL, "wrapping the key failed");
	if (!k->is_cert && hash_buf(TPM2_ALG_SHA1, k->bits, k->bitslen, ski))
		return err_set(e, EX_FAIL, "SHA-1 failed");
	okey = sizeof(alg_ecpub) + der_size(pt + 1);
	orig = der_size(okey);
	rek = der_size(rid_size(k, 1) + der_size(WRAPPED));
	reks = der_size(rek);
	body = der_int_size(3) + der_size(orig) + sizeof(alg_stddh_sha256) +
	       reks;
	if (ri_alloc(o, der_size(body), &b))
		return err_set(e, EX_FAIL, "out of memory");
	der_tl(&b, DER_CTX(1), body);
	der_int(&b, 3);
	der_tl(&b, DER_CTX(0), orig);
	der_tl(&b, DER_CTX(1), okey);
	tb_put_bytes(&b, alg_ecpub, sizeof(alg_ecpub));
	der_tl(&b, DER_BITS, pt + 1);
	tb_put_u8(&b, 0);
	tb_put_bytes(&b, eph, pt);
	tb_put_bytes(&b, alg_stddh_sha256, sizeof(alg_stddh_sha256));
	der_tl(&b, DER_SEQ, rek);
	der_tl(&b, DER_SEQ, rid_size(k, 1) + der_size(WRAPPED));
	rid_put(&b, k, 1, ski);
	der_tl(&b, DER_OCTETS, WRAPPED);
	tb_put_bytes(&b, wrapped, WRAPPED);
	return tb_err(&b) || b.len != o->n ?
	       err_set(e, EX_FAIL, "encoding the EC recipient failed") : 0;
}

/* KEKRecipientInfo ::= [2] SEQUENCE { version 4, kekid SEQUENCE {
 * keyIdentifier }, keyEncryptionAlgorithm, encryptedKey } */
static int make_kekri(const struct cms_rcpt *r, const uint8_t cek[CEK],
		      struct ri_buf *o, struct tberr *e)
{
	uint8_t wrapped[WRAPPED];
	size_t kekid = der_size(der_size(r->kekidlen)), body;
	struct tb b;

	if (r->kekidlen > CMS_KEKID_MAX ||
	    aes_kw_wrap(r->kek, CMS_KEK, cek, CEK, wrapped))
		return err_set(e, EX_FAIL, "wrapping the key failed");
	body = der_int_size(4) + kekid + sizeof(alg_wrap256) +
	       der_size(WRAPPED);
	if (ri_alloc(o, der_size(body), &b))
		return err_set(e, EX_FAIL, "out of memory");
	der_tl(&b, DER_CTX(2), body);
	der_int(&b, 4);
	der_tl(&b, DER_SEQ, der_size(r->kekidlen));
	der_tl(&b, DER_OCTETS, r->kekidlen);
	tb_put_bytes(&b, r->kekid, r->kekidlen);
	tb_put_bytes(&b, alg_wrap256, sizeof(alg_wrap256));
	der_tl(&b, DER_OCTETS, WRAPPED);
	tb_put_bytes(&b, wrapped, WRAPPED);
	return tb_err(&b) || b.len != o->n ?
	       err_set(e, EX_FAIL, "encoding the KEK recipient failed") : 0;
}

/* DER orders a SET OF by its elements' encodings. */
static int ri_less(const struct ri_buf *x, const struct ri_buf *y)
{
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->p, y->p, n);

	return c ? c < 0 : x->n < y->n;
}

/* Insertion sort: at most CMS_RCPT_MAX elements (and no qsort in the
 * small build). */
static void ri_sort(struct ri_buf *ri, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct ri_buf t = ri[i];

		for (j = i; j > 0 && ri_less(&t, &ri[j - 1]); j--)
			ri[j] = ri[j - 1];
		ri[j] = t;
	}
}

int cms_encrypt(const struct cms_rcpt *r, size_t n, const uint8_t *data,
		size_t len, uint8_t **der, size_t *derlen, struct tberr *e)
{
	struct ri_buf ri[CMS_RCPT_MAX];
	uint8_t cek[CEK], nonce[NONCE], tag[GCM_TAG];
	size_t i, set = 0, params, alg, eci, aed, ctx0, all;
	struct tb b;
	int rc = 0;

	*der = NULL;
	if (!n || n > CMS_RCPT_MAX)
		return err_set(e, EX_USAGE, "1 to %d CMS recipients",
			       CMS_RCPT_MAX);
	memset(ri, 0, sizeof(ri));
	if (rng_bytes(cek, sizeof(cek)) || rng_bytes(nonce, sizeof(nonce)))
		return err_set(e, EX_FAIL, "no random bytes for the key");
	for (i = 0; i < n && !rc; i++) {
		if (!r[i].key)
			rc = make_kekri(&r[i], cek, &ri[i], e);
		else if (r[i].key->type == KEY_RSA)
			rc = make_ktri(r[i].key, cek, &ri[i], e);
		else
			rc = make_kari(r[i].key, cek, &ri[i], e);
		set += ri[i].n;
	}
	if (rc)
		goto out;
	ri_sort(ri, n);
	params = der_size(NONCE) + der_int_size(GCM_TAG);
	alg = der_size(sizeof(oid_gcm256)) + der_size(params);
	eci = der_size(sizeof(oid_data)) + der_size(alg) + der_size(len);
	aed = der_int_size(0) + der_size(set) + der_size(eci) +
	      der_size(GCM_TAG);
	ctx0 = der_size(aed);
	all = der_size(der_size(sizeof(oid_authenv)) + der_size(ctx0));
	if (len > 0xffffffffu - 4096 || !(*der = malloc(all))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	tb_init(&b, *der, all);
	der_tl(&b, DER_SEQ, der_size(sizeof(oid_authenv)) + der_size(ctx0));
	der_tl(&b, DER_OID, sizeof(oid_authenv));
	tb_put_bytes(&b, oid_authenv, sizeof(oid_authenv));
	der_tl(&b, DER_CTX(0), ctx0);
	der_tl(&b, DER_SEQ, aed);
	der_int(&b, 0);
	der_tl(&b, 0x31, set);		/* SET OF RecipientInfo */
	for (i = 0; i < n; i++)
		tb_put_bytes(&b, ri[i].p, ri[i].n);
	der_tl(&b, DER_SEQ, eci);
	der_tl(&b, DER_OID, sizeof(oid_data));
	tb_put_bytes(&b, oid_data, sizeof(oid_data));
	der_tl(&b, DER_SEQ, alg);
	der_tl(&b, DER_OID, sizeof(oid_gcm256));
	tb_put_bytes(&b, oid_gcm256, sizeof(oid_gcm256));
	der_tl(&b, DER_SEQ, params);
	der_tl(&b, DER_OCTETS, NONCE);
	tb_put_bytes(&b, nonce, NONCE);
	der_int(&b, GCM_TAG);
	der_tl(&b, 0x80, len);		/* [0] IMPLICIT OCTET STRING */
	if (!tb_err(&b) && len > b.cap - b.len)
		tb_fail(&b);
	if (tb_err(&b) || aes_gcm_encrypt(cek, nonce, NONCE, NULL, 0, data,
					  len, b.p + b.len, tag)) {
		rc = err_set(e, EX_FAIL, "encrypting the CMS content failed");
		goto out;
	}
	b.len += len;
	der_tl(&b, DER_OCTETS, GCM_TAG);
	tb_put_bytes(&b, tag, GCM_TAG);
	if (tb_err(&b) || b.len != all) {
		rc = err_set(e, EX_FAIL, "encoding the CMS message failed");
		goto out;
	}
	*derlen = all;
out:
	explicit_bzero(cek, sizeof(cek));
	for (i = 0; i < n; i++)
		free(ri[i].p);
	if (rc) {
		free(*der);
		*der = NULL;
	}
	return rc;
}

/* ---- reader ---- */

static int bad(struct tberr *e, const char *why)
{
	return err_set(e, EX_FAIL, "CMS: %s", why);
}

/* Any one TLV, whatever its tag (its contents to sub). */
static int der_any(struct tb *b, int *tag, struct tb *sub)
{
	int t = der_peek(b);

	if (t < 0 || (t & 0x1f) == 0x1f)	/* no multi-byte tags */
		return -1;
	*tag = t;
	return der_get(b, (uint8_t)t, sub);
}

int cms_parse(const uint8_t *der, size_t len, struct cms_msg *m,
	      struct tberr *e)
{
	struct tb b, ci, oid, c0, aed, set, eci, alg, params, nonce, ct, mac,
		  skip;
	uint32_t v, icv = 12;
	int tag;

	memset(m, 0, sizeof(*m));
	tb_init_read(&b, der, len);
	if (der_get(&b, DER_SEQ, &ci) || tb_left(&b))
		return bad(e, "not one DER ContentInfo");
	if (der_get(&ci, DER_OID, &oid) ||
	    !der_oid_is(&oid, oid_authenv, sizeof(oid_authenv)))
		return bad(e, "not AuthEnvelopedData");
	if (der_get(&ci, DER_CTX(0), &c0) || tb_left(&ci) ||
	    der_get(&c0, DER_SEQ, &aed) || tb_left(&c0) ||
	    der_get_uint(&aed, &v) || v != 0)
		return bad(e, "damaged AuthEnvelopedData (version 0)");
	if (der_peek(&aed) == DER_CTX(0) && der_get(&aed, DER_CTX(0), &skip))
		return bad(e, "damaged originatorInfo");
	if (der_get(&aed, 0x31, &set) || !tb_left(&set))
		return bad(e, "no recipientInfos");
	while (tb_left(&set)) {
		struct cms_ri *ri = &m->ri[m->nri];
		struct tb r;

		if (m->nri == CMS_RCPT_MAX)
			return bad(e, "more than 32 recipients");
		if (der_any(&set, &tag, &r))
			return bad(e, "damaged RecipientInfo");
		ri->type = tag == DER_SEQ ? CMS_KTRI : tag == DER_CTX(1) ?
			   CMS_KARI : tag == DER_CTX(2) ? CMS_KEKRI :
			   CMS_OTHER;
		ri->p = r.p;
		ri->n = r.len;
		m->nri++;
	}
	if (der_get(&aed, DER_SEQ, &eci) ||
	    der_get(&eci, DER_OID, &oid) ||
	    !der_oid_is(&oid, oid_data, sizeof(oid_data)) ||
	    der_get(&eci, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid))
		return bad(e, "damaged authEncryptedContentInfo");
	if (!der_oid_is(&oid, oid_gcm256, sizeof(oid_gcm256)))
		return bad(e, "the content is not encrypted with AES-256-GCM");
	if (der_get(&alg, DER_SEQ, &params) || tb_left(&alg) ||
	    der_get(&params, DER_OCTETS, &nonce) || nonce.len != NONCE ||
	    (tb_left(&params) && der_get_uint(&params, &icv)) ||
	    tb_left(&params) || icv < 12 || icv > 16)
		return bad(e, "damaged GCM parameters");
	if (der_get(&eci, 0x80, &ct) || tb_left(&eci))
		return bad(e, "no encrypted content (detached or "
			   "constructed content is not read)");
	if (der_peek(&aed) == DER_CTX(1))
		return bad(e, "authenticated attributes are not supported");
	if (der_get(&aed, DER_OCTETS, &mac) || mac.len != icv)
		return bad(e, "damaged mac");
	if (der_peek(&aed) == 0xa2 && der_get(&aed, 0xa2, &skip))
		return bad(e, "damaged unauthAttrs");
	if (tb_left(&aed))
		return bad(e, "bytes after the mac");
	m->nonce = nonce.p;
	m->noncelen = nonce.len;
	m->ct = ct.p;
	m->ctlen = ct.len;
	m->tag = mac.p;
	m->taglen = mac.len;
	return 0;
}

size_t cms_count(const struct cms_msg *m, int type)
{
	size_t i, k = 0;

	for (i = 0; i < m->nri; i++)
		k += m->ri[i].type == type;
	return k;
}

/* Whether rid form (cert or not) of k appears in r. */
static int names(const struct cms_ri *r, const struct pubkey *k, int kari)
{
	uint8_t ski[SKI], *rid;
	size_t n = rid_size(k, kari);
	struct tb b;
	int found = 0;

	if ((!k->is_cert && hash_buf(TPM2_ALG_SHA1, k->bits, k->bitslen,
				     ski)) || !(rid = malloc(n)))
		return 0;
	tb_init(&b, rid, n);
	rid_put(&b, k, kari, ski);
	found = !tb_err(&b) && memmem(r->p, r->n, rid, b.len) != NULL;
	free(rid);
	return found;
}

int cms_names_key(const struct cms_msg *m, size_t i, const struct pubkey *k)
{
	const struct cms_ri *r = &m->ri[i];
	struct pubkey bare = *k;
	int kari = r->type == CMS_KARI;

	if (r->type != (k->type == KEY_RSA ? CMS_KTRI : CMS_KARI))
		return 0;
	/* a certificate's key may have been given bare before, or the
	 * other way round: either name will do */
	bare.is_cert = 0;
	return names(r, k, kari) || (k->bits && names(r, &bare, kari));
}

/* The i-th recipient of this type. */
static const struct cms_ri *nth(const struct cms_msg *m, int type, size_t i)
{
	size_t j;

	for (j = 0; j < m->nri; j++)
		if (m->ri[j].type == type && i-- == 0)
			return &m->ri[j];
	return NULL;
}

/* The content with the unwrapped content-encryption key. */
static int open_content(const struct cms_msg *m, const uint8_t cek[CEK],
			uint8_t **out, size_t *outlen, struct tberr *e)
{
	uint8_t tag[GCM_TAG];
	int rc;

	if (m->taglen != GCM_TAG)
		return bad(e, "only 16-byte GCM tags are read");
	memcpy(tag, m->tag, GCM_TAG);
	if (!(*out = malloc(m->ctlen ? m->ctlen : 1)))
		return err_set(e, EX_FAIL, "out of memory");
	rc = aes_gcm_decrypt(cek, m->nonce, m->noncelen, NULL, 0, m->ct,
			     m->ctlen, *out, tag);
	if (rc) {
		free(*out);
		*out = NULL;
		return err_set(e, EX_FAIL, "the CMS message is damaged or "
			       "was altered: its AES-GCM tag does not verify "
			       "(nothing written)");
	}
	*outlen = m->ctlen;
	return 0;
}

/* The OAEP hash of an RSAES-OAEP AlgorithmIdentifier's parameters (SHA-1
 * when absent, MGF1 with the same hash, no label); 0 when unsupported. */
static uint16_t oaep_hash(struct tb *params)
{
	struct tb seq, c, alg, oid, mgf, halg, hoid;
	uint16_t h = TPM2_ALG_SHA1, mh = TPM2_ALG_SHA1;

	if (!tb_left(params))
		return h;
	if (der_get(params, DER_SEQ, &seq) || tb_left(params))
		return 0;
	if (der_peek(&seq) == DER_CTX(0)) {
		if (der_get(&seq, DER_CTX(0), &c) ||
		    der_get(&c, DER_SEQ, &alg) ||
		    der_get(&alg, DER_OID, &oid) || !(h = hash_oid(&oid)))
			return 0;
	}
	if (der_peek(&seq) == DER_CTX(1)) {
		if (der_get(&seq, DER_CTX(1), &c) ||
		    der_get(&c, DER_SEQ, &mgf) ||
		    der_get(&mgf, DER_OID, &oid) ||
		    !der_oid_is(&oid, oid_mgf1, sizeof(oid_mgf1)) ||
		    der_get(&mgf, DER_SEQ, &halg) ||
		    der_get(&halg, DER_OID, &hoid) || !(mh = hash_oid(&hoid)))
			return 0;
	} else {
		mh = TPM2_ALG_SHA1;
	}
	return tb_left(&seq) || h != mh ? 0 : h;	/* [2] label: no */
}

/* A KeyTransRecipientInfo's RSAES-OAEP hash and encryptedKey; 0 when it
 * is not one (or uses what is not read: PKCS#1 v1.5, a label). */
static uint16_t ktri_fields(const struct cms_ri *ri, struct tb *ek)
{
	struct tb b, rid, alg, oid;
	uint32_t v;
	uint16_t h;
	int tag;

	tb_init_read(&b, ri->p, ri->n);
	if (der_get_uint(&b, &v) || (v != 0 && v != 2) ||
	    der_any(&b, &tag, &rid) || der_get(&b, DER_SEQ, &alg) ||
	    der_get(&alg, DER_OID, &oid) ||
	    !der_oid_is(&oid, oid_oaep, sizeof(oid_oaep)) ||
	    !(h = oaep_hash(&alg)) || der_get(&b, DER_OCTETS, ek) ||
	    tb_left(&b))
		return 0;
	return h;
}

/* One KeyTransRecipientInfo opened by dec: 1 opened (cek set), 0 not,
 * -1 when dec failed otherwise (its error set). */
static int try_ktri(const struct cms_ri *ri, cms_oaep_fn dec, void *ctx,
		    uint8_t cek[CEK])
{
	struct tb ek;
	uint8_t out[512];
	size_t olen = 0;
	uint16_t h = ktri_fields(ri, &ek);
	int r, ok;

	if (!h)
		return 0;
	r = dec(ctx, h, ek.p, ek.len, out, sizeof(out), &olen);
	ok = r == 0 && olen == CEK;
	if (ok)
		memcpy(cek, out, CEK);
	explicit_bzero(out, sizeof(out));
	return r < 0 ? -1 : ok;
}

/* cms_oaep_fn with a private key in memory. */
static int host_oaep(void *ctx, uint16_t hash, const uint8_t *ct,
		     size_t ctlen, uint8_t *out, size_t cap, size_t *outlen)
{
	const struct privkey *k = ctx;

	return rsa_oaep_decrypt(&k->rsa, hash, ct, ctlen, out, cap,
				outlen) ? 1 : 0;
}

/* One KeyAgreeRecipientInfo with an EC key: 1 opened, 0 not. */
static int try_kari(const struct cms_ri *ri, const struct privkey *k,
		    uint8_t cek[CEK])
{
	struct tb b, orig, okey, alg, oid, wrap, woid, pub, ukm, uk, reks,
		  rek, rid, ek;
	uint8_t z[EC_MAX_BYTES], kek[CEK];
	uint32_t v;
	uint16_t h;
	int tag, ok = 0, have_ukm = 0;

	tb_init_read(&b, ri->p, ri->n);
	if (der_get_uint(&b, &v) || v != 3 ||
	    der_get(&b, DER_CTX(0), &orig) ||
	    der_get(&orig, DER_CTX(1), &okey) || tb_left(&orig) ||
	    der_get(&okey, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid) ||
	    !der_oid_is(&oid, oid_ecpub, sizeof(oid_ecpub)) ||
	    der_get(&okey, DER_BITS, &pub) || tb_left(&okey) ||
	    tb_get_u8(&pub) != 0 || tb_err(&pub))
		return 0;	/* originator parameters (if any) not needed */
	if (der_peek(&b) == DER_CTX(1)) {
		if (der_get(&b, DER_CTX(1), &ukm) ||
		    der_get(&ukm, DER_OCTETS, &uk) || tb_left(&ukm))
			return 0;
		have_ukm = 1;
	}
	if (der_get(&b, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid) ||
	    oid.len != sizeof(oid_stddh) + 1 ||
	    memcmp(oid.p, oid_stddh, sizeof(oid_stddh)) ||
	    der_get(&alg, DER_SEQ, &wrap) || tb_left(&alg) ||
	    der_get(&wrap, DER_OID, &woid) ||
	    !der_oid_is(&woid, oid_wrap256, sizeof(oid_wrap256)) ||
	    der_get(&b, DER_SEQ, &reks) || tb_left(&b))
		return 0;
	switch (oid.p[sizeof(oid_stddh)]) {
	case 1: h = TPM2_ALG_SHA256; break;
	case 2: h = TPM2_ALG_SHA384; break;
	case 3: h = TPM2_ALG_SHA512; break;
	default: return 0;
	}
	if (ecdh_shared(k->curve, k->d, k->dlen, pub.p + pub.pos,
			tb_left(&pub), z))
		return 0;	/* another curve, or not a point on ours */
	if (!x963_kdf(h, z, ec_bytes(k->curve), have_ukm ? uk.p : NULL,
		      have_ukm ? uk.len : 0, kek))
		while (!ok && tb_left(&reks)) {
			if (der_get(&reks, DER_SEQ, &rek) ||
			    der_any(&rek, &tag, &rid) ||
			    der_get(&rek, DER_OCTETS, &ek) || tb_left(&rek))
				break;
			ok = ek.len == WRAPPED &&
			     !aes_kw_unwrap(kek, CEK, ek.p, ek.len, cek);
		}
	explicit_bzero(z, sizeof(z));
	explicit_bzero(kek, sizeof(kek));
	return ok;
}

int cms_open_key(const struct cms_msg *m, const struct privkey *k,
		 uint8_t **out, size_t *outlen, struct tberr *e)
{
	int type = k->type == KEY_RSA ? CMS_KTRI : CMS_KARI, ok = 0, rc;
	uint8_t cek[CEK];
	size_t i;

	*out = NULL;
	for (i = 0; i < m->nri && !ok; i++)
		if (m->ri[i].type == type)
			ok = type == CMS_KTRI ?
			     try_ktri(&m->ri[i], host_oaep, (void *)k, cek) :
			     try_kari(&m->ri[i], k, cek);
	if (ok != 1)
		return err_set(e, EX_AUTH, "this %s key is not one the CMS "
			       "escrow copy was made for (it has %zu %s "
			       "recipient(s))", k->type == KEY_RSA ? "RSA" :
			       "EC", cms_count(m, type), k->type == KEY_RSA ?
			       "RSA" : "EC");
	rc = open_content(m, cek, out, outlen, e);
	explicit_bzero(cek, sizeof(cek));
	return rc;
}

int cms_open_oaep(const struct cms_msg *m, const struct pubkey *k,
		  cms_oaep_fn dec, void *ctx, uint8_t **out, size_t *outlen,
		  struct tberr *e)
{
	uint8_t cek[CEK];
	size_t i, named = 0;
	int ok = 0, pass, rc;

	*out = NULL;
	for (i = 0; i < m->nri; i++)
		named += m->ri[i].type == CMS_KTRI && cms_names_key(m, i, k);
	/* Those naming the key; when none does (a certificate's
	 * issuerAndSerialNumber cannot be matched with a bare key), each. */
	for (pass = named ? 0 : 1, i = 0; i < m->nri && !ok; i++)
		if (m->ri[i].type == CMS_KTRI &&
		    (pass || cms_names_key(m, i, k)))
			ok = try_ktri(&m->ri[i], dec, ctx, cek);
	if (ok < 0)
		return -1;
	if (!ok)
		return err_set(e, EX_AUTH, "the key is not one the CMS message "
			       "was made for (it has %zu RSA recipient(s), "
			       "%zu naming this key)", cms_count(m, CMS_KTRI),
			       named);
	rc = open_content(m, cek, out, outlen, e);
	explicit_bzero(cek, sizeof(cek));
	return rc;
}

/* KEKRecipientInfo ::= SEQUENCE { version 4, kekid SEQUENCE {
 * keyIdentifier, ... }, keyEncryptionAlgorithm, encryptedKey } */
static int kekri_fields(const struct cms_ri *ri, struct tb *id,
			struct tb *ek)
{
	struct tb b, kekid, alg, oid;
	uint32_t v;

	tb_init_read(&b, ri->p, ri->n);
	if (der_get_uint(&b, &v) || v != 4 ||
	    der_get(&b, DER_SEQ, &kekid) || der_get(&kekid, DER_OCTETS, id) ||
	    der_get(&b, DER_SEQ, &alg) || der_get(&alg, DER_OID, &oid) ||
	    !der_oid_is(&oid, oid_wrap256, sizeof(oid_wrap256)) ||
	    tb_left(&alg) || der_get(&b, DER_OCTETS, ek) || tb_left(&b))
		return -1;
	return 0;
}

int cms_kekid(const struct cms_msg *m, size_t i, const uint8_t **id,
	      size_t *idlen)
{
	const struct cms_ri *ri = nth(m, CMS_KEKRI, i);
	struct tb t, ek;

	if (!ri || kekri_fields(ri, &t, &ek))
		return -1;
	*id = t.p;
	*idlen = t.len;
	return 0;
}

int cms_open_kek(const struct cms_msg *m, size_t i,
		 const uint8_t kek[CMS_KEK], uint8_t **out, size_t *outlen,
		 struct tberr *e)
{
	const struct cms_ri *ri = nth(m, CMS_KEKRI, i);
	uint8_t cek[CEK];
	struct tb id, ek;
	int rc;

	*out = NULL;
	if (!ri || kekri_fields(ri, &id, &ek))
		return bad(e, "damaged KEK recipient");
	if (ek.len != WRAPPED || aes_kw_unwrap(kek, CMS_KEK, ek.p, ek.len,
					       cek))
		return err_set(e, EX_AUTH, "the key does not unwrap the "
			       "escrow copy's content key");
	rc = open_content(m, cek, out, outlen, e);
	explicit_bzero(cek, sizeof(cek));
	return rc;
}
