/* Authenticode PE image digest.  Layouts from the Microsoft PE/COFF
 * specification, all little-endian:
 *
 *   DOS header:   e_magic "MZ" at 0, e_lfanew u32 at 0x3c
 *   at e_lfanew:  "PE\0\0", then the COFF header (20 bytes): Machine u16,
 *                 NumberOfSections u16 (+2), TimeDateStamp, PointerTo-
 *                 SymbolTable, NumberOfSymbols, SizeOfOptionalHeader u16
 *                 (+16), Characteristics u16
 *   optional header (opt = e_lfanew + 24): Magic u16 (0x10b PE32, 0x20b
 *                 PE32+), SizeOfHeaders u32 at +60, CheckSum u32 at +64,
 *                 NumberOfRvaAndSizes u32 at +92 (PE32) or +108 (PE32+),
 *                 the data directories (8 bytes each: VirtualAddress,
 *                 Size) from +96 or +112; entry 4 is the Certificate
 *                 Table, whose VirtualAddress is a file offset
 *   section table at opt + SizeOfOptionalHeader, 40 bytes a section:
 *                 SizeOfRawData u32 at +16, PointerToRawData u32 at +20 */
#include <stdlib.h>
#include <string.h>

#include "crypto/hash.h"
#include "fmt/authenticode.h"

#define PE32_MAGIC	0x10bu
#define PE32P_MAGIC	0x20bu
#define DIR_SECURITY	4u

