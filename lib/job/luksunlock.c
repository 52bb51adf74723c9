/* Unlocking LUKS2 TPM tokens (include/job/luksunlock.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pbkdf2.h"
#include "crypto/sss.h"
#include "crypto/sym.h"
#include "fmt/polsig.h"
#include "job/luksunlock.h"
#include "job/sealing.h"
#include "job/tpm.h"
#include "tpm2/authorize.h"
#include "tpm2/cmd.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

#define RC_VALUE	0x084u
#define RC_AUTH_FAIL	0x08eu
#define RC_BAD_AUTH	0x0a2u
#define RC_POLICY_FAIL	0x09du
#define RC_PCR_CHANGED	0x128u

#define SD_PIN_ITER	10000	/* systemd 253+: PBKDF2 rounds of the PIN */
#define SECRET_MAX	128	/* an Unseal's answer */
#define RSA_EXP_DEFAULT	65537u

/* "sha256:0,7" into buf. */
static void pcr_words(uint16_t bank, uint32_t mask, char *buf, size_t cap)
{
	size_t o;
	int i, first = 1;

	o = (size_t)snprintf(buf, cap, "%s:", alg_name(bank));
	for (i = 0; i < 32 && o < cap; i++)
		if (mask >> i & 1) {
			o += (size_t)snprintf(buf + o, cap - o,
					      first ? "%d" : ",%d", i);
			first = 0;
		}
}

static int pcrs_differ(const char *what, uint16_t bank, uint32_t mask,
		       struct tberr *e)
{
	char w[128];

	pcr_words(bank, mask, w, sizeof(w));
	err_set(e, EX_AUTH, "%s: the PCRs %s do not have the values it was "
		"sealed to (the token records only their policy digest, so "
		"which of them changed is not known)", what, w);
	err_hint(e, "compare with 'tpmbox pcrread' and the boot's event log "
		 "(tpmbox eventlog); unlock with the recovery passphrase and "
		 "enroll again");
	return EX_AUTH;
}

/* One PCR_Read of bank:mask; a bank the TPM lacks is exit 1. */
static int read_pcrs(struct tpm *t, uint16_t bank, uint32_t mask,
		     const char *what, struct pcr_vals *cur, struct tberr *e)
{
	struct pcr_sel sel;

	cur->n = 0;
	if (!mask)
		return 0;
	memset(&sel, 0, sizeof(sel));
	sel.n = 1;
	sel.b[0].alg = bank;
	sel.b[0].mask = mask;
	if (tpm2_pcr_read(t, &sel, cur) == 0)
		return 0;
	if (e->code == EX_USAGE)
		return err_set(e, EX_FAIL, "%s is sealed to PCRs of the %s "
			       "bank, which this TPM does not have allocated: "
			       "it was enrolled on another TPM or setup",
			       what, alg_name(bank));
	return e->code ? e->code : EX_IO;
}

/* ---- systemd-tpm2 ---- */

/* The signer of a signed policy: the token's PEM key as the TPM loads
 * it; exp_zero: its RSA exponent written as 0 (the TPM's default), the
 * form some systemd versions name the key by. */
static int sd_signer(const struct sdtpm2 *s, const char *what, int exp_zero,
		     struct tpm2_public *k, struct tberr *e)
{
	if (signer_pub_parse((const uint8_t *)s->pubkey_pem, s->pubkey_len,
			     k, what, "tpm2_pubkey", e))
		return err_set(e, EX_FAIL, "%s: tpm2_pubkey is not an "
			       "RSA-2048/3072 or P-256 public key", what);
	if (exp_zero && k->type == TPM2_ALG_RSA) {
		if (k->rsa_exp != RSA_EXP_DEFAULT)
			return -1;
		k->rsa_exp = 0;
		if (tpm2_public_finish(k))
			return err_set(e, EX_FAIL, "%s: tpm2_pubkey", what);
	}
	return 0;
}

