/* The TPM tokens of a LUKS2 header (include/fmt/luks2tok.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hex.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "fmt/luks2tok.h"
#include "fmt/x509.h"
#include "tpm2/pcr.h"

/* A JOSE protected header: a few KiB for tpm2, an sss one holds its
 * nested JWEs (each a few KiB) as strings. */
static const struct json_limits jose_limits = {
	.depth = 8, .str = 256 * 1024, .members = 64, .nodes = 4096,
};

static int bad(struct tberr *e, const char *what, const char *member,
	       const char *why)
{
	return err_set(e, EX_FAIL, "%s: %s %s", what, member, why);
}

/* Decode a string member (standard base64 with padding, or base64url
 * without) into a malloc'd buffer. */
static int b64_member(const struct json *j, int url, const char *what,
		      const char *member, uint8_t **out, size_t *n,
		      struct tberr *e)
{
	size_t cap;
	long got;
	uint8_t *d;

	*out = NULL;
	*n = 0;
	if (!j || j->type != JSON_STR)
		return bad(e, what, member, "is not a string");
	cap = j->slen / 4 * 3 + 3;
	if (!(d = malloc(cap)))
		return err_set(e, EX_IO, "out of memory");
	got = url ? b64url_decode(j->s, j->slen, d, cap) :
	      b64_decode(j->s, j->slen, d, cap);
	if (got < 0) {
		free(d);
		return bad(e, what, member, url ? "is not valid base64url" :
			   "is not valid base64");
	}
	*out = d;
	*n = (size_t)got;
	return 0;
}

/* An array of PCR indices 0..23, each once. */
static int pcr_list(const struct json *j, const char *what,
		    const char *member, uint32_t *mask, struct tberr *e)
{
	const struct json *k;

	*mask = 0;
	if (j->type != JSON_ARR)
		return bad(e, what, member, "is not an array");
	for (k = j->kid; k; k = k->next) {
		if (k->type != JSON_NUM || !k->isint || k->i < 0 || k->i > 23)
			return bad(e, what, member, "holds something that is "
				   "not a PCR index 0 to 23");
		if (*mask & (1u << k->i))
			return bad(e, what, member, "names a PCR twice");
		*mask |= 1u << k->i;
	}
	return 0;
}

/* TPM2B_PRIVATE then TPM2B_PUBLIC, nothing after (both forms: systemd's
 * blob holds both, clevis keeps them apart: pub_only/priv_only). */
static int sealed_parse(const uint8_t *p, size_t n, int want,
			struct tpm2_sealed *s, const char *what,
			const char *member, struct tberr *e)
{
	struct tb b;

	tb_init_read(&b, p, n);
	if (want & 1) {
		s->priv.n = tb_get_tpm2b(&b, s->priv.b, sizeof(s->priv.b));
		if (tb_err(&b) || !s->priv.n)
			return bad(e, what, member, "holds a truncated or "
				   "empty TPM2B_PRIVATE");
	}
	if (want & 2) {
		if (tpm2_public_get2b(&b, &s->pub, e))
			return err_prefix(e, "%s: %s", what, member);
		if (s->pub.type != TPM2_ALG_KEYEDHASH)
			return bad(e, what, member, "is not a sealed data "
				   "object (its public area is no keyedhash)");
	}
	if (tb_left(&b))
		return bad(e, what, member, "has bytes after its TPM "
			   "structures");
	return 0;
}

static int blob(const struct json *j, const char *what, struct sdtpm2 *t,
		struct tberr *e)
{
	uint8_t *d;
	size_t n;
	int rc;

	if (t->nblob >= SDTPM2_BLOBS)
		return bad(e, what, "tpm2-blob", "has too many parts");
	if (b64_member(j, 0, what, "tpm2-blob", &d, &n, e))
		return e->code;
	rc = sealed_parse(d, n, 3, &t->blob[t->nblob], what, "tpm2-blob", e);
	free(d);
	if (!rc)
		t->nblob++;
	return rc;
}

static int policy_hash(const struct json *j, const char *what,
		       struct sdtpm2 *t, struct tberr *e)
{
	long n;

