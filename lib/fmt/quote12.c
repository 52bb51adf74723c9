/* TPM 1.2 quotes on the host (fmt/quote12.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/verify.h"
#include "fmt/quote.h"
#include "fmt/quote12.h"
#include "fmt/tssfile.h"
#include "tpm2/pcr.h"

#define SHA1 TPM2_ALG_SHA1
#define LOCALITY_0 0x01		/* TPM_LOCALITY_SELECTION: locality 0 */

void quote12_nonce(const uint8_t *n, size_t len, uint8_t out[TPM12_SHA1])
{
	if (len == TPM12_SHA1)
		memcpy(out, n, TPM12_SHA1);
	else
		hash_buf(SHA1, n, len, out);
}

int quote12_info_parse(const uint8_t *p, size_t n, struct quote12_info *i,
		       struct tberr *e)
{
	struct tb b;

	memset(i, 0, sizeof(*i));
	tb_init_read(&b, p, n);
	if (n >= 8 && !memcmp(p, "\x01\x01\x00\x00QUOT", 8)) {
		if (n != TPM12_QUOTE_INFO_SIZE)
			return err_set(e, EX_FAIL, "TPM_QUOTE_INFO is %zu "
				       "bytes, not 48", n);
		i->kind = 1;
		memcpy(i->digest, p + 8, TPM12_SHA1);
		memcpy(i->nonce, p + 28, TPM12_SHA1);
		return 0;
	}
	if (n >= 6 && !memcmp(p, "\x00\x36QUT2", 6)) {
		i->kind = 2;
		tb_skip(&b, 6);
		tb_get_bytes(&b, i->nonce, TPM12_SHA1);
		tpm12_get_pcr_info(&b, TPM12_PCR_INFO_SHORT, &i->pcr);
		if (tb_err(&b))
			return err_set(e, EX_FAIL, "TPM_QUOTE_INFO2: "
				       "truncated or malformed");
		/* addVersion: a TPM_CAP_VERSION_INFO (tag 0030) follows. */
		i->vlen = tb_left(&b);
		if (i->vlen && (i->vlen < 2 || p[b.pos] != 0x00 ||
				p[b.pos + 1] != 0x30))
			return err_set(e, EX_FAIL, "TPM_QUOTE_INFO2: %zu bytes "
				       "after it that are not a "
				       "TPM_CAP_VERSION_INFO", i->vlen);
		memcpy(i->digest, i->pcr.digest_release, TPM12_SHA1);
		return 0;
	}
	return err_set(e, EX_FAIL, "neither a TPM_QUOTE_INFO (01010000 "
		       "'QUOT') nor a TPM_QUOTE_INFO2 (0036 'QUT2')");
}

int quote12_file_is(const uint8_t *p, size_t n)
{
	return n >= 8 && !memcmp(p, QUOTE12_FILE_MAGIC, 8);
}

/* TPM_PCR_COMPOSITE: selection, UINT32 valueSize, the values. */
static void put_composite(struct tb *b, const struct quote12 *q)
{
	size_t i;

	tpm12_put_pcr_sel(b, &q->sel);
	tb_put_u32(b, (uint32_t)(q->nvals * TPM12_SHA1));
	for (i = 0; i < q->nvals; i++)
		tb_put_bytes(b, q->vals[i], TPM12_SHA1);
}