/* The PIN's auth value as systemd derives it. */
static int sd_authvalue(const struct sdtpm2 *s, const char *pin,
			size_t pinlen, uint8_t out[32], struct tberr *e)
{
	uint8_t k[32];
	char *b64;
	size_t bl;
	int rc;

	if (!s->saltlen)
		return hash_buf(TPM2_ALG_SHA256, pin, pinlen, out) ?
		       err_set(e, EX_FAIL, "hashing the PIN failed") : 0;
	if (pbkdf2_hmac(TPM2_ALG_SHA256, pin, pinlen, s->salt, s->saltlen,
			SD_PIN_ITER, k, sizeof(k)))
		return err_set(e, EX_FAIL, "deriving the PIN's key failed");
	b64 = b64_encode(k, sizeof(k), &bl);
	explicit_bzero(k, sizeof(k));
	if (!b64)
		return err_set(e, EX_FAIL, "out of memory");
	rc = hash_buf(TPM2_ALG_SHA256, b64, bl, out);
	explicit_bzero(b64, bl);
	free(b64);
	return rc ? err_set(e, EX_FAIL, "hashing the PIN failed") : 0;
}

/* Where systemd looks for the signed-policy JSON when none is named
 * (tpm2_load_pcr_signature: "tpm2-pcr-signature.json" in its
 * configuration directories, in this order), then /.extra, where
 * systemd-stub unpacks a UKI's .pcrsig section in the initrd.
 * TPMBOX_SIGNATURE_ROOT prefixes each (tests). */
static const char *const sig_dirs[] = {
	"/etc/systemd", "/run/systemd", "/usr/local/lib/systemd",
	"/usr/lib/systemd", "/.extra",
};

/* in's signature files, or the first default one that exists: *paths
 * and *n; 0 when there is none. */
static int sig_paths(const struct luks_unlock_in *in, char *buf, size_t len,
		     const char *const **paths, int *n)
{
	static const char *one[1];
	const char *root = getenv("TPMBOX_SIGNATURE_ROOT");
	size_t i;

	if (in->nsig) {
		*paths = in->sigpaths;
		*n = in->nsig;
		return 1;
	}
	for (i = 0; i < sizeof(sig_dirs) / sizeof(sig_dirs[0]); i++) {
		snprintf(buf, len, "%s%s/tpm2-pcr-signature.json",
			 root ? root : "", sig_dirs[i]);
		if (access(buf, F_OK) == 0) {
			one[0] = buf;
			*paths = one;
			*n = 1;
			return 1;
		}
	}
	return 0;
}

static int sd_check(const struct sdtpm2 *s, const char *what,
		    const struct luks_unlock_in *in, struct tberr *e)
{
	struct tpm2_public *k;
	struct polsig *sigs;
	const char *const *paths;
	char buf[256];
	int i, rc, n;

	if (s->pcrlock)
		return err_set(e, EX_FAIL, "%s has a pcrlock policy (systemd "
			       "255+): unlocking it needs the pcrlock policy "
			       "file, which this version does not read",
			       what);
	if (s->has_srk && s->srk_handle != TPM2_SRK_HANDLE)
		return err_set(e, EX_FAIL, "%s names its SRK at 0x%08x; only "
			       "0x81000001 is read", what, s->srk_handle);
	for (i = 0; i < s->nblob; i++) {
		const struct tpm2_public *p = &s->blob[i].pub;
		int pk = s->npolicy > i ? i : 0;

		if (p->type != TPM2_ALG_KEYEDHASH ||
		    p->name_alg != TPM2_ALG_SHA256)
			return err_set(e, EX_FAIL, "%s: tpm2-blob is not a "
				       "sealed SHA-256 object", what);
		if (s->npolicy && (p->policylen != s->policylen[pk] ||
				   memcmp(p->policy, s->policy[pk],
					  p->policylen)))
			return err_set(e, EX_FAIL, "%s: the sealed object's "
				       "policy is not tpm2-policy-hash", what);
	}
	if (!s->has_pubkey)
		return 0;
	if (!sig_paths(in, buf, sizeof(buf), &paths, &n)) {
		err_set(e, EX_USAGE, "%s is sealed to PCR policies signed by "
			"a key (systemd-cryptenroll --tpm2-public-key) and no "
			"tpm2-pcr-signature.json is where systemd keeps it: "
			"give --signature SIG.json", what);
		err_hint(e, "looked in /etc/systemd, /run/systemd, "
			 "/usr/local/lib/systemd, /usr/lib/systemd and /.extra "
			 "(a UKI's .pcrsig section in the initrd)");
		return EX_USAGE;
	}
	k = malloc(sizeof(*k));
	sigs = malloc(sizeof(*sigs));
	rc = !k || !sigs ? err_set(e, EX_FAIL, "out of memory") :
	     sd_signer(s, what, 0, k, e) ? e->code :
	     signed_policies_read(paths, n, k, s->bank, what, sigs, e);
	free(k);
	free(sigs);
	return rc;
}

