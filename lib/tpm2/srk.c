/* The trust anchor: the SRK pin, finding and checking the SRK, and the
 * process's salted session (include/tpm2/srk.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/verify.h"
#include "tpm2/cmd.h"
#include "tpm2/ek.h"
#include "tpm2/object.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

struct tpm_trust {
	struct srk_pin pin;
	int allow_unsalted;
	struct tpm2_session *s;		/* the process session */
	int kind;			/* TRUST_* */
	/* The persisted SRK the session is salted to, once read: later
	 * lookups take it from here instead of asking again. */
	int have_srk;
	struct tpm2_public srk;
	uint32_t salt_handle;		/* what the session is salted to */
	/* The SRK was taken from the pin, not asked for: not yet proven to
	 * be the key at 0x81000001 (the session's first verified answer
	 * proves it; a failure before is looked into: after_call). */
	int unconfirmed;
	int closing;			/* the session's next use is its last */
};

void srk_name_hex(const uint8_t *name, size_t n, char *out)
{
	if (n > TPM2_NAME_MAX)
		n = TPM2_NAME_MAX;
	hex_encode(name, n, out);
}

static int valid_name(const uint8_t *p, size_t n)
{
	uint16_t alg;

	if (n < 2)
		return 0;
	alg = (uint16_t)(p[0] << 8 | p[1]);
	return hash_supported(alg) && n == 2 + hash_size(alg);
}

int srk_pin_name(struct srk_pin *p, const char *hex, const char *from,
		 struct tberr *e)
{
	long n;

	memset(p, 0, sizeof(*p));
	n = hex_decode(hex, p->name, sizeof(p->name));
	if (n < 0 || !valid_name(p->name, (size_t)n))
		return err_set(e, EX_USAGE, "%s: '%s' is not an SRK name (hex "
			       "of a hash algorithm and its digest, as takeown "
			       "prints it: 000b and 64 hex digits)", from, hex);
	p->namelen = (size_t)n;
	p->set = 1;
	snprintf(p->from, sizeof(p->from), "%s", from);
	return 0;
}

int srk_pub_read(const char *path, struct tpm2_public *k, int ek,
		 const char *from, struct tberr *e)
{
	struct vkey *vk = NULL;
	uint8_t *data = NULL;
	size_t n, xl, yl;
	uint32_t exp;
	int rc;

	if (file_read(path, 1 << 16, &data, &n, e))
		return err_prefix(e, "%s", from);
	/* tpm2_readpublic -o: a TPM2B_PUBLIC, whose size says the rest */
	if (n > 2 && (size_t)(data[0] << 8 | data[1]) == n - 2) {
		struct tb b;

		tb_init_read(&b, data, n);
		rc = tpm2_public_get2b(&b, k, e) || tb_left(&b) ||
		     !(ek ? tpm2_ek_matches(k, NULL) :
		       tpm2_srk_matches(k, NULL));
		goto out;
	}
	if ((rc = vkey_parse(data, n, &vk, e))) {
		err_prefix(e, "%s %s", from, path);
		goto out;
	}
	if (vkey_type(vk) == TPM2_ALG_ECC) {
		tpm2_srk_template(k, 0);
		rc = vkey_raw(vk, k->ecc_x, sizeof(k->ecc_x), &xl, k->ecc_y,
			      sizeof(k->ecc_y), &yl, &exp);
		k->ecc_xlen = xl;
		k->ecc_ylen = yl;
	} else {
		tpm2_srk_template(k, 1);
		rc = vkey_raw(vk, k->rsa_n, sizeof(k->rsa_n), &xl, NULL, 0,
			      &yl, &exp);
		k->rsa_nlen = xl;
		if (!rc && (xl != 256 || exp != 65537))
			rc = -1;
	}
	if (!rc && ek) {
		struct tpm2_public key = *k;

		/* the same key on the EK template */
		tpm2_ek_template(k, key.type == TPM2_ALG_RSA);
		memcpy(k->ecc_x, key.ecc_x, sizeof(k->ecc_x));
		memcpy(k->ecc_y, key.ecc_y, sizeof(k->ecc_y));
		memcpy(k->rsa_n, key.rsa_n, sizeof(k->rsa_n));
		k->ecc_xlen = key.ecc_xlen;
		k->ecc_ylen = key.ecc_ylen;
		k->rsa_nlen = key.rsa_nlen;
	}
	if (!rc && tpm2_public_finish(k))
		rc = -1;
out:
	if (rc)
		rc = err_set(e, EX_USAGE, "%s %s: not the public key of a "
			     "standard %s (NIST P-256, or RSA-2048 with "
			     "exponent 65537)", from, path, ek ? "EK" : "SRK");
	vkey_free(vk);
	free(data);
	return rc;
}

