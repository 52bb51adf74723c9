/* totp's jobs, include/job/totp.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pem.h"
#include "crypto/otp.h"
#include "crypto/pk.h"
#include "job/nv.h"
#include "job/tpm.h"
#include "job/totp.h"
#include "tpm2/nv.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/rc.h"
#include "tpm2/srk.h"

int totp_enroll(struct tpm *t, int fam, struct seal_spec *s,
		const struct seal12_opts *o12, const struct otp_params *p,
		uint64_t counter, char **pem, size_t *pemlen, char **uri,
		struct tberr *e)
{
	uint8_t secret[OTP_SECRET_LEN], mix[OTP_SECRET_LEN];
	size_t i;
	int rc;

	*pem = NULL;
	*uri = NULL;
	/* The TPM's random bytes, and the host's: an interposer that
	 * answers GetRandom does not choose the secret. */
	if (tpm_getrandom(t, secret, sizeof(secret)))
		return e->code;
	if (rng_bytes(mix, sizeof(mix))) {
		explicit_bzero(secret, sizeof(secret));
		return err_set(e, EX_FAIL, "no random bytes on the host");
	}
	for (i = 0; i < sizeof(secret); i++)
		secret[i] ^= mix[i];
	explicit_bzero(mix, sizeof(mix));
	if (fam == TPM_FAMILY_12) {
		rc = seal12_blob(t, s, o12, secret, sizeof(secret), pem,
				 pemlen, e);
	} else {
		s->hmac_hash = TPM2_ALG_SHA1;
		rc = seal_blob(t, s, secret, sizeof(secret), pem, pemlen, e);
	}
	if (!rc && !(rc = otp_params_append(p, pem, pemlen, e)))
		rc = otp_uri(p, secret, sizeof(secret), counter, uri, e);
	explicit_bzero(secret, sizeof(secret));
	if (rc) {
		free(*pem);
		*pem = NULL;
	}
	return rc;
}

int totp_blob_open(struct totp_blob *b, const char *name, const char *text,
		   size_t n, struct tberr *e)
{
	size_t dlen = 0;

	memset(b, 0, sizeof(*b));
	b->name = name;
	b->text = text;
	b->n = n;
	if (otp_params_decode(text, n, &b->p, e))
		return err_prefix(e, "%s", name);
	if (unseal12_kind(text, n) == 1) {
		b->family = TPM_FAMILY_12;
		if (pem_get(text, n, SEAL12_LABEL, name, &b->der, &dlen, e) ||
		    seal12_parse(b->der, dlen, &b->b12, e))
			return e->code == EX_FAIL ?
			       err_prefix(e, "%s", name) : e->code;
		if (b->b12.flags & SEAL12_AUTH)
			return err_set(e, EX_FAIL, "%s: blob: a totp secret "
				       "has no password", name);
		return 0;
	}
	b->family = TPM_FAMILY_20;
	if (!(b->j = calloc(1, sizeof(*b->j))))
		return err_set(e, EX_FAIL, "out of memory");
	if (unseal_check(b->j, name, text, n, 0, e))
		return e->code;
	if (!b->j->k.loadable || b->j->k.authorized || b->j->k.seedlen)
		return err_set(e, EX_FAIL, "%s: blob: not a totp key (sealed "
			       "data, or a signed or imported policy)", name);
	return 0;
}

void totp_blob_close(struct totp_blob *b)
{
	if (b->j) {
		unseal_job_free(b->j);
		free(b->j);
	}
	free(b->der);
	explicit_bzero(b, sizeof(*b));
}

int totp_code(struct tpm *t, struct totp_blob *b, uint64_t c, uint32_t *code,
	      struct tberr *e)
{
	uint8_t ctr[8], *mac = NULL;
	size_t mlen = 0;
	int rc;

