/* seal and unseal on a TPM 1.2 (job/sealing12.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pem.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "fmt/tssfile.h"
#include "job/sealing.h"
#include "job/sealing12.h"
#include "job/tpm.h"
#include "tpm12/da.h"
#include "tpm12/key.h"
#include "tpm12/seal.h"
#include "tpm12/session.h"

#define KEYLEN	32	/* AES-256: the sealed data key */
#define IVLEN	12
#define TAGLEN	16

int seal12_spec_check(const struct seal_spec *s, struct tberr *e)
{
	const struct policy_spec *ps = &s->ps;
	int i;

	if (ps->authorize)
		return err_set(e, EX_USAGE, "--authorized-by needs a TPM 2.0 "
			       "(a TPM 1.2 has no signed policies)");
	if (ps->nbranch > 1)
		return err_set(e, EX_USAGE, "a TPM 1.2 seals to one PCR "
			       "state (it has no PolicyOR): give one -p or "
			       "-P");
	for (i = 0; ps->nbranch && i < ps->br[0].sel.n; i++) {
		if (ps->br[0].sel.b[i].alg != TPM2_ALG_SHA1)
			return err_set(e, EX_USAGE, "this TPM is a TPM 1.2: "
				       "its only PCR bank is sha1, not %s",
				       alg_name(ps->br[0].sel.b[i].alg));
		if (ps->br[0].sel.b[i].mask >> SEAL12_PCR_MAX)
			return err_set(e, EX_USAGE, "a TPM 1.2 has PCRs 0 to "
				       "%d", SEAL12_PCR_MAX - 1);
	}
	return 0;
}

/* The one branch's PCRs as a mask and values in ascending order. */
static uint32_t branch_pcrs(const struct seal_spec *s, uint8_t (*vals)[20],
			    uint8_t *idx, int *n)
{
	const struct policy_branch *br = &s->ps.br[0];
	uint32_t mask = 0;
	unsigned i;
	int j, k = 0;

	*n = 0;
	if (!s->ps.nbranch)
		return 0;
	for (j = 0; j < br->sel.n; j++)
		mask |= br->sel.b[j].mask;
	for (i = 0; i < SEAL12_PCR_MAX; i++) {
		if (!(mask >> i & 1))
			continue;
		for (j = 0; j < br->vals.n; j++)
			if (br->vals.v[j].alg == TPM2_ALG_SHA1 &&
			    br->vals.v[j].idx == i && br->vals.v[j].len == 20)
				break;
		if (j == br->vals.n)
			return 0;
		memcpy(vals[k], br->vals.v[j].d, 20);
		idx[k++] = (uint8_t)i;
	}
	*n = k;
	return mask;
}

/* Which of the branch's PCRs got their value from the TPM (no
 * SEL=VALUES, no PCRFILE value): tpm12_seal checks those. */
static uint32_t read_pcrs(const struct seal_spec *s, uint32_t mask)
{
	const struct seal_branch *in = &s->in[0];
	uint32_t read = 0;
	unsigned i;
	int j, given;

	for (i = 0; i < SEAL12_PCR_MAX; i++) {
		if (!(mask >> i & 1))
			continue;
		given = 0;
		for (j = 0; j < in->ngiven; j++)
			given |= in->given[j].alg == TPM2_ALG_SHA1 &&
				 in->given[j].idx == i;
		for (j = 0; in->have_file && j < in->file.n; j++)
			given |= in->file.v[j].alg == TPM2_ALG_SHA1 &&
				 in->file.v[j].idx == i;
		if (!given)
			read |= 1u << i;
	}
	return read;
}

/* The blob's bytes before the IV (the GCM's additional data). */
static int put_head(struct tb *b, uint16_t flags,
		    const struct tpm12_stored *sd, const uint8_t *idx,
		    const uint8_t (*vals)[20], int n)
{
	size_t at;
	int i;

	tb_put_bytes(b, SEAL12_MAGIC, 4);
	tb_put_u16(b, SEAL12_VERSION);
	tb_put_u16(b, flags);
	at = tb_reserve32(b);
	tpm12_put_stored(b, sd);
	tb_patch32(b, at);
	if (flags & SEAL12_PCRS) {
		tb_put_u8(b, (uint8_t)n);
		for (i = 0; i < n; i++) {
			tb_put_u8(b, idx[i]);
			tb_put_bytes(b, vals[i], 20);
		}
	}
	return tb_err(b) ? -1 : 0;
}