int srk_pin_pub(struct srk_pin *p, const char *path, const char *from,
		struct tberr *e)
{
	struct tpm2_public *k = calloc(1, sizeof(*k));
	int rc;

	memset(p, 0, sizeof(*p));
	if (!k)
		return err_set(e, EX_FAIL, "out of memory");
	if (!(rc = srk_pub_read(path, k, 0, from, e))) {
		memcpy(p->name, k->name, k->namelen);
		p->namelen = k->namelen;
		p->type = k->type;
		p->pub = *k;
		p->have_pub = 1;
		p->set = 1;
		snprintf(p->from, sizeof(p->from), "%s %s", from, path);
	}
	free(k);
	return rc;
}

int srk_pin_remembered(struct srk_pin *p, const char *path,
		       struct tberr *e)
{
	struct stat st;
	int rc;

	memset(p, 0, sizeof(*p));
	if (lstat(path, &st) != 0 && errno == ENOENT)
		return 0;
	if ((rc = srk_pin_pub(p, path, "the remembered SRK", e)))
		return rc;
	p->remembered = 1;
	return 0;
}

int srk_pin_env(struct srk_pin *p, const char *val, struct tberr *e)
{
	uint8_t tmp[TPM2_NAME_MAX];
	long n = hex_decode(val, tmp, sizeof(tmp));

	if (n > 0 && valid_name(tmp, (size_t)n))
		return srk_pin_name(p, val, "TPMBOX_SRK", e);
	return srk_pin_pub(p, val, "TPMBOX_SRK", e);
}

/* ---- the process's trust state ---- */

/* Commands whose answers tpmbox acts on and that take an audit session:
 * the process session goes on each of them.  (FlushContext and the
 * context commands take no sessions; StartAuthSession's answer is a
 * nonce; Quote's answer is signed; Unseal runs in its own salted policy
 * session.) */
static int wants_hmac(uint32_t cc)
{
	switch (cc) {
	case TPM2_CC_GetCapability:
	case TPM2_CC_PCR_Read:
	case TPM2_CC_GetRandom:
	case TPM2_CC_PCR_Extend:
	case TPM2_CC_ReadPublic:
	case TPM2_CC_NV_ReadPublic:
	case TPM2_CC_PolicyPCR:
	case TPM2_CC_CreatePrimary:
	case TPM2_CC_Create:
	case TPM2_CC_Load:
	case TPM2_CC_EvictControl:
	case TPM2_CC_HierarchyChangeAuth:
	case TPM2_CC_DictionaryAttackParameters:
	case TPM2_CC_Clear:
	case TPM2_CC_ClearControl:
	case TPM2_CC_HierarchyControl:
	case TPM2_CC_Shutdown:
	case TPM2_CC_NV_Read:
	case TPM2_CC_NV_Write:
	case TPM2_CC_NV_Increment:
	case TPM2_CC_NV_Extend:
	case TPM2_CC_NV_SetBits:
	case TPM2_CC_NV_DefineSpace:
	case TPM2_CC_NV_UndefineSpace:
		return 1;
	}
	return 0;
}

