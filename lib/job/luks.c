/* LUKS2 TPM tokens as one job (include/job/luks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "job/luks.h"
#include "job/tpm.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"

static int tokens(const char *what, struct luks_vol *v, struct tberr *e)
{
	int i;

	for (i = 0; i < v->h.ntoken; i++) {
		const struct luks2_token *lt = &v->h.tok[i];
		struct luks_tok *t = &v->tok[v->n++];
		char w[300];

		memset(t, 0, sizeof(*t));
		t->id = lt->id;
		t->t = lt;
		snprintf(w, sizeof(w), "%s: token %d (%s)", what, lt->id,
			 lt->type);
		if (strcmp(lt->type, "systemd-tpm2") == 0) {
			t->kind = LUKS_TOK_SYSTEMD;
			if (!(t->sd = malloc(sizeof(*t->sd))))
				return err_set(e, EX_IO, "out of memory");
			if (sdtpm2_parse(lt->j, w, t->sd, e))
				return e->code;
		} else if (strcmp(lt->type, "clevis") == 0) {
			t->kind = LUKS_TOK_CLEVIS;
			if (!(t->cl = malloc(sizeof(*t->cl))))
				return err_set(e, EX_IO, "out of memory");
			if (clevis_parse_token(lt->j, w, t->cl, e))
				return e->code;
		} else if (strcmp(lt->type, "tpmbox") == 0) {
			struct escrow_blk b;

			t->kind = LUKS_TOK_TPMBOX;
			if (!(t->tb = malloc(sizeof(*t->tb))) ||
			    !(t->kf = calloc(1, sizeof(*t->kf))))
				return err_set(e, EX_IO, "out of memory");
			if (tpmboxtok_parse(lt->j, w, t->tb, e) ||
			    keyfile_decode(t->tb->text, t->tb->n, t->kf, e))
				return err_prefix(e, "%s", w);
			memset(&b, 0, sizeof(b));
			if (!escrow_read(t->tb->text, t->tb->n, &b, e)) {
				t->escrow = 1;
				escrow_count(&b, &t->ec);
			} else if (e->code != EX_NOENT) {
				escrow_blk_free(&b);
				return err_prefix(e, "%s", w);
			}
			err_clear(e);
			escrow_blk_free(&b);
		}
	}
	return 0;
}

int luks_load(const char *path, struct luks_vol *v, struct tberr *e)
{
	memset(v, 0, sizeof(*v));
	if (luks2_open(path, &v->h, e))
		return e->code;
	if (tokens(path, v, e)) {
		luks_vol_free(v);
		return e->code;
	}
	return 0;
}

int luks_load_mem(const uint8_t *p, size_t n, const char *what,
		  struct luks_vol *v, struct tberr *e)
{
	memset(v, 0, sizeof(*v));
	if (luks2_mem(p, n, what, &v->h, e))
		return e->code;
	if (tokens(what, v, e)) {
		luks_vol_free(v);
		return e->code;
	}
	return 0;
}

void luks_vol_free(struct luks_vol *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		if (v->tok[i].sd)
			sdtpm2_free(v->tok[i].sd);
		if (v->tok[i].cl)
			clevis_free(v->tok[i].cl);
		if (v->tok[i].tb)
			tpmboxtok_free(v->tok[i].tb);
		if (v->tok[i].kf)
			keyfile_free(v->tok[i].kf);
		free(v->tok[i].sd);
		free(v->tok[i].cl);
		free(v->tok[i].tb);
		free(v->tok[i].kf);
	}
	v->n = 0;
	luks2_free(&v->h);
}

/* Add bank:mask to the selection. */
static void want(struct pcr_sel *s, uint16_t bank, uint32_t mask)
{
	int i;

	if (!mask)
		return;
	for (i = 0; i < s->n; i++)
		if (s->b[i].alg == bank) {
			s->b[i].mask |= mask;
			return;
		}
	if (s->n < TPM2_MAX_BANKS) {
		s->b[s->n].alg = bank;
		s->b[s->n++].mask = mask;
	}
}