/* The parent of a token's blob: the persistent SRK it names, or the
 * legacy primary made now.  *s gets a policy session salted to the
 * pinned SRK when the pin holds its key (no ReadPublic). */
static int sd_parent(struct tpm *t, const struct sdtpm2 *sd, const char *what,
		     struct tpm2_srk *srk, struct tpm2_session **s,
		     struct tberr *e)
{
	struct srk_want want;

	memset(srk, 0, sizeof(*srk));
	if (sd->has_srk) {
		memset(&want, 0, sizeof(want));
		want.rsa = sd->srk_pub.type == TPM2_ALG_RSA;
		want.exact = 1;
		want.name = sd->srk_name;
		want.namelen = sd->srk_namelen;
		want.name_from = "the token's tpm2_srk";
		if (tpm2_srk_session_pinned(t, TPM2_SE_POLICY, SESS_ENC_RSP,
					    s) ||
		    tpm2_srk_find(t, &want, srk))
			return err_prefix(e, "%s", what);
		if (srk->found_other)
			return err_set(e, EX_FAIL, "%s: 0x81000001 holds a key "
				       "that is not a standard SRK: refusing to "
				       "unlock", what);
		return 0;
	}
	/* systemd before 254: a primary from the legacy template, made
	 * under the owner hierarchy each time (its answer HMACed in the
	 * process session when a pin is set). */
	if (luks_legacy_primary(t, sd->primary_alg == TPM2_ALG_RSA, 0,
				&srk->handle, &srk->pub, e))
		return err_prefix(e, "%s: making systemd's primary key", what);
	srk->transient = 1;
	return 0;
}

/* The TPM's refusal of Unseal as this job says it. */
static int unseal_refused(const char *what, int pin, struct tberr *e)
{
	uint32_t b = rc_base(e->rc);

	if (e->code == EX_LOCKOUT)
		return err_prefix(e, "%s", what);
	if (b == RC_AUTH_FAIL || b == RC_BAD_AUTH) {
		err_set(e, EX_AUTH, "%s: the %s is wrong (the PCRs match)",
			what, pin ? "PIN" : "auth value");
		err_hint(e, "each wrong PIN counts toward dictionary-attack "
			 "lockout (tpmbox info shows the counter)");
	} else if (b == RC_POLICY_FAIL || b == RC_PCR_CHANGED) {
		err_set(e, EX_AUTH, "%s: the policy is not satisfied: the PCRs "
			"changed during unlock", what);
	} else {
		err_prefix(e, "%s: TPM2_Unseal", what);
	}
	return e->code;
}

/* The signed part of the policy, computed once: the branch, the entry
 * and the TPM's ticket. */
struct sd_signed {
	struct tpm2_public signer;
	struct polsig sigs;
	struct policy_branch br;
	const struct polsig_entry *x;
	struct tpm2_ticket tk;
};

/* The policy digest this token needs with the PCR values cur; *sg's
 * signer the one whose name gives tpm2-policy-hash (RSA: the exponent as
 * written or as 0).  1: the digest matches, 0: it does not. */
static int sd_expect(const struct sdtpm2 *s, const char *what,
		     const struct pcr_vals *cur, struct sd_signed *sg,
		     struct tberr *e)
{
	struct pcr_vals *sub = malloc(sizeof(*sub));
	uint8_t d[32];
	int v, k, ok = 0;

