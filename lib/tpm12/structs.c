/* TPM 1.2 structures (include/tpm12/structs.h). */
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/structs.h"

void tpm12_put_pcr_sel(struct tb *b, const struct tpm12_pcr_sel *s)
{
	uint16_t i;

	if (s->size > TPM12_PCR_SELECT_MAX ||
	    (s->size < 4 && s->mask >> (s->size * 8))) {
		tb_fail(b);
		return;
	}
	tb_put_u16(b, s->size);
	for (i = 0; i < s->size; i++)
		tb_put_u8(b, (uint8_t)(s->mask >> (i * 8)));
}

void tpm12_get_pcr_sel(struct tb *b, struct tpm12_pcr_sel *s)
{
	uint16_t i;

	s->mask = 0;
	s->size = tb_get_u16(b);
	if (s->size > TPM12_PCR_SELECT_MAX) {
		tb_fail(b);
		s->size = 0;
		return;
	}
	for (i = 0; i < s->size; i++)
		s->mask |= (uint32_t)tb_get_u8(b) << (i * 8);
}

void tpm12_pcr_sel_set(struct tpm12_pcr_sel *s, uint32_t mask,
		       uint16_t min_size)
{
	uint16_t n = 0;

	while (n < TPM12_PCR_SELECT_MAX && (n < 4 ? mask >> (n * 8) : 0))
		n++;
	s->size = n > min_size ? n : min_size;
	s->mask = mask;
}

void tpm12_put_pcr_info(struct tb *b, const struct tpm12_pcr_info *i)
{
	switch (i->kind) {
	case TPM12_PCR_INFO:
		tpm12_put_pcr_sel(b, &i->release);
		tb_put_bytes(b, i->digest_release, TPM12_SHA1);
		tb_put_bytes(b, i->digest_creation, TPM12_SHA1);
		return;
	case TPM12_PCR_INFO_LONG:
		tb_put_u16(b, TPM12_TAG_PCR_INFO_LONG);
		tb_put_u8(b, i->loc_creation);
		tb_put_u8(b, i->loc_release);
		tpm12_put_pcr_sel(b, &i->creation);
		tpm12_put_pcr_sel(b, &i->release);
		tb_put_bytes(b, i->digest_creation, TPM12_SHA1);
		tb_put_bytes(b, i->digest_release, TPM12_SHA1);
		return;
	case TPM12_PCR_INFO_SHORT:
		tpm12_put_pcr_sel(b, &i->release);
		tb_put_u8(b, i->loc_release);
		tb_put_bytes(b, i->digest_release, TPM12_SHA1);
		return;
	}
	tb_fail(b);
}

void tpm12_get_pcr_info(struct tb *b, enum tpm12_pcr_info_kind kind,
			struct tpm12_pcr_info *i)
{
	memset(i, 0, sizeof(*i));
	i->kind = kind;
	switch (kind) {
	case TPM12_PCR_INFO:
		tpm12_get_pcr_sel(b, &i->release);
		tb_get_bytes(b, i->digest_release, TPM12_SHA1);
		tb_get_bytes(b, i->digest_creation, TPM12_SHA1);
		return;
	case TPM12_PCR_INFO_LONG:
		if (tb_get_u16(b) != TPM12_TAG_PCR_INFO_LONG)
			tb_fail(b);
		i->loc_creation = tb_get_u8(b);
		i->loc_release = tb_get_u8(b);
		tpm12_get_pcr_sel(b, &i->creation);
		tpm12_get_pcr_sel(b, &i->release);
		tb_get_bytes(b, i->digest_creation, TPM12_SHA1);
		tb_get_bytes(b, i->digest_release, TPM12_SHA1);
		return;
	case TPM12_PCR_INFO_SHORT:
		tpm12_get_pcr_sel(b, &i->release);
		i->loc_release = tb_get_u8(b);
		tb_get_bytes(b, i->digest_release, TPM12_SHA1);
		return;
	}
	tb_fail(b);
}

