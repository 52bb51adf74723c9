#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/pcr.h"
#include "tpm2/rc.h"
#include "tpm2/srk.h"

static const struct {
	uint16_t alg;
	const char *name;
} algs[] = {
	{TPM2_ALG_SHA1, "sha1"},
	{TPM2_ALG_SHA256, "sha256"},
	{TPM2_ALG_SHA384, "sha384"},
	{TPM2_ALG_SHA512, "sha512"},
	{TPM2_ALG_SM3_256, "sm3_256"},
};

struct pcr_val *pcr_val_find(const struct pcr_val *v, int n, uint16_t alg,
			     unsigned idx)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i].alg == alg && v[i].idx == idx)
			return (struct pcr_val *)&v[i];
	return NULL;
}

const char *alg_name(uint16_t alg)
{
	size_t i;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (algs[i].alg == alg)
			return algs[i].name;
	return "unknown";
}

uint16_t alg_from_name(const char *s)
{
	size_t i;
	uint64_t v;
	char *end;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcmp(algs[i].name, s) == 0)
			return algs[i].alg;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		v = strtoull(s, &end, 16);
		if (!*end && v > 0 && v <= 0xffff && hash_size((uint16_t)v))
			return (uint16_t)v;
	}
	return 0;
}

int pcr_banks_parse(const char *s, uint16_t *algs, int *n, struct tberr *e)
{
	char spec[256], *tok, *save = NULL;
	int i;

	*n = 0;
	if (strlen(s) >= sizeof(spec))
		return err_set(e, EX_USAGE, "bank list too long");
	strcpy(spec, s);
	for (tok = strtok_r(spec, ",+", &save); tok;
	     tok = strtok_r(NULL, ",+", &save)) {
		uint16_t a = alg_from_name(tok);

		if (!a)
			return err_set(e, EX_USAGE, "unknown bank '%s'", tok);
		for (i = 0; i < *n; i++)
			if (algs[i] == a)
				return err_set(e, EX_USAGE, "bank %s given "
					       "twice", tok);
		if (*n == TPM2_MAX_BANKS)
			return err_set(e, EX_USAGE, "too many banks");
		algs[(*n)++] = a;
	}
	if (*n == 0)
		return err_set(e, EX_USAGE, "empty bank list '%s'", s);
	return 0;
}

/* One index or range "a-b" of a list. */
static int parse_item(const char *s, size_t n, uint32_t *mask)
{
	char buf[16], *dash, *end;
	long a, b;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	a = strtol(buf, &end, 10);
	if (*end)
		return -1;
	b = a;
	if (dash) {
		if (!isdigit((unsigned char)dash[1]))
			return -1;
		b = strtol(dash + 1, &end, 10);
		if (*end)
			return -1;
	}
	if (a < 0 || b > 31 || a > b)
		return -1;
	for (; a <= b; a++)
		*mask |= 1u << a;
	return 0;
}

int pcr_sel_parse(const char *s, struct pcr_sel *sel, struct tberr *e)
{
	const char *p = s;

	memset(sel, 0, sizeof(*sel));
	if (strcmp(s, "all") == 0) {
		sel->all = 1;
		return 0;
	}
	while (*p) {
		const char *plus = strchr(p, '+'), *colon;
		size_t len = plus ? (size_t)(plus - p) : strlen(p);
		char bank[32];
		uint16_t alg;
		int i;

		colon = memchr(p, ':', len);
		if (!colon || colon == p || (size_t)(colon - p) >= sizeof(bank))
			return err_set(e, EX_USAGE, "bad PCR selection '%s': "
				       "expected BANK:LIST, e.g. sha256:0,1,7",
				       s);
		memcpy(bank, p, (size_t)(colon - p));
		bank[colon - p] = '\0';
		alg = alg_from_name(bank);
		if (!alg)
			return err_set(e, EX_USAGE, "unknown PCR bank '%s' "
				       "(known: sha1, sha256, sha384, sha512, "
				       "sm3_256)", bank);
		for (i = 0; i < sel->n; i++)
			if (sel->b[i].alg == alg)
				return err_set(e, EX_USAGE, "bank %s appears "
					       "twice in '%s'", bank, s);
		if (sel->n == TPM2_MAX_BANKS)
			return err_set(e, EX_USAGE, "too many banks in '%s'",
				       s);
		i = sel->n++;
		sel->b[i].alg = alg;
		colon++;
		len -= (size_t)(colon - p);
		if (len == 3 && strncmp(colon, "all", 3) == 0) {
			sel->b[i].all = 1;
		} else {
			const char *q = colon, *end = colon + len;

			if (len == 0)
				return err_set(e, EX_USAGE, "no PCR index for "
					       "bank %s in '%s'", bank, s);
			while (q < end) {
				const char *comma = memchr(q, ',',
							   (size_t)(end - q));
				size_t il = comma ? (size_t)(comma - q)
						  : (size_t)(end - q);

				if (parse_item(q, il, &sel->b[i].mask))
					return err_set(e, EX_USAGE, "bad PCR "
						"index '%.*s' in '%s' (0-31, "
						"ranges as 0-7)", (int)il, q,
						s);
				q += il + (comma ? 1 : 0);
				if (comma && q == end)
					return err_set(e, EX_USAGE, "trailing "
						       "comma in '%s'", s);
			}
		}
		p = plus ? plus + 1 : p + strlen(p);
		if (plus && !*p)
			return err_set(e, EX_USAGE, "trailing '+' in '%s'", s);
	}
	if (sel->n == 0)
		return err_set(e, EX_USAGE, "empty PCR selection");
	return 0;
}

