/* evict: remove a persistent object, after saying what it is. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "applet.h"
#include "base/hex.h"
#include "tpm2/object.h"
#include "tpm2/persist.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: evict HANDLE [--yes] [--owner-auth AUTH]\n"
	"Remove the persistent object at HANDLE (0x81000000-0x817fffff;\n"
	"TPM2_EvictControl, owner hierarchy) after printing what it is and\n"
	"asking on the terminal.  Keys and blobs made under it (for the SRK:\n"
	"every sealed blob and AK) stay usable only if the same key can be\n"
	"made again.\n"
	"  --yes      do not ask (required when stdin is not a terminal)\n"
	"  --owner-auth AUTH  the owner auth value (keys a salted session)\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n";

static const char shortopts[] = "";
static const struct option longopts[] = {
	{ "yes", no_argument, NULL, 'y' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ NULL, 0, NULL, 0 }
};

static int confirm(uint32_t h)
{
	char line[32];

	fprintf(stderr, "Evict 0x%08x? Type 'yes': ", h);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	return strcmp(line, "yes\n") == 0 || strcmp(line, "yes") == 0;
}

static int run(struct ctx *c, int argc, char **argv)
{
	const char *owner_spec = NULL;
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	char hx[2 * TPM2_NAME_MAX + 1];
	int o, yes = 0, rc = 0;
	uint64_t hv;
	struct tpm *t;

	if (!pub)
		return ctx_usage(c, "out of memory");
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'y': yes = 1; break;
		case 'O': owner_spec = optarg; break;
		default: rc = ctx_usage(c, "unknown option"); goto out;
		}
	}
	if (optind != argc - 1 || parse_u64(argv[optind], &hv) ||
	    hv < TPM2_PERSIST_FIRST || hv > TPM2_PERSIST_LAST) {
		rc = ctx_usage(c, "one HANDLE, an owner persistent handle "
			       "(0x81000000-0x817fffff)");
		goto out;
	}
	if (!yes && !isatty(0)) {
		rc = ctx_usage(c, "refusing to evict without a terminal to "
			       "ask on; give --yes");
		goto out;
	}
	/* Step 1: what it is (a missing handle: exit 6). */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_readpublic(t, (uint32_t)hv, pub)) {
		rc = ctx_fail(c);
		goto out;
	}
	hex_encode(pub->name, pub->namelen, hx);
	printf("0x%08x: %s (name %s)\n", (unsigned)hv, tpm2_object_kind(pub),
	       hx);
	fflush(stdout);
	/* Step 2: consent, then gone. */
	if (!yes && !confirm((uint32_t)hv)) {
		rc = ctx_usage(c, "not confirmed; nothing evicted");
		goto out;
	}
	if (tpm2_unpersist(t, owner_spec, (uint32_t)hv, pub)) {
		rc = ctx_fail(c);
		goto out;
	}
	printf("0x%08x: evicted\n", (unsigned)hv);
out:
	free(pub);
	return rc;
}

const struct applet applet_evict = {
	"evict", "remove a persistent object (after saying what it is)",
	APPLET_USAGE(usage), run, shortopts, longopts, APPLET_PIN
};
