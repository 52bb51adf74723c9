#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/verify.h"
#include "fmt/quote.h"

/* tpm2-tools' in-memory structures as it writes them (its host's byte
 * order, C padding): TPMS_PCR_SELECTION {UINT16 hash; UINT8 sizeofSelect;
 * BYTE pcrSelect[4];} padded to 8, TPML_PCR_SELECTION {UINT32 count;
 * [16]} = 132, TPM2B_DIGEST {UINT16 size; BYTE [64];} = 66, TPML_DIGEST
 * {UINT32 count; TPM2B_DIGEST [8];} = 532. */
#define T2_SEL_SIZE	8
#define T2_SEL_MAX	16
#define T2_SELLIST_SIZE	(4 + T2_SEL_MAX * T2_SEL_SIZE)
#define T2_DIG_SIZE	66
#define T2_DIG_MAX	8
#define T2_DIGLIST_SIZE	(4 + T2_DIG_MAX * T2_DIG_SIZE)

int quote_sel_get(struct tb *b, struct pcr_sel *sel)
{
	uint32_t n = tb_get_u32(b), i, k;

	memset(sel, 0, sizeof(*sel));
	if (tb_err(b) || n > TPM2_MAX_BANKS)
		return -1;
	for (i = 0; i < n; i++) {
		uint16_t alg = tb_get_u16(b);
		uint8_t sz = tb_get_u8(b);
		uint32_t mask = 0;
		int j;

		for (k = 0; k < sz; k++) {
			uint8_t v = tb_get_u8(b);

			/* PCRs above 31 exist on no TPM tpmbox knows. */
			if (k >= 4 && v)
				return -1;
			if (k < 4)
				mask |= (uint32_t)v << (8 * k);
		}
		if (tb_err(b) || !hash_size(alg))
			return -1;
		for (j = 0; j < sel->n; j++)
			if (sel->b[j].alg == alg)
				return -1;
		if (!mask)
			continue;
		sel->b[sel->n].alg = alg;
		sel->b[sel->n].mask = mask;
		sel->n++;
	}
	return tb_err(b) ? -1 : 0;
}

int quote_sel_equal(const struct pcr_sel *a, const struct pcr_sel *b)
{
	int i = 0, j = 0;

	/* The non-empty banks, pairwise in order. */
	for (;;) {
		while (i < a->n && !a->b[i].mask)
			i++;
		while (j < b->n && !b->b[j].mask)
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (a->b[i].alg != b->b[j].alg || a->b[i].mask != b->b[j].mask)
			return 0;
		i++;
		j++;
	}
}

void quote_sel_format(const struct pcr_sel *sel, char *buf, size_t n)
{
	size_t off = 0;
	int i, j, first_bank = 1;

	if (n)
		buf[0] = '\0';
	for (i = 0; i < sel->n; i++) {
		int first = 1;

		if (!sel->b[i].mask)
			continue;
		off += (size_t)snprintf(buf + off, off < n ? n - off : 0,
					"%s%s:", first_bank ? "" : "+",
					alg_name(sel->b[i].alg));
		first_bank = 0;
		for (j = 0; j < 32; j++) {
			if (!(sel->b[i].mask & (1u << j)))
				continue;
			off += (size_t)snprintf(buf + off,
						off < n ? n - off : 0,
						"%s%d", first ? "" : ",", j);
			first = 0;
		}
	}
	if (first_bank)
		snprintf(buf, n, "(none)");
}

int quote_vals_match(const struct pcr_sel *sel, const struct pcr_vals *v)
{
	int i, j, k = 0;

	for (i = 0; i < sel->n; i++)
		for (j = 0; j < 32; j++) {
			if (!(sel->b[i].mask & (1u << j)))
				continue;
			if (k >= v->n || v->v[k].alg != sel->b[i].alg ||
			    v->v[k].idx != j ||
			    v->v[k].len != hash_size(sel->b[i].alg))
				return 0;
			k++;
		}
	return k == v->n;
}

