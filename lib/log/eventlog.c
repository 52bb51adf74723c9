/* TCG PC Client event logs: parse (legacy SHA-1 and crypto-agile) and
 * replay.  Layouts from the TCG PC Client Platform Firmware Profile spec:
 *
 *   TCG_PCClientPCREvent: pcrIndex u32, eventType u32, digest[20],
 *                         eventDataSize u32, event[eventDataSize]
 *   TCG_PCR_EVENT2:       pcrIndex u32, eventType u32, count u32,
 *                         count x (hashAlg u16, digest[size of hashAlg]),
 *                         eventSize u32, event[eventSize]
 *
 * all little-endian.  The first record is always a TCG_PCClientPCREvent; in
 * a crypto-agile log it is EV_NO_ACTION carrying TCG_EfiSpecIDEvent
 * ("Spec ID Event03"), whose algorithm list gives each digest's size. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "log/eventlog.h"
#include "tpm2/cmd.h"

static const struct {
	uint32_t type;
	const char *name;
} types[] = {
	{ EV_PREBOOT_CERT, "EV_PREBOOT_CERT" },
	{ EV_POST_CODE, "EV_POST_CODE" },
	{ 0x00000002u, "EV_UNUSED" },
	{ EV_NO_ACTION, "EV_NO_ACTION" },
	{ EV_SEPARATOR, "EV_SEPARATOR" },
	{ EV_ACTION, "EV_ACTION" },
	{ EV_EVENT_TAG, "EV_EVENT_TAG" },
	{ EV_S_CRTM_CONTENTS, "EV_S_CRTM_CONTENTS" },
	{ EV_S_CRTM_VERSION, "EV_S_CRTM_VERSION" },
	{ EV_CPU_MICROCODE, "EV_CPU_MICROCODE" },
	{ EV_PLATFORM_CONFIG_FLAGS, "EV_PLATFORM_CONFIG_FLAGS" },
	{ EV_TABLE_OF_DEVICES, "EV_TABLE_OF_DEVICES" },
	{ EV_COMPACT_HASH, "EV_COMPACT_HASH" },
	{ EV_IPL, "EV_IPL" },
	{ EV_IPL_PARTITION_DATA, "EV_IPL_PARTITION_DATA" },
	{ EV_NONHOST_CODE, "EV_NONHOST_CODE" },
	{ EV_NONHOST_CONFIG, "EV_NONHOST_CONFIG" },
	{ EV_NONHOST_INFO, "EV_NONHOST_INFO" },
	{ EV_OMIT_BOOT_DEVICE_EVENTS, "EV_OMIT_BOOT_DEVICE_EVENTS" },
	{ EV_EFI_EVENT_BASE, "EV_EFI_EVENT_BASE" },
	{ EV_EFI_VARIABLE_DRIVER_CONFIG, "EV_EFI_VARIABLE_DRIVER_CONFIG" },
	{ EV_EFI_VARIABLE_BOOT, "EV_EFI_VARIABLE_BOOT" },
	{ EV_EFI_BOOT_SERVICES_APPLICATION,
	  "EV_EFI_BOOT_SERVICES_APPLICATION" },
	{ EV_EFI_BOOT_SERVICES_DRIVER, "EV_EFI_BOOT_SERVICES_DRIVER" },
	{ EV_EFI_RUNTIME_SERVICES_DRIVER, "EV_EFI_RUNTIME_SERVICES_DRIVER" },
	{ EV_EFI_GPT_EVENT, "EV_EFI_GPT_EVENT" },
	{ EV_EFI_ACTION, "EV_EFI_ACTION" },
	{ EV_EFI_PLATFORM_FIRMWARE_BLOB, "EV_EFI_PLATFORM_FIRMWARE_BLOB" },
	{ EV_EFI_HANDOFF_TABLES, "EV_EFI_HANDOFF_TABLES" },
	{ EV_EFI_PLATFORM_FIRMWARE_BLOB2, "EV_EFI_PLATFORM_FIRMWARE_BLOB2" },
	{ EV_EFI_HANDOFF_TABLES2, "EV_EFI_HANDOFF_TABLES2" },
	{ EV_EFI_VARIABLE_BOOT2, "EV_EFI_VARIABLE_BOOT2" },
	{ EV_EFI_HCRTM_EVENT, "EV_EFI_HCRTM_EVENT" },
	{ EV_EFI_VARIABLE_AUTHORITY, "EV_EFI_VARIABLE_AUTHORITY" },
	{ EV_EFI_SPDM_FIRMWARE_BLOB, "EV_EFI_SPDM_FIRMWARE_BLOB" },
	{ EV_EFI_SPDM_FIRMWARE_CONFIG, "EV_EFI_SPDM_FIRMWARE_CONFIG" },
};

const char *evl_type_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return types[i].name;
	return NULL;
}

static const char spec_id03[16] = "Spec ID Event03";
static const char spec_id00[16] = "Spec ID Event00";
static const char startup_loc[16] = "StartupLocality";

static int is_sig(const struct evl_event *ev, const char sig[16])
{
	return ev->type == EV_NO_ACTION && ev->dlen >= 16 &&
	       memcmp(ev->data, sig, 16) == 0;
}

/* TCG_EfiSpecIDEvent: signature[16], platformClass u32, specVersionMinor,
 * specVersionMajor, specErrata, uintnSize (u8 each), numberOfAlgorithms
 * u32, digestSizes[n] (algorithmId u16, digestSize u16), vendorInfoSize u8,
 * vendorInfo. */
