/* Enrolling LUKS2 TPM tokens (include/job/luksenroll.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/pem.h"
#include "base/run.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/sym.h"
#include "job/luksenroll.h"
#include "job/tpm.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/random.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

#define GCM_IV	12

int luks_enroll_free(const struct luks_vol *v, const char *dev, int *slot,
		     int *token, struct tberr *e)
{
	uint32_t ks = 0, tk = 0;
	int i;

	for (i = 0; i < v->h.nkeyslot; i++)
		ks |= 1u << v->h.ks[i].id;
	for (i = 0; i < v->h.ntoken; i++)
		tk |= 1u << v->h.tok[i].id;
	for (*slot = 0; *slot < LUKS2_SLOTS && (ks >> *slot & 1); (*slot)++)
		;
	for (*token = 0; *token < LUKS2_SLOTS && (tk >> *token & 1);
	     (*token)++)
		;
	if (*slot == LUKS2_SLOTS)
		return err_set(e, EX_FAIL, "%s has no free keyslot (all %d "
			       "are in use)", dev, LUKS2_SLOTS);
	if (*token == LUKS2_SLOTS)
		return err_set(e, EX_FAIL, "%s has no free token id (all %d "
			       "are in use)", dev, LUKS2_SLOTS);
	return 0;
}

int luks_enroll_pass(struct tpm *t, uint8_t secret[32], char *pass,
		     struct tberr *e)
{
	uint8_t host[32];
	size_t n;
	char *b;
	int i;

	/* in the process session when a pin is set: the answer HMACed and
	 * encrypted */
	if (tpm_trust_begin(t) || tpm2_getrandom(t, secret, 32))
		return err_prefix(e, "the new passphrase");
	if (rng_bytes(host, sizeof(host))) {
		explicit_bzero(secret, 32);
		return err_set(e, EX_FAIL, "no random bytes on the host");
	}
	for (i = 0; i < 32; i++)
		secret[i] ^= host[i];
	explicit_bzero(host, sizeof(host));
	if (!(b = b64_encode(secret, 32, &n)))
		return err_set(e, EX_FAIL, "out of memory");
	memcpy(pass, b, n + 1);
	explicit_bzero(b, n);
	free(b);
	return 0;
}

/* One bank's PCRs of sel read (none: nothing sent) and the policy
 * digest over them, with PolicyAuthValue when pin: d (32 bytes). */
static int policy_now(struct tpm *t, const struct pcr_sel *sel, int pin,
		      uint8_t d[32], struct tberr *e)
{
	struct pcr_vals *cur = calloc(1, sizeof(*cur));
	struct pcr_vals *sub = calloc(1, sizeof(*sub));
	uint16_t bank = sel->n ? sel->b[0].alg : TPM2_ALG_SHA256;
	uint32_t mask = sel->n ? sel->b[0].mask : 0;
	int rc = 0;

	memset(d, 0, 32);
	if (!cur || !sub)
		rc = err_set(e, EX_FAIL, "out of memory");
	else if (mask && tpm_pcr_read(t, sel, cur))
		rc = e->code ? e->code : EX_IO;
	else if (luks_policy_expect(TPM2_ALG_SHA256, bank, mask, pin, cur, sub,
				    d) != 32)
		rc = err_set(e, EX_FAIL, "the TPM did not give a value for "
			     "every PCR of %s", alg_name(bank));
	free(cur);
	free(sub);
	return rc;
}

/* The legacy ECC primary (tpm2_createprimary's default and systemd's
 * legacy template: the standard SRK's without noDA) made under the owner
 * hierarchy (empty value; its answer HMACed in the process session when
 * a pin is set), then the process session salted to it when none is up:
 * every later answer HMACed, GetRandom's encrypted, as seal's SRK. */
static int legacy_primary(struct tpm *t, uint32_t *prim,
			  struct tpm2_public *ppub, struct tberr *e)
{
	*prim = 0;
	if (tpm_trust_begin(t))
		return e->code;
	if (luks_legacy_primary(t, 0, 0, prim, ppub, e))
		return err_prefix(e, "making the primary key");
	return tpm2_trust_start(t, *prim, ppub) ? e->code : 0;
}