/* The TPM puts an object's or NV index's name into the cpHash of every
 * session of the command: a call that names such a handle without its
 * name (ReadPublic, NV_ReadPublic: the name is what they ask for) cannot
 * carry the session.  Their answers are checked instead by the next
 * command that names the object in its HMAC. */
static int names_known(const struct tpm2_call *c)
{
	int i;

	for (i = 0; i < c->nh && i < 3; i++) {
		unsigned type = c->h[i] >> 24;

		if (!c->name[i].n && (type == 0x80 || type == 0x81 ||
				      type == 0x01))
			return 0;
	}
	return 1;
}

static int start(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
		 int kind);

/* Whether the session can be started again, the same way, should a
 * command need it after its last use: salted to a persistent SRK. */
static int restartable(const struct tpm_trust *tr)
{
	return (tr->kind == TRUST_PINNED || tr->kind == TRUST_TOFU) &&
	       tr->have_srk && tr->salt_handle == TPM2_SRK_HANDLE;
}

static int diagnose(struct tpm *t, int rc);

/* The session salted to the pin's key unasked authorizes nothing until
 * an answer proved the key: a wrong session key would fail the
 * authorization, and the TPM counts that against dictionary-attack
 * lockout (lockout's value, an NV index's).  Before such a use, the key
 * is asked for (one ReadPublic).  The SRK itself (noDA by its template)
 * needs no proof first: Create and Load under it fail without a count. */
static int confirm_before(struct tpm *t, struct tpm2_call *c)
{
	struct tpm_trust *tr = t->trust;
	int i;

	if (!tr || !tr->unconfirmed || !tr->s)
		return 0;
	for (i = 0; i < c->na; i++)
		if (c->auth[i] && c->auth[i]->sess == tr->s &&
		    !c->auth[i]->audit &&
		    !(i < c->nh && c->h[i] == TPM2_SRK_HANDLE))
			break;
	if (i == c->na)
		return 0;
	tr->unconfirmed = 0;
	err_clear(t->e);
	return diagnose(t, 0);
}

static int attach(struct tpm *t, struct tpm2_call *c, struct tpm2_auth *a)
{
	struct tpm_trust *tr = t->trust;
	struct tpm2_session *s = tr ? tr->s : NULL;

	if (confirm_before(t, c))
		return -1;
	if (!s || !wants_hmac(c->cc) || tpm2_session_in_call(s, c) ||
	    !names_known(c))
		return 0;
	if (!tpm2_session_handle(s)) {
		/* Ended with what was meant to be its last command, and one
		 * more came (a TPM that answered in more parts than
		 * asked): the same session again, never none. */
		tpm2_session_free(s);
		tr->s = NULL;
		if (start(t, tr->salt_handle, &tr->srk, tr->kind))
			return -1;
		s = tr->s;
	}
	/* GetRandom's bytes also travel encrypted. */
	tpm2_session_audit(s, a, c->cc == TPM2_CC_GetRandom);
	if (tr->closing && restartable(tr))
		tpm2_auth_last(a);
	tr->closing = 0;
	return 1;
}

/* The key at 0x81000001 was taken from the pin (unconfirmed) and a
 * command failed before any answer proved it: ask for it now, so that
 * another key there is named as such (and a missing one too), not
 * reported as the failure it caused. */
static int mismatch(struct tpm *t, const char *where, const uint8_t *want,
		    size_t wn, const char *from, const struct tpm2_public *got,
		    int remembered);

static int diagnose(struct tpm *t, int rc)
{
	struct tpm_trust *tr = t->trust;
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct tberr keep = *t->e;
	char w[2 * TPM2_NAME_MAX + 1];
	int r;

	if (!pub)
		return rc;
	r = tpm2_readpublic(t, TPM2_SRK_HANDLE, pub);
	if (r == 0 && !(pub->namelen == tr->pin.namelen &&
			memcmp(pub->name, tr->pin.name, pub->namelen) == 0)) {
		rc = mismatch(t, "the key at 0x81000001", tr->pin.name,
			      tr->pin.namelen, tr->pin.from, pub,
			      tr->pin.remembered);
	} else if (r == EX_NOENT) {
		srk_name_hex(tr->pin.name, tr->pin.namelen, w);
		rc = err_set(t->e, EX_FAIL, "the pinned SRK (%s, %s) is not "
			     "persisted at 0x81000001 any more", w,
			     tr->pin.from);
		err_hint(t->e, "this TPM was cleared or its SRK evicted: "
			 "'tpmbox takeown --force' persists and remembers "
			 "the SRK again");
	} else if (r && !rc) {
		rc = r;		/* asked before a use: its own failure */
	} else {
		*t->e = keep;
	}
	free(pub);
	return rc;
}

