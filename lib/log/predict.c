/* Predicted PCRs: replace digests in a parsed event log (see log/predict.h).
 *
 * EFI_SIGNATURE_LIST (UEFI spec 32.4.1), little-endian: SignatureType
 * GUID, SignatureListSize u32, SignatureHeaderSize u32, SignatureSize
 * u32, SignatureHeader[SignatureHeaderSize], then signatures of
 * SignatureSize bytes each (an owner GUID, then the data). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "crypto/hash.h"
#include "log/predict.h"

/* EFI_GLOBAL_VARIABLE 8be4df61-93ca-11d2-aa0d-00e098032b8c and
 * EFI_IMAGE_SECURITY_DATABASE_GUID d719b2cb-3d3a-4596-a3bc-dad00e67656f,
 * as they are laid out in memory (the first three fields little-endian). */
static const uint8_t guid_global[16] = {
	0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
	0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c
};
static const uint8_t guid_imgdb[16] = {
	0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45,
	0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f
};

static const struct {
	const char *name;
	const uint8_t *guid;
} vars[] = {
	{ "SecureBoot", guid_global },
	{ "PK", guid_global },
	{ "KEK", guid_global },
	{ "db", guid_imgdb },
	{ "dbx", guid_imgdb },
};

static void note(struct pred *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append one line to the notes (dropped when out of memory: the count
 * still says that something could not be recomputed). */
static void note(struct pred *p, const char *fmt, ...)
{
	char line[320];
	va_list ap;
	size_t n;
	char *q;

	p->nnotes++;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	if (!(q = realloc(p->notes, p->nlen + n + 2)))
		return;
	memcpy(q + p->nlen, line, n);
	q[p->nlen + n] = '\n';
	q[p->nlen + n + 1] = '\0';
	p->notes = q;
	p->nlen += n + 1;
}

int pred_init(struct pred *p, struct evl *log, struct tberr *e)
{
	memset(p, 0, sizeof(*p));
	p->log = log;
	p->mem = calloc((size_t)log->n * TPM2_MAX_BANKS, sizeof(*p->mem));
	if (!p->mem)
		return err_set(e, EX_IO, "out of memory");
	return 0;
}

void pred_free(struct pred *p)
{
	free(p->mem);
	free(p->notes);
	memset(p, 0, sizeof(*p));
}

int pred_banks(const struct pred *p, uint16_t *algs)
{
	int k, n = 0;

	for (k = 0; k < p->log->nalgs; k++)
		if (hash_supported(p->log->algs[k].alg))
			algs[n++] = p->log->algs[k].alg;
	return n;
}

/* Index in pred_banks order of alg; -1 when not hashed. */
static int bank_index(const struct pred *p, uint16_t alg)
{
	uint16_t algs[TPM2_MAX_BANKS];
	int n = pred_banks(p, algs), k;

	for (k = 0; k < n; k++)
		if (algs[k] == alg)
			return k;
	return -1;
}

/* Point digest j of event i at a new value. */
static void set_digest(struct pred *p, uint32_t i, int j, const uint8_t *d)
{
	struct evl_event *ev = &p->log->ev[i];
	uint8_t *m = p->mem[(size_t)i * TPM2_MAX_BANKS + (size_t)j];

	memcpy(m, d, ev->dig[j].len);
	ev->dig[j].d = m;
}

static const char *type_name(uint32_t type)
{
	const char *s = evl_type_name(type);

	return s ? s : "event";
}

int pred_app(struct pred *p, const char *label, const uint8_t (*old)[64],
	     const uint8_t (*new)[64], int *count, struct tberr *e)
{
	uint32_t i;
	int j, k, match, hashed;

	(void)e;
	*count = 0;
	for (i = 0; i < p->log->n; i++) {
		struct evl_event *ev = &p->log->ev[i];

		if (ev->type != EV_EFI_BOOT_SERVICES_APPLICATION &&
		    ev->type != EV_EFI_BOOT_SERVICES_DRIVER)
			continue;
		match = hashed = 0;
		for (j = 0; j < ev->ndig; j++) {
			if ((k = bank_index(p, ev->dig[j].alg)) < 0)
				continue;
			hashed++;
			if (!memcmp(ev->dig[j].d, old[k], ev->dig[j].len))
				match++;
		}
		if (!match)
			continue;
		if (match != hashed) {
			note(p, "event %u (PCR %u %s): %s matches %d of its %d"
			     " digests; not replaced", ev->num, ev->pcr,
			     type_name(ev->type), label, match, hashed);
			continue;
		}
		for (j = 0; j < ev->ndig; j++)
			if ((k = bank_index(p, ev->dig[j].alg)) >= 0)
				set_digest(p, i, j, new[k]);
		(*count)++;
	}
	if (!*count)
		note(p, "%s: no boot application or driver in the log has its"
		     " digest", label);
	return 0;
}

static int var_index(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(vars[i].name, name))
			return (int)i;
	return -1;
}

