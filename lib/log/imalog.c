/* IMA measurement lists: parse and replay.
 *
 * How the kernel extends (security/integrity/ima, checked against its
 * ima_calc_field_array_hash and ima_add_template_entry):
 *   - the template hash of a bank is that bank's hash over the template
 *     fields, each field preceded by its u32 length -- which is exactly the
 *     template data as the binary list shows it -- except for the "ima"
 *     template, whose hash covers the digest field as is and the file name
 *     zero-padded to 256 bytes (IMA_EVENT_NAME_LEN_MAX + 1);
 *   - the list shows only the SHA-1 template hash, so the SHA-1 bank is
 *     replayed from it and the other banks from the recomputed hash;
 *   - a violation is logged with an all-zero template hash and extends
 *     0xff...ff (the bank's digest size) into every bank;
 *   - a bank whose hash the kernel could not allocate at IMA's start
 *     (ima_init_crypto: "Can not allocate sha384") is extended with the
 *     SHA-1 template hash zero-padded to the bank's size (seen on Debian's
 *     6.1, where sha384 and sha512 are modules);
 *   - ima_add_template_entry appends to the list first and extends the
 *     PCR after, so the list read after the PCRs may be longer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "crypto/hash.h"
#include "log/imalog.h"

#define IMA_NAME_PAD 256	/* IMA_EVENT_NAME_LEN_MAX + 1 */

static const uint8_t zero20[20];

static int truncated(struct tberr *e, uint32_t num, size_t off, size_t len)
{
	return err_set(e, EX_FAIL, "IMA log truncated at offset %zu: entry "
		       "%u (at offset %zu) runs past the end", len, num, off);
}

/* Decode the fields of a template other than "ima": a list of
 * (u32 length, bytes), the first a d-ng digest ("alg:\0" + digest), the
 * second an n-ng name, the third (ima-sig) a signature. */
static int decode_ng(struct ima_entry *en, struct tberr *e)
{
	struct tb b;
	int k = 0;

	tb_init_read(&b, en->tdata, en->tlen);
	while (tb_left(&b)) {
		uint32_t n = tb_get_u32_le(&b);
		const uint8_t *p;

		if (tb_err(&b) || n > tb_left(&b))
			return err_set(e, EX_FAIL, "IMA entry %u at offset "
				       "%zu: template field %d runs past the "
				       "template data", en->num, en->offset,
				       k + 1);
		p = tb_get_ref(&b, n);
		if (k == 0 && strncmp(en->name, "ima-", 4) == 0) {
			const uint8_t *colon = memchr(p, ':', n);

			/* d-ng: "alg:" NUL digest. */
			if (colon && (size_t)(colon - p) < sizeof(en->dalg) &&
			    (size_t)(colon - p) + 2 <= n &&
			    colon[1] == '\0') {
				memcpy(en->dalg, p, (size_t)(colon - p));
				en->dalg[colon - p] = '\0';
				en->digest = colon + 2;
				en->dsize = n - (uint32_t)(colon - p) - 2;
			} else {
				/* "d" in a custom template: a bare digest. */
				strcpy(en->dalg, n == 20 ? "sha1" : "");
				en->digest = p;
				en->dsize = n;
			}
		} else if (k == 1 && strncmp(en->name, "ima-", 4) == 0) {
			en->path = p;
			en->plen = n;
			/* n-ng carries its NUL terminator. */
			if (en->plen && p[en->plen - 1] == '\0')
				en->plen--;
		} else if (k == 2 && strcmp(en->name, "ima-sig") == 0) {
			en->sig = p;
			en->slen = n;
		}
		k++;
	}
	if (strcmp(en->name, "ima-ng") == 0 && k != 2)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "ima-ng has %d template fields, expected 2",
			       en->num, en->offset, k);
	if (strcmp(en->name, "ima-sig") == 0 && k != 3 && k != 2)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "ima-sig has %d template fields, expected 3",
			       en->num, en->offset, k);
	return 0;
}

/* The template hash of one bank over an entry, as the kernel computes it.
 * Returns -1 if the bank cannot be computed. */
static int template_hash(const struct ima_entry *en, uint16_t bank,
			 uint8_t *out)
{
	struct hash_ctx *h;
	uint8_t pad[IMA_NAME_PAD];

	if (strcmp(en->name, "ima") != 0)
		return hash_buf(bank, en->tdata, en->tlen, out);
	if (!(h = hash_new(bank)))
		return -1;
	memset(pad, 0, sizeof(pad));
	memcpy(pad, en->path, en->plen);	/* plen < 256: checked */
	hash_update(h, en->digest, en->dsize);
	hash_update(h, pad, sizeof(pad));
	hash_final(h, out);
	return 0;
}