/* u32 size then the bytes, into dst[0..cap). */
static uint32_t get_sized(struct tb *b, uint8_t *dst, size_t cap)
{
	uint32_t n = tb_get_u32(b);

	if (n > cap) {
		tb_fail(b);
		return 0;
	}
	tb_get_bytes(b, dst, n);
	return tb_err(b) ? 0 : n;
}

static void put_sized(struct tb *b, const uint8_t *src, uint32_t n,
		      size_t cap)
{
	if (n > cap) {
		tb_fail(b);
		return;
	}
	tb_put_u32(b, n);
	tb_put_bytes(b, src, n);
}

/* A u32 size then one TPM_PCR_INFO(_LONG) filling exactly that size; a
 * size of 0 is none. */
static void get_pcr_info_sized(struct tb *b, enum tpm12_pcr_info_kind kind,
			       int *has, struct tpm12_pcr_info *i)
{
	uint32_t n = tb_get_u32(b);
	struct tb sub;

	memset(i, 0, sizeof(*i));
	*has = 0;
	if (tb_err(b) || n == 0)
		return;
	tb_sub(b, n, &sub);
	tpm12_get_pcr_info(&sub, kind, i);
	if (tb_err(&sub) || tb_left(&sub))
		tb_fail(b);
	*has = !tb_err(b);
}

static void put_pcr_info_sized(struct tb *b, int has,
			       enum tpm12_pcr_info_kind kind,
			       const struct tpm12_pcr_info *i)
{
	size_t at;

	if (!has) {
		tb_put_u32(b, 0);
		return;
	}
	if (i->kind != kind) {
		tb_fail(b);
		return;
	}
	at = tb_reserve32(b);
	tpm12_put_pcr_info(b, i);
	tb_patch32(b, at);
}

void tpm12_get_key_parms(struct tb *b, struct tpm12_key_parms *p)
{
	uint32_t parmsize;

	memset(p, 0, sizeof(*p));
	p->alg = tb_get_u32(b);
	p->enc_scheme = tb_get_u16(b);
	p->sig_scheme = tb_get_u16(b);
	parmsize = tb_get_u32(b);
	if (tb_err(b))
		return;
	if (p->alg == TPM12_ALG_RSA) {
		if (parmsize < 12) {
			tb_fail(b);
			return;
		}
		p->key_bits = tb_get_u32(b);
		p->num_primes = tb_get_u32(b);
		p->explen = tb_get_u32(b);
		if (p->explen > TPM12_EXP_MAX || parmsize != 12 + p->explen) {
			tb_fail(b);
			p->explen = 0;
			return;
		}
		tb_get_bytes(b, p->exp, p->explen);
	} else {
		if (parmsize > TPM12_PARMS_MAX) {
			tb_fail(b);
			return;
		}
		p->rawlen = parmsize;
		tb_get_bytes(b, p->raw, parmsize);
	}
}

void tpm12_put_key_parms(struct tb *b, const struct tpm12_key_parms *p)
{
	tb_put_u32(b, p->alg);
	tb_put_u16(b, p->enc_scheme);
	tb_put_u16(b, p->sig_scheme);
	if (p->alg == TPM12_ALG_RSA) {
		if (p->explen > TPM12_EXP_MAX) {
			tb_fail(b);
			return;
		}
		tb_put_u32(b, 12 + p->explen);
		tb_put_u32(b, p->key_bits);
		tb_put_u32(b, p->num_primes);
		put_sized(b, p->exp, p->explen, sizeof(p->exp));
	} else {
		put_sized(b, p->raw, p->rawlen, sizeof(p->raw));
	}
}

void tpm12_key_parms_rsa(struct tpm12_key_parms *p, uint32_t bits,
			 uint16_t enc_scheme, uint16_t sig_scheme)
{
	memset(p, 0, sizeof(*p));
	p->alg = TPM12_ALG_RSA;
	p->enc_scheme = enc_scheme;
	p->sig_scheme = sig_scheme;
	p->key_bits = bits;
	p->num_primes = 2;
}