int pred_var_known(const char *name)
{
	return var_index(name) >= 0;
}

/* A whole sequence of EFI_SIGNATURE_LISTs: 0, or -1 with *why set. */
static int esl_check(const uint8_t *p, size_t len, const char **why,
		     size_t *at)
{
	struct tb b;

	tb_init_read(&b, p, len);
	while (tb_left(&b)) {
		uint32_t lsz, hsz, ssz;

		*at = b.pos;
		tb_skip(&b, 16);
		lsz = tb_get_u32_le(&b);
		hsz = tb_get_u32_le(&b);
		ssz = tb_get_u32_le(&b);
		if (tb_err(&b)) {
			*why = "truncated signature list header";
			return -1;
		}
		if (lsz < 28 || lsz - 28 > tb_left(&b)) {
			*why = "signature list size runs past the end";
			return -1;
		}
		if (hsz > lsz - 28 || ssz < 16 || (lsz - 28 - hsz) % ssz) {
			*why = "signature list sizes do not add up";
			return -1;
		}
		tb_skip(&b, lsz - 28);
	}
	return 0;
}

/* efivarfs attributes: NON_VOLATILE 1, BOOTSERVICE_ACCESS 2,
 * RUNTIME_ACCESS 4, ... TIME_BASED_AUTHENTICATED_WRITE_ACCESS 0x20,
 * APPEND_WRITE 0x40.  A readable variable has BS and RT. */
static int attrs_like(const uint8_t *p)
{
	uint32_t a = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;

	return (a & ~0x7fu) == 0 && (a & 6u) == 6u;
}

int pred_var_value(const char *name, const uint8_t **val, size_t *len,
		   struct tberr *e)
{
	const char *why = NULL, *why2 = NULL;
	size_t at = 0, at2 = 0;

	if (!strcmp(name, "SecureBoot")) {
		if (*len == 5 && attrs_like(*val)) {
			*val += 4;
			*len = 1;
		}
		if (*len != 1 || (**val != 0 && **val != 1))
			return err_set(e, EX_FAIL, "a SecureBoot value is one "
				       "byte, 0 or 1 (%zu bytes given)", *len);
		return 0;
	}
	if (!esl_check(*val, *len, &why, &at))
		return 0;
	/* Not a signature list sequence as it is: a copy of the efivarfs
	 * file (attributes first)? */
	if (*len >= 4 && attrs_like(*val) &&
	    !esl_check(*val + 4, *len - 4, &why2, &at2)) {
		*val += 4;
		*len -= 4;
		return 0;
	}
	return err_set(e, EX_FAIL, "not an EFI_SIGNATURE_LIST sequence: %s "
		       "(list at offset %zu)", why, at);
}

/* Does the event's UEFI_VARIABLE_DATA name variable vi? */
static int var_is(const struct evl_var *v, int vi)
{
	const char *s = vars[vi].name;
	size_t i, n = strlen(s);

	if (memcmp(v->guid, vars[vi].guid, 16) || v->nlen != n)
		return 0;
	for (i = 0; i < n; i++)
		if (v->name[2 * i] != (uint8_t)s[i] || v->name[2 * i + 1])
			return 0;
	return 1;
}