int quote_pcr_digest(uint16_t alg, const struct pcr_vals *v, uint8_t *out)
{
	struct hash_ctx *h = hash_new(alg);
	int i;

	if (!h)
		return -1;
	for (i = 0; i < v->n; i++)
		hash_update(h, v->v[i].d, v->v[i].len);
	hash_final(h, out);
	return 0;
}

int quote_attest_parse(const uint8_t *p, size_t n, struct quote_attest *a,
		       struct tberr *e)
{
	struct tb b;

	memset(a, 0, sizeof(*a));
	tb_init_read(&b, p, n);
	a->magic = tb_get_u32(&b);
	a->type = tb_get_u16(&b);
	a->signer_len = tb_get_tpm2b(&b, a->signer, sizeof(a->signer));
	a->extra_len = tb_get_tpm2b(&b, a->extra, sizeof(a->extra));
	a->clock = tb_get_u64(&b);
	a->reset_count = tb_get_u32(&b);
	a->restart_count = tb_get_u32(&b);
	a->safe = tb_get_u8(&b);
	a->firmware = tb_get_u64(&b);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "attestation: malformed "
			       "TPMS_ATTEST header (%zu bytes)", n);
	if (a->type != TPM2_ST_ATTEST_QUOTE)
		return 0;	/* the type check reports it */
	if (quote_sel_get(&b, &a->sel))
		return err_set(e, EX_FAIL, "attestation: malformed PCR "
			       "selection in TPMS_QUOTE_INFO");
	a->digest_len = tb_get_tpm2b(&b, a->digest, sizeof(a->digest));
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "attestation: malformed pcrDigest "
			       "in TPMS_QUOTE_INFO");
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "attestation: %zu bytes after "
			       "TPMS_QUOTE_INFO", tb_left(&b));
	return 0;
}

/* TPMT_SIGNATURE from a cursor (shared by the file readers). */
static int sig_get(struct tb *b, struct quote_sig *s, struct tberr *e)
{
	memset(s, 0, sizeof(*s));
	s->alg = tb_get_u16(b);
	switch (s->alg) {
	case TPM2_ALG_RSASSA:
	case TPM2_ALG_RSAPSS:
		s->hash = tb_get_u16(b);
		s->rlen = tb_get_tpm2b(b, s->r, sizeof(s->r));
		break;
	case TPM2_ALG_ECDSA:
		s->hash = tb_get_u16(b);
		/* r and s are ECC parameters: at most 66 bytes (P-521) */
		s->rlen = tb_get_tpm2b(b, s->r, sizeof(s->s));
		s->slen = tb_get_tpm2b(b, s->s, sizeof(s->s));
		break;
	default:
		if (tb_err(b))
			break;
		return err_set(e, EX_FAIL, "signature: algorithm 0x%04x is "
			       "not supported (ECDSA, RSASSA and RSAPSS are)", s->alg);
	}
	if (tb_err(b))
		return err_set(e, EX_FAIL, "signature: malformed "
			       "TPMT_SIGNATURE");
	if (!hash_supported(s->hash))
		return err_set(e, EX_FAIL, "signature: hash algorithm 0x%04x "
			       "is not supported", s->hash);
	return 0;
}

int quote_sig_parse(const uint8_t *p, size_t n, struct quote_sig *s,
		    struct tberr *e)
{
	struct tb b;

	tb_init_read(&b, p, n);
	if (sig_get(&b, s, e))
		return e->code;
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "signature: %zu bytes after "
			       "TPMT_SIGNATURE", tb_left(&b));
	return 0;
}