	if (!sub)
		return -err_set(e, EX_FAIL, "out of memory");
	for (v = 0; v < (s->has_pubkey ? 2 : 1) && !ok; v++) {
		memset(d, 0, sizeof(d));
		if (s->has_pubkey) {
			if (sd_signer(s, what, v, &sg->signer, e) < 0) {
				err_clear(e);
				continue;
			}
			if (e->code ||
			    policy_update_authorize(TPM2_ALG_SHA256, d,
						    sg->signer.name,
						    sg->signer.namelen, NULL,
						    0))
				break;
		}
		if (luks_policy_expect(TPM2_ALG_SHA256, s->bank, s->pcrs,
				       s->pin, cur, sub, d) != 32)
			break;
		ok = 1;
		for (k = 0; k < s->npolicy; k++)
			if (s->policylen[k] != 32 ||
			    memcmp(d, s->policy[k], 32))
				ok = 0;
	}
	free(sub);
	if (e->code)
		return -e->code;
	return ok;
}

/* sel: PCRs mask of one bank. */
static void one_bank(struct pcr_sel *sel, uint16_t alg, uint32_t mask)
{
	memset(sel, 0, sizeof(*sel));
	sel->n = 1;
	sel->b[0].alg = alg;
	sel->b[0].mask = mask;
}

/* PolicyPCR in session sh with the values read before (vals, in sel's
 * order; the TPM compares them with its own), as the process session's
 * last use when last: a PCR that moved since the read is the TPM's
 * TPM_RC_VALUE, exit 4. */
static int policy_pcr_now(struct tpm *t, uint32_t sh,
			  const struct pcr_sel *sel,
			  const struct pcr_vals *vals, int last,
			  const char *what, struct tberr *e)
{
	uint8_t pd[TPM2_MAX_DIGEST];
	size_t n = policy_pcr_digest(TPM2_ALG_SHA256, vals, pd);

	if (last)
		tpm_last(t);
	if (!tpm2_policy_pcr(t, sh, pd, n, sel))
		return 0;
	return rc_base(e->rc) == RC_VALUE ?
	       err_set(e, EX_AUTH, "%s: the PCRs changed during unlock",
		       what) : e->code;
}

/* Unseal part i of the token's blob under parent in session s. */
static int sd_unseal_part(struct tpm *t, const struct sdtpm2 *sd, int i,
			  const char *what, const struct tpm2_srk *parent,
			  struct tpm2_session *s, const struct pcr_vals *cur,
			  const struct sd_signed *sg, const uint8_t *auth,
			  size_t authlen, uint8_t *out, size_t *outlen,
			  struct tberr *e)
{
	struct tpm2_auth pa, a;
	struct pcr_sel sel;
	uint32_t obj = 0, sh;
	int rc = 0;

	tpm2_auth_pw(&pa, NULL, 0);
	/* the process session (a pin set) ends with the last command it
	 * HMACs: the last PolicyPCR, or Load */
	if (!sd->pcrs && !sg)
		tpm_last(t);
	if (tpm2_load(t, parent->handle, parent->pub.name,
		      parent->pub.namelen, &pa, &sd->blob[i].priv,
		      &sd->blob[i].pub, &obj))
		return err_prefix(e, "%s: loading the sealed object (a token "
				  "for another TPM, or damaged)", what);
	sh = tpm2_session_handle(s);
	if (sg) {
		if ((rc = policy_pcr_now(t, sh, &sg->br.sel, &sg->br.vals,
					 !sd->pcrs, what, e)))
			goto out;
		if (tpm2_policy_authorize(t, sh, sg->x->pol,
					  sizeof(sg->x->pol), sg->signer.name,
					  sg->signer.namelen, &sg->tk)) {
			rc = err_prefix(e, "%s: TPM2_PolicyAuthorize", what);
			goto out;
		}
	}
	if (sd->pcrs) {
		one_bank(&sel, sd->bank, sd->pcrs);
		if ((rc = policy_pcr_now(t, sh, &sel, cur, 1, what, e)))
			goto out;
	}
	if (sd->pin) {
		if (tpm2_policy_authvalue(t, sh)) {
			rc = e->code;
			goto out;
		}
		tpm2_session_policy_auth(s, SESS_POLICY_AUTHVALUE);
		tpm2_session_enc_auth(s, 1);
	}
	tpm2_session_use(s, &a, auth, authlen);
	tpm2_auth_last(&a);
	if (tpm2_unseal(t, obj, sd->blob[i].pub.name,
			sd->blob[i].pub.namelen, &a, out, SECRET_MAX, outlen))
		rc = unseal_refused(what, sd->pin, e);
out:
	tpm2_flush(t, obj);
	return rc;
}