	otp_counter(c, ctr);
	if (b->family == TPM_FAMILY_12) {
		/* the secret on the host, for the HMAC only */
		if ((rc = unseal12_run(t, b->name, b->text, b->n, NULL, NULL,
				       &mac, &mlen, e))) {
			if (rc == EX_AUTH)
				err_hint(e, "no code: the boot state differs "
					 "from the enrolled one; find out why "
					 "before trusting this machine, then "
					 "enroll again (totp enroll)");
			return rc;
		}
		if (mlen != OTP_SECRET_LEN ||
		    otp_hotp(mac, mlen, c, b->p.digits, code))
			rc = err_set(e, EX_FAIL, "%s: the sealed secret is not "
				     "a totp secret", b->name);
	} else {
		/* the TPM computes the HMAC: the key stays inside */
		b->j->use = tpm2_hmac;
		b->j->use_in = ctr;
		b->j->use_inlen = sizeof(ctr);
		if ((rc = unseal_run(t, b->j, NULL, NULL, &mac, &mlen, e))) {
			if (rc == EX_AUTH)
				err_hint(e, "no code: the boot state differs "
					 "from the enrolled one; find out why "
					 "before trusting this machine, then "
					 "enroll again (totp enroll)");
			return rc;
		}
		if (mlen != OTP_SHA1_LEN)
			rc = err_set(e, EX_FAIL, "%s: TPM2_HMAC gave %zu bytes, "
				     "not 20", b->name, mlen);
		else
			*code = otp_truncate(mac, b->p.digits);
	}
	if (mac) {
		explicit_bzero(mac, mlen);
		free(mac);
	}
	return rc;
}

/* A 1.2 blob's PCRs as one keyfile branch (sha1). */
static void branch12(const struct seal12_blob *s, struct keyfile_branch *br)
{
	int i;

	memset(br, 0, sizeof(*br));
	br->sel.n = 1;
	br->sel.b[0].alg = TPM2_ALG_SHA1;
	for (i = 0; i < s->npcr; i++) {
		br->sel.b[0].mask |= 1u << s->idx[i];
		br->vals.v[i].alg = TPM2_ALG_SHA1;
		br->vals.v[i].idx = s->idx[i];
		br->vals.v[i].len = 20;
		memcpy(br->vals.v[i].d, s->val[i], 20);
	}
	br->vals.n = s->npcr;
}

static void sel_text(const struct keyfile_branch *br, char *out, size_t cap)
{
	size_t o = 0;
	int i, j;

	out[0] = '\0';
	for (i = 0; i < br->sel.n; i++) {
		o += (size_t)snprintf(out + o, cap - o, "%s%s:", i ? "+" : "",
				      alg_name(br->sel.b[i].alg));
		for (j = 0; j < 32 && o < cap - 4; j++)
			if (br->sel.b[i].mask >> j & 1)
				o += (size_t)snprintf(out + o, cap - o, "%s%d",
						      out[o - 1] == ':' ? "" :
						      ",", j);
		if (o >= cap - 4)
			break;
	}
}

int totp_state(struct tpm *t, const struct totp_blob *b,
	       struct totp_state *st, struct tberr *e)
{
	struct keyfile_branch *br = malloc(sizeof(*br) * POLICY_BRANCHES);
	struct pcr_vals *cur = malloc(sizeof(*cur));
	struct pcr_sel u;
	char one[512];
	int i, j, k, d, best = -1, nd = 0, rc = 0;