static int after_call(struct tpm *t, struct tpm2_call *c, int rc)
{
	struct tpm_trust *tr = t->trust;

	if (!tr || !tr->unconfirmed)
		return rc;
	if (rc == 0) {
		if (tr->s && tpm2_session_in_call(tr->s, c))
			tr->unconfirmed = 0;
		return 0;
	}
	tr->unconfirmed = 0;
	/* Not after a timeout or a damaged answer: the TPM did not answer
	 * this, and one more question would only wait again. */
	if ((rc == EX_IO && !t->e->rc) || t->family == 1)
		return rc;
	return diagnose(t, rc);
}

static void release(struct tpm *t)
{
	struct tpm_trust *tr = t->trust;

	if (!tr)
		return;
	t->attach = NULL;
	t->after = NULL;
	if (tr->s) {
		struct tberr keep = *t->e;

		tpm2_session_flush(t, tr->s);
		*t->e = keep;
	}
	explicit_bzero(tr, sizeof(*tr));
	free(tr);
	t->trust = NULL;
	t->release = NULL;
}

static struct tpm_trust *trust(struct tpm *t)
{
	if (!t->trust && (t->trust = calloc(1, sizeof(*t->trust)))) {
		t->release = release;
		t->attach = attach;
		t->after = after_call;
	}
	return t->trust;
}

int tpm_trust_set(struct tpm *t, const struct srk_pin *pin,
		  int allow_unsalted)
{
	struct tpm_trust *tr = trust(t);

	if (!tr)
		return err_set(t->e, EX_FAIL, "out of memory");
	if (pin && pin->set)
		tr->pin = *pin;
	tr->allow_unsalted = allow_unsalted;
	return 0;
}

int tpm_trust_pinned(const struct tpm *t)
{
	return t->trust && t->trust->pin.set;
}

struct tpm2_session *tpm2_trust_session(const struct tpm *t)
{
	return t->trust ? t->trust->s : NULL;
}

int tpm2_trust_kind(const struct tpm *t)
{
	return t->trust && t->trust->s ? t->trust->kind : TRUST_NONE;
}

/* ---- checking a key against the pins ---- */

static int name_eq(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	return an == bn && memcmp(a, b, an) == 0;
}

static int mismatch(struct tpm *t, const char *where, const uint8_t *want,
		    size_t wn, const char *from, const struct tpm2_public *got,
		    int remembered)
{
	char w[2 * TPM2_NAME_MAX + 1], g[2 * TPM2_NAME_MAX + 1];

	srk_name_hex(want, wn, w);
	srk_name_hex(got->name, got->namelen, g);
	err_set(t->e, EX_FAIL, "%s is not the pinned SRK: pinned %s (%s), "
		"the TPM answered %s; nothing it could read was sent to it",
		where, w, from, g);
	if (remembered)
		err_hint(t->e, "a key substituted on the bus, or this TPM was "
			 "cleared or replaced: then 'tpmbox takeown --force' "
			 "persists and remembers its SRK ('tpmbox clearall' "
			 "removes the file it makes stale; TPMBOX_SRK=none "
			 "runs unpinned)");
	else
		err_hint(t->e, "a key substituted on the bus, another TPM, or "
			 "a cleared TPM (then run takeown again and pin the "
			 "new name)");
	return EX_FAIL;
}