static int parse_spec_id(const struct evl_event *ev,
			 struct evl_alg algs[TPM2_MAX_BANKS], int *nalgs,
			 struct tberr *e)
{
	struct tb b;
	uint32_t n, i;
	int j;
	uint8_t vsize;

	tb_init_read(&b, ev->data, ev->dlen);
	tb_skip(&b, 16 + 4 + 4);
	n = tb_get_u32_le(&b);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "Spec ID event at offset %zu is "
			       "too short", ev->offset);
	if (n == 0 || n > TPM2_MAX_BANKS)
		return err_set(e, EX_FAIL, "Spec ID event at offset %zu lists "
			       "%u algorithms (1-%d supported)", ev->offset,
			       n, TPM2_MAX_BANKS);
	*nalgs = 0;
	for (i = 0; i < n; i++) {
		uint16_t alg = tb_get_u16_le(&b), size = tb_get_u16_le(&b);

		if (tb_err(&b))
			return err_set(e, EX_FAIL, "Spec ID event at offset "
				       "%zu is too short for %u algorithms",
				       ev->offset, n);
		if (size == 0 || size > TPM2_MAX_DIGEST)
			return err_set(e, EX_FAIL, "Spec ID event: algorithm "
				       "0x%04x has digest size %u", alg, size);
		if (hash_size(alg) && hash_size(alg) != size)
			return err_set(e, EX_FAIL, "Spec ID event: %s digest "
				       "size %u, expected %zu", alg_name(alg),
				       size, hash_size(alg));
		for (j = 0; j < *nalgs; j++)
			if (algs[j].alg == alg)
				return err_set(e, EX_FAIL, "Spec ID event "
					       "lists algorithm 0x%04x twice",
					       alg);
		algs[i].alg = alg;
		algs[i].size = size;
		*nalgs = (int)i + 1;
	}
	vsize = tb_get_u8(&b);
	tb_skip(&b, vsize);
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "Spec ID event at offset %zu: "
			       "vendor info runs past the event", ev->offset);
	return 0;
}

static int truncated(struct tberr *e, uint32_t num, size_t off, size_t len)
{
	return err_set(e, EX_FAIL, "event log truncated at offset %zu: "
		       "event %u (at offset %zu) runs past the end", len, num,
		       off);
}

/* The body shared by both record formats: eventDataSize and data. */
static int get_data(struct tb *b, struct evl_event *ev, struct tberr *e)
{
	uint32_t n = tb_get_u32_le(b);

	if (tb_err(b))
		return truncated(e, ev->num, ev->offset, b->len);
	if (n > EVL_MAX_DATA)
		return err_set(e, EX_FAIL, "event %u at offset %zu: data size "
			       "%u exceeds the limit of %u bytes", ev->num,
			       ev->offset, n, EVL_MAX_DATA);
	if (n > tb_left(b))
		return truncated(e, ev->num, ev->offset, b->len);
	ev->dlen = n;
	ev->data = tb_get_ref(b, n);
	return 0;
}