/* Fill vals with zero-length placeholders in selection order. */
static int vals_layout(const struct pcr_sel *sel, struct pcr_vals *v)
{
	int i, j;

	v->n = 0;
	for (i = 0; i < sel->n; i++)
		for (j = 0; j < 32; j++) {
			if (!(sel->b[i].mask & (1u << j)))
				continue;
			if (v->n == (int)(sizeof(v->v) / sizeof(v->v[0])))
				return -1;
			v->v[v->n].alg = sel->b[i].alg;
			v->v[v->n].idx = (uint8_t)j;
			v->v[v->n].len = (uint8_t)hash_size(sel->b[i].alg);
			v->n++;
		}
	return 0;
}

int quote_file_write(const struct quote *q, uint8_t **out, size_t *n,
		     struct tberr *e)
{
	size_t cap = 16 + 2 + q->attest_len + q->sig_len + 8 +
		TPM2_MAX_BANKS * 8 + (size_t)q->vals.n * (2 + TPM2_MAX_DIGEST);
	uint8_t *m = malloc(cap);
	struct tb b;
	int i;

	if (!m)
		return err_set(e, EX_FAIL, "out of memory");
	tb_init(&b, m, cap);
	tb_put_bytes(&b, QUOTE_FILE_MAGIC, 8);
	tb_put_u16(&b, QUOTE_FILE_VERSION);
	tb_put_tpm2b(&b, q->attest, q->attest_len);
	tb_put_bytes(&b, q->sig, q->sig_len);
	pcr_sel_marshal(&b, &q->sel);
	tb_put_u32(&b, (uint32_t)q->vals.n);
	for (i = 0; i < q->vals.n; i++)
		tb_put_tpm2b(&b, q->vals.v[i].d, q->vals.v[i].len);
	if (tb_err(&b)) {
		free(m);
		return err_set(e, EX_FAIL, "quote file: too large");
	}
	*out = m;
	*n = b.len;
	return 0;
}

int quote_file_read(const uint8_t *p, size_t n, struct quote *q,
		    struct tberr *e)
{
	struct quote_sig s;
	struct tb b;
	size_t start;
	uint32_t count, i;

	memset(q, 0, sizeof(*q));
	tb_init_read(&b, p, n);
	if (n < 10 || memcmp(tb_get_ref(&b, 8), QUOTE_FILE_MAGIC, 8))
		return err_set(e, EX_FAIL, "quote file: not a tpmbox quote "
			       "(bad magic)");
	if ((i = tb_get_u16(&b)) != QUOTE_FILE_VERSION)
		return err_set(e, EX_FAIL, "quote file: version %u is not "
			       "supported (1 is)", i);
	q->attest_len = tb_get_tpm2b(&b, q->attest, sizeof(q->attest));
	start = b.pos;
	if (!tb_err(&b) && sig_get(&b, &s, e))
		return e->code;
	q->sig_len = b.pos - start;
	if (!tb_err(&b))
		memcpy(q->sig, p + start, q->sig_len);
	if (tb_err(&b) || quote_sel_get(&b, &q->sel))
		return err_set(e, EX_FAIL, "quote file: truncated or malformed"
			       " before the PCR values");
	count = tb_get_u32(&b);
	if (vals_layout(&q->sel, &q->vals) || count != (uint32_t)q->vals.n)
		return err_set(e, EX_FAIL, "quote file: %u PCR values for a "
			       "selection of %d PCRs", count,
			       pcr_sel_count(&q->sel));
	for (i = 0; i < count; i++) {
		uint8_t d[TPM2_MAX_DIGEST];
		size_t dl = tb_get_tpm2b(&b, d, sizeof(d));

		if (!tb_err(&b) && dl != q->vals.v[i].len)
			return err_set(e, EX_FAIL, "quote file: %s:%u value "
				       "is %zu bytes, not %u",
				       alg_name(q->vals.v[i].alg),
				       q->vals.v[i].idx, dl, q->vals.v[i].len);
		memcpy(q->vals.v[i].d, d, q->vals.v[i].len);
	}
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "quote file: truncated in the PCR "
			       "values");
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "quote file: %zu bytes after the "
			       "PCR values", tb_left(&b));
	return 0;
}