/* data sealed under the primary in a keyedhash object (attrs,
 * policy[0..plen), auth), data and auth encrypted in the process
 * session, which Create ends. */
static int legacy_create(struct tpm *t, uint32_t prim,
			 const struct tpm2_public *ppub, uint32_t attrs,
			 const uint8_t *policy, size_t plen,
			 const uint8_t *auth, size_t authlen,
			 const uint8_t *data, size_t dlen,
			 struct tpm2_private *priv, struct tpm2_public *pub,
			 struct tberr *e)
{
	struct tpm2_public *obj = calloc(1, sizeof(*obj));
	struct tpm2_session *ss = tpm2_trust_session(t);
	struct tpm2_auth a;
	int rc = 0;

	if (!obj)
		return err_set(e, EX_FAIL, "out of memory");
	if (!ss) {
		free(obj);
		return err_set(e, EX_FAIL, "no salted session to seal in");
	}
	obj->type = TPM2_ALG_KEYEDHASH;
	obj->name_alg = TPM2_ALG_SHA256;
	obj->attrs = attrs;
	memcpy(obj->policy, policy, plen);
	obj->policylen = plen;
	obj->scheme = TPM2_ALG_NULL;
	if (tpm2_public_finish(obj)) {
		free(obj);
		return err_set(e, EX_FAIL, "the sealed object's template");
	}
	tpm2_session_set_flags(ss, SESS_ENC_CMD);
	tpm2_session_use(ss, &a, NULL, 0);
	tpm2_trust_last_for(t, &a);
	if (tpm2_create(t, prim, ppub->name, ppub->namelen, &a, obj, auth,
			authlen, data, dlen, priv, pub))
		rc = e->code;
	else if (!tpm2_public_same_template(pub, obj))
		rc = err_set(e, EX_FAIL, "TPM2_Create: the created object is "
			     "not the one asked for");
	tpm_wipe(t);
	free(obj);
	return rc;
}

/* TPM2B_PRIVATE || TPM2B_PUBLIC, or one of them (which: 1 private, 2
 * public, 3 both), into out (cap bytes): its length, 0 when too long. */
static size_t blob_bytes(const struct tpm2_private *priv,
			 const struct tpm2_public *pub, int which,
			 uint8_t *out, size_t cap)
{
	struct tb b;

	tb_init(&b, out, cap);
	if (which & 1)
		tb_put_tpm2b(&b, priv->b, priv->n);
	if (which & 2)
		tb_put_tpm2b(&b, pub->raw, pub->rawlen);
	return tb_err(&b) ? 0 : b.len;
}

/* "0,7" of mask into buf (64 bytes). */
static void pcr_list(uint32_t mask, char *buf)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < 32; i++)
		if (mask >> i & 1)
			o += (size_t)snprintf(buf + o, 64 - o, o ? ",%d" : "%d",
					      i);
}

