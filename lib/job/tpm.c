#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/tpm2const.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/owner.h"
#include "tpm12/pcr.h"
#include "tpm12/random.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/random.h"
#include "tpm2/rc.h"
#include "tpm2/srk.h"

/* TPM2_GetCapability(TPM_CAP_TPM_PROPERTIES, TPM_PT_TOTAL_COMMANDS, 1):
 * what the kernel's tpm2_probe sends. */
static const uint8_t probe[] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x01, 0x7a,
	0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x01, 0x29, 0x00, 0x00,
	0x00, 0x01
};

/* "tpmrm" or "tpm" then digits only: the digits, else NULL. */
static const char *dev_number(const char *base, const char *prefix)
{
	size_t n = strlen(prefix), i;

	if (strncmp(base, prefix, n) != 0 || !base[n] || strlen(base) > n + 6)
		return NULL;
	for (i = n; base[i]; i++)
		if (base[i] < '0' || base[i] > '9')
			return NULL;
	return base + n;
}

/* /dev/tpmrmN, or /dev/tpmN with sysfs's answer; 0: unknown.  (No
 * sscanf or stdio: they would pull libc's scanf into the small build.) */
static int family_from_device(const char *path)
{
	const char *base = strrchr(path, '/'), *num;
	char sys[64], buf[4];
	ssize_t r;
	int fd;

	base = base ? base + 1 : path;
	if (strncmp(path, "/dev/", 5) != 0)
		return 0;	/* a pty bridge or other path: probe */
	if (dev_number(base, "tpmrm"))
		return TPM_FAMILY_20;
	if (!(num = dev_number(base, "tpm")))
		return 0;
	snprintf(sys, sizeof(sys), "/sys/class/tpm/tpm%s/tpm_version_major",
		 num);
	if ((fd = open(sys, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	r = read(fd, buf, sizeof(buf));
	close(fd);
	if (r >= 1 && buf[0] == '2' && (r == 1 || buf[1] == '\n'))
		return TPM_FAMILY_20;
	if (r >= 1 && buf[0] == '1' && (r == 1 || buf[1] == '\n'))
		return TPM_FAMILY_12;
	return 0;
}

/* What the device's name or sysfs says, without sending anything; 0:
 * not known yet. */
static int family_known(struct tpm *t)
{
	if (!t->family && t->x.kind == XPORT_DEVICE)
		t->family = family_from_device(t->x.desc);
	return t->family;
}

int tpm_is_device(const struct tpm *t)
{
	return t->x.kind == XPORT_DEVICE;
}

int tpm_family_known(struct tpm *t)
{
	return family_known(t);
}

/* A job of unknown family goes to lib/tpm2/ first, its first command
 * being the probe (the kernel's probe is a 2.0 command too, and costs a
 * command of its own): a 2.0 answers it, so a 2.0 pays nothing for the
 * detection.  A 1.2 refuses it in its own tag, having done nothing
 * (lib/tpm2/cmd.c then records TPM_FAMILY_12); the job is then run on
 * lib/tpm12/.  Only the very first answer can switch: once a 2.0 tag
 * was seen, a 1.2 tag is a malformed response. */
static int answered_12(struct tpm *t, int rc, int before)
{
	if (rc && before == 0 && t->family == TPM_FAMILY_12) {
		err_clear(t->e);
		return 1;
	}
	return 0;
}

int tpm_answered_12(struct tpm *t, int rc, int before)
{
	return answered_12(t, rc, before);
}

/* One probe: the family its answer's tag names, or 0 (t->e set). */
static int probe_family(struct tpm *t)
{
	size_t rlen;
	uint32_t size;
	uint16_t tag;

	if (t->trace)
		t->trace('>', TPM2_CC_GetCapability, probe, sizeof(probe));
	t->ncmds++;
	if (xport_transmit(&t->x, probe, sizeof(probe), t->rsp,
			   sizeof(t->rsp), &rlen, t->e)) {
		err_prefix(t->e, "detecting the TPM family");
		return 0;
	}
	if (t->trace)
		t->trace('<', TPM2_CC_GetCapability, t->rsp, rlen);
	tag = (uint16_t)(t->rsp[0] << 8 | t->rsp[1]);
	size = (uint32_t)t->rsp[2] << 24 | (uint32_t)t->rsp[3] << 16 |
	       (uint32_t)t->rsp[4] << 8 | t->rsp[5];
	if (rlen < 10 || size != rlen) {
		err_set(t->e, EX_IO, "detecting the TPM family: malformed "
			"response (%zu bytes read)", rlen);
		return 0;
	}
	/* Whatever its rc (even TPM_RC_INITIALIZE), a 2.0 tag is a 2.0. */
	if (tag == TPM2_ST_NO_SESSIONS || tag == TPM2_ST_SESSIONS)
		return TPM_FAMILY_20;
	if (tag == TPM12_TAG_RSP_COMMAND)
		return TPM_FAMILY_12;
	err_set(t->e, EX_IO, "detecting the TPM family: the answer's tag "
		"0x%04x is neither TPM 2.0's nor TPM 1.2's", tag);
	return 0;
}

int tpm_family(struct tpm *t)
{
	if (family_known(t))
		return t->family;
	t->family = probe_family(t);
	return t->family;
}

int tpm_family_confirm(struct tpm *t, int want)
{
	int first = tpm_family(t), again;

	if (!first || !want || first == want)
		return first;
	/* The kernel named it (the device's name or sysfs), not an answer
	 * that crossed the bus. */
	if (t->x.kind == XPORT_DEVICE && family_from_device(t->x.desc))
		return first;
	if (!(again = probe_family(t)))
		return 0;
	if (again != first) {
		err_set(t->e, EX_IO, "the TPM's answers are inconsistent: it "
			"answered as a TPM %s, then as a TPM %s",
			first == TPM_FAMILY_12 ? "1.2" : "2.0",
			again == TPM_FAMILY_12 ? "1.2" : "2.0");
		err_hint(t->e, "an answer was damaged or forged on its way "
			 "(a bus interposer?), not a fault of the arguments; "
			 "nothing was done");
		return 0;
	}
	return first;
}

const char *tpm_cc_name(uint32_t cc)
{
	/* 2.0 command codes run 0x11f-0x1ff; 1.2 ordinals are below, and
	 * the TSC ones at 0x40000000. */
	if (cc < 0x11f || cc >= 0x40000000u)
		return tpm12_ord_name(cc);
	return tpm2_cc_name(cc);
}

int tpm_trust_begin(struct tpm *t)
{
	int f = family_known(t), rc;

	if (!tpm_trust_pinned(t))
		return 0;
	/* The salted session's first command reads the SRK (ReadPublic):
	 * a 1.2 refuses it, having done nothing, before any session
	 * command could go out. */
	if (f != TPM_FAMILY_12) {
		rc = tpm2_trust_begin(t);
		if (!answered_12(t, rc, f))
			return rc;
	}
	err_set(t->e, EX_USAGE, "this TPM is a TPM 1.2, and an SRK pin "
		"(--srk-name, --srk-pub, TPMBOX_SRK) is for a TPM 2.0");
	err_hint(t->e, "drop the pin (unset TPMBOX_SRK) for a TPM 1.2");
	return EX_USAGE;
}

void tpm_last(struct tpm *t)
{
	tpm2_trust_last(t);
}

int tpm_shutdown(struct tpm *t, int clear)
{
	int f = family_known(t), rc;

	if (f != TPM_FAMILY_12) {
		rc = tpm2_shutdown(t, clear ? TPM2_SU_CLEAR : TPM2_SU_STATE);
		/* TPM_RC_TYPE: a PCR allocation waits for the next reset */
		if (rc && rc_base(t->e->rc) == 0x08a)
			err_hint(t->e, "a PCR allocation is pending: only "
				 "shutdown --clear is allowed until the next "
				 "reboot");
		if (!answered_12(t, rc, f))
			return rc;
	}
	return tpm12_save_state(t);
}

int tpm_getrandom(struct tpm *t, uint8_t *out, size_t n)
{
	int f = family_known(t), rc;

	if (f != TPM_FAMILY_12) {
		rc = tpm2_getrandom(t, out, n);
		if (!answered_12(t, rc, f))
			return rc;
	}
	return tpm12_getrandom(t, out, n);
}

int tpm_pcr_banks(struct tpm *t, struct pcr_sel *alloc, unsigned *npcrs)
{
	int f = family_known(t), rc;
	uint32_t n;

	if (f != TPM_FAMILY_12) {
		rc = tpm2_pcr_banks(t, alloc, npcrs);
		if (!answered_12(t, rc, f))
			return rc;
	}
	if ((rc = tpm12_getprop(t, TPM12_CAP_PROP_PCR, &n)))
		return rc;
	if (n == 0 || n > 32)
		return err_set(t->e, EX_IO, "TPM_GetCapability: the TPM "
			       "reports %u PCRs", n);
	memset(alloc, 0, sizeof(*alloc));
	alloc->n = 1;
	alloc->b[0].alg = TPM2_ALG_SHA1;
	alloc->b[0].mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
	*npcrs = n;
	return 0;
}

int tpm_pcr_parse(struct tpm *t, const char *spec, struct pcr_sel *sel)
{
	int f;

	if (strchr(spec, ':') || strcmp(spec, "all") == 0)
		return pcr_sel_parse(spec, sel, t->e);
	if (!(f = tpm_family_confirm(t, TPM_FAMILY_12)))
		return t->e->code;
	if (f == TPM_FAMILY_12) {
		char *s = malloc(strlen(spec) + 6);
		int rc;

		if (!s)
			return err_set(t->e, EX_FAIL, "out of memory");
		strcpy(s, "sha1:");
		strcat(s, spec);
		rc = pcr_sel_parse(s, sel, t->e);
		free(s);
		return rc;
	}
	return pcr_sel_parse(spec, sel, t->e);
}

int tpm_bank_check(struct tpm *t, const struct pcr_sel *alloc, uint16_t alg)
{
	int i;

	for (i = 0; i < alloc->n; i++)
		if (alloc->b[i].alg == alg)
			return 0;
	if (t->family == TPM_FAMILY_12)
		return err_set(t->e, EX_USAGE, "PCR bank %s: this TPM is a "
			       "TPM 1.2, which has only the sha1 bank",
			       alg_name(alg));
	return err_set(t->e, EX_USAGE, "bank %s is not allocated on this TPM",
		       alg_name(alg));
}

int tpm_pcr_resolve(struct tpm *t, struct pcr_sel *sel,
		    const struct pcr_sel *alloc, unsigned npcrs)
{
	int i, rc;

	if (t->family == TPM_FAMILY_12 && !sel->all)
		for (i = 0; i < sel->n; i++)
			if ((rc = tpm_bank_check(t, alloc, sel->b[i].alg)))
				return rc;
	return pcr_sel_resolve(sel, alloc, npcrs, t->e);
}

int tpm_pcr_read(struct tpm *t, const struct pcr_sel *sel,
		 struct pcr_vals *out)
{
	int f = family_known(t), b, rc;
	unsigned i;

	if (f != TPM_FAMILY_12) {
		rc = tpm2_pcr_read(t, sel, out);
		if (!answered_12(t, rc, f))
			return rc;
	}
	out->n = 0;
	for (b = 0; b < sel->n; b++) {
		if (sel->b[b].alg != TPM2_ALG_SHA1)
			return err_set(t->e, EX_USAGE, "PCR bank %s: this TPM "
				       "is a TPM 1.2, which has only the sha1 "
				       "bank", alg_name(sel->b[b].alg));
		for (i = 0; i < 32; i++) {
			struct pcr_val *v = &out->v[out->n];

			if (!(sel->b[b].mask & (1u << i)))
				continue;
			if ((rc = tpm12_pcr_read(t, i, v->d)))
				return rc;
			v->alg = TPM2_ALG_SHA1;
			v->idx = (uint8_t)i;
			v->len = 20;
			out->n++;
		}
	}
	return 0;
}

int tpm_pcr_extend(struct tpm *t, unsigned pcr, int n, const uint16_t *algs,
		   const uint8_t (*digests)[64])
{
	int f = family_known(t), rc;

	if (f != TPM_FAMILY_12) {
		rc = tpm2_pcr_extend(t, pcr, n, algs, digests);
		if (!answered_12(t, rc, f))
			return rc;
	}
	if (n != 1 || algs[0] != TPM2_ALG_SHA1)
		return err_set(t->e, EX_USAGE, "this TPM is a TPM 1.2: only "
			       "the sha1 bank can be extended");
	return tpm12_pcr_extend(t, pcr, digests[0], NULL);
}
