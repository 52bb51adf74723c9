/* takeown: set the hierarchy auth values, persist the standard SRK at
 * 0x81000001, optionally set the dictionary-attack parameters.  Auth
 * values travel over a session salted to the SRK with the new value
 * encrypted (AES-128-CFB), so they never cross the bus in clear. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "auth.h"
#include "crypto/pk.h"
#include "file.h"
#include "hex.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/constants.h"
#include "tpm2/object.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: takeown [--owner-auth AUTH] [--endorsement-auth AUTH]\n"
	"               [--lockout-auth AUTH] [--old-owner-auth AUTH]\n"
	"               [--old-endorsement-auth AUTH] [--old-lockout-auth "
	"AUTH]\n"
	"               [--srk-pub FILE] [--rsa] [--force] [--max-tries N]\n"
	"               [--recovery-time S] [--lockout-recovery S] [-v]\n"
	"Take ownership: persist the TCG standard storage root key (SRK) at\n"
	"0x81000001, set the hierarchy auth values given, print the SRK name.\n"
	"Running it again with the same values changes nothing.\n"
	"  --owner-auth AUTH        new owner (storage) hierarchy auth value\n"
	"  --endorsement-auth AUTH  new endorsement hierarchy auth value\n"
	"  --lockout-auth AUTH      new lockout auth value\n"
	"  --old-owner-auth AUTH    current owner auth (when one is set)\n"
	"  --old-endorsement-auth AUTH  current endorsement auth\n"
	"  --old-lockout-auth AUTH  current lockout auth\n"
	"  --srk-pub FILE           write the SRK public key as PEM\n"
	"  --rsa                    RSA-2048 SRK (default: ECC NIST P-256)\n"
	"  --force                  replace a different object at 0x81000001\n"
	"                           and a different --srk-pub file\n"
	"  --max-tries N            dictionary attack: failures before lockout\n"
	"  --recovery-time S        seconds to forget one failure\n"
	"  --lockout-recovery S     seconds before lockout auth may be retried\n"
	"  -v                       say what was done on stderr\n"
	"AUTH: str:TEXT hex:HEX file:PATH file:- env:VAR (see tpmbox(1)).\n";

enum { H_OWNER, H_ENDORSEMENT, H_LOCKOUT, NH };

static const struct {
	uint32_t handle;
	const char *name;	/* for messages and option names */
	uint32_t setbit;	/* TPMA_PERMANENT */
} hier[NH] = {
	{TPM2_RH_OWNER, "owner", TPMA_PERMANENT_OWNERAUTHSET},
	{TPM2_RH_ENDORSEMENT, "endorsement",
	 TPMA_PERMANENT_ENDORSEMENTAUTHSET},
	{TPM2_RH_LOCKOUT, "lockout", TPMA_PERMANENT_LOCKOUTAUTHSET},
};

struct hstate {
	const char *newspec, *oldspec;
	struct authval nw, old, cur;	/* cur: the value to use now */
	int has_new, cur_known, set;
};

struct opts {
	struct hstate h[NH];
	const char *srkpub;
	int rsa, force, verbose;
	int has_da[3];
	uint32_t da[3];
};

static int say(const struct opts *o, const char *fmt, const char *a,
	       const char *b)
{
	if (o->verbose)
		fprintf(stderr, fmt, a, b);
	return 0;
}

static int parse_u32(struct ctx *c, const char *opt, const char *s,
		     uint32_t *v)
{
	uint64_t x;

	if (parse_u64(s, &x) || x > 0xffffffffu)
		return ctx_usage(c, "%s: bad number '%s'", opt, s);
	*v = (uint32_t)x;
	return 0;
}

static const char shortopts[] = "v";
static const struct option longopts[] = {
	{"owner-auth", required_argument, NULL, 'o'},
	{"endorsement-auth", required_argument, NULL, 'e'},
	{"lockout-auth", required_argument, NULL, 'l'},
	{"old-owner-auth", required_argument, NULL, 'O'},
	{"old-endorsement-auth", required_argument, NULL, 'E'},
	{"old-lockout-auth", required_argument, NULL, 'L'},
	{"srk-pub", required_argument, NULL, 'p'},
	{"rsa", no_argument, NULL, 'r'},
	{"force", no_argument, NULL, 'f'},
	{"max-tries", required_argument, NULL, 'm'},
	{"recovery-time", required_argument, NULL, 't'},
	{"lockout-recovery", required_argument, NULL, 'R'},
	{NULL, 0, NULL, 0}
};