int pcr_sel_resolve(struct pcr_sel *sel, const struct pcr_sel *alloc,
		    unsigned npcrs, struct tberr *e)
{
	uint32_t full = npcrs >= 32 ? 0xffffffffu : (1u << npcrs) - 1;
	int i, j;

	if (sel->all) {
		*sel = *alloc;
		sel->all = 0;
		for (i = 0; i < sel->n; i++)
			sel->b[i].mask = full;
		return 0;
	}
	for (i = 0; i < sel->n; i++) {
		for (j = 0; j < alloc->n; j++)
			if (alloc->b[j].alg == sel->b[i].alg)
				break;
		if (j == alloc->n)
			return err_set(e, EX_USAGE, "PCR bank %s is not "
				       "allocated on this TPM",
				       alg_name(sel->b[i].alg));
		if (sel->b[i].all)
			sel->b[i].mask = full;
		sel->b[i].all = 0;
		if (sel->b[i].mask & ~full) {
			unsigned k = 0;

			while (!((sel->b[i].mask & ~full) & (1u << k)))
				k++;
			return err_set(e, EX_USAGE, "PCR %u is out of range: "
				       "this TPM has PCRs 0-%u", k,
				       npcrs - 1);
		}
	}
	return 0;
}

int pcr_sel_resolved(const struct pcr_sel *sel)
{
	int i;

	if (sel->all)
		return 0;
	for (i = 0; i < sel->n; i++)
		if (sel->b[i].all)
			return 0;
	return 1;
}

int pcr_sel_count(const struct pcr_sel *sel)
{
	int i, c = 0;

	for (i = 0; i < sel->n; i++)
		c += __builtin_popcount(sel->b[i].mask);
	return c;
}

void pcr_sel_marshal(struct tb *b, const struct pcr_sel *sel)
{
	int i;

	tb_put_u32(b, (uint32_t)sel->n);
	for (i = 0; i < sel->n; i++) {
		uint32_t m = sel->b[i].mask;
		int sz = m >> 24 ? 4 : 3;

		tb_put_u16(b, sel->b[i].alg);
		tb_put_u8(b, (uint8_t)sz);
		tb_put_u8(b, (uint8_t)m);
		tb_put_u8(b, (uint8_t)(m >> 8));
		tb_put_u8(b, (uint8_t)(m >> 16));
		if (sz == 4)
			tb_put_u8(b, (uint8_t)(m >> 24));
	}
}

int pcr_sel_unmarshal(struct tb *r, struct pcr_sel *sel)
{
	uint32_t n = tb_get_u32(r), i, k;

	memset(sel, 0, sizeof(*sel));
	if (n > TPM2_MAX_BANKS) {
		tb_fail(r);
		return -1;
	}
	for (i = 0; i < n && !tb_err(r); i++) {
		uint8_t sz;

		sel->b[i].alg = tb_get_u16(r);
		sz = tb_get_u8(r);
		if (sz > 4) {
			tb_fail(r);
			return -1;
		}
		for (k = 0; k < sz; k++)
			sel->b[i].mask |= (uint32_t)tb_get_u8(r) << (8 * k);
	}
	sel->n = (int)n;
	return tb_err(r) ? -1 : 0;
}

