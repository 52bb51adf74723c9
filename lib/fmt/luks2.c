/* The LUKS2 header reader (include/fmt/luks2.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "fmt/luks2.h"

static const uint8_t magic1[6] = { 'L', 'U', 'K', 'S', 0xba, 0xbe };
static const uint8_t magic2[6] = { 'S', 'K', 'U', 'L', 0xba, 0xbe };

/* The metadata's limits: a LUKS2 JSON area is at most 4 MiB; a token's
 * largest string (a clevis JWE, a blob) is a few KiB. */
static const struct json_limits meta_limits = {
	.depth = 16, .str = 256 * 1024, .members = 1024, .nodes = 65536,
};

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A fixed-size text field: up to its first NUL, printable ASCII only. */
static void field(char *out, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i]; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	out[i] = 0;
}

static int size_ok(uint64_t s)
{
	uint64_t k;

	for (k = LUKS2_HDR_MIN; k <= LUKS2_HDR_MAX; k <<= 1)
		if (s == k)
			return 1;
	return 0;
}

/* One copy at off: 0 when its magic, version, size and checksum hold
 * (*area malloc'd: the hdr_size bytes); else why (a phrase) in why.  1:
 * no magic there at all. */
static int copy_read(luks2_read_fn rd, void *arg, uint64_t off,
		     const uint8_t *magic, uint8_t **area, char *why,
		     size_t whylen)
{
	uint8_t bin[LUKS2_BIN_SIZE], sum[32];
	uint64_t hs, ho;
	uint8_t *a;
	char alg[33];

	*area = NULL;
	if (rd(arg, off, bin, sizeof(bin))) {
		snprintf(why, whylen, "cannot be read");
		return 1;
	}
	if (memcmp(bin, magic, 6)) {
		snprintf(why, whylen, "has no LUKS magic");
		return 1;
	}
	if (bin[6] != 0 || bin[7] != 2) {
		snprintf(why, whylen, "is LUKS version %u, not 2",
			 (unsigned)(bin[6] << 8 | bin[7]));
		return -1;
	}
	hs = be64(bin + 8);
	ho = be64(bin + 256);
	if (!size_ok(hs)) {
		snprintf(why, whylen, "has a header size of %llu bytes (not "
			 "one of 16 KiB to 4 MiB)", (unsigned long long)hs);
		return -1;
	}
	if (ho != off || (off && off != hs)) {
		snprintf(why, whylen, "says it is at offset %llu, not %llu",
			 (unsigned long long)ho, (unsigned long long)off);
		return -1;
	}
	field(alg, bin + 72, 32);
	if (strcmp(alg, "sha256")) {
		snprintf(why, whylen, "has checksum algorithm \"%.32s\" (only "
			 "sha256 is read)", alg);
		return -1;
	}
	if (!(a = malloc(hs))) {
		snprintf(why, whylen, "does not fit in memory");
		return -1;
	}
	memcpy(a, bin, sizeof(bin));
	if (rd(arg, off + sizeof(bin), a + sizeof(bin), hs - sizeof(bin))) {
		free(a);
		snprintf(why, whylen, "is cut short");
		return -1;
	}
	memset(a + 448, 0, 64);
	hash_buf(TPM2_ALG_SHA256, a, hs, sum);
	memcpy(a + 448, bin + 448, 64);
	if (memcmp(sum, bin + 448, 32)) {
		free(a);
		snprintf(why, whylen, "fails its checksum");
		return -1;
	}
	*area = a;
	return 0;
}