	memset(st, 0, sizeof(*st));
	memset(&u, 0, sizeof(u));
	if (!br || !cur) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (b->family == TPM_FAMILY_12) {
		branch12(&b->b12, &br[0]);
		st->nstate = 1;
	} else {
		st->nstate = b->j->k.nbranch;
		for (i = 0; i < st->nstate; i++)
			br[i] = b->j->k.br[i];
	}
	/* one read of every PCR any state names */
	for (i = 0; i < st->nstate; i++) {
		sel_text(&br[i], st->sel[i], sizeof(st->sel[i]));
		for (j = 0; j < br[i].sel.n; j++) {
			for (k = 0; k < u.n && u.b[k].alg !=
			     br[i].sel.b[j].alg; k++)
				;
			if (k == u.n)
				u.b[u.n++].alg = br[i].sel.b[j].alg;
			u.b[k].mask |= br[i].sel.b[j].mask;
		}
	}
	if (st->nstate && tpm_pcr_read(t, &u, cur)) {
		rc = e->code;
		goto out;
	}
	for (i = 0; i < st->nstate; i++) {
		d = seal_branch_diff(&br[i], cur, one, sizeof(one));
		if (!d) {
			st->match = i + 1;
			break;
		}
		if (best < 0 || d < nd) {
			best = i;
			nd = d;
			memcpy(st->diff, one, sizeof(st->diff));
		}
	}
	if (!st->match)
		st->closest = best + 1;
	else
		st->diff[0] = '\0';
out:
	free(br);
	free(cur);
	return rc;
}

/* Increment the counter whose public area is pub, then read it. */
static int counter_step(struct tpm *t, struct nv_public *pub,
			uint64_t *value, struct tberr *e)
{
	struct nv_opts no;
	struct nv_access x;
	struct nv_auth na;
	uint8_t v[8] = { 0 };
	int rc, i;

	memset(&no, 0, sizeof(no));
	no.index = pub->index;
	rc = nv2_access_begin(t, &no, pub, 0, NV_OP_MODIFY, &x, &na);
	if (!rc)
		rc = tpm2_nv_increment(t, &x);
	if ((rc = nv_auth_end(t, &na, rc)))
		return rc;
	rc = nv2_access_begin(t, &no, pub, 8, NV_OP_READ, &x, &na);
	if (!rc)
		rc = tpm2_nv_read(t, &x, v, sizeof(v), 0);
	if ((rc = nv_auth_end(t, &na, rc)))
		return rc;
	for (*value = 0, i = 0; i < 8; i++)
		*value = *value << 8 | v[i];
	(void)e;
	return 0;
}

int totp_counter_new(struct tpm *t, uint32_t index, const char *owner,
		     struct otp_params *p, uint64_t *value, struct tberr *e)
{
	struct nv_public pub, have;
	struct nv_auth na;
	int rc;

	if (tpm2_trust_begin(t))
		return e->code;
	if (tpm2_nv_readpublic(t, index, &have) == 0)
		return err_set(e, EX_USAGE, "NV index 0x%08x exists: choose "
			       "another --counter, or release it (nvrelease) "
			       "if nothing else uses it", index);
	err_clear(e);
	memset(&pub, 0, sizeof(pub));
	pub.index = index;
	pub.name_alg = TPM2_ALG_SHA256;
	pub.attrs = (uint32_t)TPM2_NT_COUNTER << TPMA_NV_TPM_NT_SHIFT |
		    TPMA_NV_AUTHWRITE | TPMA_NV_AUTHREAD | TPMA_NV_NO_DA;
	pub.size = 8;
	rc = nv_hier_auth_begin(t, &na, TPM2_RH_OWNER, owner, 0);
	if (!rc)
		rc = tpm2_nv_define(t, TPM2_RH_OWNER, &na.a, NULL, 0, &pub);
	if ((rc = nv_auth_end(t, &na, rc)) ||
	    (rc = tpm2_nv_readpublic(t, index, &pub)) ||
	    (rc = counter_step(t, &pub, value, e)) ||
	    (rc = tpm2_nv_readpublic(t, index, &pub)))
		return rc;
	p->nv = index;
	if (pub.name_len > sizeof(p->nvname))
		return err_set(e, EX_FAIL, "the counter's name is too long");
	memcpy(p->nvname, pub.name, pub.name_len);
	p->nvnamelen = pub.name_len;
	return 0;
}