int tpm2_pcr_implemented(struct tpm *t, struct pcr_sel *impl,
			 unsigned *npcrs)
{
	uint8_t buf[TPM_BUF_SIZE];
	size_t len;
	struct tb r;
	uint32_t v;
	int rc, i;

	if ((rc = tpm2_getcap_raw(t, TPM2_CAP_PCRS, 0, 1, buf, sizeof(buf),
				  &len)))
		return rc;
	tb_init_read(&r, buf, len);
	if (pcr_sel_unmarshal(&r, impl) || tb_left(&r))
		return err_set(t->e, EX_IO, "TPM2_GetCapability: malformed "
			       "PCR allocation");
	/* The count: an allocated bank has every PCR the TPM implements
	 * set, so its highest bit tells it without asking
	 * (TPM_PT_PCR_COUNT) again; asked only when no bank is
	 * allocated. */
	v = 0;
	for (i = 0; i < impl->n; i++)
		if (impl->b[i].mask &&
		    32u - (unsigned)__builtin_clz(impl->b[i].mask) > v)
			v = 32u - (unsigned)__builtin_clz(impl->b[i].mask);
	if (!v && (rc = tpm2_getprop(t, TPM2_PT_PCR_COUNT, &v)))
		return rc;
	if (v == 0 || v > 32)
		return err_set(t->e, EX_IO, "TPM reports %u PCRs", v);
	*npcrs = v;
	return 0;
}

int tpm2_pcr_banks(struct tpm *t, struct pcr_sel *alloc, unsigned *npcrs)
{
	struct pcr_sel all;
	int i, rc;

	if ((rc = tpm2_pcr_implemented(t, &all, npcrs)))
		return rc;
	memset(alloc, 0, sizeof(*alloc));
	for (i = 0; i < all.n; i++)
		if (all.b[i].mask && hash_size(all.b[i].alg))
			alloc->b[alloc->n++] = all.b[i];
	return 0;
}

int tpm2_pcr_allocate(struct tpm *t, struct tpm2_auth *pa,
		      const struct pcr_sel *sel, struct pcr_alloc *out)
{
	uint8_t pb[4 + TPM2_MAX_BANKS * 7];
	struct tpm2_call c;
	struct tb b, r;
	int rc;

	tb_init(&b, pb, sizeof(pb));
	pcr_sel_marshal(&b, sel);
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "TPM2_PCR_Allocate: bad "
			       "parameters");
	memset(&c, 0, sizeof(c));
	c.cc = TPM2_CC_PCR_Allocate;
	c.nh = 1;
	c.h[0] = TPM2_RH_PLATFORM;
	c.na = 1;
	c.auth[0] = pa;
	c.params = pb;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	/* allocationSuccess, maxPCR, sizeNeeded, sizeAvailable */
	tb_init_read(&r, c.rparams, c.rplen);
	out->success = tb_get_u8(&r);
	out->max_pcr = tb_get_u32(&r);
	out->size_needed = tb_get_u32(&r);
	out->size_available = tb_get_u32(&r);
	if (tb_err(&r) || tb_left(&r) || out->success > 1)
		return err_set(t->e, EX_IO, "TPM2_PCR_Allocate: malformed "
			       "response");
	return 0;
}

void pcr_bank_names(const struct pcr_sel *sel, int all, char *out,
		    size_t cap)
{
	size_t n = 0;
	int i;

	snprintf(out, cap, "none");
	for (i = 0; i < sel->n; i++) {
		if (!all && !sel->b[i].mask)
			continue;
		snprintf(out + n, cap - n, "%s%s", n ? ", " : "",
			 alg_name(sel->b[i].alg));
		n = strlen(out);
	}
}

int tpm2_pcr_plan(struct tpm *t, const uint16_t *want, int nwant,
		  struct pcr_sel *now, struct pcr_sel *next)
{
	unsigned npcrs, i;
	uint32_t full;
	int j, same = 1, rc;