static void put_u64_le(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int pred_var(struct pred *p, const char *name, const uint8_t *val,
	     size_t len, int *count, struct tberr *e)
{
	int vi = var_index(name), j, ok;
	uint32_t i;

	*count = 0;
	if (vi < 0)
		return err_set(e, EX_USAGE, "unknown variable %s (SecureBoot, "
			       "PK, KEK, db or dbx)", name);
	for (i = 0; i < p->log->n; i++) {
		struct evl_event *ev = &p->log->ev[i];
		struct evl_var v;
		uint8_t d[TPM2_MAX_DIGEST], hdr[32];

		if (ev->type != EV_EFI_VARIABLE_DRIVER_CONFIG ||
		    evl_var_parse(ev, &v) || !var_is(&v, vi))
			continue;
		/* Only an event whose digests are the hash of its whole
		 * data (as the PC Client spec says) can be recomputed:
		 * some firmware hashes the value alone, or something else. */
		ok = 1;
		for (j = 0; j < ev->ndig && ok; j++) {
			if (bank_index(p, ev->dig[j].alg) < 0)
				continue;
			hash_buf(ev->dig[j].alg, ev->data, ev->dlen, d);
			ok = !memcmp(d, ev->dig[j].d, ev->dig[j].len);
		}
		if (!ok) {
			note(p, "event %u (PCR %u EV_EFI_VARIABLE_DRIVER_CONFIG"
			     " %s): its %s digest is not the hash of its data; "
			     "cannot recompute it", ev->num, ev->pcr, name,
			     alg_name(ev->dig[j - 1].alg));
			continue;
		}
		memcpy(hdr, ev->data, 32);
		put_u64_le(hdr + 24, len);
		for (j = 0; j < ev->ndig; j++) {
			struct hash_ctx *h;

			if (bank_index(p, ev->dig[j].alg) < 0)
				continue;
			if (!(h = hash_new(ev->dig[j].alg)))
				return err_set(e, EX_IO, "out of memory");
			hash_update(h, hdr, 32);
			hash_update(h, v.name, 2 * v.nlen);
			hash_update(h, val, len);
			hash_final(h, d);
			set_digest(p, i, j, d);
		}
		(*count)++;
	}
	if (!*count)
		note(p, "%s: no EV_EFI_VARIABLE_DRIVER_CONFIG event for it in "
		     "the log", name);
	/* Which db entry verified an image (EV_EFI_VARIABLE_AUTHORITY) and
	 * whether images are verified at all depend on db and SecureBoot. */
	if ((!strcmp(name, "db") || !strcmp(name, "SecureBoot")) &&
	    !p->authority_noted) {
		p->authority_noted = 1;
		for (i = 0; i < p->log->n; i++) {
			struct evl_event *ev = &p->log->ev[i];

			if (ev->type == EV_EFI_VARIABLE_AUTHORITY)
				note(p, "event %u (PCR %u EV_EFI_VARIABLE_"
				     "AUTHORITY): may change with %s; not "
				     "recomputed", ev->num, ev->pcr, name);
		}
	}
	return 0;
}

int pred_select(const struct pcr_vals *in, const struct pcr_sel *sel,
		struct pcr_vals *out, struct tberr *e)
{
	int b, i, p, found;

	out->n = 0;
	if (sel->all) {
		*out = *in;
		return 0;
	}
	for (b = 0; b < sel->n; b++) {
		found = 0;
		for (i = 0; i < in->n; i++)
			if (in->v[i].alg == sel->b[b].alg)
				found = 1;
		if (!found)
			return err_set(e, EX_FAIL, "the log has no %s bank (or "
				       "this build cannot hash it)",
				       alg_name(sel->b[b].alg));
		for (p = 0; p < 32; p++) {
			if (!sel->b[b].all && !(sel->b[b].mask & 1u << p))
				continue;
			for (i = 0; i < in->n; i++)
				if (in->v[i].alg == sel->b[b].alg &&
				    in->v[i].idx == p)
					break;
			if (i < in->n)
				out->v[out->n++] = in->v[i];
			else if (!sel->b[b].all)
				return err_set(e, EX_FAIL, "%s:%d: the log does"
					       " not extend it; its value is "
					       "not predicted",
					       alg_name(sel->b[b].alg), p);
		}
	}
	return 0;
}