static int get_legacy(struct tb *b, struct evl_event *ev, struct tberr *e)
{
	ev->pcr = tb_get_u32_le(b);
	ev->type = tb_get_u32_le(b);
	ev->ndig = 1;
	ev->dig[0].alg = TPM2_ALG_SHA1;
	ev->dig[0].len = 20;
	ev->dig[0].d = tb_get_ref(b, 20);
	if (tb_err(b))
		return truncated(e, ev->num, ev->offset, b->len);
	return get_data(b, ev, e);
}

static int get_agile(struct tb *b, const struct evl *log,
		     struct evl_event *ev, struct tberr *e)
{
	uint32_t count, i;
	int j;

	ev->pcr = tb_get_u32_le(b);
	ev->type = tb_get_u32_le(b);
	count = tb_get_u32_le(b);
	if (tb_err(b))
		return truncated(e, ev->num, ev->offset, b->len);
	/* An event that extends a PCR carries one digest per bank the
	 * header names: one with fewer would be in the log without being
	 * bound to the PCRs of the banks it leaves out. */
	if (count > (uint32_t)log->nalgs ||
	    (ev->type != EV_NO_ACTION && count != (uint32_t)log->nalgs))
		return err_set(e, EX_FAIL, "event %u at offset %zu: %u digests"
			       ", but the header lists %d algorithms", ev->num,
			       ev->offset, count, log->nalgs);
	ev->ndig = (int)count;
	for (i = 0; i < count; i++) {
		uint16_t alg = tb_get_u16_le(b);

		if (tb_err(b))
			return truncated(e, ev->num, ev->offset, b->len);
		for (j = 0; j < log->nalgs && log->algs[j].alg != alg; j++)
			;
		if (j == log->nalgs)
			return err_set(e, EX_FAIL, "event %u at offset %zu: "
				       "digest algorithm 0x%04x is not in the "
				       "log header", ev->num, ev->offset, alg);
		for (j = 0; j < (int)i; j++)
			if (ev->dig[j].alg == alg)
				return err_set(e, EX_FAIL, "event %u at offset"
					       " %zu: two %s digests", ev->num,
					       ev->offset, alg_name(alg));
		for (j = 0; log->algs[j].alg != alg; j++)
			;
		ev->dig[i].alg = alg;
		ev->dig[i].len = log->algs[j].size;
		ev->dig[i].d = tb_get_ref(b, ev->dig[i].len);
		if (tb_err(b))
			return truncated(e, ev->num, ev->offset, b->len);
	}
	return get_data(b, ev, e);
}

void evl_free(struct evl *log)
{
	free(log->ev);
	log->ev = NULL;
	log->n = 0;
}

int evl_parse(const uint8_t *buf, size_t len, struct evl *log,
	      struct tberr *e)
{
	struct tb b;
	uint32_t cap = 64;
	int rc;