int totp_counter_next(struct tpm *t, const struct otp_params *p,
		      uint64_t *value, struct tberr *e)
{
	struct nv_public pub;
	int rc;

	if ((rc = nv2_public(t, p->nv, TPM2_NT_COUNTER, &pub, NULL))) {
		if (rc == EX_NOENT || rc_base(e->rc) == 0x18b)
			return err_set(e, EX_NOENT, "the HOTP counter, NV index "
				       "0x%08x, is gone: enroll again", p->nv);
		return rc;
	}
	if (pub.name_len != p->nvnamelen ||
	    memcmp(pub.name, p->nvname, p->nvnamelen))
		return err_set(e, EX_FAIL, "NV index 0x%08x is not the HOTP "
			       "counter this blob was enrolled with (its "
			       "name differs)", p->nv);
	return counter_step(t, &pub, value, e);
}

int totp_nv_store(struct tpm *t, uint32_t index, const char *owner,
		  const char *text, size_t n, struct tberr *e)
{
	struct nv_public pub, have;
	struct nv_opts no;
	struct nv_access x;
	struct nv_auth na;
	uint32_t index_max, buffer_max;
	int rc;

	if (tpm2_trust_begin(t) ||
	    tpm2_nv_limits(t, &index_max, &buffer_max))
		return e->code;
	if (n > index_max)
		return err_set(e, EX_USAGE, "the blob (%zu bytes) is larger "
			       "than this TPM's NV index limit (%u bytes): "
			       "write it to a file with -o", n, index_max);
	if (tpm2_nv_readpublic(t, index, &have) == 0)
		return err_set(e, EX_USAGE, "NV index 0x%08x exists: choose "
			       "another --nv, or release it (nvrelease) if "
			       "nothing else uses it", index);
	err_clear(e);
	memset(&pub, 0, sizeof(pub));
	pub.index = index;
	pub.name_alg = TPM2_ALG_SHA256;
	pub.attrs = TPMA_NV_OWNERWRITE | TPMA_NV_OWNERREAD |
		    TPMA_NV_AUTHREAD | TPMA_NV_NO_DA;
	pub.size = (uint16_t)n;
	rc = nv_hier_auth_begin(t, &na, TPM2_RH_OWNER, owner, 0);
	if (!rc)
		rc = tpm2_nv_define(t, TPM2_RH_OWNER, &na.a, NULL, 0, &pub);
	if ((rc = nv_auth_end(t, &na, rc)) ||
	    (rc = tpm2_nv_readpublic(t, index, &pub)))
		return rc;
	memset(&no, 0, sizeof(no));
	no.index = index;
	no.owner_s = owner;
	rc = nv2_access_begin(t, &no, &pub, buffer_max, NV_OP_WRITE, &x, &na);
	if (!rc)
		rc = tpm2_nv_write(t, &x, (const uint8_t *)text, n, 0);
	return nv_auth_end(t, &na, rc);
}

int totp_nv_load(struct tpm *t, uint32_t index, uint8_t **text, size_t *n,
		 struct tberr *e)
{
	struct nv_public pub;
	struct nv_opts no;
	struct nv_access x;
	struct nv_auth na;
	uint32_t buffer_max;
	int rc;

	*text = NULL;
	if ((rc = nv2_public(t, index, TPM2_NT_ORDINARY, &pub, &buffer_max)))
		return rc;
	if (!(*text = malloc(pub.size ? pub.size : 1)))
		return err_set(e, EX_FAIL, "out of memory");
	memset(&no, 0, sizeof(no));
	no.index = index;
	rc = nv2_access_begin(t, &no, &pub, buffer_max, NV_OP_READ, &x, &na);
	if (!rc)
		rc = tpm2_nv_read(t, &x, *text, pub.size, 0);
	if ((rc = nv_auth_end(t, &na, rc))) {
		free(*text);
		*text = NULL;
		return rc;
	}
	*n = pub.size;
	return 0;
}
