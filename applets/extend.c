/* extend: extend a PCR with data (hashed per bank) or a raw digest. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/hex.h"
#include "crypto/hash.h"
#include "fmt/pcrfile.h"
#include "job/tpm.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: extend PCR (-s STRING | -f FILE | -d HEX) [-b BANKS] [-v]\n"
	"Extend PCR in every target bank with one TPM2_PCR_Extend (on a TPM "
	"1.2:\n"
	"TPM_Extend of the sha1 bank, the only one).\n"
	"  -s STRING  hash STRING (no newline) with each bank's algorithm\n"
	"  -f FILE    hash FILE's contents (- for stdin) likewise\n"
	"  -d HEX     extend this digest as is\n"
	"  -b BANKS   target banks, e.g. sha256 or sha1,sha256 (default: "
	"every\n"
	"             allocated bank; with -d those whose size matches)\n"
	"  -v         print the new values in pcrread's format\n";

/* Hash a file once per bank, reading it once. */
static int hash_file(struct ctx *c, const char *path, int n,
		     const uint16_t *algs, uint8_t (*d)[64])
{
	struct hash_ctx *h[TPM2_MAX_BANKS];
	uint8_t buf[65536];
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	int i;

	if (fd < 0)
		return err_set(&c->e, errno == ENOENT ? EX_NOENT : EX_IO,
			       "cannot open %s: %s", path, strerror(errno));
	for (i = 0; i < n; i++)
		h[i] = hash_new(algs[i]);
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int er = errno;

			for (i = 0; i < n; i++)
				hash_final(h[i], d[i]);
			if (fd)
				close(fd);
			return err_set(&c->e, EX_IO, "reading %s: %s", path,
				       strerror(er));
		}
		if (r == 0)
			break;
		for (i = 0; i < n; i++)
			hash_update(h[i], buf, (size_t)r);
	}
	if (fd)
		close(fd);
	for (i = 0; i < n; i++)
		hash_final(h[i], d[i]);
	return 0;
}

static const char shortopts[] = "s:f:d:b:v";

static int run(struct ctx *c, int argc, char **argv)
{
	const char *str = NULL, *file = NULL, *dig = NULL, *banks = NULL;
	uint8_t raw[TPM2_MAX_DIGEST], d[TPM2_MAX_BANKS][64];
	uint16_t algs[TPM2_MAX_BANKS];
	int verbose = 0, nsrc = 0, n = 0, o, i, k;
	long rawlen = 0;
	struct pcr_sel alloc, sel;
	unsigned npcrs = 0;
	uint64_t pcr;
	struct tpm *t;

	while ((o = getopt(argc, argv, shortopts)) != -1) {
		switch (o) {
		case 's': str = optarg; nsrc++; break;
		case 'f': file = optarg; nsrc++; break;
		case 'd': dig = optarg; nsrc++; break;
		case 'b': banks = optarg; break;
		case 'v': verbose = 1; break;
		default: return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc - 1)
		return ctx_usage(c, "expected one PCR index");
	if (parse_u64(argv[optind], &pcr) || pcr > 31)
		return ctx_usage(c, "bad PCR index '%s'", argv[optind]);
	if (nsrc != 1)
		return ctx_usage(c, "give exactly one of -s, -f, -d");
	if (dig) {
		rawlen = hex_decode(dig, raw, sizeof(raw));
		if (rawlen <= 0)
			return ctx_usage(c, "bad digest '%s' (hex of 20, 32, "
					 "48 or 64 bytes)", dig);
	}

	/* Step 1: the target banks, checked against the TPM's. */
	if (!(t = ctx_tpm(c)) || tpm_trust_begin(t) ||
	    tpm_pcr_banks(t, &alloc, &npcrs))
		return ctx_fail(c);
	if (pcr >= npcrs)
		return ctx_usage(c, "PCR %llu is out of range: this TPM has "
				 "PCRs 0-%u", (unsigned long long)pcr,
				 npcrs - 1);
	if (banks) {
		if (pcr_banks_parse(banks, algs, &n, &c->e))
			return ctx_usage(c, "%s", c->e.msg);
		for (k = 0; k < n; k++) {
			if (tpm_bank_check(t, &alloc, algs[k]))
				return ctx_fail(c);
			if (dig && hash_size(algs[k]) != (size_t)rawlen)
				return ctx_usage(c, "a %ld-byte digest does not"
						 " fit bank %s (%zu bytes)",
						 rawlen, alg_name(algs[k]),
						 hash_size(algs[k]));
		}
	} else {
		for (i = 0; i < alloc.n; i++)
			if (!dig || hash_size(alloc.b[i].alg) ==
			    (size_t)rawlen)
				algs[n++] = alloc.b[i].alg;
	}
	if (n == 0)
		return ctx_usage(c, "no allocated bank has %ld-byte digests",
				 rawlen);
	for (i = 0; i < n && !dig; i++)
		if (!hash_supported(algs[i]))
			return ctx_usage(c, "tpmbox cannot compute %s; pass "
					 "-b with other banks or -d",
					 alg_name(algs[i]));

	/* Step 2: one digest per bank. */
	for (i = 0; i < n; i++) {
		if (dig)
			memcpy(d[i], raw, (size_t)rawlen);
		else if (str)
			hash_buf(algs[i], str, strlen(str), d[i]);
	}
	if (file && hash_file(c, file, n, algs, d))
		return ctx_fail(c);

	/* Step 3: extend all banks at once, then show the result. */
	if (!verbose)
		tpm_last(t);
	if (tpm_pcr_extend(t, (unsigned)pcr, n, algs, d))
		return ctx_fail(c);
	if (verbose) {
		struct pcr_vals v;

		memset(&sel, 0, sizeof(sel));
		for (i = 0; i < n; i++) {
			sel.b[i].alg = algs[i];
			sel.b[i].mask = 1u << pcr;
		}
		sel.n = n;
		tpm_last(t);
		if (tpm_pcr_read(t, &sel, &v))
			return ctx_fail(c);
		return ctx_print_pcrs(c, &v, 0);
	}
	return 0;
}

const struct applet applet_extend = {
	"extend", "extend a PCR with data or a digest", APPLET_USAGE(usage),
	run, shortopts, NULL, APPLET_PIN
};
