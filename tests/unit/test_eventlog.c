/* Event log and IMA list parsers: known answers (expected values computed
 * with Python's hashlib, not with tpmbox), every truncation, limits. */
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "log/eventlog.h"
#include "log/imalog.h"
#include "unit.h"

struct w {
	uint8_t b[1 << 16];
	size_t n;
};

static void le32(struct w *w, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void le16(struct w *w, uint16_t v)
{
	w->b[w->n++] = (uint8_t)v;
	w->b[w->n++] = (uint8_t)(v >> 8);
}

static void put(struct w *w, const void *p, size_t n)
{
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void hexput(struct w *w, const char *h)
{
	long n = hex_decode(h, w->b + w->n, sizeof(w->b) - w->n);

	CHECK(n > 0);
	w->n += (size_t)n;
}

#define SHA1_ABC "a9993e364706816aba3e25717850c26c9cd0d89d"
#define SHA256_ABC \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static int has(const struct pcr_vals *v, uint16_t alg, unsigned idx,
	       const char *hex)
{
	char h[2 * TPM2_MAX_DIGEST + 1];
	int i;

	for (i = 0; i < v->n; i++)
		if (v->v[i].alg == alg && v->v[i].idx == idx) {
			hex_encode(v->v[i].d, v->v[i].len, h);
			return strcmp(h, hex) == 0;
		}
	return 0;
}

/* Spec ID (sha1, sha256), StartupLocality 3, "abc" into PCR 0 and 4, an
 * EV_NO_ACTION into PCR 5. */
static void agile_log(struct w *w, size_t *bounds, int *nb)
{
	uint8_t z[32] = { 0 };

	w->n = 0;
	*nb = 0;
	le32(w, 0);
	le32(w, EV_NO_ACTION);
	put(w, z, 20);
	le32(w, 16 + 8 + 4 + 8 + 1);
	put(w, "Spec ID Event03", 16);
	le32(w, 0);
	put(w, "\0\2\0\2", 4);
	le32(w, 2);
	le16(w, TPM2_ALG_SHA1);
	le16(w, 20);
	le16(w, TPM2_ALG_SHA256);
	le16(w, 32);
	w->b[w->n++] = 0;
	bounds[(*nb)++] = w->n;
	le32(w, 0);
	le32(w, EV_NO_ACTION);
	le32(w, 2);
	le16(w, TPM2_ALG_SHA1);
	put(w, z, 20);
	le16(w, TPM2_ALG_SHA256);
	put(w, z, 32);
	le32(w, 17);
	put(w, "StartupLocality\0\3", 17);
	bounds[(*nb)++] = w->n;
	for (int pcr = 0; pcr <= 4; pcr += 4) {
		le32(w, (uint32_t)pcr);
		le32(w, pcr ? EV_IPL : EV_S_CRTM_VERSION);
		le32(w, 2);
		le16(w, TPM2_ALG_SHA1);
		hexput(w, SHA1_ABC);
		le16(w, TPM2_ALG_SHA256);
		hexput(w, SHA256_ABC);
		le32(w, 3);
		put(w, "abc", 3);
		bounds[(*nb)++] = w->n;
	}
	le32(w, 5);
	le32(w, EV_NO_ACTION);
	le32(w, 1);
	le16(w, TPM2_ALG_SHA256);
	hexput(w, SHA256_ABC);
	le32(w, 0);
	bounds[(*nb)++] = w->n;
}

static void test_agile(void)
{
	static struct w w;
	static struct pcr_vals v;
	struct tberr e;
	struct evl log;
	size_t bounds[8], i;
	int nb, k;

	agile_log(&w, bounds, &nb);
	CHECK(evl_parse(w.b, w.n, &log, &e) == 0);
	CHECK(log.agile == 1 && log.nalgs == 2 && log.n == 5);
	CHECK(log.locality == 3);
	CHECK(log.algs[0].alg == TPM2_ALG_SHA1 && log.algs[1].size == 32);
	CHECK(log.ev[2].offset == bounds[1] && log.ev[2].dlen == 3);
	CHECK(evl_replay(&log, &v, &e) == 0);
	CHECK(v.n == 4);	/* PCR 5 (EV_NO_ACTION) is not there */
	CHECK(v.v[0].alg == TPM2_ALG_SHA1 && v.v[0].idx == 0);
	CHECK(v.v[3].alg == TPM2_ALG_SHA256 && v.v[3].idx == 4);
	CHECK(has(&v, TPM2_ALG_SHA1, 0,
		  "acacc3dc6d7d4e11d6f022098ccf6d8c1929e540"));
	CHECK(has(&v, TPM2_ALG_SHA1, 4,
		  "ccd5bd41458de644ac34a2478b58ff819bef5acf"));
	CHECK(has(&v, TPM2_ALG_SHA256, 0, "e2bf6737520fc19e9be2993af864834bf"
		  "b33b00c3fa7e3da44509c90cfd6a247"));
	CHECK(has(&v, TPM2_ALG_SHA256, 4, "589f9ffed4c477966bfb8d41f37895b08"
		  "c69047df8f911d6f3b57fbe08faee8d"));
	evl_free(&log);

	/* Every cut: whole records parse, anything else is a truncation. */
	for (i = 1; i < w.n; i++) {
		int whole = 0;

		for (k = 0; k < nb; k++)
			whole |= bounds[k] == i;
		err_clear(&e);
		if (whole) {
			CHECK(evl_parse(w.b, i, &log, &e) == 0);
			evl_free(&log);
		} else {
			char want[64];

			snprintf(want, sizeof(want), "truncated at offset %zu",
				 i);
			CHECK(evl_parse(w.b, i, &log, &e) == EX_FAIL);
			CHECK(strstr(e.msg, want) != NULL);
			CHECK(log.ev == NULL);
		}
	}
	CHECK(evl_parse(w.b, 0, &log, &e) == EX_FAIL);
}

static void test_legacy_and_limits(void)
{
	static struct w w;
	static struct pcr_vals v;
	struct tberr e;
	struct evl log;
	uint32_t i;
	uint8_t *big;
	size_t n;

	w.n = 0;
	le32(&w, 4);
	le32(&w, EV_SEPARATOR);
	hexput(&w, SHA1_ABC);
	le32(&w, 3);
	put(&w, "abc", 3);
	CHECK(evl_parse(w.b, w.n, &log, &e) == 0);
	CHECK(!log.agile && log.nalgs == 1 && log.locality == -1);
	CHECK(evl_replay(&log, &v, &e) == 0);
	CHECK(v.n == 1 && has(&v, TPM2_ALG_SHA1, 4,
			      "ccd5bd41458de644ac34a2478b58ff819bef5acf"));
	evl_free(&log);

	/* One event over the count limit. */
	n = (size_t)(EVL_MAX_EVENTS + 1) * 32;
	big = calloc(1, n);
	CHECK(big != NULL);
	for (i = 0; big && i <= EVL_MAX_EVENTS; i++)
		big[32 * (size_t)i + 4] = EV_POST_CODE;
	if (big) {
		CHECK(evl_parse(big, n - 32, &log, &e) == 0);
		CHECK(log.n == EVL_MAX_EVENTS);
		evl_free(&log);
		CHECK(evl_parse(big, n, &log, &e) == EX_FAIL);
		CHECK(strstr(e.msg, "more than 100000 events") != NULL);
	}
	free(big);

	CHECK(strcmp(evl_type_name(EV_EFI_BOOT_SERVICES_APPLICATION),
		     "EV_EFI_BOOT_SERVICES_APPLICATION") == 0);
	CHECK(strcmp(evl_type_name(EV_SEPARATOR), "EV_SEPARATOR") == 0);
	CHECK(evl_type_name(0x12345678u) == NULL);
}

static void test_summary(void)
{
	struct evl_event ev;
	char s[64];
	uint8_t var[32 + 20 + 1];

	memset(&ev, 0, sizeof(ev));
	ev.type = EV_EFI_ACTION;
	ev.data = (const uint8_t *)"Calling EFI Application from Boot Option";
	ev.dlen = 40;
	evl_summary(&ev, s, sizeof(s));
	CHECK(strcmp(s, "\"Calling EFI Application from Boot Option\"") == 0);
	/* UEFI_VARIABLE_DATA: name "PK" in UCS-2, one data byte. */
	memset(var, 0, sizeof(var));
	var[16] = 2;
	var[24] = 1;
	var[32] = 'P';
	var[34] = 'K';
	ev.type = EV_EFI_VARIABLE_DRIVER_CONFIG;
	ev.data = var;
	ev.dlen = 32 + 4 + 1;
	evl_summary(&ev, s, sizeof(s));
	CHECK(strcmp(s, "variable PK (1 bytes)") == 0);
	/* Short output buffers stay terminated. */
	evl_summary(&ev, s, 5);
	CHECK(strlen(s) == 4);
	/* EV_EVENT_TAG as the Linux EFI stub logs the initrd it measures:
	 * TCG_PCClientTaggedEvent id 0x8f3b22ec, 13 bytes "Linux initrd\0"
	 * (bytes from a real boot log, event-sd-boot-fedora37.bin). */
	ev.type = EV_EVENT_TAG;
	ev.data = (const uint8_t *)"\xec\x22\x3b\x8f\x0d\0\0\0Linux initrd";
	ev.dlen = 21;
	evl_summary(&ev, s, sizeof(s));
	CHECK(strcmp(s, "tag 0x8f3b22ec (Linux initrd): \"Linux initrd\"") == 0);
	/* A size that disagrees with the event's: shown raw, not decoded. */
	ev.dlen = 20;
	evl_summary(&ev, s, sizeof(s));
	CHECK(strncmp(s, "tag", 3) != 0);
	ev.dlen = 21;
	/* An unknown tag with binary data. */
	ev.data = (const uint8_t *)"\x01\0\0\0\x02\0\0\0\xff\x01";
	ev.dlen = 10;
	evl_summary(&ev, s, sizeof(s));
	CHECK(strcmp(s, "tag 0x00000001: ff01 (2 bytes)") == 0);
}

/* ima-ng entry for /bin/x (sha256 file digest), then a violation. */
static void ima_ng(struct w *w)
{
	static const char td[] =
		"280000007368613235363a0000c9f6079def34556f3c087542c34d3c803b"
		"47478639242f2f899c101fa41b71070000002f62696e2f7800";
	uint8_t z[20] = { 0 };

	w->n = 0;
	le32(w, 10);
	hexput(w, "fd07d124807c7f008e4a7c6d7925180255f9072f");
	le32(w, 6);
	put(w, "ima-ng", 6);
	le32(w, (uint32_t)(strlen(td) / 2));
	hexput(w, td);
	le32(w, 10);
	put(w, z, 20);
	le32(w, 6);
	put(w, "ima-ng", 6);
	le32(w, (uint32_t)(strlen(td) / 2));
	hexput(w, td);
}

static void test_ima(void)
{
	static struct w w;
	static struct pcr_vals v;
	struct imalog log;
	struct tberr e;
	size_t i;

	ima_ng(&w);
	CHECK(imalog_parse(w.b, w.n, &log, &e) == 0);
	CHECK(log.n == 2 && !log.ent[0].invalid && log.ent[1].invalid);
	CHECK(strcmp(log.ent[0].dalg, "sha256") == 0);
	CHECK(log.ent[0].dsize == 32 && log.ent[0].plen == 6);
	CHECK(memcmp(log.ent[0].path, "/bin/x", 6) == 0);
	v.n = 0;
	CHECK(imalog_replay(&log, TPM2_ALG_SHA1, &v, &e) == 0);
	CHECK(imalog_replay(&log, TPM2_ALG_SHA256, &v, &e) == 0);
	CHECK(v.n == 2);
	CHECK(has(&v, TPM2_ALG_SHA1, 10,
		  "01e09cbee3bd57665f04e95f5ee1aa478c58062c"));
	CHECK(has(&v, TPM2_ALG_SHA256, 10, "4c666474e239df80d1b48304ea23432a"
		  "f0d8f2687a087a7cf8e962e032dc12ed"));
	CHECK(imalog_replay(&log, TPM2_ALG_SM3_256, &v, &e) == EX_USAGE);
	imalog_free(&log);

	for (i = 1; i < w.n; i++) {
		int rc = imalog_parse(w.b, i, &log, &e);

		if (i == w.n / 2) {
			CHECK(rc == 0);
			imalog_free(&log);
		} else {
			CHECK(rc == EX_FAIL);
		}
	}

	/* A changed file name no longer matches the template hash. */
	w.b[w.n / 2 - 3] ^= 1;
	CHECK(imalog_parse(w.b, w.n, &log, &e) == EX_FAIL);
	CHECK(strstr(e.msg, "template hash does not match") != NULL);

	/* The "ima" template: file name zero-padded to 256 bytes. */
	w.n = 0;
	le32(&w, 10);
	hexput(&w, "87325e8dc67c289414a010f762f10ec6fff7f4d8");
	le32(&w, 3);
	put(&w, "ima", 3);
	hexput(&w, "9e471ead74a2efa42869d8776f300538a6dd40e9");
	le32(&w, 6);
	put(&w, "/bin/x", 6);
	CHECK(imalog_parse(w.b, w.n, &log, &e) == 0);
	v.n = 0;
	CHECK(imalog_replay(&log, TPM2_ALG_SHA256, &v, &e) == 0);
	CHECK(has(&v, TPM2_ALG_SHA256, 10, "5e6a468b97f09ecf4f4c86620a5080dc"
		  "077d71c0590a35a6e98d41671f90ad18"));
	imalog_free(&log);
}

static void set(struct pcr_vals *v, uint16_t alg, const char *hex)
{
	struct pcr_val *p = &v->v[v->n++];

	p->alg = alg;
	p->idx = 10;
	p->len = (uint8_t)hex_decode(hex, p->d, sizeof(p->d));
}

/* imalog_match: per bank, own or zero-padded SHA-1 template digests, and
 * the longest prefix that replays to the values (expected values from
 * Python's hashlib over the same template data). */
static void test_ima_match(void)
{
	static struct w w;
	static struct pcr_vals v;
	struct ima_field f[IMA_MAX_FIELDS];
	struct ima_match m;
	struct imalog log;
	struct tberr e;

	ima_ng(&w);
	CHECK(imalog_parse(w.b, w.n, &log, &e) == 0);
	CHECK(imalog_pcrs(&log) == 1u << 10);
	/* Whole list, own digests. */
	v.n = 0;
	set(&v, TPM2_ALG_SHA256, "4c666474e239df80d1b48304ea23432a"
	    "f0d8f2687a087a7cf8e962e032dc12ed");
	CHECK(imalog_match(&log, TPM2_ALG_SHA256, &v, &m, &e) == 0);
	CHECK(m.compared == 1 && m.matched && m.how == IMA_DIGEST_OWN &&
	      m.upto == 2);
	/* sha384 extended with the SHA-1 digest zero-padded, whole list. */
	set(&v, TPM2_ALG_SHA384, "fffef61f2dd51366f0e33403c4f6e83d66d2511c48a4e2"
	    "83d7dd60203598a41333260cb79edd091a34af608d60cf3fe4");
	CHECK(imalog_match(&log, TPM2_ALG_SHA384, &v, &m, &e) == 0);
	CHECK(m.matched && m.how == IMA_DIGEST_SHA1_PADDED && m.upto == 2);
	/* The PCRs read before the violation was extended: prefix of 1. */
	v.n = 0;
	set(&v, TPM2_ALG_SHA256, "fe0f103e01ba424c900c71fa578f15e0"
	    "394275eb053d766bf2e6c577ae83d9b1");
	CHECK(imalog_match(&log, TPM2_ALG_SHA256, &v, &m, &e) == 0);
	CHECK(m.matched && m.how == IMA_DIGEST_SHA1_PADDED && m.upto == 1);
	v.n = 0;
	set(&v, TPM2_ALG_SHA1, "01e09cbee3bd57665f04e95f5ee1aa478c58062c");
	CHECK(imalog_match(&log, TPM2_ALG_SHA1, &v, &m, &e) == 0);
	CHECK(m.matched && m.upto == 2);
	/* A value no prefix reaches, either way. */
	v.n = 0;
	set(&v, TPM2_ALG_SHA256, "4c666474e239df80d1b48304ea23432a"
	    "f0d8f2687a087a7cf8e962e032dc12ee");
	CHECK(imalog_match(&log, TPM2_ALG_SHA256, &v, &m, &e) == 0);
	CHECK(m.compared == 1 && !m.matched);
	/* No value for this bank: nothing compared. */
	CHECK(imalog_match(&log, TPM2_ALG_SHA512, &v, &m, &e) == 0);
	CHECK(m.compared == 0 && !m.matched);
	CHECK(imalog_match(&log, TPM2_ALG_SM3_256, &v, &m, &e) == EX_USAGE);
	/* Fields: d-ng and n-ng, as the ascii list shows them. */
	CHECK(imalog_fields(&log.ent[0], f, IMA_MAX_FIELDS) == 2);
	CHECK(f[0].len == 40 && memcmp(f[0].p, "sha256:", 8) == 0);
	CHECK(f[1].len == 7 && memcmp(f[1].p, "/bin/x", 7) == 0);
	CHECK(imalog_fields(&log.ent[0], f, 1) == 1);
	imalog_free(&log);
}

int main(void)
{
	test_agile();
	test_legacy_and_limits();
	test_summary();
	test_ima();
	test_ima_match();
	return unit_done("eventlog");
}