int luks_token_systemd(struct tpm *t, int slot, const struct pcr_sel *sel,
		       const uint8_t *pin, size_t pinlen, char *pass,
		       char **json, struct tberr *e)
{
	struct tpm2_private *priv = calloc(1, sizeof(*priv));
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct tpm2_public *ppub = calloc(1, sizeof(*ppub));
	uint8_t d[32], auth[32], secret[32];
	uint8_t *raw = malloc(2 * TPM2_PUBLIC_MAX + 4);
	char hexd[65], pcrs[64], *b64 = NULL;
	uint32_t prim = 0;
	size_t n;
	int rc = 0;

	*json = NULL;
	memset(secret, 0, sizeof(secret));
	if (!priv || !pub || !ppub || !raw) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (pin && hash_buf(TPM2_ALG_SHA256, pin, pinlen, auth)) {
		rc = err_set(e, EX_FAIL, "hashing the PIN failed");
		goto out;
	}
	if ((rc = legacy_primary(t, &prim, ppub, e)) ||
	    (rc = luks_enroll_pass(t, secret, pass, e)) ||
	    (rc = policy_now(t, sel, pin != NULL, d, e)) ||
	    (rc = legacy_create(t, prim, ppub, TPMA_OBJECT_FIXEDTPM |
				TPMA_OBJECT_FIXEDPARENT |
				(pin ? 0 : TPMA_OBJECT_NODA), d, sizeof(d),
				pin ? auth : NULL, pin ? sizeof(auth) : 0,
				secret, 32, priv, pub, e)))
		goto out;
	if (!(n = blob_bytes(priv, pub, 3, raw, 2 * TPM2_PUBLIC_MAX + 4)) ||
	    !(b64 = b64_encode(raw, n, &n))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	hex_encode(d, sizeof(d), hexd);
	pcr_list(sel->n ? sel->b[0].mask : 0, pcrs);
	if (asprintf(json, "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"%d\"],"
		     "\"tpm2-blob\":\"%s\",\"tpm2-pcrs\":[%s],"
		     "\"tpm2-pcr-bank\":\"%s\",\"tpm2-primary-alg\":\"ecc\","
		     "\"tpm2-policy-hash\":\"%s\",\"tpm2-pin\":%s}", slot, b64,
		     pcrs, alg_name(sel->n ? sel->b[0].alg : TPM2_ALG_SHA256),
		     hexd, pin ? "true" : "false") < 0) {
		*json = NULL;
		rc = err_set(e, EX_FAIL, "out of memory");
	}
out:
	if (prim)
		tpm2_flush(t, prim);
	explicit_bzero(auth, sizeof(auth));
	explicit_bzero(secret, sizeof(secret));
	free(b64);
	free(raw);
	free(priv);
	free(pub);
	free(ppub);
	return rc;
}

/* base64url of one or both of the sealed object's parts (malloc'd). */
static char *part_b64url(const struct tpm2_private *priv,
			 const struct tpm2_public *pub, int which)
{
	uint8_t raw[TPM2_PUBLIC_MAX + 2];
	size_t n, m;

	if (!(n = blob_bytes(priv, pub, which, raw, sizeof(raw))))
		return NULL;
	return b64url_encode(raw, n, &m);
}

int luks_token_clevis(struct tpm *t, int slot, const struct pcr_sel *sel,
		      char *pass, char **json, struct tberr *e)
{
	struct tpm2_private *priv = calloc(1, sizeof(*priv));
	struct tpm2_public *pub = calloc(1, sizeof(*pub));
	struct tpm2_public *ppub = calloc(1, sizeof(*ppub));
	size_t passlen = LUKS_PASS_LEN;
	uint8_t secret[32];
	uint32_t prim = 0;
	uint32_t mask = sel->n ? sel->b[0].mask : 0;
	uint8_t d[32], key[32], iv[GCM_IV], tag[16], *ct = malloc(passlen + 1);
	char jwk[160], pcrs[64], bankpart[128], *k64 = NULL, *pub64 = NULL;
	char *priv64 = NULL, *hdr = NULL, *prot = NULL, *iv64 = NULL;
	char *ct64 = NULL, *tag64 = NULL;
	size_t n, protlen;
	int rc = 0;

	*json = NULL;
	jwk[0] = '\0';
	if (!priv || !pub || !ppub || !ct) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	/* the JWK as jose makes it for clevis' tpm2 pin */
	if (rng_bytes(key, sizeof(key)) || rng_bytes(iv, sizeof(iv))) {
		rc = err_set(e, EX_FAIL, "no random bytes on the host");
		goto out;
	}
	if (!(k64 = b64url_encode(key, sizeof(key), &n))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	snprintf(jwk, sizeof(jwk), "{\"alg\":\"A256GCM\",\"k\":\"%s\","
		 "\"key_ops\":[\"encrypt\",\"decrypt\"],\"kty\":\"oct\"}",
		 k64);
	explicit_bzero(k64, n);
	if ((rc = legacy_primary(t, &prim, ppub, e)) ||
	    (rc = luks_enroll_pass(t, secret, pass, e)) ||
	    (mask && (rc = policy_now(t, sel, 0, d, e))) ||
	    (rc = legacy_create(t, prim, ppub, TPMA_OBJECT_FIXEDTPM |
				TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA |
				TPMA_OBJECT_ADMINWITHPOLICY |
				(mask ? 0 : TPMA_OBJECT_USERWITHAUTH), d,
				mask ? sizeof(d) : 0, NULL, 0,
				(const uint8_t *)jwk, strlen(jwk), priv, pub,
				e)))
		goto out;
	bankpart[0] = '\0';
	if (mask) {
		pcr_list(mask, pcrs);
		snprintf(bankpart, sizeof(bankpart), ",\"pcr_bank\":\"%s\","
			 "\"pcr_ids\":\"%s\"", alg_name(sel->b[0].alg), pcrs);
	}
	if (!(pub64 = part_b64url(priv, pub, 2)) ||
	    !(priv64 = part_b64url(priv, pub, 1)) ||
	    asprintf(&hdr, "{\"alg\":\"dir\",\"clevis\":{\"pin\":\"tpm2\","
		     "\"tpm2\":{\"hash\":\"sha256\",\"jwk_priv\":\"%s\","
		     "\"jwk_pub\":\"%s\",\"key\":\"ecc\"%s}},"
		     "\"enc\":\"A256GCM\"}", priv64, pub64, bankpart) < 0 ||
	    !(prot = b64url_encode((const uint8_t *)hdr, strlen(hdr),
				   &protlen))) {
		rc = err_set(e, EX_FAIL, "out of memory");
		goto out;
	}
	if (aes_gcm_encrypt(key, iv, sizeof(iv), (const uint8_t *)prot,
			    protlen, (const uint8_t *)pass, passlen, ct, tag)) {
		rc = err_set(e, EX_FAIL, "AES-256-GCM failed");
		goto out;
	}
	if (!(iv64 = b64url_encode(iv, sizeof(iv), &n)) ||
	    !(ct64 = b64url_encode(ct, passlen, &n)) ||
	    !(tag64 = b64url_encode(tag, sizeof(tag), &n)) ||
	    asprintf(json, "{\"type\":\"clevis\",\"keyslots\":[\"%d\"],"
		     "\"jwe\":{\"ciphertext\":\"%s\",\"encrypted_key\":\"\","
		     "\"iv\":\"%s\",\"protected\":\"%s\",\"tag\":\"%s\"}}",
		     slot, ct64, iv64, prot, tag64) < 0) {
		*json = NULL;
		rc = err_set(e, EX_FAIL, "out of memory");
	}
out:
	if (prim)
		tpm2_flush(t, prim);
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(key, sizeof(key));
	explicit_bzero(jwk, sizeof(jwk));
	if (ct)
		explicit_bzero(ct, passlen);
	free(k64);
	free(pub64);
	free(priv64);
	free(hdr);
	free(prot);
	free(iv64);
	free(ct64);
	free(tag64);
	free(ct);
	free(priv);
	free(pub);
	free(ppub);
	return rc;
}

int luks_token_tpmbox(int slot, const char *pem, size_t n, char **json,
		      struct tberr *e)
{
	size_t m;
	char *b = b64_encode((const uint8_t *)pem, n, &m);

	*json = NULL;
	if (!b || asprintf(json, "{\"type\":\"tpmbox\",\"keyslots\":[\"%d\"],"
			   "\"tpmbox-version\":1,\"tpmbox-blob\":\"%s\"}",
			   slot, b) < 0) {
		*json = NULL;
		free(b);
		return err_set(e, EX_FAIL, "out of memory");
	}
	free(b);
	return 0;
}

/* ---- cryptsetup ---- */

#define CS_BAD_PASS	2	/* cryptsetup's exit for a wrong passphrase */

int luks_cs_addkey(const char *dev, int slot, const uint8_t *old,
		   size_t oldlen, const char *pass, size_t passlen,
		   struct tberr *e)
{
	char s[12];
	char *argv[] = { "cryptsetup", "luksAddKey", "--batch-mode",
			 "--key-file=-", "--key-slot", s, "--pbkdf", "pbkdf2",
			 "--pbkdf-force-iterations", "1000", "--hash", "sha512",
			 (char *)dev, "/dev/fd/3", NULL };
	char want[64];

	snprintf(s, sizeof(s), "%d", slot);
	if (!run_feed2(argv, old, oldlen, pass, passlen, e))
		return 0;
	snprintf(want, sizeof(want), "(exit %d)", CS_BAD_PASS);
	if (e->code == EX_FAIL && strstr(e->msg, want)) {
		err_set(e, EX_AUTH, "%s: cryptsetup luksAddKey refused the "
			"existing passphrase (no keyslot opens with it)", dev);
		return EX_AUTH;
	}
	return err_prefix(e, "%s: adding keyslot %d", dev, slot);
}

int luks_cs_import(const char *dev, int id, int replace, const char *json,
		   struct tberr *e)
{
	char s[12];
	char *argv[] = { "cryptsetup", "token", "import", "--token-id", s,
			 (char *)dev, NULL, NULL };

	snprintf(s, sizeof(s), "%d", id);
	if (replace)
		argv[6] = "--token-replace";
	if (run_feed(argv, json, strlen(json), e))
		return err_prefix(e, "%s: importing token %d (a full token "
				  "area, or a token cryptsetup's plugin "
				  "refuses)", dev, id);
	return 0;
}

int luks_cs_token_remove(const char *dev, int id, struct tberr *e)
{
	char s[12];
	char *argv[] = { "cryptsetup", "token", "remove", "--token-id", s,
			 (char *)dev, NULL };

	snprintf(s, sizeof(s), "%d", id);
	if (run_feed(argv, "", 0, e))
		return err_prefix(e, "%s: removing token %d", dev, id);
	return 0;
}

int luks_cs_killslot(const char *dev, int slot, struct tberr *e)
{
	char s[12];
	char *argv[] = { "cryptsetup", "luksKillSlot", "--batch-mode",
			 (char *)dev, s, NULL };

	snprintf(s, sizeof(s), "%d", slot);
	if (run_feed(argv, "", 0, e))
		return err_prefix(e, "%s: wiping keyslot %d", dev, slot);
	return 0;
}

static uint32_t slots_of(const struct luks2 *h)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < h->nkeyslot; i++)
		m |= 1u << h->ks[i].id;
	return m;
}