/* Every pin that is set must name pub. */
static int check_pins(struct tpm *t, const struct srk_want *w,
		      const char *where, const struct tpm2_public *pub)
{
	const struct srk_pin *p = t->trust ? &t->trust->pin : NULL;

	if (p && p->set && !name_eq(p->name, p->namelen, pub->name,
				    pub->namelen))
		return mismatch(t, where, p->name, p->namelen, p->from, pub,
				p->remembered);
	if (w && w->name && !name_eq(w->name, w->namelen, pub->name,
				     pub->namelen))
		return mismatch(t, where, w->name, w->namelen,
				w->name_from ? w->name_from : "recorded",
				pub, 0);
	return 0;
}

int tpm2_srk_check(struct tpm *t, const struct tpm2_public *pub,
		   const char *where)
{
	return check_pins(t, NULL, where, pub);
}

/* Whether every name set (the pin's, the blob's) is pub's. */
static int names_ok(const struct tpm *t, const struct srk_want *w,
		    const struct tpm2_public *pub)
{
	const struct srk_pin *p = t->trust ? &t->trust->pin : NULL;

	return (!p || !p->set ||
		name_eq(p->name, p->namelen, pub->name, pub->namelen)) &&
	       (!w || !w->name ||
		name_eq(w->name, w->namelen, pub->name, pub->namelen));
}

static int pinned(const struct tpm *t, const struct srk_want *w)
{
	return tpm_trust_pinned(t) || (w && w->name);
}

/* ---- sessions ---- */

static int start(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
		 int kind)
{
	struct tpm_trust *tr = trust(t);
	int rc;

	if (!tr)
		return err_set(t->e, EX_FAIL, "out of memory");
	if (tr->s)
		return 0;
	rc = tpm2_session_start(t, TPM2_SE_HMAC, key, pub, TPM2_RH_NULL,
				NULL, 0, 0, &tr->s);
	if (rc)
		return rc;
	tr->kind = kind;
	tr->salt_handle = key;
	return 0;
}

int tpm2_srk_session_pinned(struct tpm *t, int type, int flags,
			    struct tpm2_session **s)
{
	struct tpm_trust *tr = t->trust;
	int rc;

	*s = NULL;
	if (!tr || !tr->pin.set || !tr->pin.have_pub ||
	    (tr->have_srk && !name_eq(tr->srk.name, tr->srk.namelen,
				      tr->pin.name, tr->pin.namelen)))
		return 0;
	rc = tpm2_session_start(t, type, TPM2_SRK_HANDLE, &tr->pin.pub,
				TPM2_RH_NULL, NULL, 0, flags, s);
	if (rc) {
		/* The TPM refused it (no key at 0x81000001, or one of the
		 * other type): the caller asks for the key, as without the
		 * pin's, and names what is there.  Not past a 1.2's answer or
		 * a transport failure. */
		if (t->family == 1 || !t->e->rc)
			return rc;
		err_clear(t->e);
		return 0;
	}
	if (!tr->have_srk) {
		tr->srk = tr->pin.pub;
		tr->have_srk = 1;
		tr->unconfirmed = 1;
	}
	return 0;
}

void tpm2_trust_last_for(struct tpm *t, struct tpm2_auth *a)
{
	struct tpm_trust *tr = t->trust;

	if (!tr || !tr->s)
		return;
	if (a->sess != tr->s)
		tr->closing = 1;	/* attached to the call: attach() */
	else if (restartable(tr))
		tpm2_auth_last(a);
}

void tpm2_trust_last(struct tpm *t)
{
	if (t->trust && t->trust->s)
		t->trust->closing = 1;
}

int tpm2_trust_take_last(struct tpm *t)
{
	int was = t->trust && t->trust->closing;

	if (t->trust)
		t->trust->closing = 0;
	return was;
}