uint32_t tpm12_rsa_exponent(const struct tpm12_key_parms *p)
{
	uint32_t v = 0, i;

	if (p->alg != TPM12_ALG_RSA || p->explen > 4)
		return 0;
	if (p->explen == 0)
		return 65537;
	for (i = 0; i < p->explen; i++)
		v = v << 8 | p->exp[i];
	return v;
}

void tpm12_get_key(struct tb *b, struct tpm12_key *k)
{
	memset(k, 0, sizeof(*k));
	tb_get_bytes(b, k->ver, 4);
	/* TPM_KEY12 starts with its tag and a zero fill; TPM_KEY with a
	 * TPM_STRUCT_VER whose major is 1. */
	if (k->ver[0] == 0x00 && k->ver[1] == 0x28) {
		k->is12 = 1;
		if (k->ver[2] || k->ver[3])
			tb_fail(b);
	} else if (k->ver[0] != 1 || k->ver[1] != 1) {
		tb_fail(b);
	}
	k->usage = tb_get_u16(b);
	k->flags = tb_get_u32(b);
	k->auth_usage = tb_get_u8(b);
	tpm12_get_key_parms(b, &k->parms);
	get_pcr_info_sized(b, k->is12 ? TPM12_PCR_INFO_LONG : TPM12_PCR_INFO,
			   &k->has_pcr, &k->pcr);
	k->publen = get_sized(b, k->pub, sizeof(k->pub));
	k->enclen = get_sized(b, k->enc, sizeof(k->enc));
}

void tpm12_put_key(struct tb *b, const struct tpm12_key *k)
{
	if (k->is12) {
		tb_put_u16(b, TPM12_TAG_KEY12);
		tb_put_u16(b, 0);
	} else {
		tb_put_bytes(b, k->ver, 4);
	}
	tb_put_u16(b, k->usage);
	tb_put_u32(b, k->flags);
	tb_put_u8(b, k->auth_usage);
	tpm12_put_key_parms(b, &k->parms);
	put_pcr_info_sized(b, k->has_pcr,
			   k->is12 ? TPM12_PCR_INFO_LONG : TPM12_PCR_INFO,
			   &k->pcr);
	put_sized(b, k->pub, k->publen, sizeof(k->pub));
	put_sized(b, k->enc, k->enclen, sizeof(k->enc));
}

void tpm12_get_pubkey(struct tb *b, struct tpm12_pubkey *k)
{
	memset(k, 0, sizeof(*k));
	tpm12_get_key_parms(b, &k->parms);
	k->publen = get_sized(b, k->pub, sizeof(k->pub));
}

void tpm12_put_pubkey(struct tb *b, const struct tpm12_pubkey *k)
{
	tpm12_put_key_parms(b, &k->parms);
	put_sized(b, k->pub, k->publen, sizeof(k->pub));
}

int tpm12_pubkey_parse(const uint8_t *p, size_t n, struct tpm12_pubkey *k,
		       const char *what, struct tberr *e)
{
	struct tb b;

	tb_init_read(&b, p, n);
	tpm12_get_pubkey(&b, k);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "%s: not a TPM_PUBKEY (malformed "
			       "or truncated)", what);
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "%s: %zu bytes after the public "
			       "key", what, tb_left(&b));
	return 0;
}

void tpm12_get_stored(struct tb *b, struct tpm12_stored *s)
{
	memset(s, 0, sizeof(*s));
	tb_get_bytes(b, s->ver, 4);
	if (s->ver[0] == 0x00 && s->ver[1] == 0x16) {
		s->is12 = 1;
		s->et = (uint16_t)(s->ver[2] << 8 | s->ver[3]);
	} else if (s->ver[0] != 1 || s->ver[1] != 1) {
		tb_fail(b);
	}
	get_pcr_info_sized(b, s->is12 ? TPM12_PCR_INFO_LONG : TPM12_PCR_INFO,
			   &s->has_pcr, &s->pcr);
	s->enclen = get_sized(b, s->enc, sizeof(s->enc));
}