static int parse_opts(struct ctx *c, int argc, char **argv, struct opts *o)
{
	int ch, i;

	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'o': o->h[H_OWNER].newspec = optarg; break;
		case 'e': o->h[H_ENDORSEMENT].newspec = optarg; break;
		case 'l': o->h[H_LOCKOUT].newspec = optarg; break;
		case 'O': o->h[H_OWNER].oldspec = optarg; break;
		case 'E': o->h[H_ENDORSEMENT].oldspec = optarg; break;
		case 'L': o->h[H_LOCKOUT].oldspec = optarg; break;
		case 'p': o->srkpub = optarg; break;
		case 'r': o->rsa = 1; break;
		case 'f': o->force = 1; break;
		case 'v': o->verbose = 1; break;
		case 'm':
			if (parse_u32(c, "--max-tries", optarg, &o->da[0]))
				return EX_USAGE;
			o->has_da[0] = 1;
			break;
		case 't':
			if (parse_u32(c, "--recovery-time", optarg, &o->da[1]))
				return EX_USAGE;
			o->has_da[1] = 1;
			break;
		case 'R':
			if (parse_u32(c, "--lockout-recovery", optarg,
				      &o->da[2]))
				return EX_USAGE;
			o->has_da[2] = 1;
			break;
		default:
			return ctx_usage(c, "unknown option");
		}
	}
	if (optind != argc)
		return ctx_usage(c, "unexpected argument '%s'", argv[optind]);
	for (i = 0; i < NH; i++) {
		struct hstate *h = &o->h[i];

		if (h->newspec) {
			if (auth_parse(h->newspec, &h->nw, &c->e))
				return ctx_fail(c);
			h->has_new = 1;
		}
		if (h->oldspec && auth_parse(h->oldspec, &h->old, &c->e))
			return ctx_fail(c);
	}
	return 0;
}

/* What to authorize each hierarchy with now: the old value when given;
 * the empty value when none is set; when one is set but no old value was
 * given, the new value (a re-run with the same values) - the TPM decides,
 * and a refusal is reported as "already set". */
static void choose_current(struct opts *o, uint32_t perm)
{
	int i;

	for (i = 0; i < NH; i++) {
		struct hstate *h = &o->h[i];

		h->set = (perm & hier[i].setbit) != 0;
		h->cur_known = 1;
		if (h->oldspec)
			h->cur = h->old;
		else if (!h->set)
			memset(&h->cur, 0, sizeof(h->cur));
		else if (h->has_new)
			h->cur = h->nw;
		else
			h->cur_known = 0;
	}
}

/* Explain an authorization refusal for hierarchy i. */
static int auth_refused(struct ctx *c, struct opts *o, int i, int rc)
{
	char why[sizeof(c->e.msg)];

	if (rc != EX_AUTH)
		return ctx_fail(c);
	memcpy(why, c->e.msg, sizeof(why));
	if (o->h[i].oldspec)
		err_set(&c->e, EX_AUTH, "the %s auth value given with "
			"--old-%s-auth is wrong (%s)", hier[i].name,
			hier[i].name, why);
	else
		err_set(&c->e, EX_AUTH, "the %s auth value is already set "
			"and is not the one given; give its current value "
			"with --old-%s-auth (%s)", hier[i].name, hier[i].name,
			why);
	if (i == H_LOCKOUT)
		err_hint(&c->e, "a wrong lockout value blocks lockout "
			 "authorization for the lockout recovery time");
	return ctx_fail(c);
}

static int need_known(struct ctx *c, const struct opts *o, int i,
		      const char *why)
{
	if (o->h[i].cur_known)
		return 0;
	err_set(&c->e, EX_AUTH, "the %s auth value is set and %s needs it; "
		"give it with --old-%s-auth or --%s-auth", hier[i].name, why,
		hier[i].name, hier[i].name);
	return ctx_fail(c);
}

/* Authorize hierarchy i for one call in the process session, salted to
 * the SRK: the value keys the HMAC and never crosses the bus, and the
 * answer comes back HMACed.  Before there is an SRK to salt to, the
 * empty value goes as the empty password; another value needs a session
 * salted to a NULL-hierarchy key (refused with a pin unless
 * --allow-unsalted). */
static int hauth(struct ctx *c, struct tpm *t, struct opts *o, int i,
		 struct tpm2_auth *a)
{
	const struct authval *v = &o->h[i].cur;
	struct tpm2_session *s = tpm2_trust_session(t);
	char why[64];

	if (!s && v->n == 0) {
		tpm2_auth_pw(a, NULL, 0);
		return 0;
	}
	snprintf(why, sizeof(why), "the %s auth value", hier[i].name);
	if (!s && tpm2_trust_null(t, why))
		return ctx_fail(c);
	s = tpm2_trust_session(t);
	tpm2_session_set_flags(s, 0);
	tpm2_session_use(s, a, v->v, v->n);
	return 0;
}