static int get_entry(struct tb *b, struct ima_entry *en, struct tberr *e)
{
	uint32_t nlen;
	const uint8_t *p;

	en->pcr = tb_get_u32_le(b);
	en->hash = tb_get_ref(b, 20);
	nlen = tb_get_u32_le(b);
	if (tb_err(b))
		return truncated(e, en->num, en->offset, b->len);
	if (en->pcr > 31) {
		err_set(e, EX_FAIL, "IMA entry %u at offset %zu: PCR %u is out "
			"of range", en->num, en->offset, en->pcr);
		if (__builtin_bswap32(en->pcr) <= 31)
			err_hint(e, "a big-endian list? tpmbox reads the "
				 "little-endian (canonical) format: boot with "
				 "ima_canonical_fmt");
		return EX_FAIL;
	}
	if (nlen == 0 || nlen > IMA_MAX_NAME)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "template name length %u (1-%u allowed)",
			       en->num, en->offset, nlen, IMA_MAX_NAME);
	if (!(p = tb_get_ref(b, nlen)))
		return truncated(e, en->num, en->offset, b->len);
	memcpy(en->name, p, nlen);
	en->name[nlen] = '\0';
	if (strlen(en->name) != nlen)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: NUL "
			       "in the template name", en->num, en->offset);
	en->invalid = memcmp(en->hash, zero20, 20) == 0;
	if (strcmp(en->name, "ima") == 0) {
		/* No overall length: a SHA-1 digest, then a u32-length name
		 * without its NUL. */
		size_t start = b->pos;
		uint32_t plen;

		en->digest = tb_get_ref(b, 20);
		plen = tb_get_u32_le(b);
		if (tb_err(b))
			return truncated(e, en->num, en->offset, b->len);
		if (plen >= IMA_NAME_PAD)
			return err_set(e, EX_FAIL, "IMA entry %u at offset "
				       "%zu: file name of %u bytes in an "
				       "\"ima\" entry (at most %u)", en->num,
				       en->offset, plen, IMA_NAME_PAD - 1);
		if (!(en->path = tb_get_ref(b, plen)))
			return truncated(e, en->num, en->offset, b->len);
		strcpy(en->dalg, "sha1");
		en->dsize = 20;
		en->plen = plen;
		en->tdata = b->p + start;
		en->tlen = (uint32_t)(b->pos - start);
		return 0;
	}
	en->tlen = tb_get_u32_le(b);
	if (tb_err(b))
		return truncated(e, en->num, en->offset, b->len);
	if (en->tlen > IMA_MAX_TDATA)
		return err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
			       "template data of %u bytes exceeds the limit "
			       "of %u", en->num, en->offset, en->tlen,
			       IMA_MAX_TDATA);
	if (!(en->tdata = tb_get_ref(b, en->tlen)))
		return truncated(e, en->num, en->offset, b->len);
	return decode_ng(en, e);
}

void imalog_free(struct imalog *log)
{
	free(log->ent);
	log->ent = NULL;
	log->n = 0;
}

int imalog_parse(const uint8_t *buf, size_t len, struct imalog *log,
		 struct tberr *e)
{
	struct tb b;
	uint32_t cap = 64;
	int rc;

	memset(log, 0, sizeof(*log));
	if (len == 0)
		return err_set(e, EX_FAIL, "IMA log is empty");
	if (!(log->ent = malloc(cap * sizeof(*log->ent))))
		return err_set(e, EX_IO, "out of memory");
	tb_init_read(&b, buf, len);
	while (tb_left(&b)) {
		struct ima_entry *en;
		uint8_t h[20];

		if (log->n == IMA_MAX_ENTRIES) {
			rc = err_set(e, EX_FAIL, "IMA log has more than %u "
				     "entries", IMA_MAX_ENTRIES);
			goto fail;
		}
		if (log->n == cap) {
			struct ima_entry *p = realloc(log->ent, 2 * cap *
						      sizeof(*p));

			if (!p) {
				rc = err_set(e, EX_IO, "out of memory");
				goto fail;
			}
			log->ent = p;
			cap *= 2;
		}
		en = &log->ent[log->n];
		memset(en, 0, sizeof(*en));
		en->num = log->n;
		en->offset = b.pos;
		if ((rc = get_entry(&b, en, e)))
			goto fail;
		/* A forged or corrupted entry: its data does not match the
		 * hash that went into the TPM. */
		if (!en->invalid && (template_hash(en, TPM2_ALG_SHA1, h) ||
				     memcmp(h, en->hash, 20))) {
			rc = err_set(e, EX_FAIL, "IMA entry %u at offset %zu: "
				     "template hash does not match its "
				     "template data", en->num, en->offset);
			goto fail;
		}
		log->n++;
	}
	return 0;
fail:
	imalog_free(log);
	return rc;
}

/* The digest one entry extends into a bank, written to out. */
static void extend_digest(const struct ima_entry *en, uint16_t bank, int how,
			  size_t sz, uint8_t *out)
{
	if (en->invalid) {
		memset(out, 0xff, sz);
	} else if (bank == TPM2_ALG_SHA1) {
		memcpy(out, en->hash, sz);
	} else if (how == IMA_DIGEST_SHA1_PADDED) {
		memset(out, 0, sz);
		memcpy(out, en->hash, 20);
	} else {
		template_hash(en, bank, out);
	}
}

