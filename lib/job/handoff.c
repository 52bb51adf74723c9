/* lockdown's steps on either family (include/job/handoff.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "fmt/pcrfile.h"
#include "job/handoff.h"
#include "job/tpm.h"
#include "tpm12/cap.h"
#include "tpm12/owner.h"
#include "tpm2/cap.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/random.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

/* The PC Client's EV_SEPARATOR event data: what firmware extends into
 * PCRs 0-7 when it hands over to the boot loader. */
static const uint8_t separator[4] = { 0, 0, 0, 0 };
/* The empty auth value (tpm2_session_use: NULL is no value at all). */
static const uint8_t empty_value[1];

int lockdown_extend_opt(struct lockdown *l, const char *arg,
			struct tberr *e)
{
	const char *eq = strchr(arg, '=');
	char num[8];
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	uint64_t pcr;

	if (l->nx == LOCK_EXTENDS)
		return err_set(e, EX_USAGE, "--extend: at most %d PCRs",
			       LOCK_EXTENDS);
	if (n == 0 || n >= sizeof(num))
		return err_set(e, EX_USAGE, "--extend wants PCR or "
			       "PCR=STRING, not '%s'", arg);
	memcpy(num, arg, n);
	num[n] = '\0';
	if (parse_u64(num, &pcr) || pcr > 31)
		return err_set(e, EX_USAGE, "--extend: bad PCR index '%s'",
			       num);
	l->x[l->nx].pcr = (unsigned)pcr;
	l->x[l->nx].str = eq ? eq + 1 : NULL;
	l->nx++;
	return 0;
}

__attribute__((format(printf, 4, 5)))
static void step(struct lockdown *l, int st, int result, const char *fmt,
		 ...)
{
	struct lock_step *s = &l->st[l->nst < LOCK_STEPS ? l->nst++ :
				     LOCK_STEPS - 1];
	va_list ap;

	s->step = st;
	s->result = result;
	va_start(ap, fmt);
	vsnprintf(s->detail, sizeof(s->detail), fmt, ap);
	va_end(ap);
}

/* What lockdown extended, remembered: a PCR cannot tell whether it was
 * extended, but its value can be recognised.  After an extend of data
 * (the separator, or STRING) the value of each bank, H(old || digest), is
 * kept in DIR/lockdown-HASH (HASH: the first 16 hex digits of
 * SHA-256(data)), in pcrread's text format.  A PCR whose every bank
 * holds the value kept for it ends with that very extend, whoever made
 * it, on whatever TPM: a second run finds it so and sends nothing.  DIR is
 * TPMBOX_RUN_DIR, else /run/tpmbox (gone at the next boot, when the PCRs
 * are reset anyway): a directory of the user's own, written by no one
 * else, or nothing is read from or kept in it. */
static const char *run_dir(void)
{
	const char *d = getenv("TPMBOX_RUN_DIR");

	return d && *d ? d : "/run/tpmbox";
}

/* 0 when dir is a directory of ours that no one else can write (made
 * when missing and make is set); else -1 with why in why. */