static int allocated(const struct pcr_sel *alloc, uint16_t bank,
		     uint32_t mask)
{
	int i;

	for (i = 0; i < alloc->n; i++)
		if (alloc->b[i].alg == bank)
			return (alloc->b[i].mask & mask) == mask;
	return 0;
}

size_t luks_policy_expect(uint16_t halg, uint16_t bank, uint32_t mask,
			  int pin, const struct pcr_vals *all,
			  struct pcr_vals *sub, uint8_t *d)
{
	size_t hs = hash_size(halg), n;
	uint8_t pd[TPM2_MAX_DIGEST];
	struct pcr_sel sel;
	int i;

	if (!hs)
		return 0;
	/* d holds the digest so far: zeros, or PolicyAuthorize's */
	if (mask) {
		memset(&sel, 0, sizeof(sel));
		sel.n = 1;
		sel.b[0].alg = bank;
		sel.b[0].mask = mask;
		sub->n = 0;
		for (i = 0; i < all->n; i++)
			if (all->v[i].alg == bank &&
			    (mask & (1u << all->v[i].idx)))
				sub->v[sub->n++] = all->v[i];
		if (pcr_sel_count(&sel) != sub->n ||
		    !(n = policy_pcr_digest(halg, sub, pd)) ||
		    policy_update_pcr(halg, d, &sel, pd, n))
			return 0;
	}
	if (pin && policy_update_authvalue(halg, d))
		return 0;
	return hs;
}

static int verdict(const uint8_t *got, size_t gn, const uint8_t *want_,
		   size_t wn)
{
	return gn && gn == wn && memcmp(got, want_, gn) == 0 ?
	       LUKS_MATCH_YES : LUKS_MATCH_NO;
}

/* A tpmbox blob's PCR states against the values now: yes when one
 * state's every value is the TPM's (no state: yes). */
static int tpmbox_verdict(const struct keyfile *kf, const struct pcr_vals *all)
{
	int b, i, j, ok;

	if (!kf->nbranch)
		return LUKS_MATCH_YES;
	for (b = 0; b < kf->nbranch; b++) {
		const struct pcr_vals *want_ = &kf->br[b].vals;

		ok = want_->n > 0;
		for (i = 0; i < want_->n && ok; i++) {
			for (j = 0; j < all->n; j++)
				if (all->v[j].alg == want_->v[i].alg &&
				    all->v[j].idx == want_->v[i].idx)
					break;
			ok = j < all->n && all->v[j].len == want_->v[i].len &&
			     !memcmp(all->v[j].d, want_->v[i].d,
				     want_->v[i].len);
		}
		if (ok)
			return LUKS_MATCH_YES;
	}
	return LUKS_MATCH_NO;
}