static int seal_tpmtools(struct tpm *t, const uint8_t srk[20],
			 uint32_t mask, uint32_t check,
			 const uint8_t (*vals)[20], const uint8_t *data,
			 size_t len, char **pem, size_t *pemlen,
			 struct tberr *e);

int seal12_blob(struct tpm *t, struct seal_spec *s,
		const struct seal12_opts *o, const uint8_t *data, size_t len,
		char **pem, size_t *pemlen, struct tberr *e)
{
	uint8_t vals[SEAL12_PCR_MAX][20], idx[SEAL12_PCR_MAX];
	uint8_t srk[20], dauth[20], key[KEYLEN];
	struct tpm12_stored *sd = calloc(1, sizeof(*sd));
	uint8_t *buf = NULL;
	uint32_t mask;
	uint16_t flags = 0;
	size_t cap, head;
	struct tb b;
	int n, rc;

	if (!sd)
		return err_set(e, EX_FAIL, "out of memory");
	if ((rc = seal12_spec_check(s, e)) ||
	    (rc = seal_spec_values(t, s, tpm_pcr_read, e)))
		goto out;
	mask = branch_pcrs(s, vals, idx, &n);
	if (s->ps.nbranch && !mask) {
		rc = err_set(e, EX_FAIL, "no sha1 value for a PCR to seal to");
		goto out;
	}
	tpm12_auth_value(o->srk, srk);
	if (o->tpmtools) {
		if (s->ps.auth) {
			rc = err_set(e, EX_USAGE, "--format tpm-tools: its "
				     "file has a fixed data value, no --auth");
			goto out;
		}
		rc = seal_tpmtools(t, srk, mask, read_pcrs(s, mask),
				   (const uint8_t (*)[20])vals, data, len, pem,
				   pemlen, e);
		goto out;
	}
	/* The data key, sealed with TPM_Sealx under the SRK. */
	tpm12_auth_value(s->ps.auth ? &s->auth : NULL, dauth);
	if (rng_bytes(key, sizeof(key))) {
		rc = err_set(e, EX_FAIL, "no random bytes for the data key");
		goto out;
	}
	if ((rc = tpm12_seal(t, TPM12_KH_SRK, srk, mask, read_pcrs(s, mask),
			     (const uint8_t (*)[20])vals, dauth, key,
			     sizeof(key), 1, sd)))
		goto out;
	/* The blob: its head, then the data encrypted under the key. */
	flags = (uint16_t)((mask ? SEAL12_PCRS : 0) |
			   (s->ps.auth ? SEAL12_AUTH : 0));
	cap = 64 + 2 * TPM12_RSA_MAX + 1 + SEAL12_PCR_MAX * 21 + IVLEN +
	      TAGLEN + len;
	if (!(buf = malloc(cap))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	tb_init(&b, buf, cap);
	if (put_head(&b, flags, sd, idx, (const uint8_t (*)[20])vals, n)) {
		rc = err_set(e, EX_FAIL, "blob: the sealed data does not fit");
		goto out;
	}
	head = b.len;
	if (rng_bytes(buf + head, IVLEN) ||
	    aes_gcm_encrypt(key, buf + head, IVLEN, buf, head, data, len,
			    buf + head + IVLEN + TAGLEN, buf + head + IVLEN)) {
		rc = err_set(e, EX_FAIL, "encrypting the data failed");
		goto out;
	}
	rc = pem_encode(SEAL12_LABEL, buf, head + IVLEN + TAGLEN + len, pem,
			pemlen, e);
out:
	explicit_bzero(key, sizeof(key));
	explicit_bzero(srk, sizeof(srk));
	explicit_bzero(dauth, sizeof(dauth));
	free(buf);
	free(sd);
	return rc;
}

int seal12_parse(const uint8_t *p, size_t n, struct seal12_blob *o,
		 struct tberr *e)
{
	uint8_t magic[4], sum[20];
	struct tpm12_pcr_sel sel;
	struct tb r;
	uint32_t sdlen;
	uint16_t ver;
	int i;

	memset(o, 0, sizeof(*o));
	tb_init_read(&r, p, n);
	tb_get_bytes(&r, magic, 4);
	ver = tb_get_u16(&r);
	o->flags = tb_get_u16(&r);
	sdlen = tb_get_u32(&r);
	if (tb_err(&r) || memcmp(magic, SEAL12_MAGIC, 4))
		return err_set(e, EX_FAIL, "blob: not a TPM 1.2 sealed blob "
			       "(no TB12 magic)");
	if (ver != SEAL12_VERSION)
		return err_set(e, EX_FAIL, "blob: format version %u is not "
			       "supported (this tpmbox reads version %d)", ver,
			       SEAL12_VERSION);
	if (o->flags & ~(SEAL12_PCRS | SEAL12_AUTH))
		return err_set(e, EX_FAIL, "blob: unknown flags 0x%04x",
			       o->flags);
	if (sdlen > tb_left(&r) ||
	    tpm12_stored_parse(p + r.pos, sdlen, &o->sd, "blob: sealed data",
			       e))
		return sdlen > tb_left(&r) ?
		       err_set(e, EX_FAIL, "blob: sealed data: truncated") :
		       e->code;
	r.pos += sdlen;
	if (!o->sd.is12)
		return err_set(e, EX_FAIL, "blob: the sealed data is not a "
			       "TPM_STORED_DATA12");
	if (!!(o->flags & SEAL12_PCRS) != o->sd.has_pcr)
		return err_set(e, EX_FAIL, "blob: the PCR flag and the sealed "
			       "data disagree");
	if (o->flags & SEAL12_PCRS) {
		o->npcr = tb_get_u8(&r);
		if (o->npcr < 1 || o->npcr > SEAL12_PCR_MAX)
			return err_set(e, EX_FAIL, "blob: %d PCR values",
				       o->npcr);
		for (i = 0; i < o->npcr; i++) {
			o->idx[i] = tb_get_u8(&r);
			tb_get_bytes(&r, o->val[i], 20);
			if (o->idx[i] >= SEAL12_PCR_MAX ||
			    (i && o->idx[i] <= o->idx[i - 1]))
				return err_set(e, EX_FAIL, "blob: PCR indices "
					       "not ascending in 0-23");
		}
		if (tb_err(&r))
			return err_set(e, EX_FAIL, "blob: truncated");
		/* The recorded values must be what the TPM checks. */
		sel = o->sd.pcr.release;
		{
			uint32_t m = 0;

			for (i = 0; i < o->npcr; i++)
				m |= 1u << o->idx[i];
			if (m != sel.mask ||
			    tpm12_pcr_composite_hash(&sel,
					(const uint8_t (*)[20])o->val,
					(size_t)o->npcr, sum) ||
			    memcmp(sum, o->sd.pcr.digest_release, 20))
				return err_set(e, EX_FAIL, "blob: the recorded "
					       "PCR values are not the ones "
					       "sealed to");
		}
	}
	o->aadlen = r.pos;
	if (tb_left(&r) < IVLEN + TAGLEN + 1)
		return err_set(e, EX_FAIL, "blob: truncated");
	o->iv = p + r.pos;
	o->tag = o->iv + IVLEN;
	o->ct = o->tag + TAGLEN;
	o->ctlen = n - r.pos - IVLEN - TAGLEN;
	return 0;
}

/* After TPM_WRONGPCRVAL: which PCRs differ from the recorded values. */
static int pcr_changed(struct tpm *t, const struct seal12_blob *b,
		       const char *name, struct tberr *e)
{
	char list[SEAL12_PCR_MAX * 4 + 16] = "";
	struct pcr_sel sel = { .n = 1 };
	struct pcr_vals *cur = malloc(sizeof(*cur));
	size_t at = 0;
	int i, j;

	sel.b[0].alg = TPM2_ALG_SHA1;
	for (i = 0; i < b->npcr; i++)
		sel.b[0].mask |= 1u << b->idx[i];
	if (cur && !tpm_pcr_read(t, &sel, cur))
		for (i = 0; i < b->npcr; i++)
			for (j = 0; j < cur->n; j++)
				if (cur->v[j].idx == b->idx[i] &&
				    memcmp(cur->v[j].d, b->val[i], 20))
					at += (size_t)snprintf(list + at,
						sizeof(list) - at, "%s%u",
						at ? "," : " (changed: sha1:",
						b->idx[i]);
	free(cur);
	return err_set(e, EX_AUTH, "%s: the PCRs are not in the sealed "
		       "state%s%s", name, list, at ? ")" : "");
}

/* tpm-tools' usage and data value: SHA-1("password") (TPM12.md). */
static void tpmtools_auth(uint8_t out[20])
{
	struct authval v = { .n = 8 };

	memcpy(v.v, "password", 8);
	tpm12_auth_value(&v, out);
	explicit_bzero(&v, sizeof(v));
}

/* tpm_sealdata's storage key template: TPM_KEY 1.1, storage, volatile
 * (flags 4), auth always, RSA-2048 OAEP. */
static void tpmtools_template(struct tpm12_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->ver, "\x01\x01\x00\x00", 4);
	k->usage = TPM12_KEY_STORAGE;
	k->flags = 4;
	k->auth_usage = TPM12_AUTH_ALWAYS;
	tpm12_key_parms_rsa(&k->parms, 2048, TPM12_ES_RSAESOAEP_SHA1_MGF1,
			    TPM12_SS_NONE);
}