	if (t->npolicy >= SDTPM2_BLOBS)
		return bad(e, what, "tpm2-policy-hash", "has too many parts");
	if (j->type != JSON_STR)
		return bad(e, what, "tpm2-policy-hash", "is not a string");
	n = hex_decode(j->s, t->policy[t->npolicy], 64);
	if (j->slen > 128 || (n != 20 && n != 32 && n != 48 && n != 64))
		return bad(e, what, "tpm2-policy-hash", "is not the hex of a "
			   "digest");
	t->policylen[t->npolicy++] = (size_t)n;
	return 0;
}

/* A string or an array of 1..SDTPM2_BLOBS strings. */
static int one_or_array(const struct json *j, const char *what,
			const char *member, struct sdtpm2 *t,
			int (*each)(const struct json *, const char *,
				    struct sdtpm2 *, struct tberr *),
			struct tberr *e)
{
	const struct json *k;

	if (j->type != JSON_ARR)
		return each(j, what, t, e);
	if (!j->n)
		return bad(e, what, member, "is an empty array");
	for (k = j->kid; k; k = k->next)
		if (each(k, what, t, e))
			return e->code;
	return 0;
}

static int boolean(const struct json *j, const char *what,
		   const char *member, int *v, struct tberr *e)
{
	if (!j)
		return 0;
	if (j->type != JSON_BOOL)
		return bad(e, what, member, "is not true or false");
	*v = j->b;
	return 0;
}

/* The serialized ESYS_TR of a persistent key: handle, name, resource
 * type 1 (a key), its public area; the name must be the area's. */
static int srk(const struct json *j, const char *what, struct sdtpm2 *t,
	       struct tberr *e)
{
	uint8_t *d;
	size_t n;
	struct tb b;
	int rc = 0;

	if (b64_member(j, 0, what, "tpm2_srk", &d, &n, e))
		return e->code;
	tb_init_read(&b, d, n);
	t->srk_handle = tb_get_u32(&b);
	t->srk_namelen = tb_get_tpm2b(&b, t->srk_name, sizeof(t->srk_name));
	if (tb_get_u32(&b) != 1 || tb_err(&b))
		rc = bad(e, what, "tpm2_srk", "is not a serialized key handle");
	else if (tpm2_public_get2b(&b, &t->srk_pub, e))
		rc = err_prefix(e, "%s: tpm2_srk", what);
	else if (tb_left(&b))
		rc = bad(e, what, "tpm2_srk", "has bytes after the key");
	else if ((t->srk_handle >> 24) != 0x81)
		rc = bad(e, what, "tpm2_srk", "names no persistent handle");
	else if (t->srk_namelen != t->srk_pub.namelen ||
		 memcmp(t->srk_name, t->srk_pub.name, t->srk_namelen))
		rc = bad(e, what, "tpm2_srk", "has a name that is not its "
			 "public area's");
	free(d);
	t->has_srk = !rc;
	return rc;
}

/* The PEM text of the signer's key, its fingerprint as systemd's pkfp. */
static int pubkey(const struct json *j, const char *what, struct sdtpm2 *t,
		  struct tberr *e)
{
	struct pubkey k;
	uint8_t *d;
	size_t n;
	uint32_t ev;
	int rc;

	if (b64_member(j, 0, what, "tpm2_pubkey", &d, &n, e))
		return e->code;
	t->pubkey_pem = (char *)d;
	t->pubkey_len = n;
	if (!n)		/* 252-254 write "" when there is none */
		return 0;
	if (memchr(d, 0, n) || !(t->pubkey_pem = realloc(d, n + 1))) {
		t->pubkey_pem = (char *)d;
		return bad(e, what, "tpm2_pubkey", "is not a PEM public key");
	}
	t->pubkey_pem[n] = 0;
	if (x509_read_public(t->pubkey_pem, n, &k, e))
		return err_prefix(e, "%s: tpm2_pubkey", what);
	t->pubkey_rsa = k.type == KEY_RSA;
	if (k.type == KEY_RSA)
		rc = pubkey_rsa_exp(&k, &ev) ? -1 :
		     pk_fingerprint(1, k.n, k.nlen, NULL, 0, ev, t->pubkey_fp);
	else
		rc = k.pointlen < 3 || !(k.pointlen & 1) ? -1 :
		     pk_fingerprint(0, k.point + 1, k.pointlen / 2, k.point + 1 +
				    k.pointlen / 2, k.pointlen / 2, 0,
				    t->pubkey_fp);
	pubkey_free(&k);
	if (rc)
		return bad(e, what, "tpm2_pubkey", "is a key systemd cannot "
			   "sign with (RSA or P-256)");
	t->has_pubkey = 1;
	return 0;
}