static int run_dir_ok(const char *dir, int make, char *why, size_t n)
{
	struct stat st;

	if (make && mkdir(dir, 0700) != 0 && errno != EEXIST) {
		snprintf(why, n, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) != 0) {
		snprintf(why, n, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		snprintf(why, n, "%s is not a directory of this user's that "
			 "only it can write", dir);
		return -1;
	}
	return 0;
}

static void mark_path(const char *data, size_t dn, char *out, size_t n)
{
	uint8_t h[32];
	char hex[17];

	hash_buf(TPM2_ALG_SHA256, data, dn, h);
	hex_encode(h, 8, hex);
	snprintf(out, n, "%s/lockdown-%s", run_dir(), hex);
}

/* The values kept for data; none (v->n 0) when there is no such file or
 * it is not ours. */
static void mark_read(const char *path, struct pcr_vals *v)
{
	struct tberr e = {0};
	char why[300], *text;
	uint8_t *p = NULL;
	size_t n = 0;

	v->n = 0;
	if (run_dir_ok(run_dir(), 0, why, sizeof(why)) ||
	    file_read(path, 64 * 1024, &p, &n, &e))
		return;
	text = malloc(n + 1);
	if (text) {
		memcpy(text, p, n);
		text[n] = '\0';
		if (pcr_parse_text(text, v, &e))
			v->n = 0;
		free(text);
	}
	free(p);
}

/* Put (or replace) one value in v. */
static void val_put(struct pcr_vals *v, uint16_t alg, unsigned idx,
		    const uint8_t *d, size_t len)
{
	struct pcr_val *x = pcr_val_find(v->v, v->n, alg, idx);

	if (!x) {
		if (v->n == (int)(sizeof(v->v) / sizeof(v->v[0])))
			return;
		x = &v->v[v->n++];
	}
	x->alg = alg;
	x->idx = (uint8_t)idx;
	x->len = (uint8_t)len;
	memcpy(x->d, d, len);
}

/* Keep v for data; "" or why not in why. */
static void mark_write(const char *path, const struct pcr_vals *v, char *why,
		       size_t n)
{
	struct tberr e = {0};
	char *text;

	why[0] = '\0';
	if (run_dir_ok(run_dir(), 1, why, n))
		return;
	if (!(text = pcr_format_text(v))) {
		snprintf(why, n, "out of memory");
		return;
	}
	if (file_write_atomic(path, text, strlen(text), OUT_FORCE, &e))
		snprintf(why, n, "%.200s", e.msg);
	free(text);
}

/* Each --extend: every allocated bank in one command per PCR, unless
 * every bank of the PCR holds the value lockdown's extend of the same
 * data left (remembered: above).  The PCRs are read first, in the
 * process's session (an answer no one on the bus can forge). */
static int extends(struct tpm *t, struct lockdown *l)
{
	uint8_t d[TPM2_MAX_BANKS][64], after[64];
	uint16_t algs[TPM2_MAX_BANKS];
	struct pcr_sel alloc, sel;
	struct pcr_vals *cur = NULL, *kept = NULL;
	char banks[64] = "", path[4096], why[sizeof(t->e->msg)];
	unsigned npcrs;
	int i, k, n = 0, rc, same;

	if (!l->nx)
		return 0;
	if ((rc = tpm_pcr_banks(t, &alloc, &npcrs)))
		return rc;
	for (i = 0; i < alloc.n; i++) {
		if (!hash_supported(alloc.b[i].alg))
			return err_set(t->e, EX_FAIL, "tpmbox cannot compute "
				       "%s, an allocated bank",
				       alg_name(alloc.b[i].alg));
		algs[n++] = alloc.b[i].alg;
		snprintf(banks + strlen(banks), sizeof(banks) - strlen(banks),
			 "%s%s", i ? "," : "", alg_name(alloc.b[i].alg));
	}
	memset(&sel, 0, sizeof(sel));
	sel.n = n;
	for (i = 0; i < n; i++)
		sel.b[i].alg = algs[i];
	for (k = 0; k < l->nx; k++) {
		if (l->x[k].pcr >= npcrs)
			return err_set(t->e, EX_USAGE, "--extend: PCR %u is out "
				       "of range: this TPM has PCRs 0-%u",
				       l->x[k].pcr, npcrs - 1);
		for (i = 0; i < n; i++)
			sel.b[i].mask |= 1u << l->x[k].pcr;
	}
	cur = calloc(1, sizeof(*cur));
	kept = calloc(1, sizeof(*kept));
	if (!cur || !kept) {
		rc = err_set(t->e, EX_FAIL, "out of memory");
		goto out;
	}
	if ((rc = tpm_pcr_read(t, &sel, cur)))
		goto out;
	for (k = 0; k < l->nx; k++) {
		const char *s = l->x[k].str;
		const void *data = s ? (const void *)s : separator;
		size_t dn = s ? strlen(s) : sizeof(separator);
		unsigned pcr = l->x[k].pcr;

		for (i = 0; i < n; i++)
			hash_buf(algs[i], data, dn, d[i]);
		mark_path(data, dn, path, sizeof(path));
		mark_read(path, kept);
		same = 1;
		for (i = 0; i < n; i++) {
			const struct pcr_val *c = pcr_val_find(cur->v, cur->n,
							       algs[i], pcr);
			const struct pcr_val *m = pcr_val_find(kept->v,
							       kept->n,
							       algs[i], pcr);

			if (!c) {
				rc = err_set(t->e, EX_IO, "PCR read: no value "
					     "for %s:%u", alg_name(algs[i]),
					     pcr);
				goto out;
			}
			if (!m || m->len != c->len ||
			    memcmp(m->d, c->d, c->len) != 0)
				same = 0;
		}
		l->st[l->nst].pcr = pcr;
		if (same) {
			step(l, LOCK_EXTEND, LOCK_ALREADY, "it holds what "
			     "lockdown's extend of %s left in %s (kept in %s)",
			     s ? "the string's digest" : "the separator",
			     banks, run_dir());
			continue;
		}
		if (l->dry) {
			step(l, LOCK_EXTEND, LOCK_WOULD, "%s in %s", s ?
			     "the string's digest" : "the separator (4 zero "
			     "bytes)", banks);
			continue;
		}
		if ((rc = tpm_pcr_extend(t, pcr, n, algs,
					 (const uint8_t (*)[64])d))) {
			/* TPM_RC_LOCALITY: PCRs 17-22 are the DRTM's */
			if (rc_base(t->e->rc) == 0x907)
				err_hint(t->e, "PCR %u can be extended only "
					 "from a higher locality (a DRTM PCR)",
					 pcr);
			goto out;
		}
		/* The value now, and kept for a later run: each bank's
		 * H(old || digest).  The read value moves on too, for a
		 * second --extend of the same PCR in this run. */
		for (i = 0; i < n; i++) {
			struct pcr_val *c = pcr_val_find(cur->v, cur->n,
							    algs[i], pcr);
			struct hash_ctx *h = hash_new(algs[i]);

			if (!h) {
				rc = err_set(t->e, EX_FAIL, "out of memory");
				goto out;
			}
			hash_update(h, c->d, c->len);
			hash_update(h, d[i], c->len);
			hash_final(h, after);
			memcpy(c->d, after, c->len);
			val_put(kept, algs[i], pcr, after, c->len);
		}
		mark_write(path, kept, why, sizeof(why));
		step(l, LOCK_EXTEND, LOCK_DONE, "%s in %s%s%s%s", s ?
		     "the string's digest" : "the separator (4 zero bytes)",
		     banks, *why ? " (not kept for a second run: " : "", why,
		     *why ? ")" : "");
	}
	rc = 0;
out:
	free(cur);
	free(kept);
	return rc;
}

/* TPM 2.0: TPM2_ClearControl(YES) with the lockout value. */
static int clear2(struct tpm *t, struct lockdown *l, uint32_t perm)
{
	int set = !!(perm & TPMA_PERMANENT_LOCKOUTAUTHSET);
	struct nv_auth na;
	int rc;

	if (perm & TPMA_PERMANENT_DISABLECLEAR) {
		step(l, LOCK_CLEAR, LOCK_ALREADY, "disableClear is set");
		return 0;
	}
	if (set && !l->lockspec)
		return err_set(t->e, EX_AUTH, "the lockout auth value is set; "
			       "give it with --lockout-auth");
	if (l->dry) {
		step(l, LOCK_CLEAR, LOCK_WOULD, "TPM2_ClearControl with the "
		     "lockout value (%s; not tried)", set ? "set" : "empty");
		return 0;
	}
	/* A value given while none is set is not tried: a wrong lockout
	 * value would block lockout authorization. */
	if ((rc = nv_hier_auth_begin(t, &na, TPM2_RH_LOCKOUT,
				     set ? l->lockspec : NULL, 0)))
		return rc;
	rc = tpm2_clear_control(t, TPM2_RH_LOCKOUT, &na.a, 1);
	auth_wipe(&na.v);
	if (rc == EX_AUTH)
		err_hint(t->e, "a wrong lockout value blocks lockout "
			 "authorization for the lockout recovery time (dalock "
			 "shows it)");
	if (rc)
		return rc;
	step(l, LOCK_CLEAR, LOCK_DONE, "disableClear set with the lockout "
	     "value");
	return 0;
}

/* Whether the platform hierarchy's value is empty: TPM2_PolicySecret on a
 * trial session changes nothing, and no platform authorization counts a
 * dictionary-attack failure. */
static int platform_empty(struct tpm *t, int *empty)
{
	struct tpm2_session *s;
	struct tpm2_auth a;
	int rc, frc;

	if ((rc = tpm2_session_start(t, TPM2_SE_TRIAL, TPM2_RH_NULL, NULL,
				     TPM2_RH_NULL, NULL, 0, 0, &s)))
		return rc;
	tpm2_auth_pw(&a, NULL, 0);
	rc = tpm2_policy_secret(t, TPM2_RH_PLATFORM, &a,
				tpm2_session_handle(s));
	*empty = rc == 0;
	if (rc == EX_AUTH)
		rc = 0;
	frc = tpm2_session_flush(t, s);
	return rc ? rc : frc;
}

/* TPM 2.0: a random platform value never stored, or the hierarchy
 * disabled; nothing sent that changes it when it is closed already. */
static int platform2(struct tpm *t, struct lockdown *l, uint32_t startup)
{
	struct tpm2_session *s;
	struct tpm2_auth a;
	uint8_t v[32];
	int empty, rc;

	if (!(startup & TPMA_STARTUP_CLEAR_PHENABLE)) {
		step(l, LOCK_PLATFORM, LOCK_ALREADY, "the platform hierarchy "
		     "is disabled (phEnable clear)");
		return 0;
	}
	if ((rc = platform_empty(t, &empty)))
		return rc;
	if (!empty && l->platform == LOCK_PLAT_RANDOM) {
		step(l, LOCK_PLATFORM, LOCK_ALREADY, "a platform value is set "
		     "(the empty value is refused)");
		return 0;
	}
	if (!empty)
		return err_set(t->e, EX_AUTH, "the platform hierarchy cannot "
			       "be disabled: its auth value is set and not "
			       "known here (a reboot makes it empty)");
	if (l->dry) {
		step(l, LOCK_PLATFORM, LOCK_WOULD, l->platform ==
		     LOCK_PLAT_RANDOM ? "a random value set (the value is "
		     "empty now)" : "TPM2_HierarchyControl(PLATFORM, NO)");
		return 0;
	}
	if (l->platform == LOCK_PLAT_DISABLE) {
		tpm2_auth_pw(&a, NULL, 0);
		if ((s = tpm2_trust_session(t)))
			tpm2_session_use(s, &a, empty_value, 0);
		if ((rc = tpm2_hierarchy_control(t, TPM2_RH_PLATFORM, &a,
						 TPM2_RH_PLATFORM, 0)))
			return rc;
		step(l, LOCK_PLATFORM, LOCK_DONE, "the platform hierarchy is "
		     "disabled until the next TPM2_Startup(CLEAR)");
		return 0;
	}
	/* 32 bytes from the TPM (the answer encrypted in the salted
	 * session), sent encrypted, then wiped: nobody knows the value. */
	if ((rc = tpm2_trust_need(t, &s)) ||
	    (rc = tpm2_getrandom(t, v, sizeof(v))))
		goto out;
	tpm2_session_set_flags(s, SESS_ENC_CMD);
	tpm2_session_use(s, &a, empty_value, 0);
	tpm2_trust_last_for(t, &a);
	rc = tpm2_hierarchy_change_auth(t, TPM2_RH_PLATFORM, &a, v,
					sizeof(v));
	if (!rc)
		step(l, LOCK_PLATFORM, LOCK_DONE, "a random value, never "
		     "stored, until the next TPM2_Startup");
out:
	explicit_bzero(v, sizeof(v));
	return rc;
}

static int clear12(struct tpm *t, struct lockdown *l)
{
	int disabled, rc;

	if ((rc = tpm12_force_clear_disabled(t, &disabled)))
		return rc;
	if (disabled) {
		step(l, LOCK_CLEAR, LOCK_ALREADY, "disableForceClear is set");
		return 0;
	}
	if (l->dry) {
		step(l, LOCK_CLEAR, LOCK_WOULD, "TPM_DisableForceClear");
		return 0;
	}
	if ((rc = tpm12_disable_force_clear(t)))
		return rc;
	step(l, LOCK_CLEAR, LOCK_DONE, "TPM_ForceClear disabled until the "
	     "next TPM_Startup(ST_CLEAR)");
	return 0;
}

int lockdown_run(struct tpm *t, int fam, struct lockdown *l)
{
	struct tpm2_prop p[4];
	uint32_t perm = 0, startup = 0;
	size_t n;
	int rc;

	l->nst = 0;
	if (fam == TPM_FAMILY_12) {
		if ((rc = extends(t, l)))
			return rc;
		return l->disable_clear ? clear12(t, l) : 0;
	}
	/* The state first: TPM_PT_PERMANENT and TPM_PT_STARTUP_CLEAR. */
	if ((l->disable_clear || l->platform) &&
	    (rc = tpm2_getprops(t, TPM2_PT_PERMANENT, 2, p, 4, &n)))
		return rc;
	if ((l->disable_clear || l->platform) &&
	    (!tpm2_prop_find(p, n, TPM2_PT_PERMANENT, &perm) ||
	     !tpm2_prop_find(p, n, TPM2_PT_STARTUP_CLEAR, &startup)))
		return err_set(t->e, EX_IO, "TPM2_GetCapability: the TPM does "
			       "not report TPM_PT_PERMANENT and "
			       "TPM_PT_STARTUP_CLEAR");
	if ((rc = extends(t, l)) ||
	    (l->disable_clear && (rc = clear2(t, l, perm))) ||
	    (l->platform && (rc = platform2(t, l, startup))))
		return rc;
	return 0;
}

const char *lock_step_name(const struct lock_step *s)
{
	return s->step == LOCK_EXTEND ? "extend" : s->step == LOCK_CLEAR ?
	       "disable-clear" : "platform";
}

const char *lock_result_words(int result)
{
	return result == LOCK_DONE ? "done" : result == LOCK_ALREADY ?
	       "already so" : "needed";
}

const char *lock_result_json(int result)
{
	return result == LOCK_DONE ? "done" : result == LOCK_ALREADY ?
	       "already" : "needed";
}