static uint32_t get32(struct tb *b, int le)
{
	return le ? tb_get_u32_le(b) : tb_get_u32(b);
}

static uint16_t get16(struct tb *b, int le)
{
	return le ? tb_get_u16_le(b) : tb_get_u16(b);
}

/* tpm2_quote -o: parse the host-endian dump.  The byte order is the
 * writer's; the selection count (1..16) tells which it was. */
static int tools_pcrs_parse(const uint8_t *p, size_t n, struct pcr_sel *sel,
			    struct pcr_vals *v, struct tberr *e)
{
	struct tb b;
	uint32_t cnt, nlist, i, k, used = 0;
	int le = 1;

	memset(sel, 0, sizeof(*sel));
	if (n < T2_SELLIST_SIZE + 4)
		return err_set(e, EX_FAIL, "pcrs file: %zu bytes is too short "
			       "for tpm2_quote -o output", n);
	tb_init_read(&b, p, n);
	cnt = tb_get_u32_le(&b);
	if (cnt == 0 || cnt > T2_SEL_MAX) {
		tb_init_read(&b, p, n);
		cnt = tb_get_u32(&b);
		le = 0;
	}
	if (cnt == 0 || cnt > TPM2_MAX_BANKS)
		return err_set(e, EX_FAIL, "pcrs file: bad selection count");
	for (i = 0; i < T2_SEL_MAX; i++) {
		uint16_t alg = get16(&b, le);
		uint8_t sz = tb_get_u8(&b);
		const uint8_t *ps = tb_get_ref(&b, 4);
		uint32_t mask;
		int j;

		tb_skip(&b, 1);		/* padding */
		if (i >= cnt || tb_err(&b))
			continue;
		if (sz > 4 || !hash_size(alg))
			return err_set(e, EX_FAIL, "pcrs file: bad selection "
				       "entry %u", i);
		mask = 0;
		for (k = 0; k < sz; k++)
			mask |= (uint32_t)ps[k] << (8 * k);
		for (j = 0; j < sel->n; j++)
			if (sel->b[j].alg == alg)
				return err_set(e, EX_FAIL, "pcrs file: bank %s"
					       " selected twice",
					       alg_name(alg));
		if (!mask)
			continue;
		sel->b[sel->n].alg = alg;
		sel->b[sel->n].mask = mask;
		sel->n++;
	}
	nlist = get32(&b, le);
	if (tb_err(&b) || nlist > 64 ||
	    n != T2_SELLIST_SIZE + 4 + (size_t)nlist * T2_DIGLIST_SIZE)
		return err_set(e, EX_FAIL, "pcrs file: size %zu does not match"
			       " its %u digest lists", n, nlist);
	if (vals_layout(sel, v))
		return err_set(e, EX_FAIL, "pcrs file: too many PCRs");
	for (i = 0; i < nlist; i++) {
		uint32_t nd = get32(&b, le);

		if (nd > T2_DIG_MAX)
			return err_set(e, EX_FAIL, "pcrs file: digest list %u "
				       "holds %u digests (8 at most)", i, nd);
		for (k = 0; k < T2_DIG_MAX; k++) {
			uint16_t sz = get16(&b, le);
			const uint8_t *d = tb_get_ref(&b, 64);

			if (k >= nd || tb_err(&b))
				continue;
			if (used >= (uint32_t)v->n)
				return err_set(e, EX_FAIL, "pcrs file: more "
					       "digests than selected PCRs");
			if (sz != v->v[used].len)
				return err_set(e, EX_FAIL, "pcrs file: %s:%u "
					       "digest is %u bytes, not %u",
					       alg_name(v->v[used].alg),
					       v->v[used].idx, sz,
					       v->v[used].len);
			memcpy(v->v[used].d, d, sz);
			used++;
		}
	}
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "pcrs file: truncated");
	if (used != (uint32_t)v->n)
		return err_set(e, EX_FAIL, "pcrs file: %u digests for %d "
			       "selected PCRs", used, v->n);
	return 0;
}