int tpm2_trust_start(struct tpm *t, uint32_t key,
		     const struct tpm2_public *pub)
{
	int rc = start(t, key, pub, tpm_trust_pinned(t) ? TRUST_PINNED :
		       TRUST_TOFU);

	if (rc == 0 && key == TPM2_SRK_HANDLE && !t->trust->have_srk) {
		t->trust->srk = *pub;
		t->trust->have_srk = 1;
	}
	return rc;
}

int tpm2_trust_ek(struct tpm *t, uint32_t key, const struct tpm2_public *pub)
{
	if (t->trust && t->trust->s && t->trust->kind != TRUST_EK)
		return err_set(t->e, EX_FAIL, "a session salted to another "
			       "key is already up: the EK's comes first");
	return start(t, key, pub, TRUST_EK);
}

/* A session salted to a fresh ECC primary in the NULL hierarchy (no
 * authorization needed to make it; flushed once the session holds the
 * salt).  Only when no pin is set, or with --allow-unsalted. */
int tpm2_trust_null(struct tpm *t, const char *why)
{
	struct tpm_trust *tr = trust(t);
	struct tpm2_public *tmpl, *pub;
	uint32_t h = 0;
	int rc;

	if (!tr)
		return err_set(t->e, EX_FAIL, "out of memory");
	if (tr->s)
		return 0;
	if (tr->pin.set && !tr->allow_unsalted) {
		char w[2 * TPM2_NAME_MAX + 1];

		srk_name_hex(tr->pin.name, tr->pin.namelen, w);
		err_set(t->e, EX_USAGE, "refusing to send %s: it must key a "
			"session salted to the pinned SRK (%s), and there is "
			"none to salt to (no standard SRK is persisted at "
			"0x81000001, and making it takes the owner auth value)",
			why, w);
		err_hint(t->e, "persist the SRK once with 'tpmbox takeown' "
			 "(then pin it), or give --allow-unsalted to salt to "
			 "a fresh NULL-hierarchy key (a bus sniffer learns "
			 "nothing; an active interposer can guess the value "
			 "offline)");
		return EX_USAGE;
	}
	pub = calloc(2, sizeof(*pub));
	if (!pub)
		return err_set(t->e, EX_FAIL, "out of memory");
	tmpl = pub + 1;
	tpm2_srk_template(tmpl, 0);
	rc = tpm2_create_primary(t, TPM2_RH_NULL, NULL, tmpl, NULL, 0, &h,
				 pub);
	if (rc) {
		err_prefix(t->e, "creating the key that salts the session");
	} else if (!tpm2_srk_matches(pub, NULL)) {
		rc = err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key made "
			     "is not the one asked for");
	} else {
		rc = start(t, h, pub, TRUST_NULL);
	}
	if (h) {
		struct tberr keep = *t->e;

		tpm2_flush(t, h);
		if (rc)
			*t->e = keep;
	}
	free(pub);
	return rc;
}

/* ---- the SRK ---- */

static int make_srk(struct tpm *t, const struct srk_want *w, int rsa,
		    int zeros, struct tpm2_srk *k)
{
	struct tpm2_public *tmpl = calloc(1, sizeof(*tmpl));
	struct tpm2_auth a;
	int rc, type;

	if (!tmpl)
		return err_set(t->e, EX_FAIL, "out of memory");
	if (zeros)
		tpm2_srk_template_zeros(tmpl, rsa);
	else
		tpm2_srk_template(tmpl, rsa);
	if (w && w->owner && w->ownerlen) {
		/* The owner value keys a salted session; it is never sent. */
		if ((rc = tpm2_trust_null(t, "the owner auth "
				       "value"))) {
			free(tmpl);
			return rc;
		}
		tpm2_session_set_flags(t->trust->s, 0);
		tpm2_session_use(t->trust->s, &a, w->owner, w->ownerlen);
	} else if (tpm2_trust_session(t)) {
		tpm2_session_set_flags(t->trust->s, 0);
		tpm2_session_use(t->trust->s, &a, NULL, 0);
	} else {
		tpm2_auth_pw(&a, NULL, 0);
	}
	rc = tpm2_create_primary(t, TPM2_RH_OWNER, &a, tmpl, NULL, 0,
				 &k->handle, &k->pub);
	free(tmpl);
	if (rc)
		return rc;
	k->transient = 1;
	if (!tpm2_srk_matches(&k->pub, &type) || type != rsa) {
		tpm2_srk_put(t, k);
		return err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key "
			       "made is not the SRK its template asks for");
	}
	return 0;
}