/* TPM2B_NV_PUBLIC: nvIndex, nameAlg, attributes, authPolicy, dataSize. */
static int pcrlock_nv(const struct json *j, const char *what,
		      struct sdtpm2 *t, struct tberr *e)
{
	uint8_t *d, pol[64];
	size_t n;
	struct tb b, in;
	int rc = 0;

	if (b64_member(j, 0, what, "tpm2_pcrlock_nv", &d, &n, e))
		return e->code;
	tb_init_read(&b, d, n);
	t->nv_publen = tb_get_tpm2b(&b, t->nv_public, sizeof(t->nv_public));
	tb_init_read(&in, t->nv_public, t->nv_publen);
	t->nv_index = tb_get_u32(&in);
	(void)tb_get_u16(&in);
	(void)tb_get_u32(&in);
	(void)tb_get_tpm2b(&in, pol, sizeof(pol));
	(void)tb_get_u16(&in);
	if (tb_err(&b) || tb_left(&b) || tb_err(&in) || tb_left(&in) ||
	    (t->nv_index >> 24) != 0x01)
		rc = bad(e, what, "tpm2_pcrlock_nv", "is not an NV index's "
			 "public area");
	free(d);
	t->has_nv = !rc;
	return rc;
}

int sdtpm2_parse(const struct json *tok, const char *what, struct sdtpm2 *t,
		 struct tberr *e)
{
	const struct json *j;
	uint8_t *d;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->bank = TPM2_ALG_SHA256;
	t->primary_alg = TPM2_ALG_ECC;
	if (!(j = json_get(tok, "tpm2-blob")))
		return bad(e, what, "tpm2-blob", "is missing");
	if (one_or_array(j, what, "tpm2-blob", t, blob, e))
		return e->code;
	if ((j = json_get(tok, "tpm2-pcrs")) &&
	    pcr_list(j, what, "tpm2-pcrs", &t->pcrs, e))
		return e->code;
	if ((j = json_get(tok, "tpm2-pcr-bank"))) {
		if (j->type != JSON_STR ||
		    !hash_supported(t->bank = alg_from_name(j->s)) ||
		    strchr(j->s, 'x'))
			return bad(e, what, "tpm2-pcr-bank", "is not a PCR "
				   "bank's name (sha1, sha256, sha384, "
				   "sha512)");
	}
	if ((j = json_get(tok, "tpm2-primary-alg"))) {
		if (j->type != JSON_STR || (strcmp(j->s, "ecc") &&
					   strcmp(j->s, "rsa")))
			return bad(e, what, "tpm2-primary-alg", "is not "
				   "\"ecc\" or \"rsa\"");
		t->primary_alg = j->s[0] == 'r' ? TPM2_ALG_RSA : TPM2_ALG_ECC;
	}
	if (!(j = json_get(tok, "tpm2-policy-hash")))
		return bad(e, what, "tpm2-policy-hash", "is missing");
	if (one_or_array(j, what, "tpm2-policy-hash", t, policy_hash, e))
		return e->code;
	if (t->npolicy != t->nblob)
		return bad(e, what, "tpm2-policy-hash", "does not have one "
			   "digest per tpm2-blob part");
	if (boolean(json_get(tok, "tpm2-pin"), what, "tpm2-pin", &t->pin, e) ||
	    boolean(json_get(tok, "tpm2_pcrlock"), what, "tpm2_pcrlock",
		    &t->pcrlock, e))
		return e->code;
	if ((j = json_get(tok, "tpm2_salt"))) {
		if (b64_member(j, 0, what, "tpm2_salt", &d, &n, e))
			return e->code;
		if (n > sizeof(t->salt) || !n) {
			free(d);
			return bad(e, what, "tpm2_salt", "is not 1 to 64 "
				   "bytes");
		}
		memcpy(t->salt, d, n);
		t->saltlen = n;
		free(d);
	}
	if ((j = json_get(tok, "tpm2_srk")) && srk(j, what, t, e))
		return e->code;
	if ((j = json_get(tok, "tpm2_pubkey")) && pubkey(j, what, t, e))
		return e->code;
	if ((j = json_get(tok, "tpm2_pubkey_pcrs")) &&
	    pcr_list(j, what, "tpm2_pubkey_pcrs", &t->pubkey_pcrs, e))
		return e->code;
	if ((j = json_get(tok, "tpm2_pcrlock_nv")) && pcrlock_nv(j, what, t, e))
		return e->code;
	if (t->pcrlock && !t->has_nv)
		return bad(e, what, "tpm2_pcrlock", "is set without "
			   "tpm2_pcrlock_nv");
	return 0;
}