int quote_from_tools(const uint8_t *msg, size_t msglen, const uint8_t *sig,
		     size_t siglen, const uint8_t *pcrs, size_t pcrslen,
		     struct quote *q, struct tberr *e)
{
	struct quote_sig s;

	memset(q, 0, sizeof(*q));
	if (msglen > sizeof(q->attest))
		return err_set(e, EX_FAIL, "attestation: %zu bytes is more "
			       "than a TPMS_ATTEST holds", msglen);
	if (siglen > sizeof(q->sig))
		return err_set(e, EX_FAIL, "signature: %zu bytes is more "
			       "than a TPMT_SIGNATURE holds", siglen);
	if (quote_sig_parse(sig, siglen, &s, e))
		return e->code;
	memcpy(q->attest, msg, msglen);
	q->attest_len = msglen;
	memcpy(q->sig, sig, siglen);
	q->sig_len = siglen;
	return tools_pcrs_parse(pcrs, pcrslen, &q->sel, &q->vals, e);
}

static void put32(struct tb *b, uint32_t v, int le)
{
	if (le) {
		tb_put_u8(b, (uint8_t)v);
		tb_put_u8(b, (uint8_t)(v >> 8));
		tb_put_u8(b, (uint8_t)(v >> 16));
		tb_put_u8(b, (uint8_t)(v >> 24));
	} else {
		tb_put_u32(b, v);
	}
}

static void put16(struct tb *b, uint16_t v, int le)
{
	if (le) {
		tb_put_u8(b, (uint8_t)v);
		tb_put_u8(b, (uint8_t)(v >> 8));
	} else {
		tb_put_u16(b, v);
	}
}

/* Little-endian on every CPU, not this one's order as tpm2-tools would
 * write it: the file goes to a verifier, and tpm2_checkquote on the
 * verifiers there are (x86-64, arm64) reads only little-endian; a quote
 * made on a big-endian board must verify there.  The reader above takes
 * either order, so a big-endian tpm2_quote's file still reads. */
int quote_tools_pcrs_write(const struct pcr_sel *sel,
			   const struct pcr_vals *v, uint8_t **out, size_t *n,
			   struct tberr *e)
{
	int le = 1, i, k, nlist = (v->n + T2_DIG_MAX - 1) / T2_DIG_MAX;
	size_t cap = T2_SELLIST_SIZE + 4 + (size_t)nlist * T2_DIGLIST_SIZE;
	uint8_t *m = calloc(1, cap);
	struct tb b;

	if (!m)
		return err_set(e, EX_FAIL, "out of memory");
	tb_init(&b, m, cap);
	put32(&b, (uint32_t)sel->n, le);
	for (i = 0; i < T2_SEL_MAX; i++) {
		uint32_t mask = i < sel->n ? sel->b[i].mask : 0;

		put16(&b, i < sel->n ? sel->b[i].alg : 0, le);
		tb_put_u8(&b, i < sel->n ? (mask >> 24 ? 4 : 3) : 0);
		put32(&b, 0, 0);
		/* pcrSelect is a byte array: same order on every host */
		m[b.len - 4] = (uint8_t)mask;
		m[b.len - 3] = (uint8_t)(mask >> 8);
		m[b.len - 2] = (uint8_t)(mask >> 16);
		m[b.len - 1] = (uint8_t)(mask >> 24);
		tb_put_u8(&b, 0);
	}
	put32(&b, (uint32_t)nlist, le);
	for (i = 0; i < nlist; i++) {
		int nd = v->n - i * T2_DIG_MAX;

		if (nd > T2_DIG_MAX)
			nd = T2_DIG_MAX;
		put32(&b, (uint32_t)nd, le);
		for (k = 0; k < T2_DIG_MAX; k++) {
			const struct pcr_val *pv = &v->v[i * T2_DIG_MAX + k];
			uint8_t zero[64] = {0};

			if (k < nd) {
				put16(&b, pv->len, le);
				tb_put_bytes(&b, pv->d, pv->len);
				tb_put_bytes(&b, zero, 64 - pv->len);
			} else {
				put16(&b, 0, le);
				tb_put_bytes(&b, zero, 64);
			}
		}
	}
	if (tb_err(&b) || b.len != cap) {
		free(m);
		return err_set(e, EX_FAIL, "pcrs file: internal size error");
	}
	*out = m;
	*n = cap;
	return 0;
}