	if ((rc = tpm2_pcr_implemented(t, now, &npcrs)))
		return rc;
	full = npcrs == 32 ? 0xffffffffu : (1u << npcrs) - 1;
	for (j = 0; j < nwant; j++) {
		char names[128];

		for (i = 0; i < (unsigned)now->n && now->b[i].alg != want[j];
		     i++)
			;
		if (i < (unsigned)now->n)
			continue;
		pcr_bank_names(now, 1, names, sizeof(names));
		err_set(t->e, EX_USAGE, "this TPM has no %s bank",
			alg_name(want[j]));
		err_hint(t->e, "it implements %s", names);
		return EX_USAGE;
	}
	/* Every implemented bank: full when wanted, empty when not. */
	*next = *now;
	for (i = 0; i < (unsigned)next->n; i++) {
		int w = 0;

		for (j = 0; j < nwant; j++)
			w |= want[j] == next->b[i].alg;
		next->b[i].mask = w ? full : 0;
		if (next->b[i].mask != now->b[i].mask)
			same = 0;
	}
	return same ? 0 : TPM2_PCR_CHANGE;
}

int tpm2_pcr_allocate_auth(struct tpm *t, struct tpm2_auth *pa,
			   const struct pcr_sel *next)
{
	struct pcr_alloc res;
	uint32_t b;

	if (tpm2_pcr_allocate(t, pa, next, &res)) {
		b = rc_base(t->e->rc);
		if (b == 0x085) {	/* TPM_RC_HIERARCHY */
			err_set(t->e, EX_FAIL, "the platform hierarchy is "
				"disabled (firmware disables it before the OS "
				"boots on most machines)");
			err_hint(t->e, "ask the firmware: its setup menu, or "
				 "the physical presence interface (tpmbox ppi "
				 "banks, PPI operation 23)");
		} else if (b == 0x08e || b == 0x0a2) {	/* AUTH_FAIL, BAD_AUTH */
			err_set(t->e, EX_AUTH, "the platform auth value is "
				"wrong");
			err_hint(t->e, "give it with --platform-auth; firmware "
				 "usually sets a random one and disables the "
				 "hierarchy");
		}
		return t->e->code;
	}
	if (!res.success)
		return err_set(t->e, EX_FAIL, "the TPM cannot allocate these "
			       "banks (it needs %u bytes, it has %u)",
			       res.size_needed, res.size_available);
	return 0;
}


/* The first (at most) 8 PCRs of left, in its order: what one PCR_Read
 * answers (a TPML_DIGEST holds 8), so that the last part is known before
 * it is sent. */
static void first_part(const struct pcr_sel *left, struct pcr_sel *part)
{
	int i, j, k = 0;

	*part = *left;
	for (i = 0; i < part->n; i++)
		for (j = 0; j < 32; j++)
			if ((part->b[i].mask >> j & 1) && ++k > 8)
				part->b[i].mask &= ~(1u << j);
}

/* A selection the TPM did not answer in full: a bank it does not have or
 * a PCR beyond its count is the user's (exit 2, as the bank list would
 * have said before reading); else the error as it was. */
static int read_failed(struct tpm *t, const struct pcr_sel *sel, int rc)
{
	struct tberr keep = *t->e;
	struct pcr_sel alloc, s = *sel;
	unsigned n;

	if (tpm2_pcr_banks(t, &alloc, &n) == 0 &&
	    pcr_sel_resolve(&s, &alloc, n, t->e))
		return t->e->code;
	*t->e = keep;
	return rc;
}

static int pcr_read(struct tpm *t, const struct pcr_sel *sel,
		    struct pcr_vals *out, int *partial);

int tpm2_pcr_read(struct tpm *t, const struct pcr_sel *sel,
		  struct pcr_vals *out)
{
	int partial = 0, rc = pcr_read(t, sel, out, &partial);

	/* Looked into when the TPM answered (an error code, or without
	 * some PCRs), not after a timeout or a damaged answer. */
	return rc && pcr_sel_resolved(sel) && (partial || t->e->rc) &&
	       t->family != 1 ? read_failed(t, sel, rc) : rc;
}

static int pcr_read(struct tpm *t, const struct pcr_sel *sel,
		    struct pcr_vals *out, int *partial)
{
	struct pcr_sel left = *sel, got, part;
	struct pcr_vals tmp;	/* read order, not selection order */
	uint8_t pb[512];
	struct tb b, r;
	uint32_t counter = 0;
	int restarts = 0, first = 1, last = tpm2_trust_take_last(t), i, j, rc;