void sdtpm2_free(struct sdtpm2 *t)
{
	free(t->pubkey_pem);
	t->pubkey_pem = NULL;
}

/* ---- clevis ---- */

static int str_is(const struct json *j, const char *s)
{
	return j && j->type == JSON_STR && strcmp(j->s, s) == 0;
}

/* "0,7" (or an array of numbers or strings): the PCR mask. */
static int pcr_ids(const struct json *j, const char *what, uint32_t *mask,
		   struct tberr *e)
{
	const char *s;
	char *end;
	long v;

	*mask = 0;
	if (j->type == JSON_ARR) {
		const struct json *k;

		for (k = j->kid; k; k = k->next) {
			v = k->type == JSON_NUM && k->isint ? (long)k->i :
			    k->type == JSON_STR && k->slen && k->slen < 3 ?
			    strtol(k->s, &end, 10) : -1;
			if (v < 0 || v > 23 || (k->type == JSON_STR && *end))
				return bad(e, what, "clevis.tpm2.pcr_ids",
					   "is not a list of PCRs 0 to 23");
			*mask |= 1u << v;
		}
		return 0;
	}
	if (j->type != JSON_STR)
		return bad(e, what, "clevis.tpm2.pcr_ids", "is not a string");
	for (s = j->s; *s; s = *end ? end + 1 : end) {
		if (*s < '0' || *s > '9')
			return bad(e, what, "clevis.tpm2.pcr_ids", "is not a "
				   "list of PCRs 0 to 23");
		v = strtol(s, &end, 10);
		if (v > 23 || (*end && *end != ',') || (*end && !end[1]))
			return bad(e, what, "clevis.tpm2.pcr_ids", "is not a "
				   "list of PCRs 0 to 23");
		*mask |= 1u << v;
	}
	return 0;
}

static int tpm2_pin(const struct json *cfg, const char *what,
		    struct clevis_pin *p, struct tberr *e)
{
	const struct json *j;
	uint8_t *d;
	size_t n;
	int rc;

	if (!cfg || cfg->type != JSON_OBJ)
		return bad(e, what, "clevis.tpm2", "is not an object");
	p->hash = TPM2_ALG_SHA256;
	p->key = TPM2_ALG_ECC;
	p->pcr_bank = TPM2_ALG_SHA256;
	if ((j = json_get(cfg, "hash")) &&
	    (j->type != JSON_STR || !hash_supported(p->hash =
						    alg_from_name(j->s)) ||
	     strchr(j->s, 'x')))
		return bad(e, what, "clevis.tpm2.hash", "is not a hash name");
	if ((j = json_get(cfg, "key"))) {
		if (!str_is(j, "ecc") && !str_is(j, "rsa"))
			return bad(e, what, "clevis.tpm2.key", "is not \"ecc\" "
				   "or \"rsa\"");
		p->key = j->s[0] == 'r' ? TPM2_ALG_RSA : TPM2_ALG_ECC;
	}
	if ((j = json_get(cfg, "pcr_bank")) &&
	    (j->type != JSON_STR || !hash_supported(p->pcr_bank =
						    alg_from_name(j->s)) ||
	     strchr(j->s, 'x')))
		return bad(e, what, "clevis.tpm2.pcr_bank", "is not a PCR "
			   "bank's name");
	if ((j = json_get(cfg, "pcr_ids")) && pcr_ids(j, what, &p->pcr_ids, e))
		return e->code;
	if (b64_member(json_get(cfg, "jwk_priv"), 1, what,
		       "clevis.tpm2.jwk_priv", &d, &n, e))
		return e->code;
	rc = sealed_parse(d, n, 1, &p->obj, what, "clevis.tpm2.jwk_priv", e);
	free(d);
	if (rc || b64_member(json_get(cfg, "jwk_pub"), 1, what,
			     "clevis.tpm2.jwk_pub", &d, &n, e))
		return e->code;
	rc = sealed_parse(d, n, 2, &p->obj, what, "clevis.tpm2.jwk_pub", e);
	free(d);
	return rc;
}