/* The SRK at 0x81000001: kept when it matches the requested template
 * (and the pin), created and persisted when absent, replaced only with
 * --force.  From here on the process session is salted to it. */
static int ensure_srk(struct ctx *c, struct tpm *t, struct opts *o,
		      struct tpm2_public *srk)
{
	struct tpm2_public tmpl;
	struct tpm2_auth a;
	uint32_t h = 0;
	int rc, rsa = -1;

	rc = tpm2_readpublic(t, TPM2_SRK_HANDLE, srk);
	if (rc == 0 && tpm2_srk_matches(srk, &rsa) && rsa == o->rsa) {
		if (tpm2_srk_check(t, srk, "the key at 0x81000001") ||
		    tpm2_trust_start(t, TPM2_SRK_HANDLE, srk))
			return ctx_fail(c);
		return say(o, "takeown: %s SRK at 0x81000001 kept%s\n",
			   o->rsa ? "RSA-2048" : "ECC P-256", "");
	}
	if (rc && rc != EX_NOENT)
		return ctx_fail(c);
	if (need_known(c, o, H_OWNER, "creating the SRK"))
		return c->e.code;
	if (rc == 0) {
		if (!o->force) {
			err_set(&c->e, EX_FAIL, "0x81000001 holds %s, not the "
				"standard %s SRK; not replacing it",
				rsa >= 0 ? (rsa ? "the RSA SRK" : "the ECC SRK")
				: "another object",
				o->rsa ? "RSA-2048" : "ECC P-256");
			err_hint(&c->e, "--force evicts it and persists the "
				 "standard SRK (keys sealed under it are lost)");
			return ctx_fail(c);
		}
		if ((rc = hauth(c, t, o, H_OWNER, &a)))
			return rc;
		if ((rc = tpm2_evict(t, &a, TPM2_SRK_HANDLE, srk->name,
				     srk->namelen, TPM2_SRK_HANDLE)))
			return auth_refused(c, o, H_OWNER, rc);
		say(o, "takeown: evicted the object at 0x81000001%s%s\n", "",
		    "");
	}
	err_clear(&c->e);
	tpm2_srk_template(&tmpl, o->rsa);
	if ((rc = hauth(c, t, o, H_OWNER, &a)))
		return rc;
	rc = tpm2_create_primary(t, TPM2_RH_OWNER, &a, &tmpl, NULL, 0, &h,
				 srk);
	if (rc)
		return auth_refused(c, o, H_OWNER, rc);
	if (!tpm2_srk_matches(srk, &rsa) || rsa != o->rsa) {
		err_set(&c->e, EX_FAIL, "TPM2_CreatePrimary: the key made is "
			"not the SRK its template asks for");
		rc = ctx_fail(c);
		goto out;
	}
	/* The new SRK must be the pinned one before any value goes to it. */
	if (tpm2_srk_check(t, srk, "the SRK made with TPM2_CreatePrimary") ||
	    tpm2_trust_start(t, h, srk)) {
		rc = ctx_fail(c);
		goto out;
	}
	if ((rc = hauth(c, t, o, H_OWNER, &a)))
		goto out;
	rc = tpm2_evict(t, &a, h, srk->name, srk->namelen, TPM2_SRK_HANDLE);
	if (rc) {
		rc = ctx_fail(c);
		goto out;
	}
	say(o, "takeown: %s SRK created and persisted at 0x81000001%s\n",
	    o->rsa ? "RSA-2048" : "ECC P-256", "");
out:
	if (h) {
		struct tberr keep = c->e;

		tpm2_flush(t, h);
		c->e = keep;
	}
	return rc;
}

/* Set the new auth values in the process session, salted to the SRK,
 * the new value encrypted.  The TPM's answer is HMACed with the new
 * value, so a dropped change cannot pass for a done one. */
static int change_auths(struct ctx *c, struct tpm *t, struct opts *o)
{
	struct tpm2_session *s = tpm2_trust_session(t);
	struct tpm2_auth a;
	int i, rc;

	for (i = 0; i < NH; i++) {
		struct hstate *h = &o->h[i];

		if (!h->has_new)
			continue;
		tpm2_session_set_flags(s, SESS_ENC_CMD);
		tpm2_session_use(s, &a, h->cur.v, h->cur.n);
		rc = tpm2_hierarchy_change_auth(t, hier[i].handle, &a,
						h->nw.v, h->nw.n);
		if (rc)
			return auth_refused(c, o, i, rc);
		h->cur = h->nw;
		h->cur_known = 1;
		say(o, "takeown: %s auth value %s\n", hier[i].name,
		    h->set ? "confirmed or changed" : "set");
	}
	return 0;
}