struct range {
	size_t off, len;
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Is [off, off + n) inside [0, lim)?  Overflow-safe. */
static int inside(size_t off, size_t n, size_t lim)
{
	return off <= lim && n <= lim - off;
}

/* The ranges to hash, in order, into *out (malloc'd, *nr of them). */
static int layout(const uint8_t *buf, size_t len, struct range **out,
		  int *nr, struct tberr *e)
{
	size_t pe, opt, sects, hdrs, csum, dirs, cdir = 0, end, sum;
	size_t cert_off = 0, cert_len = 0;
	uint32_t nrva, i, j;
	uint16_t nsect, optsz, magic;
	struct range *r, *sec;
	int n = 0;

	*out = NULL;
	*nr = 0;
	if (len < 64 || buf[0] != 'M' || buf[1] != 'Z')
		return err_set(e, EX_FAIL, "not a PE image (no MZ header)");
	pe = le32(buf + 0x3c);
	if (!inside(pe, 24, len))
		return err_set(e, EX_FAIL, "truncated: the PE header at "
			       "offset %zu runs past the end (%zu bytes)", pe,
			       len);
	if (memcmp(buf + pe, "PE\0\0", 4))
		return err_set(e, EX_FAIL, "not a PE image (no PE signature "
			       "at offset %zu)", pe);
	nsect = le16(buf + pe + 6);
	optsz = le16(buf + pe + 20);
	opt = pe + 24;
	if (!inside(opt, optsz, len) || optsz < 2)
		return err_set(e, EX_FAIL, "truncated: the optional header "
			       "(%u bytes at offset %zu) runs past the end",
			       optsz, opt);
	magic = le16(buf + opt);
	if (magic == PE32_MAGIC)
		dirs = 96;
	else if (magic == PE32P_MAGIC)
		dirs = 112;
	else
		return err_set(e, EX_FAIL, "unknown optional header magic "
			       "0x%04x (neither PE32 nor PE32+)", magic);
	if (optsz < dirs)
		return err_set(e, EX_FAIL, "optional header of %u bytes is "
			       "too short for %s", optsz,
			       magic == PE32_MAGIC ? "PE32" : "PE32+");
	nrva = le32(buf + opt + dirs - 4);
	if (nrva > (optsz - dirs) / 8)
		return err_set(e, EX_FAIL, "%u data directories do not fit in "
			       "the %u-byte optional header", nrva, optsz);
	hdrs = le32(buf + opt + 60);
	csum = opt + 64;
	if (nrva > DIR_SECURITY) {
		cdir = opt + dirs + 8 * DIR_SECURITY;
		cert_off = le32(buf + cdir);
		cert_len = le32(buf + cdir + 4);
	}
	sects = opt + optsz;
	if (nsect > PE_MAX_SECTIONS)
		return err_set(e, EX_FAIL, "%u sections (at most %u)", nsect,
			       PE_MAX_SECTIONS);
	if (!inside(sects, (size_t)nsect * 40, len))
		return err_set(e, EX_FAIL, "truncated: the section table (%u "
			       "sections at offset %zu) runs past the end",
			       nsect, sects);
	if (hdrs > len)
		return err_set(e, EX_FAIL, "SizeOfHeaders %zu is beyond the "
			       "end of the file (%zu bytes)", hdrs, len);
	if (sects + (size_t)nsect * 40 > hdrs)
		return err_set(e, EX_FAIL, "the headers end at %zu, beyond "
			       "SizeOfHeaders %zu", sects + (size_t)nsect * 40,
			       hdrs);
	/* The attribute certificate table is left out, so it must be the
	 * last thing in the file: anything after it would be unhashed. */
	end = len;
	if (cert_len) {
		if (cert_len > len || cert_off != len - cert_len)
			return err_set(e, EX_FAIL, "the certificate table "
				       "(%zu bytes at offset %zu) is not at the "
				       "end of the file (%zu bytes)", cert_len,
				       cert_off, len);
		if (cert_off < hdrs)
			return err_set(e, EX_FAIL, "the certificate table at "
				       "offset %zu overlaps the headers",
				       cert_off);
		end = cert_off;
	}

	r = calloc((size_t)nsect + 4, sizeof(*r));
	if (!r)
		return err_set(e, EX_IO, "out of memory");
	/* Headers: up to CheckSum, skip it; up to the Certificate Table
	 * entry, skip it; the rest up to SizeOfHeaders. */
	r[n++] = (struct range){ 0, csum };
	if (cdir) {
		r[n++] = (struct range){ csum + 4, cdir - (csum + 4) };
		r[n++] = (struct range){ cdir + 8, hdrs - (cdir + 8) };
	} else {
		r[n++] = (struct range){ csum + 4, hdrs - (csum + 4) };
	}
	/* Sections with raw data, sorted by PointerToRawData (insertion
	 * sort: stable, and there are at most PE_MAX_SECTIONS). */
	sec = r + n;
	sum = hdrs;
	for (i = 0; i < nsect; i++) {
		const uint8_t *s = buf + sects + 40 * (size_t)i;
		struct range x = { le32(s + 20), le32(s + 16) };

		if (x.len == 0)
			continue;
		if (!inside(x.off, x.len, end)) {
			free(r);
			return err_set(e, EX_FAIL, "section %u (%zu bytes at "
				       "offset %zu) runs past the %s (%zu "
				       "bytes)", i + 1, x.len, x.off,
				       end == len ? "end of the file" :
				       "certificate table", end);
		}
		for (j = (uint32_t)(r + n - sec); j > 0 &&
		     sec[j - 1].off > x.off; j--)
			sec[j] = sec[j - 1];
		sec[j] = x;
		n++;
		sum += x.len;
	}
	/* Trailing data: from the count of bytes hashed (not the end of the
	 * last section: that is how EDK2 measures) to the certificate table.
	 * More bytes hashed than there are is an image firmware refuses. */
	if (sum > end) {
		free(r);
		return err_set(e, EX_FAIL, "the sections and headers add up "
			       "to %zu bytes, more than the %zu bytes before "
			       "the certificate table or the end", sum, end);
	}
	if (sum < end)
		r[n++] = (struct range){ sum, end - sum };
	*out = r;
	*nr = n;
	return 0;
}

int authenticode_digests(const uint8_t *buf, size_t len,
			 const uint16_t *algs, int n, uint8_t (*out)[64],
			 struct tberr *e)
{
	struct range *r;
	int nr, i, k, rc;

	for (k = 0; k < n; k++)
		if (!hash_supported(algs[k]))
			return err_set(e, EX_USAGE, "hash algorithm 0x%04x is "
				       "not supported", algs[k]);
	if ((rc = layout(buf, len, &r, &nr, e)))
		return rc;
	for (k = 0; k < n; k++) {
		struct hash_ctx *h = hash_new(algs[k]);

		if (!h) {
			free(r);
			return err_set(e, EX_IO, "out of memory");
		}
		for (i = 0; i < nr; i++)
			hash_update(h, buf + r[i].off, r[i].len);
		hash_final(h, out[k]);
	}
	free(r);
	return 0;
}