static int jwe(struct clevis *c, int parent, int depth, const char *prot,
	       size_t protlen, const char *what, struct tberr *e);

static int sss_pin(struct clevis *c, int me, const struct json *cfg,
		   const char *what, struct tberr *e)
{
	struct clevis_pin *p = &c->pin[me];
	const struct json *j, *k;

	if (!cfg || cfg->type != JSON_OBJ)
		return bad(e, what, "clevis.sss", "is not an object");
	j = json_get(cfg, "t");
	if (!j || j->type != JSON_NUM || !j->isint || j->i < 1 ||
	    j->i > CLEVIS_PINS)
		return bad(e, what, "clevis.sss.t", "is not a threshold");
	p->t = (int)j->i;
	if (b64_member(json_get(cfg, "p"), 1, what, "clevis.sss.p", &p->p,
		       &p->plen, e))
		return e->code;
	j = json_get(cfg, "jwe");
	if (!j || j->type != JSON_ARR || !j->n)
		return bad(e, what, "clevis.sss.jwe", "is not an array of "
			   "JWEs");
	if ((size_t)p->t > j->n)
		return bad(e, what, "clevis.sss.t", "is more than its pins");
	for (k = j->kid; k; k = k->next) {
		if (k->type != JSON_STR)
			return bad(e, what, "clevis.sss.jwe", "holds something "
				   "that is not a compact JWE");
		if (!memchr(k->s, '.', k->slen))
			return bad(e, what, "clevis.sss.jwe", "holds something "
				   "that is not a compact JWE");
		/* the whole compact JWE, read by the nested pin */
		if (jwe(c, me, p->depth + 1, k->s, k->slen, what, e))
			return e->code;
		c->pin[me].nshare++;
	}
	return 0;
}

/* The JWE parts: protected..., given as five fields. */
static int jwe_parts(struct clevis_pin *p, const char *const f[5],
		     const size_t fl[5], const char *what, struct tberr *e)
{
	struct json tmp;
	static const char *const names[5] = { "protected", "encrypted_key",
		"iv", "ciphertext", "tag" };
	uint8_t **dst[5] = { NULL, NULL, &p->iv, &p->ct, &p->tag };
	size_t *len[5] = { NULL, NULL, &p->ivlen, &p->ctlen, &p->taglen };
	int i;

	if (fl[1])
		return bad(e, what, "the JWE's encrypted_key", "is not empty "
			   "(alg dir has none)");
	for (i = 2; i < 5; i++) {
		memset(&tmp, 0, sizeof(tmp));
		tmp.type = JSON_STR;
		if (!(tmp.s = malloc(fl[i] + 1)))
			return err_set(e, EX_IO, "out of memory");
		memcpy(tmp.s, f[i], fl[i]);
		tmp.s[fl[i]] = 0;
		tmp.slen = fl[i];
		if (b64_member(&tmp, 1, what, names[i], dst[i], len[i], e)) {
			free(tmp.s);
			return e->code;
		}
		free(tmp.s);
	}
	if (p->ivlen != 12 || p->taglen != 16)
		return bad(e, what, "the JWE", "has no 96-bit iv and 128-bit "
			   "tag (A256GCM)");
	return 0;
}

/* One JWE in compact form (prot = "H.K.I.C.T") or flattened (the
 * caller split it: then prot is the header alone and parts come in
 * c->pin[new] set by the caller). */