	memset(log, 0, sizeof(*log));
	log->locality = -1;
	if (len == 0)
		return err_set(e, EX_FAIL, "event log is empty");
	log->ev = calloc(cap, sizeof(*log->ev));
	if (!log->ev)
		return err_set(e, EX_IO, "out of memory");
	tb_init_read(&b, buf, len);
	while (tb_left(&b)) {
		struct evl_event *ev;

		if (log->n == EVL_MAX_EVENTS) {
			rc = err_set(e, EX_FAIL, "event log has more than %u "
				     "events", EVL_MAX_EVENTS);
			goto fail;
		}
		if (log->n == cap) {
			struct evl_event *p = realloc(log->ev, 2 * cap *
						      sizeof(*p));

			if (!p) {
				rc = err_set(e, EX_IO, "out of memory");
				goto fail;
			}
			log->ev = p;
			cap *= 2;
		}
		ev = &log->ev[log->n];
		memset(ev, 0, sizeof(*ev));
		ev->num = log->n;
		ev->offset = b.pos;
		/* The first record is in the SHA-1 format in both kinds. */
		rc = log->agile ? get_agile(&b, log, ev, e)
				: get_legacy(&b, ev, e);
		if (rc)
			goto fail;
		if (log->n == 0 && ev->pcr == 0 && is_sig(ev, spec_id03)) {
			/* Parsed into locals: a callee given a pointer into
			 * *log makes the analyzer forget log->ev. */
			struct evl_alg algs[TPM2_MAX_BANKS];
			int nalgs;

			if ((rc = parse_spec_id(ev, algs, &nalgs, e)))
				goto fail;
			memcpy(log->algs, algs, sizeof(algs));
			log->nalgs = nalgs;
			log->agile = 1;
		} else if (log->n == 0 && ev->pcr == 0 &&
			   is_sig(ev, spec_id00)) {
			/* A legacy log announcing itself; SHA-1 only. */
		} else if (ev->pcr == 0 && is_sig(ev, startup_loc) &&
			   ev->dlen >= 17) {
			if (log->locality >= 0) {
				rc = err_set(e, EX_FAIL, "event %u at offset "
					     "%zu: a second StartupLocality "
					     "event", ev->num, ev->offset);
				goto fail;
			}
			log->locality = ev->data[16];
		}
		log->n++;
	}
	if (!log->agile) {
		log->nalgs = 1;
		log->algs[0].alg = TPM2_ALG_SHA1;
		log->algs[0].size = 20;
	}
	return 0;
fail:
	evl_free(log);
	return rc;
}

/* The PCRs a firmware boot log accounts for in full: 0-7, the pre-OS
 * (SRTM) PCRs of the PC Client Platform Firmware Profile.  Everything the
 * firmware and the boot loaders it runs extend there is in its log; PCRs
 * 8-15 are shared with the OS (IMA's 10, systemd's 11-15), 16 is debug,
 * 17-22 are DRTM (not in this log), 23 is for applications. */
#define EVL_SRTM_PCRS	0xffu

static int replay(const struct evl *log, uint32_t reset_too,
		  struct pcr_vals *out, struct tberr *e);

int evl_replay(const struct evl *log, struct pcr_vals *out, struct tberr *e)
{
	return replay(log, 0, out, e);
}

int evl_replay_reset(const struct evl *log, uint32_t reset_too,
		     struct pcr_vals *out, struct tberr *e)
{
	return replay(log, reset_too, out, e);
}

/* Replay; the PCRs in reset_too are given (at their reset value when no
 * event extends them) in every bank the log covers. */
static int replay(const struct evl *log, uint32_t reset_too,
		  struct pcr_vals *out, struct tberr *e)
{
	/* Per bank (header order), per PCR: value and whether extended. */
	uint8_t val[TPM2_MAX_BANKS][32][TPM2_MAX_DIGEST];
	uint32_t touched[TPM2_MAX_BANKS] = { 0 }, i;
	int k, j, p;

	out->n = 0;
	memset(val, 0, sizeof(val));
	if (log->locality >= 0)
		for (k = 0; k < log->nalgs; k++)
			val[k][0][log->algs[k].size - 1] =
				(uint8_t)log->locality;
	for (i = 0; i < log->n; i++) {
		const struct evl_event *ev = &log->ev[i];

		if (ev->type == EV_NO_ACTION)
			continue;
		if (ev->pcr > 31)
			return err_set(e, EX_FAIL, "event %u at offset %zu: "
				       "PCR %u is out of range", ev->num,
				       ev->offset, ev->pcr);
		for (j = 0; j < ev->ndig; j++) {
			uint8_t m[2 * TPM2_MAX_DIGEST];
			uint16_t sz = ev->dig[j].len;

			for (k = 0; log->algs[k].alg != ev->dig[j].alg; k++)
				;
			if (!hash_supported(log->algs[k].alg))
				continue;
			memcpy(m, val[k][ev->pcr], sz);
			memcpy(m + sz, ev->dig[j].d, sz);
			hash_buf(log->algs[k].alg, m, 2u * sz,
				 val[k][ev->pcr]);
			touched[k] |= 1u << ev->pcr;
		}
	}
	for (k = 0; k < log->nalgs; k++) {
		if (!hash_supported(log->algs[k].alg))
			continue;
		for (p = 0; p < 32; p++) {
			struct pcr_val *v;

			if (!((touched[k] | reset_too) & (1u << p)))
				continue;
			v = &out->v[out->n++];
			v->alg = log->algs[k].alg;
			v->idx = (uint8_t)p;
			v->len = (uint8_t)log->algs[k].size;
			memcpy(v->d, val[k][p], v->len);
		}
	}
	return 0;
}