	tmp.n = 0;
	while (pcr_sel_count(&left) > 0) {
		struct tpm2_call c = { .cc = TPM2_CC_PCR_Read };
		uint32_t ctr, nd, k;

		first_part(&left, &part);
		/* The process session's last use, when the caller said so:
		 * with the last part. */
		if (last && pcr_sel_count(&part) == pcr_sel_count(&left))
			tpm2_trust_last(t);
		tb_init(&b, pb, sizeof(pb));
		pcr_sel_marshal(&b, &part);
		c.params = pb;
		c.plen = b.len;
		if ((rc = tpm2_call(t, &c)))
			return rc;
		tb_init_read(&r, c.rparams, c.rplen);
		ctr = tb_get_u32(&r);
		if (pcr_sel_unmarshal(&r, &got))
			return err_set(t->e, EX_IO, "TPM2_PCR_Read: malformed "
				       "selection in response");
		if (!first && ctr != counter) {
			/* A PCR changed between chunks: read again so the
			 * values belong to one moment. */
			if (++restarts > 5)
				return err_set(t->e, EX_FAIL, "TPM2_PCR_Read: "
					       "PCRs keep changing");
			left = *sel;
			tmp.n = 0;
			first = 1;
			continue;
		}
		first = 0;
		counter = ctr;
		nd = tb_get_u32(&r);
		if ((int)nd != pcr_sel_count(&got) || nd > 8)
			return err_set(t->e, EX_IO, "TPM2_PCR_Read: %u digests "
				       "for %d selected PCRs", nd,
				       pcr_sel_count(&got));
		if (nd == 0) {
			*partial = 1;
			return err_set(t->e, EX_IO, "TPM2_PCR_Read: the TPM "
				       "returned no values for the selection");
		}
		k = 0;
		for (i = 0; i < got.n; i++) {
			size_t hs = hash_size(got.b[i].alg);

			for (j = 0; j < left.n; j++)
				if (left.b[j].alg == got.b[i].alg)
					break;
			if (j == left.n ||
			    (got.b[i].mask & ~part.b[j].mask))
				return err_set(t->e, EX_IO, "TPM2_PCR_Read: "
					       "the TPM returned PCRs that "
					       "were not asked for");
			left.b[j].mask &= ~got.b[i].mask;
			for (j = 0; j < 32; j++) {
				struct pcr_val *v;

				if (!(got.b[i].mask & (1u << j)))
					continue;
				if (tmp.n == (int)(sizeof(tmp.v) /
						   sizeof(tmp.v[0]))) {
					tb_fail(&r);
					break;
				}
				v = &tmp.v[tmp.n++];
				v->alg = got.b[i].alg;
				v->idx = (uint8_t)j;
				v->len = (uint8_t)tb_get_tpm2b(&r, v->d,
							       sizeof(v->d));
				if (v->len != hs)
					tb_fail(&r);
				k++;
			}
		}
		if (tb_err(&r) || tb_left(&r) || k != nd)
			return err_set(t->e, EX_IO, "TPM2_PCR_Read: malformed "
				       "digests in response");
	}
	out->n = 0;
	for (i = 0; i < sel->n; i++)
		for (j = 0; j < 32; j++) {
			struct pcr_val *v;

			if (!(sel->b[i].mask & (1u << j)))
				continue;
			v = pcr_val_find(tmp.v, tmp.n, sel->b[i].alg,
					 (unsigned)j);
			if (!v)
				return err_set(t->e, EX_IO, "TPM2_PCR_Read: "
					       "missing value");
			out->v[out->n++] = *v;
		}
	return 0;
}

int tpm2_pcr_extend(struct tpm *t, unsigned pcr, int n,
		    const uint16_t *a, const uint8_t (*digests)[64])
{
	uint8_t pb[512];
	struct tpm2_auth auth;
	struct tpm2_call c = { .cc = TPM2_CC_PCR_Extend, .nh = 1, .na = 1 };
	struct tb b;
	int i;

	tpm2_auth_pw(&auth, NULL, 0);
	c.h[0] = pcr;
	c.auth[0] = &auth;
	tb_init(&b, pb, sizeof(pb));
	tb_put_u32(&b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		tb_put_u16(&b, a[i]);
		tb_put_bytes(&b, digests[i], hash_size(a[i]));
	}
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "TPM2_PCR_Extend: too many "
			       "digests");
	c.params = pb;
	c.plen = b.len;
	return tpm2_call(t, &c);
}