int quote_failed(struct tberr *e, const char *check, const char *fmt, ...)
{
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return err_set(e, EX_FAIL, "%s check failed: %s", check, why);
}

int quote_check(const struct quote *q, const struct quote_want *w,
		struct tberr *e)
{
	struct quote_attest a;
	struct quote_sig s;
	struct vkey *k;
	uint8_t h[TPM2_MAX_DIGEST];
	char x[200], y[200];
	int rc;

	/* 1. signature: the TPM signed exactly these bytes. */
	if (quote_sig_parse(q->sig, q->sig_len, &s, e))
		return quote_failed(e, "signature", "%s", e->msg);
	if ((rc = vkey_parse(w->key, w->keylen, &k, e)))
		return rc;
	hash_buf(s.hash, q->attest, q->attest_len, h);
	rc = vkey_verify(k, s.alg, s.hash, h, hash_size(s.hash), s.r, s.rlen,
			 s.s, s.slen, e);
	vkey_free(k);
	if (rc)
		return quote_failed(e, "signature", "%s", e->msg);

	/* 2-3. a quote generated by a TPM. */
	if (quote_attest_parse(q->attest, q->attest_len, &a, e))
		return quote_failed(e, "attestation", "%s", e->msg);
	if (a.magic != TPM2_GENERATED_VALUE)
		return quote_failed(e, "magic", "0x%08x is not TPM_GENERATED_VALUE "
			      "(0xff544347)", a.magic);
	if (a.type != TPM2_ST_ATTEST_QUOTE)
		return quote_failed(e, "type", "0x%04x is not TPM_ST_ATTEST_QUOTE "
			      "(0x8018)", a.type);

	/* 3b. signed by the key we know, as the TPM names it: the signer's
	 * qualified name is QN(AK) = nameAlg || H(QN(parent) || Name(AK))
	 * (Part 1, "Qualified Name"), so without the parent's QN only its
	 * algorithm and size can be checked. */
	if (w->name) {
		uint16_t alg = w->namelen >= 2 ?
			       (uint16_t)(w->name[0] << 8 | w->name[1]) : 0;
		size_t d = hash_size(alg);

		if (!d || a.signer_len != 2 + d ||
		    a.signer[0] != w->name[0] || a.signer[1] != w->name[1])
			return quote_failed(e, "signer", "qualifiedSigner is not a "
				      "qualified name of the AK's name "
				      "algorithm");
		if (w->parent_qn) {
			struct hash_ctx *hc = hash_new(alg);
			uint8_t qn[TPM2_MAX_DIGEST];

			if (!hc)
				return quote_failed(e, "signer", "unsupported name "
					      "algorithm");
			hash_update(hc, w->parent_qn, w->parent_qnlen);
			hash_update(hc, w->name, w->namelen);
			hash_final(hc, qn);
			if (memcmp(qn, a.signer + 2, d)) {
				hex_encode(a.signer, a.signer_len, x);
				hex_encode(qn, d, y);
				return quote_failed(e, "signer", "qualifiedSigner %s "
					      "is not this AK under this SRK "
					      "(that is %.4s%s)", x, x, y);
			}
		}
	}
	if (w->scheme && (s.alg != w->scheme || s.hash != w->scheme_hash))
		return quote_failed(e, "signature", "signed with scheme 0x%04x/"
			      "0x%04x, the AK's is 0x%04x/0x%04x", s.alg,
			      s.hash, w->scheme, w->scheme_hash);