/* A TPM_KEY or a TPM_STORED_DATA(12) marshalled into a malloc'd buffer
 * (*n bytes); NULL when out of memory or too large. */
static uint8_t *marshal_key(const struct tpm12_key *k, size_t *n)
{
	uint8_t *p = malloc(TSSFILE_KEY_MAX);
	struct tb b;

	if (!p)
		return NULL;
	tb_init(&b, p, TSSFILE_KEY_MAX);
	tpm12_put_key(&b, k);
	if (tb_err(&b)) {
		free(p);
		return NULL;
	}
	*n = b.len;
	return p;
}

static uint8_t *marshal_stored(const struct tpm12_stored *sd, size_t *n)
{
	uint8_t *p = malloc(TSSFILE_ENCKEY_MAX);
	struct tb b;

	if (!p)
		return NULL;
	tb_init(&b, p, TSSFILE_ENCKEY_MAX);
	tpm12_put_stored(&b, sd);
	if (tb_err(&b)) {
		free(p);
		return NULL;
	}
	*n = b.len;
	return p;
}

static int seal_tpmtools(struct tpm *t, const uint8_t srk[20],
			 uint32_t mask, uint32_t check,
			 const uint8_t (*vals)[20], const uint8_t *data,
			 size_t len, char **pem, size_t *pemlen,
			 struct tberr *e)
{
	struct tpm12_key *tmpl = calloc(1, sizeof(*tmpl));
	struct tpm12_key *key = calloc(1, sizeof(*key));
	struct tpm12_stored *sd = calloc(1, sizeof(*sd));
	struct tssfile f;
	uint8_t pwd[20], aes[KEYLEN];
	uint32_t h = 0;
	int rc;