static int jwe_header(struct clevis *c, int me, const char *h, size_t hl,
		      const char *what, struct tberr *e)
{
	struct clevis_pin *p = &c->pin[me];
	const struct json *cl, *pin, *j;
	struct json *hdr;
	uint8_t *txt;
	long n;
	int rc;

	if (!(p->prot = malloc(hl + 1)) || !(txt = malloc(hl / 4 * 3 + 3)))
		return err_set(e, EX_IO, "out of memory");
	memcpy(p->prot, h, hl);
	p->prot[hl] = 0;
	p->protlen = hl;
	if ((n = b64url_decode(h, hl, txt, hl / 4 * 3 + 3)) < 0) {
		free(txt);
		return bad(e, what, "the JWE's protected header", "is not "
			   "valid base64url");
	}
	rc = json_parse((char *)txt, (size_t)n, &jose_limits, what, &hdr, e);
	free(txt);
	if (rc)
		return rc;
	rc = EX_FAIL;
	if (hdr->type != JSON_OBJ) {
		bad(e, what, "the JWE's protected header", "is not an object");
		goto out;
	}
	j = json_get(hdr, "alg");
	if (j && (j->type != JSON_STR || j->slen >= sizeof(p->alg))) {
		bad(e, what, "the JWE's alg", "is not a short string");
		goto out;
	}
	if (j)
		memcpy(p->alg, j->s, j->slen + 1);
	j = json_get(hdr, "enc");
	if (!j || j->type != JSON_STR || j->slen >= sizeof(p->enc)) {
		bad(e, what, "the JWE's enc", "is missing or not a short "
		    "string");
		goto out;
	}
	memcpy(p->enc, j->s, j->slen + 1);
	cl = json_get(hdr, "clevis");
	pin = json_get(cl, "pin");
	if (!cl || cl->type != JSON_OBJ || !pin || pin->type != JSON_STR ||
	    !pin->slen || pin->slen >= sizeof(p->name)) {
		bad(e, what, "the JWE's clevis.pin", "is missing or not a "
		    "short string");
		goto out;
	}
	memcpy(p->name, pin->s, pin->slen + 1);
	if (strcmp(p->name, "tpm2") == 0) {
		p->kind = CLEVIS_TPM2;
		rc = tpm2_pin(json_get(cl, "tpm2"), what, p, e);
	} else if (strcmp(p->name, "sss") == 0) {
		p->kind = CLEVIS_SSS;
		rc = sss_pin(c, me, json_get(cl, "sss"), what, e);
	} else {
		p->kind = CLEVIS_OTHER;
		rc = 0;
	}
out:
	json_free(hdr);
	return rc;
}

static int new_pin(struct clevis *c, int parent, int depth, const char *what,
		   struct tberr *e)
{
	if (depth > CLEVIS_DEPTH)
		return -bad(e, what, "clevis.sss", "is nested too deep");
	if (c->n >= CLEVIS_PINS)
		return -bad(e, what, "the token", "has too many clevis pins");
	memset(&c->pin[c->n], 0, sizeof(c->pin[0]));
	c->pin[c->n].parent = parent;
	c->pin[c->n].depth = depth;
	return c->n++;
}

static int jwe(struct clevis *c, int parent, int depth, const char *s,
	       size_t n, const char *what, struct tberr *e)
{
	const char *f[5];
	size_t fl[5];
	const char *q = s, *end = s + n, *dot;
	int i, me;

	for (i = 0; i < 5; i++) {
		dot = i < 4 ? memchr(q, '.', (size_t)(end - q)) : NULL;
		if (i < 4 && !dot)
			return bad(e, what, "a compact JWE", "does not have "
				   "five parts");
		f[i] = q;
		fl[i] = (size_t)((i < 4 ? dot : end) - q);
		q = i < 4 ? dot + 1 : end;
	}
	if (memchr(f[4], '.', fl[4]))
		return bad(e, what, "a compact JWE", "has more than five "
			   "parts");
	if ((me = new_pin(c, parent, depth, what, e)) < 0)
		return -me;
	if (jwe_parts(&c->pin[me], f, fl, what, e))
		return e->code;
	return jwe_header(c, me, f[0], fl[0], what, e);
}

int clevis_parse_compact(const char *s, size_t n, const char *what,
			 struct clevis *c, struct tberr *e)
{
	memset(c, 0, sizeof(*c));
	return jwe(c, -1, 0, s, n, what, e);
}

int clevis_parse_token(const struct json *tok, const char *what,
		       struct clevis *c, struct tberr *e)
{
	static const char *const names[5] = { "protected", "encrypted_key",
		"iv", "ciphertext", "tag" };
	const struct json *j = json_get(tok, "jwe");
	const char *f[5];
	size_t fl[5];
	int i, me;