static int sd_unlock(struct tpm *t, const struct sdtpm2 *sd, const char *what,
		     const struct luks_unlock_in *in, uint8_t **pass,
		     size_t *passlen, struct tberr *e)
{
	struct pcr_vals *cur = malloc(sizeof(*cur));
	struct sd_signed *sg = sd->has_pubkey ? calloc(1, sizeof(*sg)) : NULL;
	struct tpm2_srk *srk = calloc(1, sizeof(*srk));
	struct tpm2_session *s = NULL;
	uint8_t auth[32], *secret = NULL;
	size_t authlen = 0, slen = 0, n;
	char *b64 = NULL, sigbuf[256];
	const char *const *sigp = NULL;
	int i, rc = 0, m, nsig = 0;

	if (!cur || !srk || (sd->has_pubkey && !sg) ||
	    !(secret = malloc(SECRET_MAX * SDTPM2_BLOBS))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (sd->pin && (rc = sd_authvalue(sd, in->pin ? in->pin : "",
					  in->pin ? in->pinlen : 0, auth, e)))
		goto out;
	authlen = sd->pin ? sizeof(auth) : 0;
	/* The PCRs now, and the digest they give, before anything is
	 * loaded: a mismatch is exit 4 with nothing else sent.  The legacy
	 * primary's public area, which the session is salted to, comes
	 * HMACed in the process session when a pin is set (the first Load
	 * ends it); the persistent SRK is checked against its name as
	 * unseal does (tpm2_srk_find). */
	if (!sd->has_srk && tpm_trust_begin(t)) {
		rc = e->code;
		goto out;
	}
	if (read_pcrs(t, sd->bank, sd->pcrs, what, cur, e)) {
		rc = e->code;
		goto out;
	}
	if (sg && !sig_paths(in, sigbuf, sizeof(sigbuf), &sigp, &nsig))
		sigp = NULL, nsig = 0;	/* sd_check refused it already */
	if (sg && (sd_signer(sd, what, 0, &sg->signer, e) ||
		   signed_policies_read(sigp, nsig, &sg->signer,
					sd->bank, what, &sg->sigs, e))) {
		rc = e->code;
		goto out;
	}
	if ((m = sd_expect(sd, what, cur, sg, e)) < 0) {
		rc = -m;
		goto out;
	}
	if (!m) {
		rc = sd->pcrs ? pcrs_differ(what, sd->bank, sd->pcrs, e) :
		     err_set(e, EX_FAIL, "%s: tpm2-policy-hash is not the "
			     "policy its fields describe (damaged token?)",
			     what);
		goto out;
	}
	/* A signed policy: the one for the PCRs now, checked by the TPM. */
	if (sg) {
		if (signed_policy_pick(t, &sg->sigs, sd->bank, what, &sg->br,
				       &sg->x, e) ||
		    signed_policy_ticket(t, &sg->signer, sg->x, what, &sg->tk,
					 e)) {
			rc = e->code;
			goto out;
		}
	}
	if (sd_parent(t, sd, what, srk, &s, e)) {
		rc = e->code;
		goto out;
	}
	for (i = 0; i < sd->nblob; i++) {
		if (!s && tpm2_session_start(t, TPM2_SE_POLICY, srk->handle,
					     &srk->pub, TPM2_RH_NULL, NULL, 0,
					     SESS_ENC_RSP, &s)) {
			rc = e->code;
			goto out;
		}
		n = 0;
		rc = sd_unseal_part(t, sd, i, what, srk, s, cur, sg, auth,
				    authlen, secret + slen, &n, e);
		/* Unseal ended the session (continueSession clear) */
		if (!rc)
			tpm2_session_free(s);
		else
			tpm2_session_flush(t, s);
		s = NULL;
		if (rc)
			goto out;
		slen += n;
	}
	if (!(b64 = b64_encode(secret, slen, &n))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	*pass = (uint8_t *)b64;
	*passlen = n;
out:
	if (s)
		tpm2_session_flush(t, s);
	if (srk)
		tpm2_srk_put(t, srk);
	tpm_wipe(t);
	explicit_bzero(auth, sizeof(auth));
	if (secret) {
		explicit_bzero(secret, SECRET_MAX * SDTPM2_BLOBS);
		free(secret);
	}
	free(cur);
	free(sg);
	free(srk);
	return rc;
}

/* ---- clevis ---- */

/* How many of pin k's shares tpm2 pins alone can open. */
static int openable(const struct clevis *c, int k)
{
	const struct clevis_pin *p = &c->pin[k];
	int j, n = 0;

	if (p->kind == CLEVIS_TPM2)
		return 1;
	if (p->kind != CLEVIS_SSS)
		return 0;
	for (j = k + 1; j < c->n; j++)
		if (c->pin[j].parent == k)
			n += openable(c, j);
	return n >= p->t;
}

static int cl_check_pin(const struct clevis *c, int k, const char *what,
			struct tberr *e)
{
	const struct clevis_pin *p = &c->pin[k];
	int j, n = 0, rc;

	if (p->kind == CLEVIS_OTHER)
		return 0;
	if ((rc = clevis_jwe_check(p, what, e)))
		return rc;
	if (p->kind == CLEVIS_TPM2 && p->obj.pub.name_alg != TPM2_ALG_SHA256)
		return err_set(e, EX_FAIL, "%s: the tpm2 pin's object uses %s; "
			       "only SHA-256 policies are read", what,
			       alg_name(p->obj.pub.name_alg));
	if (p->kind != CLEVIS_SSS)
		return 0;
	if (p->plen != 32)
		return err_set(e, EX_FAIL, "%s: clevis.sss.p is not a 256-bit "
			       "prime (an A256GCM key)", what);
	for (j = k + 1; j < c->n; j++)
		if (c->pin[j].parent == k) {
			if ((rc = cl_check_pin(c, j, what, e)))
				return rc;
			n += openable(c, j);
		}
	if (n < p->t)
		return err_set(e, EX_FAIL, "%s: the sss pin needs %d of its "
			       "pins and tpm2 pins can open only %d (tang needs "
			       "the network: tang is not supported)", what,
			       p->t, n);
	return 0;
}

int luks_unlock_check_clevis(const struct clevis *c, const char *what,
			     struct tberr *e)
{
	if (!c->n)
		return err_set(e, EX_FAIL, "%s: no clevis pin", what);
	if (c->pin[0].kind == CLEVIS_OTHER)
		return err_set(e, EX_FAIL, "%s: its pin is %s, which needs the "
			       "network: %s is not supported", what,
			       c->pin[0].name, c->pin[0].name);
	return cl_check_pin(c, 0, what, e);
}

/* A tpm2 pin's key: its JWK unsealed under the legacy primary. */
static int cl_tpm2(struct tpm *t, const struct clevis_pin *p,
		   const char *what, uint8_t key[32], struct tberr *e)
{
	struct pcr_vals *cur = malloc(sizeof(*cur)), *sub = malloc(sizeof(*sub));
	struct tpm2_session *s = NULL;
	struct tpm2_public ppub;
	struct tpm2_auth pa, a;
	struct pcr_sel sel;
	uint8_t d[TPM2_MAX_DIGEST], secret[SECRET_MAX];
	uint32_t prim = 0, obj = 0;
	size_t n, slen = 0;
	int rc = 0;

	if (!cur || !sub) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	/* The PCRs against the object's policy before anything loads
	 * (HMACed in the process session with a pin, as CreatePrimary's
	 * answer; Load ends it). */
	if (tpm_trust_begin(t)) {
		rc = e->code;
		goto out;
	}
	if (read_pcrs(t, p->pcr_bank, p->pcr_ids, what, cur, e)) {
		rc = e->code;
		goto out;
	}
	memset(d, 0, sizeof(d));
	if (p->pcr_ids &&
	    ((n = luks_policy_expect(TPM2_ALG_SHA256, p->pcr_bank, p->pcr_ids,
				     0, cur, sub, d)) != 32 ||
	     p->obj.pub.policylen != n || memcmp(d, p->obj.pub.policy, n))) {
		rc = pcrs_differ(what, p->pcr_bank, p->pcr_ids, e);
		goto out;
	}
	/* tpm2_createprimary's default template (clevis -G key -g hash) */
	if (luks_legacy_primary(t, p->key == TPM2_ALG_RSA, p->hash, &prim,
				&ppub, e)) {
		rc = err_prefix(e, "%s: making clevis' primary key", what);
		goto out;
	}
	tpm2_auth_pw(&pa, NULL, 0);
	/* the process session ends with Load or PolicyPCR */
	if (!p->pcr_ids)
		tpm_last(t);
	if (tpm2_load(t, prim, ppub.name, ppub.namelen, &pa, &p->obj.priv,
		      &p->obj.pub, &obj)) {
		rc = err_prefix(e, "%s: loading the sealed JWK (a pin for "
				"another TPM, or damaged)", what);
		goto out;
	}
	if (tpm2_session_start(t, p->pcr_ids ? TPM2_SE_POLICY : TPM2_SE_HMAC,
			       prim, &ppub, TPM2_RH_NULL, NULL, 0,
			       SESS_ENC_RSP, &s)) {
		rc = e->code;
		goto out;
	}
	if (p->pcr_ids) {
		one_bank(&sel, p->pcr_bank, p->pcr_ids);
		if ((rc = policy_pcr_now(t, tpm2_session_handle(s), &sel, sub,
					 1, what, e)))
			goto out;
	}
	tpm2_session_use(s, &a, NULL, 0);
	tpm2_auth_last(&a);
	if (tpm2_unseal(t, obj, p->obj.pub.name, p->obj.pub.namelen, &a,
			secret, sizeof(secret), &slen)) {
		rc = unseal_refused(what, 0, e);
		goto out;
	}
	tpm2_session_free(s);
	s = NULL;
	rc = clevis_jwk_key(secret, slen, what, key, e);
out:
	if (s)
		tpm2_session_flush(t, s);
	if (obj)
		tpm2_flush(t, obj);
	if (prim)
		tpm2_flush(t, prim);
	tpm_wipe(t);
	explicit_bzero(secret, sizeof(secret));
	free(cur);
	free(sub);
	return rc;
}

/* Pin k's JWE opened: *out (malloc'd) its plaintext. */
static int cl_open(struct tpm *t, const struct clevis *c, int k,
		   const char *what, uint8_t **out, size_t *outlen,
		   struct tberr *e)
{
	const struct clevis_pin *p = &c->pin[k];
	uint8_t key[32], *pts[CLEVIS_PINS] = { NULL }, *pt;
	const uint8_t *cpts[CLEVIS_PINS] = { NULL };
	size_t ptlen = 0;
	int j, got = 0, rc = 0, first = 0;
	struct tberr first_e;

	*out = NULL;
	memset(&first_e, 0, sizeof(first_e));
	if (p->kind == CLEVIS_OTHER)
		return err_set(e, EX_FAIL, "%s: the %s pin needs the network: "
			       "%s is not supported", what, p->name, p->name);
	if (p->kind == CLEVIS_TPM2) {
		if ((rc = cl_tpm2(t, p, what, key, e)))
			return rc;
	} else {
		/* t of the nested pins, in order; the first refusal is the
		 * one told when too few open */
		for (j = k + 1; j < c->n && got < p->t; j++) {
			if (c->pin[j].parent != k)
				continue;
			if (cl_open(t, c, j, what, &pt, &ptlen, e)) {
				if (!first++)
					first_e = *e;
				err_clear(e);
				continue;
			}
			if (ptlen != 2 * p->plen) {
				explicit_bzero(pt, ptlen);
				free(pt);
				if (!first++)
					err_set(&first_e, EX_FAIL, "%s: a "
						"share of the sss pin is not "
						"a point of its field", what);
				continue;
			}
			pts[got] = pt;
			cpts[got++] = pt;
		}
		if (got == p->t && sss_combine(p->p, p->plen, cpts, got, key))
			rc = err_set(e, EX_FAIL, "%s: the sss pin's shares do "
				     "not combine (damaged token)", what);
		else if (got < p->t && !first)
			rc = err_set(e, EX_FAIL, "%s: the sss pin has fewer "
				     "than %d pins", what, p->t);
		else if (got < p->t) {
			/* the first refusal, told with its code: 4 for
			 * PCRs that moved, 5 in lockout */
			*e = first_e;
			rc = e->code ? e->code : EX_FAIL;
		}
		for (j = 0; j < got; j++) {
			explicit_bzero(pts[j], 2 * p->plen);
			free(pts[j]);
		}
		if (rc) {
			explicit_bzero(key, sizeof(key));
			return rc;
		}
	}
	if (!(*out = malloc(p->ctlen ? p->ctlen : 1)))
		rc = err_set(e, EX_FAIL, "out of memory");
	else if (aes_gcm_decrypt(key, p->iv, p->ivlen,
				 (const uint8_t *)p->prot, p->protlen, p->ct,
				 p->ctlen, *out, p->tag)) {
		rc = err_set(e, EX_FAIL, "%s: the %s pin's JWE fails its "
			     "integrity check (a bad tag: damaged or altered)",
			     what, p->name);
		explicit_bzero(*out, p->ctlen);
		free(*out);
		*out = NULL;
	} else {
		*outlen = p->ctlen;
	}
	explicit_bzero(key, sizeof(key));
	return rc;
}

int luks_unlock_clevis(struct tpm *t, const struct clevis *c,
		       const char *what, uint8_t **pass, size_t *passlen,
		       struct tberr *e)
{
	return cl_open(t, c, 0, what, pass, passlen, e);
}

/* ---- tpmbox ---- */

static int tb_check(const struct luks_tok *tk, const char *what,
		    const struct luks_unlock_in *in, struct tberr *e)
{
	if (tk->kf->auth)
		return err_set(e, EX_FAIL, "%s is sealed with a password as "
			       "well: unseal it with tpmbox unseal --auth",
			       what);
	if (tk->kf->authorized && !in->nsig)
		return err_set(e, EX_USAGE, "%s is sealed to PCR policies "
			       "signed by a key: give --signature SIG.json",
			       what);
	return 0;
}

/* seal's blob, unsealed by unseal's job: the passphrase it holds. */
static int tb_unlock(struct tpm *t, const struct luks_tok *tk,
		     const char *what, const struct luks_unlock_in *in,
		     uint8_t **pass, size_t *passlen, struct tberr *e)
{
	struct unseal_job *j = calloc(1, sizeof(*j));
	struct authval none = { .n = 0 };
	int rc;

	if (!j)
		return err_set(e, EX_FAIL, "out of memory");
	rc = unseal_check(j, what, tk->tb->text, tk->tb->n, 0, e) ||
	     (tk->kf->authorized &&
	      unseal_signatures(j, in->sigpaths, in->nsig, e)) ||
	     unseal_run(t, j, &none, &none, pass, passlen, e) ? e->code : 0;
	unseal_job_free(j);
	free(j);
	return rc;
}

/* ---- every token ---- */

int luks_unlock_check(const struct luks_tok *tk, const char *what,
		      const struct luks_unlock_in *in, int *need_pin,
		      struct tberr *e)
{
	*need_pin = 0;
	if (tk->kind == LUKS_TOK_SYSTEMD) {
		*need_pin = tk->sd->pin;
		return sd_check(tk->sd, what, in, e);
	}
	if (tk->kind == LUKS_TOK_CLEVIS)
		return luks_unlock_check_clevis(tk->cl, what, e);
	if (tk->kind == LUKS_TOK_TPMBOX)
		return tb_check(tk, what, in, e);
	return err_set(e, EX_FAIL, "%s is not a TPM token", what);
}

int luks_unlock_token(struct tpm *t, const struct luks_tok *tk,
		      const char *what, const struct luks_unlock_in *in,
		      uint8_t **pass, size_t *passlen, struct tberr *e)
{
	*pass = NULL;
	if (tk->kind == LUKS_TOK_SYSTEMD)
		return sd_unlock(t, tk->sd, what, in, pass, passlen, e);
	if (tk->kind == LUKS_TOK_CLEVIS)
		return cl_open(t, tk->cl, 0, what, pass, passlen, e);
	if (tk->kind == LUKS_TOK_TPMBOX)
		return tb_unlock(t, tk, what, in, pass, passlen, e);
	return err_set(e, EX_FAIL, "%s is not a TPM token", what);
}