int evl_read_file(const char *path, uint8_t **buf, struct evl *log,
		  struct tberr *e)
{
	size_t len;

	*buf = NULL;
	if (file_read(path, EVL_MAX_FILE, buf, &len, e))
		return e->code ? e->code : EX_IO;
	if (evl_parse(*buf, len, log, e)) {
		free(*buf);
		*buf = NULL;
		err_prefix(e, "%s", path);
		return e->code ? e->code : EX_FAIL;
	}
	return 0;
}

int eventlog_replay_file(const char *path, struct pcr_vals *out,
			 struct tberr *e)
{
	uint8_t *buf;
	struct evl log;
	int rc;

	out->n = 0;
	if ((rc = evl_read_file(path, &buf, &log, e)))
		return rc;
	rc = replay(&log, EVL_SRTM_PCRS, out, e);
	evl_free(&log);
	free(buf);
	if (rc)
		err_prefix(e, "%s", path);
	return rc;
}

int evl_var_parse(const struct evl_event *ev, struct evl_var *v)
{
	struct tb b;
	uint64_t nl, vl;

	tb_init_read(&b, ev->data, ev->dlen);
	v->guid = tb_get_ref(&b, 16);
	nl = tb_get_u64_le(&b);
	vl = tb_get_u64_le(&b);
	if (tb_err(&b) || nl > tb_left(&b) / 2 || vl != tb_left(&b) - 2 * nl)
		return -1;
	v->nlen = (size_t)nl;
	v->name = tb_get_ref(&b, 2 * v->nlen);
	v->vlen = (size_t)vl;
	v->val = tb_get_ref(&b, v->vlen);
	return tb_err(&b) ? -1 : 0;
}

/* --- summaries --------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t cap, len;
};

static void sb_printf(struct sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (s->len + 1 >= s->cap)
		return;
	va_start(ap, fmt);
	r = vsnprintf(s->p + s->len, s->cap - s->len, fmt, ap);
	va_end(ap);
	if (r > 0)
		s->len += (size_t)r < s->cap - s->len ? (size_t)r
						      : s->cap - s->len - 1;
}

/* Append up to max characters of text, where each character is one byte
 * (step 1) or a UCS-2 code unit (step 2); non-ASCII becomes '?'. */
static void sb_text(struct sbuf *s, const uint8_t *p, size_t n, int step,
		    size_t max)
{
	size_t i, k = 0;

	for (i = 0; i + (size_t)step <= n; i += (size_t)step) {
		unsigned c = p[i] | (step == 2 ? (unsigned)p[i + 1] << 8 : 0);

		if (c == 0)
			break;
		if (k++ == max) {
			sb_printf(s, "...");
			return;
		}
		sb_printf(s, "%c", c >= 0x20 && c < 0x7f && c != '"' &&
			  c != '\\' ? (int)c : '?');
	}
}

/* Printable text in step-sized units, up to an optional terminator. */
static int is_text(const uint8_t *p, size_t n, int step)
{
	size_t i, chars = 0;

	if (n < (size_t)step || n % (size_t)step)
		return 0;
	for (i = 0; i < n; i += (size_t)step) {
		unsigned c = p[i] | (step == 2 ? (unsigned)p[i + 1] << 8 : 0);

		if (c == 0)
			return i + (size_t)step == n && chars > 0;
		if (c < 0x20 || c >= 0x7f) {
			if (c != '\n' && c != '\r' && c != '\t')
				return 0;
		}
		chars++;
	}
	return 1;
}