	memset(c, 0, sizeof(*c));
	if (!j || j->type != JSON_OBJ)
		return bad(e, what, "jwe", "is missing or not an object");
	for (i = 0; i < 5; i++) {
		const struct json *k = json_get(j, names[i]);

		if (!k && i == 1) {	/* optional with alg dir */
			f[i] = "";
			fl[i] = 0;
			continue;
		}
		if (!k || k->type != JSON_STR)
			return err_set(e, EX_FAIL, "%s: jwe.%s is missing or "
				       "not a string", what, names[i]);
		f[i] = k->s;
		fl[i] = k->slen;
	}
	if ((me = new_pin(c, -1, 0, what, e)) < 0)
		return -me;
	if (jwe_parts(&c->pin[me], f, fl, what, e))
		return e->code;
	return jwe_header(c, me, f[0], fl[0], what, e);
}

void clevis_free(struct clevis *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		free(c->pin[i].prot);
		free(c->pin[i].iv);
		free(c->pin[i].ct);
		free(c->pin[i].tag);
		free(c->pin[i].p);
	}
	c->n = 0;
}

int clevis_jwe_check(const struct clevis_pin *p, const char *what,
		     struct tberr *e)
{
	if (strcmp(p->alg, "dir"))
		return err_set(e, EX_FAIL, "%s: the %s pin's JWE has alg "
			       "\"%s\"; clevis writes \"dir\", the only one "
			       "read here", what, p->name, p->alg);
	if (strcmp(p->enc, "A256GCM"))
		return err_set(e, EX_FAIL, "%s: the %s pin's JWE has enc "
			       "\"%s\"; clevis writes \"A256GCM\", the only "
			       "one read here", what, p->name, p->enc);
	return 0;
}

int clevis_jwk_key(const uint8_t *text, size_t n, const char *what,
		   uint8_t key[32], struct tberr *e)
{
	const struct json *j;
	struct json *jwk;
	uint8_t *k = NULL;
	size_t kl = 0;
	int rc;

	/* the trailing newline clevis' tpm2 pin seals with it */
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	if (json_parse((const char *)text, n, &jose_limits, what, &jwk, e))
		return err_set(e, EX_FAIL, "%s: the unsealed JWK is not valid "
			       "JSON", what);
	rc = EX_FAIL;
	if (jwk->type != JSON_OBJ) {
		bad(e, what, "the unsealed JWK", "is not an object");
		goto out;
	}
	j = json_get(jwk, "kty");
	if (j && (j->type != JSON_STR || strcmp(j->s, "oct"))) {
		bad(e, what, "the unsealed JWK's kty", "is not \"oct\"");
		goto out;
	}
	j = json_get(jwk, "alg");
	if (j && (j->type != JSON_STR || strcmp(j->s, "A256GCM"))) {
		bad(e, what, "the unsealed JWK's alg", "is not \"A256GCM\"");
		goto out;
	}
	if (b64_member(json_get(jwk, "k"), 1, what, "the unsealed JWK's k",
		       &k, &kl, e))
		goto out;
	if (kl != 32) {
		bad(e, what, "the unsealed JWK's k", "is not a 256-bit key");
		goto out;
	}
	memcpy(key, k, 32);
	rc = 0;
out:
	if (k) {
		explicit_bzero(k, kl);
		free(k);
	}
	json_free(jwk);
	return rc;
}

/* ---- tpmbox ---- */

int tpmboxtok_parse(const struct json *tok, const char *what,
		    struct tpmboxtok *t, struct tberr *e)
{
	const struct json *j = json_get(tok, "tpmbox-version");
	uint8_t *d;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!j)
		return bad(e, what, "tpmbox-version", "is missing");
	if (j->type != JSON_NUM || !j->isint || j->i != TPMBOXTOK_VERSION)
		return bad(e, what, "tpmbox-version", "is not 1 (a token of "
			   "another tpmbox version)");
	if (!(j = json_get(tok, "tpmbox-blob")))
		return bad(e, what, "tpmbox-blob", "is missing");
	if (j->type == JSON_STR && j->slen / 4 * 3 > TPMBOXTOK_MAX)
		return bad(e, what, "tpmbox-blob", "is too long");
	if (b64_member(j, 0, what, "tpmbox-blob", &d, &n, e))
		return e->code;
	if (!n || memchr(d, 0, n)) {
		free(d);
		return bad(e, what, "tpmbox-blob", "is not a blob's text");
	}
	/* room for the NUL: b64_member's buffer is 3 bytes over */
	d[n] = 0;
	t->text = (char *)d;
	t->n = n;
	return 0;
}

void tpmboxtok_free(struct tpmboxtok *t)
{
	free(t->text);
	t->text = NULL;
}