	/* 4. fresh: it answers our nonce. */
	if (w->nonce && (a.extra_len != w->nonce_len ||
			 memcmp(a.extra, w->nonce, a.extra_len))) {
		char hx[2 * sizeof(a.extra) + 1];

		hex_encode(a.extra, a.extra_len, hx);
		return quote_failed(e, "nonce", "the quote answers nonce '%s'",
			      a.extra_len ? hx : "(empty)");
	}

	/* 5. the selection signed, the values given, and the one asked. */
	if (!quote_sel_equal(&a.sel, &q->sel)) {
		quote_sel_format(&a.sel, x, sizeof(x));
		quote_sel_format(&q->sel, y, sizeof(y));
		return quote_failed(e, "PCR selection", "the quote covers %s, the "
			      "PCR values are for %s", x, y);
	}
	if (w->sel && !quote_sel_equal(&a.sel, w->sel)) {
		quote_sel_format(&a.sel, x, sizeof(x));
		quote_sel_format(w->sel, y, sizeof(y));
		return quote_failed(e, "PCR selection", "the quote covers %s, not "
			      "the %s asked for", x, y);
	}
	if (!quote_vals_match(&q->sel, &q->vals))
		return quote_failed(e, "PCR selection", "the PCR values do not "
			      "follow their selection");

	/* 6. the values are the ones the TPM hashed.  TPM2_Quote hashes
	 * them with the signing scheme's hash. */
	if (a.digest_len != hash_size(s.hash))
		return quote_failed(e, "PCR digest", "pcrDigest is %zu bytes, %s "
			      "gives %zu", a.digest_len, alg_name(s.hash),
			      hash_size(s.hash));
	quote_pcr_digest(s.hash, &q->vals, h);
	if (memcmp(h, a.digest, a.digest_len)) {
		hex_encode(a.digest, a.digest_len, x);
		return quote_failed(e, "PCR digest", "the PCR values hash to "
			      "another digest than the quoted %s", x);
	}
	return 0;
}

int quote_match_replay(const struct pcr_vals *quoted,
		       const struct pcr_vals *replayed, const char *check,
		       struct tberr *e)
{
	char x[2 * TPM2_MAX_DIGEST + 1], y[2 * TPM2_MAX_DIGEST + 1];
	int i, j, same = 0;

	for (i = 0; i < replayed->n; i++) {
		const struct pcr_val *r = &replayed->v[i];

		for (j = 0; j < quoted->n; j++) {
			const struct pcr_val *q = &quoted->v[j];

			if (q->alg != r->alg || q->idx != r->idx)
				continue;
			if (q->len != r->len || memcmp(q->d, r->d, q->len)) {
				hex_encode(r->d, r->len, x);
				hex_encode(q->d, q->len, y);
				return quote_failed(e, check, "%s:%u replays to %s, "
					      "the quote has %s",
					      alg_name(r->alg), r->idx, x, y);
			}
			same++;
		}
	}
	if (!same)
		return quote_failed(e, check, "the log extends none of the quoted "
			      "PCRs");
	return 0;
}

int quote_nonce_parse(const char *hex, size_t min, uint8_t out[64],
		      size_t *len, struct tberr *e)
{
	long n = hex_decode(hex, out, 64);

	if (n < 0 || (size_t)n < min)
		return err_set(e, EX_USAGE, "bad nonce '%s' (hex, at most 64 "
			       "bytes)", hex);
	*len = (size_t)n;
	return 0;
}

int quote_sel_want(const char *s, struct pcr_sel *sel, struct tberr *e)
{
	int i, rc;

	if ((rc = pcr_sel_parse(s, sel, e)))
		return rc;
	if (sel->all)
		return err_set(e, EX_USAGE, "name the banks in -p, e.g. "
			       "sha256:all");
	for (i = 0; i < sel->n; i++)
		if (sel->b[i].all)
			sel->b[i].mask = 0xffffff;
	return 0;
}