static int set_da(struct ctx *c, struct tpm *t, struct opts *o)
{
	static const uint32_t props[3] = {
		TPM2_PT_MAX_AUTH_FAIL, TPM2_PT_LOCKOUT_INTERVAL,
		TPM2_PT_LOCKOUT_RECOVERY
	};
	uint32_t cur[3];
	struct tpm2_auth a;
	int i, same = 1, rc;

	if (!o->has_da[0] && !o->has_da[1] && !o->has_da[2])
		return 0;
	for (i = 0; i < 3; i++) {
		if (tpm2_getprop(t, props[i], &cur[i]))
			return ctx_fail(c);
		if (!o->has_da[i])
			o->da[i] = cur[i];
		if (o->da[i] != cur[i])
			same = 0;
	}
	if (same)
		return say(o, "takeown: dictionary-attack parameters "
			   "unchanged%s%s\n", "", "");
	if (need_known(c, o, H_LOCKOUT, "setting the dictionary-attack "
		       "parameters"))
		return c->e.code;
	if ((rc = hauth(c, t, o, H_LOCKOUT, &a)))
		return rc;
	rc = tpm2_da_parameters(t, &a, o->da[0], o->da[1], o->da[2]);
	if (rc)
		return auth_refused(c, o, H_LOCKOUT, rc);
	return say(o, "takeown: dictionary-attack parameters set%s%s\n", "",
		   "");
}

static int write_srk_pub(struct ctx *c, const struct opts *o,
			 const struct tpm2_public *srk)
{
	uint8_t *old = NULL;
	size_t pemlen, oldlen;
	char *pem = NULL;
	int rc;

	rc = srk->type == TPM2_ALG_RSA ?
	     pk_pem_rsa(srk->rsa_n, srk->rsa_nlen, srk->rsa_exp, &pem,
			&pemlen) :
	     pk_pem_p256(srk->ecc_x, srk->ecc_xlen, srk->ecc_y, srk->ecc_ylen,
			 &pem, &pemlen);
	if (rc)
		return err_set(&c->e, EX_FAIL, "cannot encode the SRK public "
			       "key as PEM");
	/* The same key already there: nothing to do (idempotent). */
	if (strcmp(o->srkpub, "-") != 0 &&
	    file_read(o->srkpub, 1 << 16, &old, &oldlen, &c->e) == 0) {
		int same = oldlen == pemlen && memcmp(old, pem, pemlen) == 0;

		free(old);
		if (same) {
			free(pem);
			return 0;
		}
	}
	err_clear(&c->e);
	rc = file_write_atomic(o->srkpub, pem, pemlen,
			       o->force ? OUT_FORCE : 0, &c->e);
	free(pem);
	if (rc && !o->force)
		err_hint(&c->e, "--force replaces it");
	return rc;
}

static int run(struct ctx *c, int argc, char **argv)
{
	struct tpm2_public srk;
	struct opts o;
	char hexname[2 * TPM2_NAME_MAX + 1];
	uint32_t perm;
	struct tpm *t;
	int rc, i;

	memset(&o, 0, sizeof(o));
	if ((rc = parse_opts(c, argc, argv, &o)))
		goto out;
	/* With a pin the session comes first: the hierarchy state read
	 * next decides which values are sent. */
	if (!(t = ctx_tpm(c)) || tpm2_trust_begin(t) ||
	    tpm2_getprop(t, TPM2_PT_PERMANENT, &perm)) {
		rc = ctx_fail(c);
		goto out;
	}
	choose_current(&o, perm);
	if ((rc = ensure_srk(c, t, &o, &srk)) ||
	    (rc = change_auths(c, t, &o)) ||
	    (rc = set_da(c, t, &o)))
		goto out;
	if (o.srkpub && write_srk_pub(c, &o, &srk)) {
		rc = ctx_fail(c);
		goto out;
	}
	hex_encode(srk.name, srk.namelen, hexname);
	printf("%s\n", hexname);
	rc = 0;
out:
	for (i = 0; i < NH; i++) {
		auth_wipe(&o.h[i].nw);
		auth_wipe(&o.h[i].old);
		auth_wipe(&o.h[i].cur);
	}
	return rc;
}

const struct applet applet_takeown = {
	"takeown", "set hierarchy auth values and persist the SRK", usage, run,
	shortopts, longopts, APPLET_PIN_NAME
};