static size_t popcount(uint32_t m)
{
	size_t n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

int quote12_file_write(const struct quote12 *q, uint8_t **out, size_t *n,
		       struct tberr *e)
{
	size_t cap = 16 + 4 + q->infolen + 4 + q->siglen + 2 +
		TPM12_PCR_SELECT_MAX + 4 + q->nvals * TPM12_SHA1;
	uint8_t *m = malloc(cap);
	struct tb b;

	if (!m)
		return err_set(e, EX_FAIL, "out of memory");
	tb_init(&b, m, cap);
	tb_put_bytes(&b, QUOTE12_FILE_MAGIC, 8);
	tb_put_u16(&b, QUOTE12_FILE_VERSION);
	tb_put_u32(&b, (uint32_t)q->infolen);
	tb_put_bytes(&b, q->info, q->infolen);
	tb_put_u32(&b, (uint32_t)q->siglen);
	tb_put_bytes(&b, q->sig, q->siglen);
	put_composite(&b, q);
	if (tb_err(&b)) {
		free(m);
		return err_set(e, EX_FAIL, "quote file: too large");
	}
	*out = m;
	*n = b.len;
	return 0;
}

/* The composite's selection and values from a cursor. */
static int get_composite(struct tb *b, struct quote12 *q)
{
	uint32_t size;
	size_t i;

	tpm12_get_pcr_sel(b, &q->sel);
	size = tb_get_u32(b);
	if (tb_err(b))
		return -1;
	q->nvals = popcount(q->sel.mask);
	if (size != q->nvals * TPM12_SHA1)
		return -1;
	for (i = 0; i < q->nvals; i++)
		tb_get_bytes(b, q->vals[i], TPM12_SHA1);
	return tb_err(b) ? -1 : 0;
}

int quote12_file_read(const uint8_t *p, size_t n, struct quote12 *q,
		      struct tberr *e)
{
	struct tb b;
	uint32_t len;
	unsigned v;

	memset(q, 0, sizeof(*q));
	if (!quote12_file_is(p, n))
		return err_set(e, EX_FAIL, "quote file: not a tpmbox TPM 1.2 "
			       "quote (bad magic)");
	tb_init_read(&b, p, n);
	tb_skip(&b, 8);
	if ((v = tb_get_u16(&b)) != QUOTE12_FILE_VERSION)
		return err_set(e, EX_FAIL, "quote file: version %u is not "
			       "supported (1 is)", v);
	len = tb_get_u32(&b);
	if (tb_err(&b) || len > sizeof(q->info) || len > tb_left(&b))
		return err_set(e, EX_FAIL, "quote file: truncated, or the "
			       "signed bytes too large");
	q->infolen = len;
	tb_get_bytes(&b, q->info, len);
	len = tb_get_u32(&b);
	if (tb_err(&b) || len == 0 || len > sizeof(q->sig) ||
	    len > tb_left(&b))
		return err_set(e, EX_FAIL, "quote file: truncated, or the "
			       "signature empty or too large");
	q->siglen = len;
	tb_get_bytes(&b, q->sig, len);
	if (get_composite(&b, q))
		return err_set(e, EX_FAIL, "quote file: truncated or "
			       "malformed in the PCR values");
	if (tb_left(&b))
		return err_set(e, EX_FAIL, "quote file: %zu bytes after the "
			       "PCR values", tb_left(&b));
	return 0;
}

int quote12_pcrs_text(const struct quote12 *q, char **out, size_t *n,
		      struct tberr *e)
{
	char *s = malloc(q->nvals * 45 + 1), *w;
	size_t j = 0;
	int i, k;

	if (!s)
		return err_set(e, EX_FAIL, "out of memory");
	w = s;
	for (i = 0; i < TPM12_PCR_MAX && j < q->nvals; i++) {
		if (!(q->sel.mask >> i & 1))
			continue;
		w += sprintf(w, "%d=", i);
		hex_encode(q->vals[j++], TPM12_SHA1, w);
		for (k = 0; k < 40; k++)
			if (w[k] >= 'a' && w[k] <= 'f')
				w[k] = (char)(w[k] - 'a' + 'A');
		w += 40;
		*w++ = '\n';
	}
	*w = '\0';
	*out = s;
	*n = (size_t)(w - s);
	return 0;
}

/* tpm_getquote -p lines into q->sel (3 select bytes) and q->vals. */
static int pcrs_parse(const char *s, size_t n, struct quote12 *q,
		      struct tberr *e)
{
	size_t pos = 0;
	int line = 0, last = -1;

	q->nvals = 0;
	q->sel.mask = 0;
	while (pos < n) {
		const char *eol = memchr(s + pos, '\n', n - pos);
		size_t len = eol ? (size_t)(eol - (s + pos)) : n - pos;
		const char *l = s + pos;
		int idx = 0;
		size_t i = 0;

		line++;
		if (!eol)
			return err_set(e, EX_FAIL, "PCR file: line %d: no line "
				       "end", line);
		while (i < len && i < 3 && l[i] >= '0' && l[i] <= '9')
			idx = idx * 10 + (l[i++] - '0');
		if (i == 0 || i == 3 || (i > 1 && l[0] == '0') ||
		    idx >= 24 || i >= len || l[i] != '=' ||
		    len - i - 1 != 40)
			return err_set(e, EX_FAIL, "PCR file: line %d: not "
				       "N=HEX (a PCR below 24 and 40 hex "
				       "digits), as tpm_getquote -p writes",
				       line);
		if (idx <= last)
			return err_set(e, EX_FAIL, "PCR file: line %d: PCR %d "
				       "after PCR %d (ascending, once each)",
				       line, idx, last);
		{
			char hx[41];

			memcpy(hx, l + i + 1, 40);
			hx[40] = '\0';
			if (hex_decode(hx, q->vals[q->nvals], TPM12_SHA1) !=
			    TPM12_SHA1)
				return err_set(e, EX_FAIL, "PCR file: line %d: "
					       "bad hex", line);
		}
		q->sel.mask |= 1u << idx;
		q->nvals++;
		last = idx;
		pos += len + 1;
	}
	if (!q->nvals)
		return err_set(e, EX_FAIL, "PCR file: no PCR values");
	tpm12_pcr_sel_set(&q->sel, q->sel.mask, 3);
	return 0;
}

int quote12_from_getquote(const uint8_t *sig, size_t siglen,
			  const char *pcrs, size_t pcrslen,
			  const uint8_t nonce[TPM12_SHA1], struct quote12 *q,
			  struct tberr *e)
{
	struct tpm12_pcr_info info;
	struct tb b;

	memset(q, 0, sizeof(*q));
	if (siglen == 0 || siglen > sizeof(q->sig))
		return err_set(e, EX_FAIL, "signature file: %zu bytes is not "
			       "an RSA signature", siglen);
	memcpy(q->sig, sig, siglen);
	q->siglen = siglen;
	if (pcrs_parse(pcrs, pcrslen, q, e))
		return e->code;
	memset(&info, 0, sizeof(info));
	info.kind = TPM12_PCR_INFO_SHORT;
	info.release = q->sel;
	info.loc_release = LOCALITY_0;
	if (tpm12_pcr_composite_hash(&q->sel,
				     (const uint8_t (*)[TPM12_SHA1])q->vals,
				     q->nvals, info.digest_release))
		return err_set(e, EX_FAIL, "PCR file: cannot hash the values");
	tb_init(&b, q->info, sizeof(q->info));
	tpm12_put_quote_info2(&b, nonce, &info, NULL, 0);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "cannot build the TPM_QUOTE_INFO2");
	q->infolen = b.len;
	return 0;
}

