#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/tpm2const.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/rc.h"

#define MAX_RETRIES 12

static const struct {
	uint32_t cc;
	const char *name;
} ccnames[] = {
	{TPM2_CC_NV_UndefineSpaceSpecial, "TPM2_NV_UndefineSpaceSpecial"},
	{TPM2_CC_EvictControl, "TPM2_EvictControl"},
	{TPM2_CC_HierarchyControl, "TPM2_HierarchyControl"},
	{TPM2_CC_NV_UndefineSpace, "TPM2_NV_UndefineSpace"},
	{TPM2_CC_Clear, "TPM2_Clear"},
	{TPM2_CC_ClearControl, "TPM2_ClearControl"},
	{TPM2_CC_HierarchyChangeAuth, "TPM2_HierarchyChangeAuth"},
	{TPM2_CC_NV_DefineSpace, "TPM2_NV_DefineSpace"},
	{TPM2_CC_CreatePrimary, "TPM2_CreatePrimary"},
	{TPM2_CC_NV_Increment, "TPM2_NV_Increment"},
	{TPM2_CC_NV_SetBits, "TPM2_NV_SetBits"},
	{TPM2_CC_NV_Extend, "TPM2_NV_Extend"},
	{TPM2_CC_NV_Write, "TPM2_NV_Write"},
	{TPM2_CC_NV_WriteLock, "TPM2_NV_WriteLock"},
	{TPM2_CC_DictionaryAttackLockReset, "TPM2_DictionaryAttackLockReset"},
	{TPM2_CC_DictionaryAttackParameters,
	 "TPM2_DictionaryAttackParameters"},
	{TPM2_CC_PCR_Extend, "TPM2_PCR_Extend"},
	{TPM2_CC_SelfTest, "TPM2_SelfTest"},
	{TPM2_CC_Startup, "TPM2_Startup"},
	{TPM2_CC_Shutdown, "TPM2_Shutdown"},
	{TPM2_CC_NV_Read, "TPM2_NV_Read"},
	{TPM2_CC_NV_ReadLock, "TPM2_NV_ReadLock"},
	{TPM2_CC_ObjectChangeAuth, "TPM2_ObjectChangeAuth"},
	{TPM2_CC_PolicySecret, "TPM2_PolicySecret"},
	{TPM2_CC_ActivateCredential, "TPM2_ActivateCredential"},
	{TPM2_CC_Create, "TPM2_Create"},
	{TPM2_CC_Import, "TPM2_Import"},
	{TPM2_CC_Load, "TPM2_Load"},
	{TPM2_CC_Quote, "TPM2_Quote"},
	{TPM2_CC_Sign, "TPM2_Sign"},
	{TPM2_CC_RSA_Decrypt, "TPM2_RSA_Decrypt"},
	{TPM2_CC_Unseal, "TPM2_Unseal"},
	{TPM2_CC_HMAC, "TPM2_HMAC"},
	{TPM2_CC_ContextLoad, "TPM2_ContextLoad"},
	{TPM2_CC_ContextSave, "TPM2_ContextSave"},
	{TPM2_CC_FlushContext, "TPM2_FlushContext"},
	{TPM2_CC_LoadExternal, "TPM2_LoadExternal"},
	{TPM2_CC_NV_ReadPublic, "TPM2_NV_ReadPublic"},
	{TPM2_CC_PolicyAuthorize, "TPM2_PolicyAuthorize"},
	{TPM2_CC_ReadPublic, "TPM2_ReadPublic"},
	{TPM2_CC_StartAuthSession, "TPM2_StartAuthSession"},
	{TPM2_CC_VerifySignature, "TPM2_VerifySignature"},
	{TPM2_CC_GetCapability, "TPM2_GetCapability"},
	{TPM2_CC_GetRandom, "TPM2_GetRandom"},
	{TPM2_CC_Hash, "TPM2_Hash"},
	{TPM2_CC_PCR_Read, "TPM2_PCR_Read"},
	{TPM2_CC_PolicyPCR, "TPM2_PolicyPCR"},
	{TPM2_CC_PolicyOR, "TPM2_PolicyOR"},
	{TPM2_CC_PCR_Allocate, "TPM2_PCR_Allocate"},
	{TPM2_CC_PolicyRestart, "TPM2_PolicyRestart"},
	{TPM2_CC_PolicyAuthValue, "TPM2_PolicyAuthValue"},
	{TPM2_CC_PolicyPassword, "TPM2_PolicyPassword"},
	{TPM2_CC_PolicyGetDigest, "TPM2_PolicyGetDigest"},
	{TPM2_CC_PolicyCommandCode, "TPM2_PolicyCommandCode"},
	{TPM2_CC_CreateLoaded, "TPM2_CreateLoaded"},
};