	memset(&f, 0, sizeof(f));
	tpmtools_auth(pwd);
	if (!tmpl || !key || !sd) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	/* As tpm_sealdata: a new storage key, an AES key sealed under it
	 * (with TPM_Seal: tpm_unsealdata reads no TPM_Sealx blob), the
	 * data encrypted with it. */
	tpmtools_template(tmpl);
	if ((rc = tpm12_create_wrap_key(t, TPM12_KH_SRK, srk, tmpl, pwd,
					key)) ||
	    (rc = tpm12_loadkey2(t, TPM12_KH_SRK, srk, key, &h)))
		goto out;
	if (rng_bytes(aes, sizeof(aes)))
		rc = err_set(e, EX_FAIL, "no random bytes for the data key");
	else
		rc = tpm12_seal(t, h, pwd, mask, check, vals, pwd, aes,
				sizeof(aes), 0, sd);
	if (tpm12_flush_key(t, h) && !rc)
		rc = e->code;
	if (rc)
		goto out;
	if (!(f.key = marshal_key(key, &f.keylen)) ||
	    !(f.enckey = marshal_stored(sd, &f.enckeylen))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	rc = tssfile_encrypt(&f, aes, data, len, e) ||
	     tssfile_format(&f, pem, pemlen, e) ? e->code : 0;
out:
	explicit_bzero(aes, sizeof(aes));
	explicit_bzero(pwd, sizeof(pwd));
	tssfile_free(&f);
	free(tmpl);
	free(key);
	free(sd);
	return rc;
}

int unseal12_kind(const char *text, size_t n)
{
	static const char tss[] = "-----BEGIN TSS-----\n";
	static const char own[] = "-----BEGIN " SEAL12_LABEL "-----";

	if (n >= sizeof(tss) - 1 && memcmp(text, tss, sizeof(tss) - 1) == 0)
		return 2;
	if (memmem(text, n, own, sizeof(own) - 1))
		return 1;
	return 0;
}

/* tpm-tools' file: its key loaded under the SRK, the AES key unsealed
 * under it (both with tpm-tools' fixed value), the data decrypted. */
static int unseal_tpmtools(struct tpm *t, const char *name,
			   const char *text, size_t n, const uint8_t srk[20],
			   uint8_t **out, size_t *outlen, struct tberr *e)
{
	struct tpm12_key *key = calloc(1, sizeof(*key));
	struct tpm12_stored *sd = calloc(1, sizeof(*sd));
	uint8_t pwd[20], aes[TPM12_RSA_MAX];
	struct tssfile f;
	size_t alen = 0;
	uint32_t h = 0;
	int rc;

	memset(&f, 0, sizeof(f));
	tpmtools_auth(pwd);
	if (!key || !sd) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (tssfile_parse(text, n, &f, e) ||
	    tpm12_key_parse(f.key, f.keylen, key, "TSS KEY", e) ||
	    tpm12_stored_parse(f.enckey, f.enckeylen, sd, "ENC KEY", e)) {
		rc = err_prefix(e, "%s", name);
		goto out;
	}
	if ((rc = tpm12_loadkey2(t, TPM12_KH_SRK, srk, key, &h)))
		goto out;
	rc = tpm12_unseal(t, h, pwd, sd, pwd, aes, &alen);
	if (tpm12_flush_key(t, h) && !rc)
		rc = e->code;
	if (rc)
		goto out;
	if (alen != TSSFILE_AES_KEY) {
		rc = err_set(e, EX_FAIL, "%s: the sealed key has %zu bytes, "
			     "not %d", name, alen, TSSFILE_AES_KEY);
		goto out;
	}
	if (tssfile_decrypt(&f, aes, out, outlen, e))
		rc = err_prefix(e, "%s", name);
out:
	explicit_bzero(aes, sizeof(aes));
	explicit_bzero(pwd, sizeof(pwd));
	tssfile_free(&f);
	free(key);
	free(sd);
	return rc;
}

/* After a failed first command of a job sent to a TPM of unknown family
 * as a 1.2 command: a TPM 2.0 refuses it (TPM_BADTAG, in 1.2's form on
 * chips, in 2.0's on swtpm), so only then is the family asked.  1 with e
 * set when it is a 2.0; else e keeps the command's error. */
static int not_a_12(struct tpm *t, int fam, unsigned before,
		    const char *name, struct tberr *e)
{
	struct tberr keep = *e;
	int f;

	if (fam || t->ncmds != before + 1)
		return 0;
	/* A 2.0 answer is asked again: two answers that differ are the
	 * bus's fault (exit 3), not the blob's. */
	err_clear(e);
	if (!(f = tpm_family_confirm(t, TPM_FAMILY_12)))
		return 1;
	if (f != TPM_FAMILY_20) {
		*e = keep;
		return 0;
	}
	err_clear(e);
	err_set(e, EX_FAIL, "%s was sealed on a TPM 1.2, and this TPM is a "
		"TPM 2.0", name);
	return 1;
}

int unseal12_run(struct tpm *t, const char *name, const char *text,
		 size_t n, const struct authval *auth,
		 const struct authval *srkv, uint8_t **out, size_t *outlen,
		 struct tberr *e)
{
	struct seal12_blob *b = calloc(1, sizeof(*b));
	uint8_t srk[20], dauth[20], key[TPM12_RSA_MAX];
	uint8_t *der = NULL, *plain = NULL;
	size_t derlen = 0, klen = 0;
	unsigned ncmds;
	int rc, fam, kind = unseal12_kind(text, n);