/* An RSA key from PEM or DER into a TPM_PUBKEY (the default exponent
 * written as TPM 1.2 does: no exponent bytes). */
static int key_from_vkey(const uint8_t *p, size_t n, struct tpm12_pubkey *k,
			 struct tberr *e)
{
	uint8_t y[4];
	size_t alen, blen;
	struct vkey *v;
	uint32_t exp;
	int rc;

	if ((rc = vkey_parse(p, n, &v, e)))
		return rc;
	memset(k, 0, sizeof(*k));
	rc = vkey_type(v) != TPM2_ALG_RSA ||
	     vkey_raw(v, k->pub, sizeof(k->pub), &alen, y, sizeof(y), &blen,
		      &exp);
	vkey_free(v);
	if (rc)
		return err_set(e, EX_USAGE, "not an RSA public key (a TPM 1.2 "
			       "AIK is RSA)");
	k->publen = (uint32_t)alen;
	tpm12_key_parms_rsa(&k->parms, (uint32_t)alen * 8, TPM12_ES_NONE,
			    TPM12_SS_RSASSAPKCS1v15_SHA1);
	if (exp && exp != 65537) {
		k->parms.explen = 4;
		k->parms.exp[0] = (uint8_t)(exp >> 24);
		k->parms.exp[1] = (uint8_t)(exp >> 16);
		k->parms.exp[2] = (uint8_t)(exp >> 8);
		k->parms.exp[3] = (uint8_t)exp;
	}
	return 0;
}

