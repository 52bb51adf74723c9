/* info: what this TPM is and what state it is in. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "base/tpm2const.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm2/cap.h"
#include "tpm2/pcr.h"

static const char usage[] =
	"usage: info [--json]\n"
	"Show the TPM family, manufacturer, vendor string, firmware version,\n"
	"allocated PCR banks, dictionary-attack state, persistent handles and\n"
	"the number of NV indices.  On a TPM 1.2: TPM_CAP_VERSION_VAL, the\n"
	"manufacturer, owner present, enabled and activated flags, PCR count,\n"
	"NV indices and key slots.\n"
	"  --json     the same as one JSON object\n";

#define MAXH TPM2_HANDLES_MAX

/* Four ASCII characters packed in a property value, trailing blanks and
 * NULs dropped, anything unprintable as '.'. */
static void ascii4(uint32_t v, char *out)
{
	int i;

	for (i = 0; i < 4; i++) {
		char ch = (char)(v >> (24 - 8 * i));

		/* The TPM is untrusted: nothing that could break the JSON. */
		out[i] = ch == 0 ? ' ' : (ch >= 32 && ch < 127 && ch != '"' &&
					  ch != '\\' ? ch : '.');
	}
	out[4] = '\0';
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static const char *yn(int b) { return b ? "yes" : "no"; }
static const char *tf(int b) { return b ? "true" : "false"; }

/* A TPM 1.2: its own set of facts (the job differs, so one branch). */
static int info12(struct ctx *c, struct tpm *t, int json)
{
	struct tpm12_info *in = malloc(sizeof(*in));
	char manu[5], vid[5], ver[32];
	size_t i;

	if (!in)
		return ctx_usage(c, "out of memory");
	if (tpm12_info(t, in)) {
		free(in);
		return ctx_fail(c);
	}
	ascii4(in->manufacturer, manu);
	rtrim(manu);
	ascii4((uint32_t)in->vendor_id[0] << 24 |
	       (uint32_t)in->vendor_id[1] << 16 |
	       (uint32_t)in->vendor_id[2] << 8 | in->vendor_id[3], vid);
	rtrim(vid);
	snprintf(ver, sizeof(ver), "%u.%u.%u.%u", in->version[0],
		 in->version[1], in->version[2], in->version[3]);
	if (json) {
		printf("{\n  \"family\": \"1.2\",\n  \"version\": \"%s\",\n"
		       "  \"spec_level\": %u,\n  \"errata_revision\": %u,\n"
		       "  \"manufacturer\": \"%s\",\n  \"vendor_id\": \"%s\",\n"
		       "  \"owner\": %s,\n  \"enabled\": %s,\n"
		       "  \"activated\": %s,\n  \"nv_locked\": %s,\n"
		       "  \"pcr_count\": %u,\n  \"banks\": [\"sha1\"],\n"
		       "  \"key_slots\": {\"max\": %u, \"free\": %u, "
		       "\"loaded\": %zu},\n  \"max_sessions\": %u,\n"
		       "  \"nv_indices\": %zu,\n  \"nv_index_list\": [",
		       ver, in->spec_level, in->errata_rev, manu, vid,
		       tf(in->owner), tf(!in->disabled),
		       tf(!in->deactivated && !in->temp_deactivated),
		       tf(in->nv_locked), in->npcrs, in->max_keys,
		       in->free_keys, in->nkeys, in->max_sessions, in->nnv);
		for (i = 0; i < in->nnv; i++)
			printf("%s\"0x%08x\"", i ? ", " : "", in->nv[i]);
		printf("]\n}\n");
	} else {
		printf("family: 1.2\nversion: %s\nspec level: %u, errata "
		       "revision %u\nmanufacturer: %s\nvendor id: %s\n"
		       "owner present: %s\nenabled: %s\nactivated: %s%s\n"
		       "nv locked: %s\npcr count: %u\nbanks: sha1\n"
		       "key slots: %u, %u free, %zu loaded\n"
		       "auth sessions: %u\nnv indices: %zu",
		       ver, in->spec_level, in->errata_rev, manu, vid,
		       yn(in->owner), yn(!in->disabled),
		       yn(!in->deactivated && !in->temp_deactivated),
		       in->temp_deactivated && !in->deactivated ?
		       " (deactivated until the next startup)" : "",
		       yn(in->nv_locked), in->npcrs, in->max_keys,
		       in->free_keys, in->nkeys, in->max_sessions, in->nnv);
		for (i = 0; i < in->nnv; i++)
			printf("%s0x%08x", i ? " " : " (", in->nv[i]);
		printf("%s\n", in->nnv ? ")" : "");
	}
	free(in);
	return 0;
}

static const struct option longopts[] = {
	{"json", no_argument, NULL, 'j'},
	{NULL, 0, NULL, 0}
};

static int run(struct ctx *c, int argc, char **argv)
{
	struct tpm2_prop fixed[128], var[64];
	size_t nf, nv, npers, nnv, i;
	uint32_t pers[MAXH], nvh[MAXH], v, fv1 = 0, fv2 = 0, perm = 0;
	uint32_t ctr = 0, maxf = 0, intv = 0, rec = 0, rev = 0, year = 0;
	char fam[5] = "", manu[5] = "", vendor[17] = "", fw[48];
	struct pcr_sel alloc;
	unsigned npcrs;
	int json, o, rc;
	struct tpm *t;

	if ((rc = ctx_json_only(c, argc, argv, longopts, &json)))
		return rc;

	/* A TPM 1.2 has another set of facts: known from the device, or
	 * from its refusal of the first 2.0 question (no probe of its
	 * own). */
	if (!(t = ctx_tpm(c)))
		return ctx_fail(c);
	if ((o = tpm_family_known(t)) == TPM_FAMILY_12)
		return info12(c, t, json);
	/* Step 1: fixed and variable properties, banks, handle lists. */
	if ((rc = tpm2_getprops(t, TPM2_PT_FIXED, 0x100, fixed, 128, &nf)) &&
	    tpm_answered_12(t, rc, o))
		return info12(c, t, json);
	if (rc || tpm2_getprops(t, TPM2_PT_VAR, 0x100, var, 64, &nv) ||
	    tpm2_pcr_banks(t, &alloc, &npcrs) ||
	    tpm2_gethandles(t, 0x81000000u, pers, MAXH, &npers) ||
	    tpm2_gethandles(t, 0x01000000u, nvh, MAXH, &nnv))
		return ctx_fail(c);

	/* Step 2: decode them. */
	if (tpm2_prop_find(fixed, nf, TPM2_PT_FAMILY_INDICATOR, &v))
		ascii4(v, fam), rtrim(fam);
	if (tpm2_prop_find(fixed, nf, TPM2_PT_MANUFACTURER, &v))
		ascii4(v, manu), rtrim(manu);
	for (i = 0; i < 4; i++)
		if (tpm2_prop_find(fixed, nf, TPM2_PT_VENDOR_STRING_1 +
				   (uint32_t)i, &v))
			ascii4(v, vendor + 4 * i);
	rtrim(vendor);
	tpm2_prop_find(fixed, nf, TPM2_PT_FIRMWARE_VERSION_1, &fv1);
	tpm2_prop_find(fixed, nf, TPM2_PT_FIRMWARE_VERSION_2, &fv2);
	tpm2_prop_find(fixed, nf, TPM2_PT_REVISION, &rev);
	tpm2_prop_find(fixed, nf, TPM2_PT_YEAR, &year);
	snprintf(fw, sizeof(fw), "%u.%u.%u.%u", fv1 >> 16, fv1 & 0xffff,
		 fv2 >> 16, fv2 & 0xffff);
	tpm2_prop_find(var, nv, TPM2_PT_PERMANENT, &perm);
	tpm2_prop_find(var, nv, TPM2_PT_LOCKOUT_COUNTER, &ctr);
	tpm2_prop_find(var, nv, TPM2_PT_MAX_AUTH_FAIL, &maxf);
	tpm2_prop_find(var, nv, TPM2_PT_LOCKOUT_INTERVAL, &intv);
	tpm2_prop_find(var, nv, TPM2_PT_LOCKOUT_RECOVERY, &rec);

	/* Step 3: print. */
	if (json) {
		printf("{\n  \"family\": \"%s\",\n  \"manufacturer\": \"%s\",\n"
		       "  \"vendor\": \"%s\",\n  \"firmware\": \"%s\",\n"
		       "  \"spec_revision\": \"%u.%02u\",\n"
		       "  \"spec_year\": %u,\n  \"pcr_count\": %u,\n"
		       "  \"banks\": [", fam, manu, vendor, fw, rev / 100,
		       rev % 100, year, npcrs);
		for (i = 0; i < (size_t)alloc.n; i++)
			printf("%s\"%s\"", i ? ", " : "",
			       alg_name(alloc.b[i].alg));
		printf("],\n  \"owner_auth_set\": %s,\n"
		       "  \"endorsement_auth_set\": %s,\n"
		       "  \"lockout_auth_set\": %s,\n"
		       "  \"disable_clear\": %s,\n"
		       "  \"dictionary_attack\": {\"failures\": %u, "
		       "\"max_tries\": %u, \"recovery_time\": %u, "
		       "\"lockout_recovery\": %u, \"in_lockout\": %s},\n"
		       "  \"persistent_handles\": [",
		       perm & TPMA_PERMANENT_OWNERAUTHSET ? "true" : "false",
		       perm & TPMA_PERMANENT_ENDORSEMENTAUTHSET ? "true"
								: "false",
		       perm & TPMA_PERMANENT_LOCKOUTAUTHSET ? "true" : "false",
		       perm & TPMA_PERMANENT_DISABLECLEAR ? "true" : "false",
		       ctr, maxf, intv, rec,
		       perm & TPMA_PERMANENT_INLOCKOUT ? "true" : "false");
		for (i = 0; i < npers; i++)
			printf("%s\"0x%08x\"", i ? ", " : "", pers[i]);
		printf("],\n  \"nv_indices\": %zu\n}\n", nnv);
		return 0;
	}
	printf("family: %s\nmanufacturer: %s\nvendor: %s\nfirmware: %s\n"
	       "spec revision: %u.%02u (%u)\npcr count: %u\nbanks:",
	       fam, manu, vendor, fw, rev / 100, rev % 100, year, npcrs);
	for (i = 0; i < (size_t)alloc.n; i++)
		printf(" %s", alg_name(alloc.b[i].alg));
	printf("\nowner auth set: %s\nendorsement auth set: %s\n"
	       "lockout auth set: %s\ndisable clear: %s\n"
	       "dictionary attack: %u failures of %u allowed, recovery %u s, "
	       "lockout recovery %u s, %s\npersistent handles:",
	       perm & TPMA_PERMANENT_OWNERAUTHSET ? "yes" : "no",
	       perm & TPMA_PERMANENT_ENDORSEMENTAUTHSET ? "yes" : "no",
	       perm & TPMA_PERMANENT_LOCKOUTAUTHSET ? "yes" : "no",
	       perm & TPMA_PERMANENT_DISABLECLEAR ? "yes" : "no",
	       ctr, maxf, intv, rec,
	       perm & TPMA_PERMANENT_INLOCKOUT ? "IN LOCKOUT" : "not in "
	       "lockout");
	for (i = 0; i < npers; i++)
		printf(" 0x%08x", pers[i]);
	printf("%s\nnv indices: %zu\n", npers ? "" : " none", nnv);
	return 0;
}

const struct applet applet_info = {
	"info", "TPM family, vendor, banks, lockout state, handles",
	APPLET_USAGE(usage), run, "", longopts, 0
};