int luks_match(struct tpm *t, struct luks_vol *v, struct tberr *e)
{
	struct pcr_sel sel, alloc;
	struct pcr_vals *all, *sub;
	uint8_t d[TPM2_MAX_DIGEST];
	unsigned npcrs;
	int i, j, k, rc = 0;
	size_t n;

	memset(&sel, 0, sizeof(sel));
	/* With a pin, in the session salted to it: the values come back
	 * HMACed, the read ends the session. */
	if (tpm_trust_begin(t) || tpm_pcr_banks(t, &alloc, &npcrs))
		return e->code ? e->code : EX_IO;
	/* Every PCR any token's policy names, on banks this TPM has. */
	for (i = 0; i < v->n; i++) {
		struct luks_tok *tk = &v->tok[i];

		if (tk->kind == LUKS_TOK_SYSTEMD) {
			if (tk->sd->has_pubkey || tk->sd->pcrlock)
				tk->match[0] = LUKS_MATCH_UNCHECKED;
			else if (!allocated(&alloc, tk->sd->bank,
					    tk->sd->pcrs))
				tk->match[0] = LUKS_MATCH_NOBANK;
			else
				want(&sel, tk->sd->bank, tk->sd->pcrs);
		}
		if (tk->kind == LUKS_TOK_TPMBOX) {
			if (tk->kf->authorized)
				tk->match[0] = LUKS_MATCH_UNCHECKED;
			for (k = 0; k < tk->kf->nbranch && !tk->match[0]; k++)
				for (j = 0; j < tk->kf->br[k].sel.n; j++)
					if (!allocated(&alloc,
						       tk->kf->br[k].sel.b[j].alg,
						       tk->kf->br[k].sel.b[j].mask))
						tk->match[0] = LUKS_MATCH_NOBANK;
			for (k = 0; k < tk->kf->nbranch && !tk->match[0]; k++)
				for (j = 0; j < tk->kf->br[k].sel.n; j++)
					want(&sel, tk->kf->br[k].sel.b[j].alg,
					     tk->kf->br[k].sel.b[j].mask);
		}
		for (k = 0; tk->cl && k < tk->cl->n; k++) {
			const struct clevis_pin *p = &tk->cl->pin[k];

			if (p->kind != CLEVIS_TPM2)
				tk->match[k] = LUKS_MATCH_NA;
			else if (!allocated(&alloc, p->pcr_bank, p->pcr_ids))
				tk->match[k] = LUKS_MATCH_NOBANK;
			else
				want(&sel, p->pcr_bank, p->pcr_ids);
		}
	}
	all = calloc(1, sizeof(*all));
	sub = calloc(1, sizeof(*sub));
	if (!all || !sub) {
		rc = err_set(e, EX_IO, "out of memory");
		goto out;
	}
	tpm_last(t);
	if (sel.n && tpm_pcr_read(t, &sel, all)) {
		rc = e->code ? e->code : EX_IO;
		goto out;
	}
	for (i = 0; i < v->n; i++) {
		struct luks_tok *tk = &v->tok[i];

		if (tk->kind == LUKS_TOK_SYSTEMD && !tk->match[0]) {
			const struct sdtpm2 *s = tk->sd;

			/* systemd's policy session is SHA-256 */
			memset(d, 0, sizeof(d));
			n = luks_policy_expect(TPM2_ALG_SHA256, s->bank,
					       s->pcrs, s->pin, all, sub, d);
			tk->match[0] = LUKS_MATCH_YES;
			for (k = 0; k < s->npolicy; k++)
				if (verdict(d, n, s->policy[k],
					    s->policylen[k]) != LUKS_MATCH_YES)
					tk->match[0] = LUKS_MATCH_NO;
		}
		if (tk->kind == LUKS_TOK_TPMBOX && !tk->match[0])
			tk->match[0] = tpmbox_verdict(tk->kf, all);
		for (k = 0; tk->cl && k < tk->cl->n; k++) {
			const struct clevis_pin *p = &tk->cl->pin[k];

			if (p->kind != CLEVIS_TPM2 || tk->match[k])
				continue;
			memset(d, 0, sizeof(d));
			n = luks_policy_expect(p->obj.pub.name_alg,
					       p->pcr_bank, p->pcr_ids, 0,
					       all, sub, d);
			/* without PCRs clevis leaves the policy empty */
			tk->match[k] = !p->pcr_ids && !p->obj.pub.policylen ?
				       LUKS_MATCH_YES :
				       verdict(d, n, p->obj.pub.policy,
					       p->obj.pub.policylen);
		}
	}
out:
	free(all);
	free(sub);
	return rc;
}

int luks_legacy_primary(struct tpm *t, int rsa, uint16_t name_alg,
			uint32_t *h, struct tpm2_public *pub, struct tberr *e)
{
	struct tpm2_public *tmpl = calloc(1, sizeof(*tmpl));
	int rc = 0;

	*h = 0;
	if (!tmpl)
		return err_set(e, EX_FAIL, "out of memory");
	tpm2_srk_template(tmpl, rsa);
	tmpl->attrs &= ~TPMA_OBJECT_NODA;
	if (name_alg)
		tmpl->name_alg = name_alg;
	if (tpm2_public_finish(tmpl))
		rc = err_set(e, EX_FAIL, "the legacy primary's template");
	else
		rc = tpm2_create_primary(t, TPM2_RH_OWNER, NULL, tmpl, NULL, 0,
					 h, pub);
	free(tmpl);
	return rc;
}