int quote12_is_tpm_key(const uint8_t *p, size_t n)
{
	/* TPM_KEY's version 1.1.0.0, or TPM_KEY12's tag */
	return n >= 4 && ((p[0] == 1 && p[1] == 1 && !p[2] && !p[3]) ||
			  (p[0] == 0 && p[1] == 0x28));
}

int quote12_key_load(const uint8_t *p, size_t n, struct tpm12_pubkey *k,
		     int *aik, struct tberr *e)
{
	struct tpm12_key *key;
	struct tberr ign;

	*aik = 0;
	memset(&ign, 0, sizeof(ign));
	if (n >= 2 && p[0] == 0x30 &&
	    tss_pubkey_blob_parse(p, n, k, "key", &ign) == 0)
		return 0;
	if (quote12_is_tpm_key(p, n)) {
		if (!(key = malloc(sizeof(*key))))
			return err_set(e, EX_FAIL, "out of memory");
		if (tpm12_key_parse(p, n, key, "key", &ign) == 0) {
			int rc = 0;

			if (key->usage != TPM12_KEY_IDENTITY)
				rc = err_set(e, EX_FAIL, "the TPM_KEY is not "
					     "an attestation identity key "
					     "(usage 0x%04x, not "
					     "TPM_KEY_IDENTITY 0x0012)",
					     key->usage);
			memset(k, 0, sizeof(*k));
			k->parms = key->parms;
			k->publen = key->publen;
			memcpy(k->pub, key->pub, key->publen);
			free(key);
			*aik = 1;
			return rc;
		}
		free(key);
	}
	if (n >= 4 && !p[0] && !p[1] && !p[2] && p[3] == 1 &&
	    tpm12_pubkey_parse(p, n, k, "key", &ign) == 0)
		return 0;
	if (key_from_vkey(p, n, k, e))
		return err_set(e, EX_USAGE, "not an AIK: neither a TPM_KEY "
			       "(akcreate -o, tpm_mkaik's blob), tpm_mkaik's "
			       "public key file, a TPM_PUBKEY nor an RSA "
			       "public key in PEM or DER");
	return 0;
}

int quote12_sig_verify(const struct tpm12_pubkey *k, const uint8_t *msg,
		       size_t n, const uint8_t *sig, size_t siglen,
		       struct tberr *e)
{
	uint8_t h[TPM12_SHA1], *der = NULL;
	struct vkey *v;
	size_t dlen;
	uint32_t exp = tpm12_rsa_exponent(&k->parms);
	int rc;

	if (k->parms.alg != TPM12_ALG_RSA || !exp || !k->publen)
		return err_set(e, EX_FAIL, "the key is not an RSA key");
	if (pk_der_rsa(k->pub, k->publen, exp, &der, &dlen))
		return err_set(e, EX_FAIL, "the key's modulus is not usable");
	rc = vkey_parse(der, dlen, &v, e);
	free(der);
	if (rc)
		return err_set(e, EX_FAIL, "the key's modulus is not usable");
	hash_buf(SHA1, msg, n, h);
	rc = vkey_verify(v, TPM2_ALG_RSASSA, SHA1, h, sizeof(h), sig, siglen,
			 NULL, 0, e);
	vkey_free(v);
	return rc ? EX_FAIL : 0;
}

void quote12_key_hash(const struct tpm12_pubkey *k, uint8_t out[20])
{
	uint8_t buf[2 * TPM12_RSA_MAX + 128];
	struct tb b;

	tb_init(&b, buf, sizeof(buf));
	tpm12_put_pubkey(&b, k);
	hash_buf(SHA1, buf, b.len, out);
}

/* "0,7,10" into buf. */
static void mask_format(uint32_t m, char *buf, size_t n)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < 32 && at < n; i++)
		if (m >> i & 1)
			at += (size_t)snprintf(buf + at, n - at, "%s%d",
					       at ? "," : "", i);
	if (!m)
		snprintf(buf, n, "none");
}

int quote12_check(const struct quote12 *q, const struct quote12_want *w,
		  struct tberr *e)
{
	struct quote12_info i;
	uint8_t h[TPM12_SHA1];
	char x[120], y[120];