int imalog_bank_ok(uint16_t bank)
{
	return bank == TPM2_ALG_SHA1 || bank == TPM2_ALG_SHA256 ||
	       bank == TPM2_ALG_SHA384 || bank == TPM2_ALG_SHA512;
}

int imalog_replay(const struct imalog *log, uint16_t bank,
		  struct pcr_vals *out, struct tberr *e)
{
	uint8_t val[32][TPM2_MAX_DIGEST], m[2 * TPM2_MAX_DIGEST];
	size_t sz = hash_size(bank);
	uint32_t touched = 0, i;
	int p;

	if (!imalog_bank_ok(bank) || !hash_supported(bank))
		return err_set(e, EX_USAGE, "cannot replay an IMA log in bank "
			       "%s (sha1, sha256, sha384, sha512 can be)",
			       alg_name(bank));
	memset(val, 0, sizeof(val));
	for (i = 0; i < log->n; i++) {
		const struct ima_entry *en = &log->ent[i];

		memcpy(m, val[en->pcr], sz);
		extend_digest(en, bank, IMA_DIGEST_OWN, sz, m + sz);
		hash_buf(bank, m, 2 * sz, val[en->pcr]);
		touched |= 1u << en->pcr;
	}
	for (p = 0; p < 32; p++) {
		struct pcr_val *v;

		if (!(touched & (1u << p)))
			continue;
		if (out->n >= (int)(sizeof(out->v) / sizeof(out->v[0])))
			return err_set(e, EX_FAIL, "too many PCR values");
		v = &out->v[out->n++];
		v->alg = bank;
		v->idx = (uint8_t)p;
		v->len = (uint8_t)sz;
		memcpy(v->d, val[p], sz);
	}
	return 0;
}

uint32_t imalog_pcrs(const struct imalog *log)
{
	uint32_t m = 0, i;

	for (i = 0; i < log->n; i++)
		m |= 1u << log->ent[i].pcr;
	return m;
}

int imalog_match(const struct imalog *log, uint16_t bank,
		 const struct pcr_vals *pcrs, struct ima_match *m,
		 struct tberr *e)
{
	uint8_t val[32][TPM2_MAX_DIGEST], m2[2 * TPM2_MAX_DIGEST];
	const struct pcr_val *want[32];
	size_t sz = hash_size(bank);
	uint32_t touched = imalog_pcrs(log), i;
	int how, p, k;

	memset(m, 0, sizeof(*m));
	m->bank = bank;
	if (!imalog_bank_ok(bank) || !hash_supported(bank))
		return err_set(e, EX_USAGE, "cannot replay an IMA log in bank "
			       "%s (sha1, sha256, sha384, sha512 can be)",
			       alg_name(bank));
	memset(want, 0, sizeof(want));
	for (k = 0; k < pcrs->n; k++) {
		const struct pcr_val *v = &pcrs->v[k];

		if (v->alg == bank && v->idx < 32 && v->len == sz &&
		    (touched & (1u << v->idx)) && !want[v->idx]) {
			want[v->idx] = v;
			m->compared++;
		}
	}
	if (!m->compared)
		return 0;
	/* SHA-1 has one way only. */
	for (how = IMA_DIGEST_OWN; how <= (bank == TPM2_ALG_SHA1 ?
		IMA_DIGEST_OWN : IMA_DIGEST_SHA1_PADDED); how++) {
		memset(val, 0, sizeof(val));
		for (i = 0; i < log->n; i++) {
			const struct ima_entry *en = &log->ent[i];
			int all = 1;

			memcpy(m2, val[en->pcr], sz);
			extend_digest(en, bank, how, sz, m2 + sz);
			hash_buf(bank, m2, 2 * sz, val[en->pcr]);
			for (p = 0; p < 32 && all; p++)
				if (want[p] && memcmp(want[p]->d, val[p], sz))
					all = 0;
			if (all) {
				m->matched = 1;
				m->how = how;
				m->upto = i + 1;
			}
		}
		if (m->matched)
			return 0;
	}
	return 0;
}

int imalog_fields(const struct ima_entry *en, struct ima_field *f, int max)
{
	struct tb b;
	int k = 0;

	if (strcmp(en->name, "ima") == 0) {
		if (max < 2)
			return 0;
		f[0].p = en->digest;
		f[0].len = en->dsize;
		f[1].p = en->path;
		f[1].len = en->plen;
		return 2;
	}
	tb_init_read(&b, en->tdata, en->tlen);
	while (tb_left(&b) && k < max) {
		uint32_t n = tb_get_u32_le(&b);

		if (tb_err(&b) || n > tb_left(&b))
			break;
		f[k].len = n;
		f[k++].p = tb_get_ref(&b, n);
	}
	return k;
}
