/* unseal: recover a secret sealed by seal, on the TPM and in the state it
 * was sealed to. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applet.h"
#include "auth.h"
#include "crypto/sym.h"
#include "escrow.h"
#include "file.h"
#include "hex.h"
#include "keyfile.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

static const char usage[] =
	"usage: unseal [--auth AUTH] [--owner-auth AUTH] [-f] [-o FILE] BLOB\n"
	"Unseal BLOB (made by seal) and write the secret to stdout or FILE.\n"
	"The SRK must be the key the blob was sealed under (its name is\n"
	"checked), the PCRs must have the sealed values, and the password\n"
	"must match.  The secret crosses the bus encrypted (salted session).\n"
	"  --auth AUTH  the password given to seal --auth\n"
	"  --owner-auth AUTH  owner password, to recreate the SRK when none\n"
	"             is persisted\n"
	"  -o FILE    write the secret to FILE (mode 0600, atomic)\n"
	"  -f         replace an existing FILE\n"
	"AUTH is str:TEXT, hex:HEX, file:PATH, file:- or env:VAR.\n"
	"Exit 4: PCRs changed or wrong password (the message says which);\n"
	"exit 5: the TPM is in dictionary-attack lockout.\n";

#define RC_VALUE 0x084u
#define RC_PCR_CHANGED 0x128u
/* Runs of the policy before TPM_RC_PCR_CHANGED is given up on. */
#define PCR_CHANGED_TRIES 5

static void name_hex(const uint8_t *p, size_t n, char *out, size_t cap)
{
	if (2 * n + 1 > cap)
		n = (cap - 1) / 2;
	hex_encode(p, n, out);
}

/* After PolicyPCR refused: say which PCRs differ from the sealed values. */
static int pcr_mismatch(struct ctx *c, struct tpm *t, const struct keyfile *k)
{
	struct pcr_vals cur;
	char list[512] = "";
	int i, j, nd = 0;

	if (tpm2_pcr_read(t, &k->sel, &cur) == 0) {
		for (i = 0; i < k->vals.n; i++) {
			const struct pcr_val *s = &k->vals.v[i];

			for (j = 0; j < cur.n; j++)
				if (cur.v[j].alg == s->alg &&
				    cur.v[j].idx == s->idx)
					break;
			if (j < cur.n && cur.v[j].len == s->len &&
			    !memcmp(cur.v[j].d, s->d, s->len))
				continue;
			if (strlen(list) < sizeof(list) - 32)
				snprintf(list + strlen(list), sizeof(list) -
					 strlen(list), "%s%s:%u", nd ? ", " : "",
					 alg_name(s->alg), s->idx);
			nd++;
		}
	}
	err_set(&c->e, EX_AUTH, "the PCRs do not have the values this blob "
		"was sealed to%s%s%s", nd ? " (" : "", nd ? list : "",
		nd ? " differ)" : "");
	err_hint(&c->e, "compare with 'tpmbox pcrread'; reseal for the new "
		 "state (seal -P PCRFILE seals to predicted values)");
	return EX_AUTH;
}

static const char shortopts[] = "o:f";
static const struct option longopts[] = {
	{ "auth", required_argument, NULL, 'a' },
	{ "owner-auth", required_argument, NULL, 'O' },
	{ NULL, 0, NULL, 0 }
};