static void sb_hex(struct sbuf *s, const uint8_t *p, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max; i++)
		sb_printf(s, "%02x", p[i]);
	if (n > max)
		sb_printf(s, "...");
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void evl_summary(const struct evl_event *ev, char *out, size_t cap)
{
	struct sbuf s = { out, cap, 0 };
	const uint8_t *d = ev->data;
	size_t n = ev->dlen;

	if (cap == 0)
		return;
	out[0] = '\0';
	if (is_sig(ev, spec_id03) && n >= 28) {
		uint32_t k = d[24] | d[25] << 8 | d[26] << 16 |
			     (uint32_t)d[27] << 24, i;

		sb_printf(&s, "Spec ID Event03: ");
		for (i = 0; i < k && i < TPM2_MAX_BANKS && 28 + 4 * i + 2 <= n;
		     i++)
			sb_printf(&s, "%s%s", i ? "," : "",
				  alg_name((uint16_t)(d[28 + 4 * i] |
						      d[29 + 4 * i] << 8)));
		return;
	}
	if (is_sig(ev, startup_loc) && n >= 17) {
		sb_printf(&s, "StartupLocality %u", d[16]);
		return;
	}
	switch (ev->type) {
	case EV_EFI_VARIABLE_DRIVER_CONFIG:
	case EV_EFI_VARIABLE_BOOT:
	case EV_EFI_VARIABLE_BOOT2:
	case EV_EFI_VARIABLE_AUTHORITY:
		/* UEFI_VARIABLE_DATA: VariableName GUID, UnicodeNameLength
		 * u64, VariableDataLength u64, UnicodeName, VariableData. */
		if (n >= 32) {
			uint64_t nl = le64(d + 16), vl = le64(d + 24);

			if (nl <= (n - 32) / 2 && vl <= n - 32 - 2 * nl) {
				sb_printf(&s, "variable ");
				sb_text(&s, d + 32, (size_t)nl * 2, 2, 48);
				sb_printf(&s, " (%llu bytes)",
					  (unsigned long long)vl);
				return;
			}
		}
		break;
	case EV_EFI_BOOT_SERVICES_APPLICATION:
	case EV_EFI_BOOT_SERVICES_DRIVER:
	case EV_EFI_RUNTIME_SERVICES_DRIVER:
		/* UEFI_IMAGE_LOAD_EVENT: location, length, link-time address,
		 * device path length (u64 each), device path. */
		if (n >= 32) {
			sb_printf(&s, "image at 0x%llx, %llu bytes, device "
				  "path %llu bytes",
				  (unsigned long long)le64(d),
				  (unsigned long long)le64(d + 8),
				  (unsigned long long)le64(d + 24));
			return;
		}
		break;
	case EV_EVENT_TAG:
		/* TCG_PCClientTaggedEvent: taggedEventID u32,
		 * taggedEventDataSize u32, data.  The Linux EFI stub tags the
		 * initrd it measures into PCR 9 (0x8f3b22ec, data "Linux
		 * initrd") and, on later kernels, its load options
		 * (0x8f3b22ed). */
		if (n >= 8) {
			uint32_t id = d[0] | d[1] << 8 | d[2] << 16 |
				      (uint32_t)d[3] << 24;
			uint32_t sz = d[4] | d[5] << 8 | d[6] << 16 |
				      (uint32_t)d[7] << 24;

			if (sz != n - 8)
				break;
			sb_printf(&s, "tag 0x%08x%s", id,
				  id == 0x8f3b22ecu ? " (Linux initrd)" :
				  id == 0x8f3b22edu ? " (Linux load options)" :
				  "");
			if (sz && is_text(d + 8, sz, 1)) {
				sb_printf(&s, ": \"");
				sb_text(&s, d + 8, sz, 1, 60);
				sb_printf(&s, "\"");
			} else if (sz) {
				sb_printf(&s, ": ");
				sb_hex(&s, d + 8, sz, 16);
				sb_printf(&s, " (%u bytes)", sz);
			}
			return;
		}
		break;
	case EV_EFI_PLATFORM_FIRMWARE_BLOB:
		if (n == 16) {
			sb_printf(&s, "blob at 0x%llx, %llu bytes",
				  (unsigned long long)le64(d),
				  (unsigned long long)le64(d + 8));
			return;
		}
		break;
	}
	if (n == 0) {
		sb_printf(&s, "(no data)");
	} else if (is_text(d, n, 1)) {
		sb_printf(&s, "\"");
		sb_text(&s, d, n, 1, 60);
		sb_printf(&s, "\"");
	} else if (n >= 4 && is_text(d, n, 2)) {
		sb_printf(&s, "\"");
		sb_text(&s, d, n, 2, 60);
		sb_printf(&s, "\"");
	} else {
		sb_hex(&s, d, n, 16);
		sb_printf(&s, " (%zu bytes)", n);
	}
}