	/* 1. signature: the AIK signed exactly these bytes. */
	if (quote12_sig_verify(w->key, q->info, q->infolen, q->sig,
			       q->siglen, e))
		return quote_failed(e, "signature", "%s", e->msg);
	/* 2. a TPM_QUOTE_INFO or TPM_QUOTE_INFO2. */
	if (quote12_info_parse(q->info, q->infolen, &i, e))
		return quote_failed(e, "structure", "%s", e->msg);
	/* 3. fresh: it answers our nonce. */
	if (w->nonce && memcmp(i.nonce, w->nonce, TPM12_SHA1)) {
		hex_encode(i.nonce, TPM12_SHA1, x);
		return quote_failed(e, "nonce", "the quote answers nonce %s", x);
	}
	/* 4. the selection signed (Quote2), the values', the one asked. */
	if (i.kind == 2 && i.pcr.release.mask != q->sel.mask) {
		mask_format(i.pcr.release.mask, x, sizeof(x));
		mask_format(q->sel.mask, y, sizeof(y));
		return quote_failed(e, "PCR selection", "the quote covers sha1:%s, "
			      "the PCR values are for sha1:%s", x, y);
	}
	if (w->has_mask && q->sel.mask != w->mask) {
		mask_format(q->sel.mask, x, sizeof(x));
		mask_format(w->mask, y, sizeof(y));
		return quote_failed(e, "PCR selection", "the quote covers sha1:%s, "
			      "not the sha1:%s asked for", x, y);
	}
	/* 5. the values are the ones the TPM hashed: TPM_PCR_COMPOSITE
	 * (with the selection as the TPM wrote it, its size included). */
	if (i.kind == 2 && i.pcr.release.size != q->sel.size)
		return quote_failed(e, "PCR digest", "the values' selection is %u "
			      "bytes, the quote's %u", q->sel.size,
			      i.pcr.release.size);
	if (tpm12_pcr_composite_hash(&q->sel,
				     (const uint8_t (*)[TPM12_SHA1])q->vals,
				     q->nvals, h))
		return quote_failed(e, "PCR digest", "the PCR values do not follow "
			      "their selection");
	if (memcmp(h, i.digest, TPM12_SHA1)) {
		hex_encode(i.digest, TPM12_SHA1, x);
		return quote_failed(e, "PCR digest", "the PCR values hash to "
			      "another digest than the quoted %s", x);
	}
	return 0;
}

void quote12_pcr_vals(const struct quote12 *q, struct pcr_vals *v)
{
	size_t j = 0;
	int i;

	v->n = 0;
	for (i = 0; i < TPM12_PCR_MAX && j < q->nvals; i++) {
		if (!(q->sel.mask >> i & 1))
			continue;
		v->v[v->n].alg = TPM2_ALG_SHA1;
		v->v[v->n].idx = (uint8_t)i;
		v->v[v->n].len = TPM12_SHA1;
		memcpy(v->v[v->n].d, q->vals[j++], TPM12_SHA1);
		v->n++;
	}
}

int quote12_sel_parse(const char *s, uint32_t *mask, struct tberr *e)
{
	struct pcr_sel sel;
	char buf[256];
	int i, rc;

	if (!strchr(s, ':') && strcmp(s, "all")) {
		if (strlen(s) > sizeof(buf) - 6)
			return err_set(e, EX_USAGE, "bad PCR selection '%s'",
				       s);
		snprintf(buf, sizeof(buf), "sha1:%s", s);
		s = buf;
	} else if (!strcmp(s, "all")) {
		s = "sha1:all";
	}
	if ((rc = pcr_sel_parse(s, &sel, e)))
		return rc;
	*mask = 0;
	for (i = 0; i < sel.n; i++) {
		if (sel.b[i].alg != TPM2_ALG_SHA1)
			return err_set(e, EX_USAGE, "PCR bank %s: the quote is "
				       "from a TPM 1.2, which has only the "
				       "sha1 bank", alg_name(sel.b[i].alg));
		*mask |= sel.b[i].all ? 0xffffff : sel.b[i].mask;
	}
	return 0;
}