static uint32_t tokens_of(const struct luks2 *h)
{
	uint32_t m = 0;
	int i;

	for (i = 0; i < h->ntoken; i++)
		m |= 1u << h->tok[i].id;
	return m;
}

int luks_cs_verify(const char *dev, const struct luks_vol *before,
		   uint32_t add, uint32_t drop, uint32_t tadd, uint32_t tdrop,
		   struct tberr *e)
{
	struct luks2 *h = calloc(1, sizeof(*h));
	uint32_t ks, tk;
	int rc = 0;

	if (!h)
		return err_set(e, EX_FAIL, "out of memory");
	if (luks2_open(dev, h, e)) {
		free(h);
		return err_prefix(e, "reading the header again");
	}
	ks = (slots_of(&before->h) | add) & ~drop;
	tk = (tokens_of(&before->h) | tadd) & ~tdrop;
	if (slots_of(h) != ks)
		rc = err_set(e, EX_FAIL, "%s: its keyslots are not the ones "
			     "expected after cryptsetup ran (0x%08x, expected "
			     "0x%08x)", dev, slots_of(h), ks);
	else if (tokens_of(h) != tk)
		rc = err_set(e, EX_FAIL, "%s: its tokens are not the ones "
			     "expected after cryptsetup ran (0x%08x, expected "
			     "0x%08x)", dev, tokens_of(h), tk);
	luks2_free(h);
	free(h);
	return rc;
}