int luks2_u64(const struct json *j, uint64_t *v)
{
	const char *s;
	uint64_t x = 0;

	if (!j || j->type != JSON_STR || !j->slen || j->slen > 20 ||
	    (j->s[0] == '0' && j->slen > 1))
		return -1;
	for (s = j->s; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

/* An id of the keyslots or tokens object: "0".."31". */
static int slot_id(const char *k)
{
	if (!k || !k[0] || (k[0] == '0' && k[1]) || strlen(k) > 2 ||
	    k[0] < '0' || k[0] > '9' || (k[1] && (k[1] < '0' || k[1] > '9')))
		return -1;
	return atoi(k) < LUKS2_SLOTS ? atoi(k) : -1;
}

static int str_into(const struct json *j, char *out, size_t cap)
{
	if (!j || j->type != JSON_STR || j->slen >= cap)
		return -1;
	memcpy(out, j->s, j->slen + 1);
	return 0;
}

static int keyslots(struct luks2 *h, const struct json *ks, const char *what,
		    struct tberr *e)
{
	uint64_t lo = 2 * h->hdr_size, hi = lo + h->keyslots_size;
	const struct json *k;
	int i;

	for (k = ks->kid; k; k = k->next) {
		struct luks2_keyslot *s = &h->ks[h->nkeyslot];
		const struct json *a = json_get(k, "area"), *kdf =
			json_get(k, "kdf"), *ksz = json_get(k, "key_size"),
			*pr = json_get(k, "priority");

		memset(s, 0, sizeof(*s));
		if ((s->id = slot_id(k->key)) < 0)
			return err_set(e, EX_FAIL, "%s: keyslot id \"%.16s\" "
				       "is not 0 to 31", what, k->key);
		if (k->type != JSON_OBJ || str_into(json_get(k, "type"),
						    s->type, sizeof(s->type)))
			return err_set(e, EX_FAIL, "%s: keyslot %d is not an "
				       "object with a type", what, s->id);
		if (!ksz || ksz->type != JSON_NUM || !ksz->isint ||
		    ksz->i <= 0 || ksz->i > 4096)
			return err_set(e, EX_FAIL, "%s: keyslot %d: key_size "
				       "is not a number of bytes", what, s->id);
		s->key_size = ksz->i;
		if (!kdf || kdf->type != JSON_OBJ ||
		    str_into(json_get(kdf, "type"), s->kdf, sizeof(s->kdf)))
			return err_set(e, EX_FAIL, "%s: keyslot %d: kdf is not "
				       "an object with a type", what, s->id);
		s->priority = 1;
		if (pr && (pr->type != JSON_NUM || !pr->isint || pr->i < 0 ||
			   pr->i > 2))
			return err_set(e, EX_FAIL, "%s: keyslot %d: priority "
				       "is not 0, 1 or 2", what, s->id);
		if (pr)
			s->priority = (int)pr->i;
		if (!a || a->type != JSON_OBJ ||
		    luks2_u64(json_get(a, "offset"), &s->area_off) ||
		    luks2_u64(json_get(a, "size"), &s->area_size))
			return err_set(e, EX_FAIL, "%s: keyslot %d: its area "
				       "has no offset and size", what, s->id);
		if (s->area_off < lo || s->area_off > hi ||
		    s->area_size > hi - s->area_off)
			return err_set(e, EX_FAIL, "%s: keyslot %d: its area "
				       "(%llu bytes at %llu) is outside the "
				       "keyslots area", what, s->id,
				       (unsigned long long)s->area_size,
				       (unsigned long long)s->area_off);
		for (i = 0; i < h->nkeyslot; i++) {
			const struct luks2_keyslot *o = &h->ks[i];

			if (s->area_off < o->area_off + o->area_size &&
			    o->area_off < s->area_off + s->area_size)
				return err_set(e, EX_FAIL, "%s: keyslots %d "
					       "and %d overlap", what, o->id,
					       s->id);
		}
		h->nkeyslot++;
	}
	return 0;
}

static int has_keyslot(const struct luks2 *h, int id)
{
	int i;

	for (i = 0; i < h->nkeyslot; i++)
		if (h->ks[i].id == id)
			return 1;
	return 0;
}

static int tokens(struct luks2 *h, const struct json *ts, const char *what,
		  struct tberr *e)
{
	const struct json *k, *s;

	for (k = ts->kid; k; k = k->next) {
		struct luks2_token *t = &h->tok[h->ntoken];
		const struct json *sl = json_get(k, "keyslots");

		memset(t, 0, sizeof(*t));
		t->j = k;
		if ((t->id = slot_id(k->key)) < 0)
			return err_set(e, EX_FAIL, "%s: token id \"%.16s\" is "
				       "not 0 to 31", what, k->key);
		if (k->type != JSON_OBJ || str_into(json_get(k, "type"),
						    t->type, sizeof(t->type)))
			return err_set(e, EX_FAIL, "%s: token %d is not an "
				       "object with a type", what, t->id);
		if (!sl || sl->type != JSON_ARR)
			return err_set(e, EX_FAIL, "%s: token %d: keyslots is "
				       "not an array", what, t->id);
		for (s = sl->kid; s; s = s->next) {
			int id = s->type == JSON_STR ? slot_id(s->s) : -1;

			if (id < 0)
				return err_set(e, EX_FAIL, "%s: token %d: a "
					       "keyslot is not a string \"0\" "
					       "to \"31\"", what, t->id);
			if (!has_keyslot(h, id))
				return err_set(e, EX_FAIL, "%s: token %d names "
					       "keyslot %d, which does not "
					       "exist", what, t->id, id);
			t->keyslots |= 1u << id;
		}
		h->ntoken++;
	}
	return 0;
}

/* The JSON area of the copy in a (hdr_size bytes). */
static int metadata(struct luks2 *h, const uint8_t *a, const char *what,
		    struct tberr *e)
{
	const char *txt = (const char *)a + LUKS2_BIN_SIZE;
	size_t cap = h->hdr_size - LUKS2_BIN_SIZE, n;
	const struct json *ks, *ts, *cf;
	uint64_t js;
	char w[300];

	n = strnlen(txt, cap);
	if (n == cap)
		return err_set(e, EX_FAIL, "%s: the JSON area has no end "
			       "(no NUL byte)", what);
	snprintf(w, sizeof(w), "%s: LUKS2 metadata", what);
	if (json_parse(txt, n, &meta_limits, w, &h->meta, e))
		return e->code;
	if (h->meta->type != JSON_OBJ)
		return err_set(e, EX_FAIL, "%s: the LUKS2 metadata is not a "
			       "JSON object", what);
	ks = json_get(h->meta, "keyslots");
	ts = json_get(h->meta, "tokens");
	cf = json_get(h->meta, "config");
	if (!ks || ks->type != JSON_OBJ || !ts || ts->type != JSON_OBJ ||
	    !cf || cf->type != JSON_OBJ)
		return err_set(e, EX_FAIL, "%s: the LUKS2 metadata has no "
			       "keyslots, tokens or config object", what);
	if (luks2_u64(json_get(cf, "json_size"), &js) ||
	    luks2_u64(json_get(cf, "keyslots_size"), &h->keyslots_size))
		return err_set(e, EX_FAIL, "%s: config has no json_size or "
			       "keyslots_size", what);
	if (js != cap)
		return err_set(e, EX_FAIL, "%s: config.json_size (%llu) is not "
			       "the JSON area's size (%zu)", what,
			       (unsigned long long)js, cap);
	if (h->keyslots_size > (1ull << 40))
		return err_set(e, EX_FAIL, "%s: config.keyslots_size (%llu) "
			       "is absurd", what,
			       (unsigned long long)h->keyslots_size);
	if (ks->n > LUKS2_SLOTS || ts->n > LUKS2_SLOTS)
		return err_set(e, EX_FAIL, "%s: more than %d keyslots or "
			       "tokens", what, LUKS2_SLOTS);
	return keyslots(h, ks, what, e) || tokens(h, ts, what, e) ?
	       e->code : 0;
}

int luks2_read(luks2_read_fn rd, void *arg, const char *what,
	       struct luks2 *h, struct tberr *e)
{
	char why1[96], why2[96] = "";
	uint8_t *a1 = NULL, *a2 = NULL, *use, b[8];
	uint64_t off2 = 0, k;
	int r1, r2 = 1, rc;

	memset(h, 0, sizeof(*h));
	if (rd(arg, 0, b, sizeof(b)))
		return err_set(e, EX_IO, "%s: cannot read the LUKS header "
			       "(too short, or a read error)", what);
	r1 = copy_read(rd, arg, 0, magic1, &a1, why1, sizeof(why1));
	/* The secondary: at the primary's size when it said one, else at
	 * each size the format allows. */
	if (r1 == 0)
		r2 = copy_read(rd, arg, off2 = be64(a1 + 8), magic2, &a2,
			       why2, sizeof(why2));
	else
		for (k = LUKS2_HDR_MIN; k <= LUKS2_HDR_MAX && r2 == 1; k <<= 1)
			r2 = copy_read(rd, arg, off2 = k, magic2, &a2, why2,
				       sizeof(why2));
	if (r2 == 1)
		snprintf(why2, sizeof(why2), "was not found");
	if (r1 && r2 && !memcmp(b, magic1, 6) && b[6] == 0 && b[7] == 1 &&
	    r2 == 1) {
		free(a1);
		err_set(e, EX_FAIL, "%s is a LUKS1 volume: tpmbox reads LUKS2 "
			"headers and their tokens only (clevis keeps a LUKS1 "
			"binding in luksmeta, which it does not read)", what);
		err_hint(e, "clevis luks unlock opens a LUKS1 binding; "
			 "cryptsetup convert --type luks2 DEV moves a volume to "
			 "LUKS2 (clevis luks bind again after)");
		return EX_FAIL;
	}
	if (r1 && r2) {
		rc = r1 == 1 && memcmp(b, magic1, 4) && r2 == 1 ?
		     err_set(e, EX_FAIL, "%s: not a LUKS2 header (no LUKS "
			     "magic)", what) :
		     err_set(e, EX_FAIL, "%s: no valid LUKS2 header: the "
			     "primary copy %s, the secondary %s", what, why1,
			     why2);
		free(a1);
		free(a2);
		return rc;
	}
	/* Both valid: the higher seqid (an update interrupted between the
	 * copies), the primary on a tie. */
	if (!r1 && (r2 || be64(a1 + 16) >= be64(a2 + 16))) {
		use = a1;
		h->copy = 0;
		h->offset = 0;
		h->other_ok = !r2;
		snprintf(h->other_why, sizeof(h->other_why), "%s", why2);
	} else {
		use = a2;
		h->copy = 1;
		h->offset = off2;
		h->other_ok = !r1;
		snprintf(h->other_why, sizeof(h->other_why), "%s", why1);
	}
	h->hdr_size = be64(use + 8);
	h->seqid = be64(use + 16);
	field(h->label, use + 24, 48);
	field(h->csum_alg, use + 72, 32);
	memcpy(h->salt, use + 104, 64);
	field(h->uuid, use + 168, 40);
	field(h->subsystem, use + 208, 48);
	rc = metadata(h, use, what, e);
	free(a1);
	free(a2);
	if (rc)
		luks2_free(h);
	return rc;
}

struct fdrd {
	int fd;
};

static int fd_read(void *arg, uint64_t off, void *buf, size_t n)
{
	struct fdrd *f = arg;
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(f->fd, (uint8_t *)buf + got, n - got,
				  (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

int luks2_open(const char *path, struct luks2 *h, struct tberr *e)
{
	struct fdrd f;
	int rc;

	memset(h, 0, sizeof(*h));
	if ((f.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(e, errno == ENOENT ? EX_NOENT : EX_IO,
			       "%s: %s", path, strerror(errno));
	rc = luks2_read(fd_read, &f, path, h, e);
	close(f.fd);
	return rc;
}

struct memrd {
	const uint8_t *p;
	size_t n;
};

static int mem_read(void *arg, uint64_t off, void *buf, size_t n)
{
	struct memrd *m = arg;

	if (off > m->n || n > m->n - off)
		return -1;
	memcpy(buf, m->p + off, n);
	return 0;
}

int luks2_mem(const uint8_t *p, size_t n, const char *what, struct luks2 *h,
	      struct tberr *e)
{
	struct memrd m = { p, n };

	return luks2_read(mem_read, &m, what, h, e);
}

void luks2_free(struct luks2 *h)
{
	json_free(h->meta);
	h->meta = NULL;
	h->ntoken = h->nkeyslot = 0;
}