int tpm2_srk_find(struct tpm *t, const struct srk_want *w,
		  struct tpm2_srk *k)
{
	const struct srk_pin *p = t->trust ? &t->trust->pin : NULL;
	int rc, rsa = -1, standard;

	memset(k, 0, sizeof(*k));
	if (w && (w->older || w->transient)) {
		rsa = w->rsa;
		if ((rc = make_srk(t, w, rsa, w->older, k)))
			return rc;
		if ((rc = check_pins(t, w, "the SRK made with "
				     "TPM2_CreatePrimary", &k->pub)))
			tpm2_srk_put(t, k);
		return rc;
	}
	if (t->trust && t->trust->have_srk) {
		k->pub = t->trust->srk;
		rc = 0;
	} else {
		rc = tpm2_readpublic(t, TPM2_SRK_HANDLE, &k->pub);
	}
	if (rc && rc != EX_NOENT)
		return rc;
	if (rc == 0) {
		standard = tpm2_srk_matches(&k->pub, &rsa);
		if (pinned(t, w) || standard) {
			if ((rc = check_pins(t, w, "the key at 0x81000001",
					     &k->pub)))
				return rc;
			if (!standard)
				return err_set(t->e, EX_FAIL, "0x81000001 "
					       "holds the pinned key, but it "
					       "is not a standard SRK "
					       "(restricted decryption key of "
					       "the TCG template)");
			if (!w || !w->exact || rsa == w->rsa) {
				k->handle = TPM2_SRK_HANDLE;
				return 0;
			}
		} else {
			k->found_other = 1;
		}
	}
	err_clear(t->e);
	/* None (or not the one wanted) persisted: make it.  A pin that
	 * knows its type decides the template. */
	rsa = w ? w->rsa : 0;
	if (p && p->set && !(w && w->exact) && p->type)
		rsa = p->type == TPM2_ALG_RSA;
	if ((rc = make_srk(t, w, rsa, 0, k)))
		return rc;
	if (!names_ok(t, w, &k->pub)) {
		/* A blob or pin that names an SRK tpmbox made before it
		 * derived the ecosystem's (the unique field filled with
		 * zeros) */
		tpm2_srk_put(t, k);
		if ((rc = make_srk(t, w, rsa, 1, k)))
			return rc;
	}
	if (p && p->set && !p->type && !(w && w->exact) &&
	    !name_eq(p->name, p->namelen, k->pub.name, k->pub.namelen)) {
		/* A pin by name alone: the other template may be it, in
		 * either form. */
		tpm2_srk_put(t, k);
		if ((rc = make_srk(t, w, !rsa, 0, k)))
			return rc;
		if (!names_ok(t, w, &k->pub)) {
			tpm2_srk_put(t, k);
			if ((rc = make_srk(t, w, !rsa, 1, k)))
				return rc;
		}
	}
	if ((rc = check_pins(t, w, "the SRK made with TPM2_CreatePrimary",
			     &k->pub))) {
		tpm2_srk_put(t, k);
		return rc;
	}
	return 0;
}

void tpm2_srk_put(struct tpm *t, struct tpm2_srk *k)
{
	if (k->transient && k->handle) {
		struct tberr keep = *t->e;

		tpm2_flush(t, k->handle);
		*t->e = keep;
	}
	k->handle = 0;
	k->transient = 0;
}