void tpm12_put_stored(struct tb *b, const struct tpm12_stored *s)
{
	if (s->is12) {
		tb_put_u16(b, TPM12_TAG_STORED_DATA12);
		tb_put_u16(b, s->et);
	} else {
		tb_put_bytes(b, s->ver, 4);
	}
	put_pcr_info_sized(b, s->has_pcr,
			   s->is12 ? TPM12_PCR_INFO_LONG : TPM12_PCR_INFO,
			   &s->pcr);
	put_sized(b, s->enc, s->enclen, sizeof(s->enc));
}

int tpm12_key_parse(const uint8_t *p, size_t n, struct tpm12_key *k,
		    const char *what, struct tberr *e)
{
	struct tb b;

	tb_init_read(&b, p, n);
	tpm12_get_key(&b, k);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "%s: not a TPM_KEY or TPM_KEY12 "
			       "(malformed or truncated)", what);
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "%s: %zu bytes after the key", what,
			       tb_left(&b));
	return 0;
}

int tpm12_stored_parse(const uint8_t *p, size_t n, struct tpm12_stored *s,
		       const char *what, struct tberr *e)
{
	struct tb b;

	tb_init_read(&b, p, n);
	tpm12_get_stored(&b, s);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "%s: not a TPM_STORED_DATA or "
			       "TPM_STORED_DATA12 (malformed or truncated)",
			       what);
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "%s: %zu bytes after the sealed "
			       "data", what, tb_left(&b));
	return 0;
}

int tpm12_pcr_composite_hash(const struct tpm12_pcr_sel *sel,
			     const uint8_t (*vals)[TPM12_SHA1], size_t count,
			     uint8_t out[TPM12_SHA1])
{
	uint8_t mem[2 + TPM12_PCR_SELECT_MAX + 4 + TPM12_PCR_MAX * TPM12_SHA1];
	struct tb b;
	size_t want = 0, j;
	int i;

	for (i = 0; i < TPM12_PCR_MAX; i++)
		want += sel->mask >> i & 1;
	if (count != want)
		return -1;
	tb_init(&b, mem, sizeof(mem));
	tpm12_put_pcr_sel(&b, sel);
	tb_put_u32(&b, (uint32_t)(count * TPM12_SHA1));
	for (j = 0; j < count; j++)
		tb_put_bytes(&b, vals[j], TPM12_SHA1);
	if (tb_err(&b))
		return -1;
	return hash_buf(TPM2_ALG_SHA1, mem, b.len, out);
}

void tpm12_quote_info(const uint8_t composite[TPM12_SHA1],
		      const uint8_t nonce[TPM12_SHA1],
		      uint8_t out[TPM12_QUOTE_INFO_SIZE])
{
	/* TPM_STRUCT_VER 1.1.0.0, then the fixed "QUOT". */
	memcpy(out, "\x01\x01\x00\x00QUOT", 8);
	memcpy(out + 8, composite, TPM12_SHA1);
	memcpy(out + 28, nonce, TPM12_SHA1);
}

void tpm12_put_quote_info2(struct tb *b, const uint8_t nonce[TPM12_SHA1],
			   const struct tpm12_pcr_info *info,
			   const uint8_t *version, size_t vlen)
{
	if (info->kind != TPM12_PCR_INFO_SHORT) {
		tb_fail(b);
		return;
	}
	tb_put_u16(b, TPM12_TAG_QUOTE_INFO2);
	tb_put_bytes(b, "QUT2", 4);
	tb_put_bytes(b, nonce, TPM12_SHA1);
	tpm12_put_pcr_info(b, info);
	if (vlen)
		tb_put_bytes(b, version, vlen);
}