static int run(struct ctx *c, int argc, char **argv)
{
	const char *authspec = NULL, *ownerspec = NULL, *out = "-", *in;
	struct authval auth = { .n = 0 }, owner = { .n = 0 };
	struct keyfile *k = calloc(1, sizeof(*k));
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct tpm2_srk *srk = calloc(1, sizeof(*srk));
	struct tpm2_public *srkpub = srk ? &srk->pub : NULL;
	struct srk_want want;
	struct tpm2_private priv;
	struct tpm2_session *s = NULL;
	struct tpm2_auth a, pa;
	uint8_t *text = NULL, secret[128], *plain = NULL;
	size_t tlen = 0, slen = 0, plen = 0;
	uint32_t obj = 0;
	int o, force = 0, rc = 0, tries;
	struct tpm *t;
	struct tb b;

	if (!k || !pub || !srk) {
		rc = ctx_usage(c, "out of memory");
		goto out;
	}
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'a': authspec = optarg; break;
		case 'O': ownerspec = optarg; break;
		case 'o': out = optarg; break;
		case 'f': force = 1; break;
		default: rc = ctx_usage(c, "unknown option"); goto out;
		}
	}
	if (optind != argc - 1) {
		rc = ctx_usage(c, "expected one BLOB");
		goto out;
	}
	in = argv[optind];
	if ((authspec && auth_parse(authspec, &auth, &c->e)) ||
	    (ownerspec && auth_parse(ownerspec, &owner, &c->e))) {
		rc = ctx_fail(c);
		goto out;
	}

	/* The blob, checked before the TPM sees any of it. */
	if (file_read(in, ESCROW_BLOB_MAX, &text, &tlen, &c->e)) {
		rc = ctx_fail(c);
		goto out;
	}
	if (keyfile_decode((const char *)text, tlen, k, &c->e)) {
		err_prefix(&c->e, "%s", in);
		rc = ctx_fail(c);
		goto out;
	}
	tb_init_read(&b, k->pub, k->publen);
	if (tpm2_public_get2b(&b, pub, &c->e) || tb_left(&b)) {
		err_set(&c->e, EX_FAIL, "%s: blob: bad public area", in);
		rc = ctx_fail(c);
		goto out;
	}
	if (pub->type != TPM2_ALG_KEYEDHASH || pub->policylen != k->policylen ||
	    memcmp(pub->policy, k->policy, k->policylen)) {
		err_set(&c->e, EX_FAIL, "%s: blob: the sealed object's policy "
			"is not the recorded one", in);
		rc = ctx_fail(c);
		goto out;
	}
	priv.n = k->privlen - 2;
	memcpy(priv.b, k->priv + 2, priv.n);
	if (k->auth && !authspec) {
		/* Asking the TPM would count a failure toward lockout. */
		err_set(&c->e, EX_AUTH, "%s is sealed with a password: give "
			"--auth", in);
		rc = ctx_fail(c);
		goto out;
	}
	if (!k->auth && authspec) {
		rc = ctx_usage(c, "%s was sealed without a password; drop "
			       "--auth", in);
		goto out;
	}

	/* The parent: the SRK this blob names, nothing else (and the
	 * pinned one, when a pin is set). */
	memset(&want, 0, sizeof(want));
	want.rsa = k->rsa_parent;
	want.owner = owner.n ? owner.v : NULL;
	want.ownerlen = owner.n;
	if (!(t = ctx_tpm(c)) || tpm2_srk_find(t, &want, srk)) {
		if (c->e.code == EX_AUTH)
			err_hint(&c->e, "no SRK is persisted at 0x81000001 "
				 "and making one needs the owner password: "
				 "give --owner-auth, or persist it once with "
				 "'tpmbox takeown'");
		rc = ctx_fail(c);
		goto out;
	}
	if (srk->found_other) {
		err_set(&c->e, EX_FAIL, "0x81000001 holds a key that is not a "
			"standard SRK: refusing to unseal (someone may have "
			"replaced the SRK to catch the secret)");
		err_hint(&c->e, "check it with tpm2_readpublic -c 0x81000001");
		rc = ctx_fail(c);
		goto out;
	}
	if (srkpub->namelen != k->parent_namelen ||
	    memcmp(srkpub->name, k->parent_name, k->parent_namelen)) {
		char have[2 * TPM2_NAME_MAX + 1], want[2 * TPM2_NAME_MAX + 1];

		name_hex(srkpub->name, srkpub->namelen, have, sizeof(have));
		name_hex(k->parent_name, k->parent_namelen, want, sizeof(want));
		err_set(&c->e, EX_FAIL, "%s was sealed under another SRK "
			"(recorded name %s, this TPM's %s %s): it comes from "
			"another TPM, or the SRK was replaced", in, want,
			srk->transient ? "template SRK" : "SRK at 0x81000001",
			have);
		err_hint(&c->e, "a blob only unseals on the TPM and owner "
			 "hierarchy it was sealed on");
		rc = ctx_fail(c);
		goto out;
	}

	tpm2_auth_pw(&pa, NULL, 0);
	if (tpm2_load(t, srk->handle, srkpub->name, srkpub->namelen, &pa,
		      &priv, pub, &obj)) {
		err_prefix(&c->e, "%s: loading the sealed object (damaged "
			   "blob?)", in);
		rc = ctx_fail(c);
		goto out;
	}

	/* The session: salted to the SRK, response encrypted. */
	if (tpm2_session_start(t, (k->has_pcr || k->auth) ? TPM2_SE_POLICY :
			       TPM2_SE_HMAC, srk->handle, srkpub,
			       TPM2_RH_NULL, NULL, 0, SESS_ENC_RSP, &s)) {
		rc = ctx_fail(c);
		goto out;
	}
	/* The policy, then TPM2_Unseal.  Another process extending any PCR
	 * in between (IMA extends PCR 10 all the time) makes the TPM answer
	 * TPM_RC_PCR_CHANGED: run the policy again, a bounded number of
	 * times. */
	for (tries = 1;; tries++) {
		uint32_t b;

		if (tries > 1 &&
		    tpm2_policy_restart(t, tpm2_session_handle(s))) {
			rc = ctx_fail(c);
			goto out;
		}
		if (k->has_pcr && tpm2_policy_pcr(t, tpm2_session_handle(s),
						  k->pcrdigest,
						  k->pcrdigestlen, &k->sel)) {
			if (rc_base(c->e.rc) == RC_VALUE)
				pcr_mismatch(c, t, k);
			rc = ctx_fail(c);
			goto out;
		}
		if (k->auth) {
			if (tpm2_policy_authvalue(t, tpm2_session_handle(s))) {
				rc = ctx_fail(c);
				goto out;
			}
			tpm2_session_policy_auth(s, SESS_POLICY_AUTHVALUE);
			/* The TPM keys the response encryption with
			 * sessionKey || authValue once the session
			 * authorizes the object. */
			tpm2_session_enc_auth(s, 1);
		}
		tpm2_session_use(s, &a, auth.v, auth.n);
		if (tpm2_unseal(t, obj, pub->name, pub->namelen, &a, secret,
				sizeof(secret), &slen) == 0)
			break;
		b = rc_base(c->e.rc);
		if (b == RC_PCR_CHANGED && tries < PCR_CHANGED_TRIES) {
			err_clear(&c->e);
			continue;
		}
		if (b == 0x08e || b == 0x0a2) {	/* AUTH_FAIL, BAD_AUTH */
			err_set(&c->e, EX_AUTH, "the password is wrong (the "
				"PCRs match)");
			err_hint(&c->e, "each wrong password counts toward "
				 "dictionary-attack lockout (tpmbox info shows "
				 "the counter)");
		} else if (b == RC_PCR_CHANGED) {
			err_set(&c->e, EX_AUTH, "the PCRs kept changing during "
				"unseal (TPM_RC_PCR_CHANGED %d times in a row)",
				tries);
			err_hint(&c->e, "something extends PCRs without pause; "
				 "try again");
		} else if (b == 0x09d) {	/* POLICY_FAIL */
			err_set(&c->e, EX_AUTH, "the policy is not satisfied: "
				"the PCRs changed during unseal");
		}
		err_prefix(&c->e, "%s", in);
		rc = ctx_fail(c);
		goto out;
	}
	/* The session ended with the command (continueSession clear). */
	plain = secret;
	if (k->mode == KEYFILE_GCM) {
		plen = k->ctlen;
		if (slen != 32 || !(plain = malloc(plen ? plen : 1)) ||
		    aes_gcm_decrypt(secret, k->iv, sizeof(k->iv), k->pub,
				    k->publen, k->ct, k->ctlen, plain,
				    k->tag)) {
			err_set(&c->e, EX_FAIL, "%s: the encrypted data fails "
				"its integrity check (damaged or altered blob)",
				in);
			rc = ctx_fail(c);
			goto out;
		}
		slen = k->ctlen;
	}
	if (file_write_atomic(out, plain, slen,
			      OUT_SECRET | (force ? OUT_FORCE : 0), &c->e))
		rc = ctx_fail(c);
out:
	if (s)
		tpm2_session_flush(c->tpm, s);
	if (obj)
		tpm2_flush(c->tpm, obj);
	if (srk && c->tpm)
		tpm2_srk_put(c->tpm, srk);
	if (c->tpm)
		tpm_wipe(c->tpm);
	if (plain && plain != secret) {
		explicit_bzero(plain, plen);
		free(plain);
	}
	explicit_bzero(secret, sizeof(secret));
	auth_wipe(&auth);
	auth_wipe(&owner);
	if (k)
		keyfile_free(k);
	free(k);
	free(pub);
	free(srk);
	free(text);
	return rc;
}

const struct applet applet_unseal = {
	"unseal", "unseal a secret sealed by seal", usage, run,
	shortopts, longopts, APPLET_PIN
};