int tpm2_trust_need(struct tpm *t, struct tpm2_session **s)
{
	struct tpm2_srk *k;
	int rc;

	*s = NULL;
	if (!trust(t))
		return err_set(t->e, EX_FAIL, "out of memory");
	if (t->trust->s) {
		*s = t->trust->s;
		return 0;
	}
	if ((rc = tpm2_trust_try_pinned(t)))
		return rc;
	if (t->trust->s) {
		*s = t->trust->s;
		return 0;
	}
	if (!(k = calloc(1, sizeof(*k))))
		return err_set(t->e, EX_FAIL, "out of memory");
	rc = tpm2_readpublic(t, TPM2_SRK_HANDLE, &k->pub);
	if (rc && rc != EX_NOENT)
		goto out;
	if (rc == 0 && (tpm_trust_pinned(t) || tpm2_srk_matches(&k->pub,
								NULL))) {
		if ((rc = check_pins(t, NULL, "the key at 0x81000001",
				     &k->pub)) ||
		    (!tpm2_srk_matches(&k->pub, NULL) &&
		     (rc = err_set(t->e, EX_FAIL, "0x81000001 holds the "
				   "pinned key, but it is not a standard "
				   "SRK"))))
			goto out;
		rc = tpm2_trust_start(t, TPM2_SRK_HANDLE, &k->pub);
		goto out;
	}
	err_clear(t->e);
	if (!tpm_trust_pinned(t)) {
		/* No pin: trust on first use of a NULL-hierarchy key (its
		 * name changes with every TPM reset: never pinnable). */
		rc = tpm2_trust_null(t, "an auth value");
		goto out;
	}
	/* A pin and no SRK persisted: make it with the empty owner value;
	 * the owner value itself would need what we are making. */
	rc = tpm2_srk_find(t, NULL, k);
	if (rc == EX_AUTH && t->trust->allow_unsalted) {
		err_clear(t->e);
		rc = tpm2_trust_null(t, "an auth value");
		goto out;
	}
	if (rc == EX_AUTH) {
		char w[2 * TPM2_NAME_MAX + 1];

		srk_name_hex(t->trust->pin.name, t->trust->pin.namelen, w);
		rc = err_set(t->e, EX_USAGE, "the pinned SRK (%s) is not "
			     "persisted at 0x81000001, and making it needs "
			     "the owner auth value", w);
		err_hint(t->e, "persist it once with 'tpmbox takeown', or "
			 "give --allow-unsalted to salt to a fresh "
			 "NULL-hierarchy key instead");
		goto out;
	}
	if (rc == 0)
		rc = tpm2_trust_start(t, k->handle, &k->pub);
	tpm2_srk_put(t, k);
out:
	free(k);
	if (rc == 0)
		*s = t->trust->s;
	return rc;
}

int tpm2_trust_try_pinned(struct tpm *t)
{
	struct tpm2_session *s;
	int rc;

	if (!t->trust || t->trust->s)
		return 0;
	if ((rc = tpm2_srk_session_pinned(t, TPM2_SE_HMAC, 0, &s)) || !s)
		return rc;
	t->trust->s = s;
	t->trust->kind = TRUST_PINNED;
	t->trust->salt_handle = TPM2_SRK_HANDLE;
	return 0;
}

int tpm2_trust_begin(struct tpm *t)
{
	struct tpm2_session *s;

	if (!tpm_trust_pinned(t))
		return 0;
	return tpm2_trust_need(t, &s);
}

int tpm2_srk_get(struct tpm *t, int rsa, const uint8_t *owner_auth,
		 size_t owner_authlen, uint32_t *handle,
		 struct tpm2_public *pub, int *transient, int *found_other)
{
	struct srk_want w;
	struct tpm2_srk *k = calloc(1, sizeof(*k));
	int rc;

	if (!k)
		return err_set(t->e, EX_FAIL, "out of memory");
	memset(&w, 0, sizeof(w));
	w.rsa = rsa;
	w.owner = owner_auth;
	w.ownerlen = owner_auth ? owner_authlen : 0;
	rc = tpm2_srk_find(t, &w, k);
	*handle = k->handle;
	*pub = k->pub;
	*transient = k->transient;
	if (found_other)
		*found_other = k->found_other;
	free(k);
	return rc;
}