/* --- comparing with the TPM -------------------------------------------- */

int evl_tpm_values(struct tpm *t, const struct pcr_vals *want,
		   struct pcr_vals *got)
{
	struct pcr_sel alloc, sel;
	struct pcr_vals *rd;
	unsigned npcrs;
	int i, j, k, rc;

	got->n = want->n;
	for (i = 0; i < want->n; i++) {
		got->v[i] = want->v[i];
		got->v[i].len = 0;
	}
	if ((rc = tpm2_pcr_banks(t, &alloc, &npcrs)))
		return rc;
	memset(&sel, 0, sizeof(sel));
	for (i = 0; i < want->n; i++) {
		const struct pcr_val *w = &want->v[i];

		for (j = 0; j < alloc.n && alloc.b[j].alg != w->alg; j++)
			;
		if (j == alloc.n || w->idx >= npcrs)
			continue;
		for (k = 0; k < sel.n && sel.b[k].alg != w->alg; k++)
			;
		if (k == sel.n) {
			if (sel.n == TPM2_MAX_BANKS)
				continue;
			sel.b[sel.n++].alg = w->alg;
		}
		sel.b[k].mask |= 1u << w->idx;
	}
	if (sel.n == 0)
		return 0;
	if (!(rd = malloc(sizeof(*rd))))
		return err_set(t->e, EX_IO, "out of memory");
	if ((rc = tpm2_pcr_read(t, &sel, rd))) {
		free(rd);
		return rc;
	}
	for (i = 0; i < want->n; i++)
		for (j = 0; j < rd->n; j++)
			if (rd->v[j].alg == want->v[i].alg &&
			    rd->v[j].idx == want->v[i].idx)
				got->v[i] = rd->v[j];
	free(rd);
	return 0;
}

int evl_check(struct tpm *t, const struct pcr_vals *want, char **report,
	      struct tberr *e)
{
	char hw[2 * TPM2_MAX_DIGEST + 1], hg[2 * TPM2_MAX_DIGEST + 1];
	char bad[512] = "";
	struct pcr_vals *got = malloc(sizeof(*got));
	size_t cap = (size_t)want->n * 320 + 64, off = 0;
	char *r = malloc(cap);
	int i, nbad = 0, nok = 0, rc;

	*report = NULL;
	if (!got || !r) {
		free(got);
		free(r);
		return err_set(e, EX_IO, "out of memory");
	}
	r[0] = '\0';
	if ((rc = evl_tpm_values(t, want, got))) {
		free(got);
		free(r);
		return rc;
	}
	for (i = 0; i < want->n; i++) {
		const struct pcr_val *w = &want->v[i], *g = &got->v[i];

		if (!g->len) {
			off += (size_t)snprintf(r + off, cap - off, "%s:%u not "
						"on this TPM; not checked\n",
						alg_name(w->alg), w->idx);
			continue;
		}
		if (g->len == w->len && !memcmp(g->d, w->d, w->len)) {
			nok++;
			continue;
		}
		hex_encode(w->d, w->len, hw);
		hex_encode(g->d, g->len, hg);
		off += (size_t)snprintf(r + off, cap - off, "%s:%u differs: "
					"log %s tpm %s\n", alg_name(w->alg),
					w->idx, hw, hg);
		if (strlen(bad) < sizeof(bad) - 40)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
				 "%s%s:%u", nbad ? " " : "", alg_name(w->alg),
				 w->idx);
		nbad++;
	}
	free(got);
	if (!nbad && nok)
		snprintf(r + off, cap - off, "%d PCR%s the log\n", nok,
			 nok == 1 ? " matches" : "s match");
	*report = r;
	if (nbad)
		return err_set(e, EX_FAIL, "%d PCR%s from the log: %s",
			       nbad, nbad == 1 ? " differs" : "s differ", bad);
	if (!nok)
		return err_set(e, EX_FAIL, "no PCR of the log could be "
			       "compared: the TPM has none of its banks");
	return 0;
}