const char *tpm2_cc_name(uint32_t cc)
{
	size_t i;

	for (i = 0; i < sizeof(ccnames) / sizeof(ccnames[0]); i++)
		if (ccnames[i].cc == cc)
			return ccnames[i].name;
	return "TPM2 command";
}

/* Commands whose parameters carry secrets: masked in traces. */
static int sensitive_cmd(uint32_t cc)
{
	switch (cc) {
	case TPM2_CC_Create:
	case TPM2_CC_CreatePrimary:
	case TPM2_CC_CreateLoaded:
	case TPM2_CC_HierarchyChangeAuth:
	case TPM2_CC_NV_DefineSpace:
	case TPM2_CC_NV_Write:
	case TPM2_CC_ObjectChangeAuth:
		return 1;
	}
	return 0;
}

static int sensitive_rsp(uint32_t cc)
{
	return cc == TPM2_CC_Unseal || cc == TPM2_CC_NV_Read ||
	       cc == TPM2_CC_GetRandom;
}

int tpm_open(struct tpm **out, const char *conf, int timeout_s,
	     struct tberr *e)
{
	struct tpm *t = calloc(1, sizeof(*t));
	int rc;

	*out = NULL;
	if (!t)
		return err_set(e, EX_FAIL, "out of memory");
	t->e = e;
	rc = xport_open(&t->x, conf, timeout_s, e);
	if (rc) {
		free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void tpm_wipe(struct tpm *t)
{
	explicit_bzero(t->cmd, sizeof(t->cmd));
	explicit_bzero(t->rsp, sizeof(t->rsp));
}

void tpm_close(struct tpm *t)
{
	if (!t)
		return;
	if (t->release)
		t->release(t);
	xport_close(&t->x);
	tpm_wipe(t);
	free(t);
}

void tpm2_auth_pw(struct tpm2_auth *a, const uint8_t *pw, size_t n)
{
	memset(a, 0, sizeof(*a));
	a->handle = TPM2_RS_PW;
	a->pw = pw;
	a->pwlen = n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Trace a buffer with the byte range [from, from+n) replaced by zeros. */
static void trace_masked(struct tpm *t, char dir, uint32_t cc,
			 const uint8_t *p, size_t len, size_t from, size_t n)
{
	uint8_t copy[TPM_BUF_SIZE];

	if (!t->trace || len > sizeof(copy))
		return;
	memcpy(copy, p, len);
	if (from < len) {
		if (n > len - from)
			n = len - from;
		memset(copy + from, 0, n);
	}
	t->trace(dir, cc, copy, len);
	explicit_bzero(copy, len);
}

static int build(struct tpm *t, struct tpm2_call *c, struct tb *b,
		 size_t *auth_at, size_t *auth_len)
{
	size_t size_at, asz;
	int i, rc;

	tb_init(b, t->cmd, sizeof(t->cmd));
	tb_put_u16(b, c->na ? TPM2_ST_SESSIONS : TPM2_ST_NO_SESSIONS);
	size_at = tb_reserve32(b);
	tb_put_u32(b, c->cc);
	for (i = 0; i < c->nh; i++)
		tb_put_u32(b, c->h[i]);
	/* Parameter encryption happens before any HMAC is computed. */
	for (i = 0; i < c->na; i++)
		if (c->auth[i]->cmd_auth &&
		    (rc = c->auth[i]->cmd_auth(c->auth[i]->sess, c, 0, NULL,
					       t->e)))
			return rc;
	*auth_at = b->len;
	*auth_len = 0;
	if (c->na) {
		asz = tb_reserve32(b);
		for (i = 0; i < c->na; i++) {
			struct tpm2_auth *a = c->auth[i];

			if (a->cmd_auth) {
				if ((rc = a->cmd_auth(a->sess, c, 1, b, t->e)))
					return rc;
				continue;
			}
			tb_put_u32(b, a->handle);
			tb_put_u16(b, 0);	/* nonceCaller */
			tb_put_u8(b, 0);	/* sessionAttributes */
			tb_put_tpm2b(b, a->pw, a->pwlen);
		}
		tb_patch32(b, asz);
		*auth_len = b->len - *auth_at;
	}
	tb_put_bytes(b, c->params, c->plen);
	/* The header's size counts the whole command. */
	if (!tb_err(b)) {
		uint32_t n = (uint32_t)b->len;

		b->p[size_at] = (uint8_t)(n >> 24);
		b->p[size_at + 1] = (uint8_t)(n >> 16);
		b->p[size_at + 2] = (uint8_t)(n >> 8);
		b->p[size_at + 3] = (uint8_t)n;
	}
	if (tb_err(b))
		return err_set(t->e, EX_FAIL, "%s: command too large",
			       tpm2_cc_name(c->cc));
	return 0;
}

static int parse(struct tpm *t, struct tpm2_call *c, size_t rlen)
{
	struct tb r, auth;
	uint16_t tag;
	uint32_t size, psz;
	int i, rc;

	tb_init_read(&r, t->rsp, rlen);
	tag = tb_get_u16(&r);
	size = tb_get_u32(&r);
	c->rc = tb_get_u32(&r);
	if (tb_err(&r) || size != rlen)
		return err_set(t->e, EX_IO, "%s: malformed response header "
			       "(%zu bytes read)", tpm2_cc_name(c->cc), rlen);
	if (tag == TPM12_TAG_RSP_COMMAND) {
		/* A 1.2 answers a 2.0 tag with its short error form, having
		 * done nothing (lib/job/tpm.c may then run the job on 1.2).  Not
		 * after a 2.0 answered: then it is a damaged response. */
		if (t->family == 2)
			return err_set(t->e, EX_IO, "%s: a TPM 1.2 response "
				       "from a TPM 2.0", tpm2_cc_name(c->cc));
		t->family = 1;
		err_set(t->e, EX_USAGE, "this TPM is a TPM 1.2, and this "
			"applet works only with a TPM 2.0");
		err_hint(t->e, "README's applet table says which applets "
			 "work on a TPM 1.2");
		return EX_USAGE;
	}
	if (tag == TPM2_ST_NO_SESSIONS || tag == TPM2_ST_SESSIONS)
		t->family = 2;
	if (c->rc != 0) {
		if (tag != TPM2_ST_NO_SESSIONS || rlen != 10)
			return err_set(t->e, EX_IO, "%s: malformed error "
				       "response", tpm2_cc_name(c->cc));
		return 0;
	}
	if (tag != (c->na ? TPM2_ST_SESSIONS : TPM2_ST_NO_SESSIONS))
		return err_set(t->e, EX_IO, "%s: response has the wrong tag "
			       "0x%04x", tpm2_cc_name(c->cc), tag);
	c->rh = 0;
	if (c->nrh)
		c->rh = tb_get_u32(&r);
	if (c->na) {
		psz = tb_get_u32(&r);
		c->rparams = (uint8_t *)tb_get_ref(&r, psz);
		c->rplen = psz;
	} else {
		c->rplen = tb_left(&r);
		c->rparams = (uint8_t *)tb_get_ref(&r, c->rplen);
	}
	if (tb_err(&r))
		return err_set(t->e, EX_IO, "%s: truncated response",
			       tpm2_cc_name(c->cc));
	for (i = 0; i < c->na; i++) {
		struct tpm2_auth *a = c->auth[i];
		size_t start = r.pos;
		const uint8_t *p;

		tb_skip(&r, tb_get_u16(&r));	/* nonceTPM */
		tb_skip(&r, 1);			/* sessionAttributes */
		tb_skip(&r, tb_get_u16(&r));	/* hmac */
		if (tb_err(&r))
			return err_set(t->e, EX_IO, "%s: truncated response "
				       "authorization", tpm2_cc_name(c->cc));
		p = t->rsp + start;
		tb_init_read(&auth, p, r.pos - start);
		if (a->rsp_auth) {
			if ((rc = a->rsp_auth(a->sess, c, &auth, t->e)))
				return rc;
		} else {
			/* Password: empty nonce, empty hmac. */
			if (tb_get_u16(&auth) != 0 ||
			    (tb_skip(&auth, 1), tb_get_u16(&auth)) != 0)
				return err_set(t->e, EX_IO, "%s: bad password "
					       "response authorization",
					       tpm2_cc_name(c->cc));
		}
	}
	if (tb_left(&r))
		return err_set(t->e, EX_IO, "%s: %zu unexpected bytes after "
			       "the response", tpm2_cc_name(c->cc),
			       tb_left(&r));
	return 0;
}

/* After TPM_RC_LOCKOUT: how long until a try is allowed, as a hint.  The
 * TPM forgets one failure every TPM_PT_LOCKOUT_INTERVAL seconds, so the
 * next try is at most that far away. */
static void lockout_hint(struct tpm *t)
{
	struct tberr saved = *t->e;
	uint32_t iv = 0, cnt = 0, max = 0;
	int ok = tpm2_getprop(t, TPM2_PT_LOCKOUT_INTERVAL, &iv) == 0 &&
		 tpm2_getprop(t, TPM2_PT_LOCKOUT_COUNTER, &cnt) == 0 &&
		 tpm2_getprop(t, TPM2_PT_MAX_AUTH_FAIL, &max) == 0;

	*t->e = saved;
	if (ok && iv)
		err_hint(t->e, "%u of %u failures counted; the TPM forgets "
			 "one every %u s, so a try is allowed again in at "
			 "most %u s, or now with 'tpmbox dalock --reset'",
			 cnt, max, iv, iv);
	else if (ok)
		err_hint(t->e, "%u of %u failures counted and the TPM "
			 "never forgets them (interval 0 s): reset it with "
			 "'tpmbox dalock --reset'", cnt, max);
}

/* What this process has loaded: the handle a command returned (Load,
 * CreatePrimary, StartAuthSession...), until FlushContext takes it. */
static int is_loaded_kind(uint32_t h)
{
	uint8_t ht = (uint8_t)(h >> 24);

	return ht == 0x80 || ht == 0x02 || ht == 0x03;
}

void tpm_own_add(struct tpm *t, uint32_t h)
{
	if (t->nown < TPM2_OWN_MAX)
		t->own[t->nown] = h;
	if (t->nown <= TPM2_OWN_MAX)
		t->nown++;
}

void tpm_own_drop(struct tpm *t, uint32_t h)
{
	unsigned i;

	if (t->nown > TPM2_OWN_MAX)
		return;
	for (i = 0; i < t->nown; i++)
		if (t->own[i] == h) {
			t->own[i] = t->own[--t->nown];
			return;
		}
}

int tpm_own_has(const struct tpm *t, uint32_t h)
{
	unsigned i;

	if (t->nown > TPM2_OWN_MAX)
		return 1;
	for (i = 0; i < t->nown; i++)
		if (t->own[i] == h)
			return 1;
	return 0;
}

static void own_note(struct tpm *t, const struct tpm2_call *c)
{
	if (c->cc == TPM2_CC_FlushContext && c->plen >= 4)
		tpm_own_drop(t, ((uint32_t)c->params[0] << 24) |
				((uint32_t)c->params[1] << 16) |
				((uint32_t)c->params[2] << 8) | c->params[3]);
	else if (c->nrh && is_loaded_kind(c->rh))
		tpm_own_add(t, c->rh);
}

static int is_own(const struct tpm *t, uint32_t h)
{
	/* Sessions: the TPM may list a policy session (0x03) among the
	 * loaded ones (0x02); the low 24 bits name it either way. */
	return tpm_own_has(t, h) ||
	       ((h >> 24) != 0x80 &&
		(tpm_own_has(t, (h & 0xffffffu) | 0x02000000u) ||
		 tpm_own_has(t, (h & 0xffffffu) | 0x03000000u)));
}

/* A process killed with objects or sessions loaded (kill -9, the OOM
 * killer, a power button in a script) leaves them in the TPM when no
 * resource manager flushes for it: /dev/tpm0, swtpm's socket, the
 * buses.  They stay until the next TPM reset, and every later Create or
 * StartAuthSession fails with OBJECT_MEMORY or SESSION_MEMORY.  Only
 * one process at a time can talk to such a TPM (the kernel opens
 * /dev/tpm0 once, swtpm serves one connection, the bus is locked), so
 * any transient object or loaded session that is not this process's is
 * a leftover.  Saved sessions (another tool's, waiting in a file) are
 * kept.  Asked without the process session: its nonces must stay as
 * the command about to be sent again was built with.  Returns the
 * number flushed. */
static unsigned flush_leftovers(struct tpm *t, uint32_t rc)
{
	static const uint32_t kinds[2] = {0x80000000u, 0x02000000u};
	int (*attach)(struct tpm *, struct tpm2_call *, struct tpm2_auth *) =
		t->attach;
	int (*after)(struct tpm *, struct tpm2_call *, int) = t->after;
	struct tberr keep = *t->e;
	uint32_t hs[64];
	unsigned flushed = 0;
	size_t n, i;
	int k;

	if (t->nown > TPM2_OWN_MAX)
		return 0;
	t->attach = NULL;
	t->after = NULL;
	t->in_recovery = 1;
	for (k = 0; k < 2; k++) {
		if ((k == 0 && rc == TPM2_RC_SESSION_MEMORY) ||
		    (k == 1 && rc == TPM2_RC_OBJECT_MEMORY))
			continue;
		if (tpm2_gethandles(t, kinds[k], hs, 64, &n))
			break;
		for (i = 0; i < n; i++)
			if (!is_own(t, hs[i]) && tpm2_flush(t, hs[i]) == 0)
				flushed++;
	}
	t->in_recovery = 0;
	t->attach = attach;
	t->after = after;
	*t->e = keep;
	t->nflushed += flushed;
	return flushed;
}

static int call(struct tpm *t, struct tpm2_call *c)
{
	struct tb b;
	size_t auth_at, auth_len, rlen;
	long backoff = 20, deadline;
	int tries, rc, recovered = 0;
	char what[200];

	if ((rc = build(t, c, &b, &auth_at, &auth_len)))
		return rc;
	deadline = mono_ms() + t->x.timeout_ms;
	for (tries = 0;; tries++) {
		trace_masked(t, '>', c->cc, b.p, b.len, auth_at,
			     sensitive_cmd(c->cc) ? b.len : auth_len);
		t->ncmds++;
		rc = xport_transmit(&t->x, b.p, b.len, t->rsp,
				    sizeof(t->rsp), &rlen, t->e);
		if (rc) {
			explicit_bzero(t->cmd, b.len);
			return err_prefix(t->e, "%s", tpm2_cc_name(c->cc));
		}
		trace_masked(t, '<', c->cc, t->rsp, rlen, 10,
			     sensitive_rsp(c->cc) ? rlen : 0);
		if ((rc = parse(t, c, rlen)))
			break;
		/* Retries share the --timeout budget: a TPM that answers
		 * RETRY forever must not outlast it. */
		if ((c->rc == TPM2_RC_RETRY || c->rc == TPM2_RC_YIELDED ||
		     c->rc == TPM2_RC_TESTING) && tries < MAX_RETRIES &&
		    mono_ms() + backoff < deadline) {
			sleep_ms(backoff);
			if (backoff < 1000)
				backoff *= 2;
			continue;
		}
		/* Out of room: leftovers of a killed process are flushed
		 * and the same bytes sent once more (the TPM did nothing,
		 * so the sessions' nonces still hold). */
		if ((c->rc == TPM2_RC_OBJECT_MEMORY ||
		     c->rc == TPM2_RC_SESSION_MEMORY ||
		     c->rc == TPM2_RC_MEMORY) && !recovered &&
		    !t->in_recovery && !xport_has_rm(&t->x)) {
			uint8_t *copy = malloc(b.len);
			unsigned n;

			recovered = 1;
			if (!copy)
				break;
			memcpy(copy, b.p, b.len);
			n = flush_leftovers(t, c->rc);
			memcpy(t->cmd, copy, b.len);
			explicit_bzero(copy, b.len);
			free(copy);
			if (n)
				continue;
		}
		break;
	}
	explicit_bzero(t->cmd, b.len);
	if (rc)
		return rc;
	if (c->rc == 0) {
		own_note(t, c);
		return 0;
	}
	rc_describe(c->rc, what, sizeof(what));
	err_set(t->e, rc_exit(c->rc), "%s: %s", tpm2_cc_name(c->cc), what);
	t->e->rc = c->rc;
	/* Not for GetCapability itself: a TPM answering LOCKOUT to
	 * everything must not recurse. */
	if (rc_base(c->rc) == TPM2_RC_LOCKOUT &&
	    c->cc != TPM2_CC_GetCapability)
		lockout_hint(t);
	if (c->rc == TPM2_RC_INITIALIZE)
		err_hint(t->e, "start it with TPM2_Startup (for swtpm: "
			 "--flags startup-clear); tpmbox never sends it");
	return t->e->code;
}

int tpm2_call(struct tpm *t, struct tpm2_call *c)
{
	struct tpm2_auth extra;
	int added = 0, rc;

	if (t->attach && c->na < 3 && (rc = t->attach(t, c, &extra))) {
		if (rc < 0)
			return t->e->code ? t->e->code : EX_FAIL;
		c->auth[c->na++] = &extra;
		added = 1;
	}
	rc = call(t, c);
	if (t->after)
		rc = t->after(t, c, rc);
	if (added)
		c->auth[--c->na] = NULL;
	return rc;
}