	tpm12_auth_value(srkv, srk);
	/* The blob says 1.2: its first command goes out as one, with no
	 * family probe (not_a_12 asks only when that command fails). */
	fam = tpm_family_known(t);
	ncmds = t->ncmds;
	if (fam == TPM_FAMILY_20) {
		rc = err_set(e, EX_FAIL, "%s was sealed on a TPM 1.2, and this "
			     "TPM is a TPM 2.0", name);
		goto out;
	}
	if (!b) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (kind == 2) {
		if (auth) {
			rc = err_set(e, EX_USAGE, "%s is tpm-tools' file: it "
				     "has a fixed data value; drop --auth",
				     name);
			goto out;
		}
		rc = unseal_tpmtools(t, name, text, n, srk, out, outlen, e);
		if (rc && not_a_12(t, fam, ncmds, name, e))
			rc = e->code;
		goto out;
	}
	/* tpmbox's blob, checked before the TPM sees it. */
	if (pem_get(text, n, SEAL12_LABEL, name, &der, &derlen, e) ||
	    seal12_parse(der, derlen, b, e)) {
		rc = e->code == EX_FAIL ? err_prefix(e, "%s", name) : e->code;
		goto out;
	}
	if ((b->flags & SEAL12_AUTH) && !auth) {
		rc = err_set(e, EX_AUTH, "%s is sealed with a password: give "
			     "--auth", name);
		goto out;
	}
	if (!(b->flags & SEAL12_AUTH) && auth) {
		rc = err_set(e, EX_USAGE, "%s was sealed without a password; "
			     "drop --auth", name);
		goto out;
	}
	tpm12_auth_value(auth, dauth);
	if ((rc = tpm12_unseal(t, TPM12_KH_SRK, srk, &b->sd, dauth, key,
			       &klen))) {
		if (not_a_12(t, fam, ncmds, name, e))
			rc = e->code;
		else if (e->rc == 0x18)	/* TPM_WRONGPCRVAL */
			rc = pcr_changed(t, b, name, e);
		else if (e->rc == 0x1d)	/* TPM_AUTH2FAIL: the data value */
			rc = err_set(e, EX_AUTH, "%s: wrong password (--auth)",
				     name);
		goto out;
	}
	if (klen != KEYLEN) {
		rc = err_set(e, EX_FAIL, "%s: the sealed key has %zu bytes, "
			     "not %d", name, klen, KEYLEN);
		goto out;
	}
	if (!(plain = malloc(b->ctlen))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (aes_gcm_decrypt(key, b->iv, IVLEN, der, b->aadlen, b->ct,
			    b->ctlen, plain, b->tag)) {
		free(plain);
		plain = NULL;
		rc = err_set(e, EX_FAIL, "%s: the data fails its integrity "
			     "check (a damaged blob)", name);
		goto out;
	}
	*out = plain;
	*outlen = b->ctlen;
	plain = NULL;
	rc = 0;
out:
	explicit_bzero(key, sizeof(key));
	explicit_bzero(srk, sizeof(srk));
	explicit_bzero(dauth, sizeof(dauth));
	free(der);
	free(b);
	return rc;
}
