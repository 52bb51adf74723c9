/* Taking ownership of a TPM 1.2 (tpm12/owner.h). */
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/rsa.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/owner.h"
#include "tpm12/session.h"

/* SHA-1 of k as a TPM_PUBKEY: the SRK's fingerprint takeown prints. */
static void pubkey_hash(const struct tpm12_pubkey *k, uint8_t out[20])
{
	uint8_t buf[2 * TPM12_RSA_MAX + 64];
	struct tb b;

	tb_init(&b, buf, sizeof(buf));
	tpm12_put_pubkey(&b, k);
	hash_buf(TPM2_ALG_SHA1, buf, b.len, out);
}

/* TPM_ReadPubek: the EK's public key, its checksum SHA-1(pubkey ||
 * antiReplay) checked. */
static int read_pubek(struct tpm *t, struct tpm12_pubkey *ek)
{
	struct tpm12_call c = { .ord = TPM12_ORD_ReadPubek };
	uint8_t nonce[20], sum[20];
	const uint8_t *p;
	size_t keylen;
	int rc;

	if (rng_bytes(nonce, sizeof(nonce)))
		return err_set(t->e, EX_FAIL, "no random bytes for the nonce");
	c.in = nonce;
	c.inlen = sizeof(nonce);
	if ((rc = tpm12_call(t, &c))) {
		if (t->e->rc == 0x06 || t->e->rc == 0x07)
			/* TPM_DEACTIVATED, TPM_DISABLED: as a clear leaves it */
			err_hint(t->e, "after a clear: tpmbox clearall "
				 "--reenable, then reboot");
		if (t->e->rc == 0x23) {	/* TPM_NO_ENDORSEMENT */
			rc = err_set(t->e, EX_FAIL, "this TPM 1.2 has no "
				     "endorsement key to encrypt the owner "
				     "value to");
			err_hint(t->e, "make one first with "
				 "TPM_CreateEndorsementKeyPair (tpm_createek; "
				 "swtpm: swtpm_setup --createek)");
		}
		return rc;
	}
	if (c.outlen < 20)
		return err_set(t->e, EX_IO, "TPM_ReadPubek: malformed response");
	keylen = c.outlen - 20;
	p = c.out;
	if (tpm12_pubkey_parse(p, keylen, ek, "TPM_ReadPubek", t->e))
		return t->e->code;
	{
		uint8_t cat[2 * TPM12_RSA_MAX + 64 + 20];

		if (keylen > sizeof(cat) - 20)
			return err_set(t->e, EX_IO, "TPM_ReadPubek: key too "
				       "large");
		memcpy(cat, p, keylen);
		memcpy(cat + keylen, nonce, 20);
		hash_buf(TPM2_ALG_SHA1, cat, keylen + 20, sum);
	}
	if (memcmp(sum, p + keylen, 20))
		return err_set(t->e, EX_FAIL, "TPM_ReadPubek: the checksum "
			       "does not match the key and nonce (a changed "
			       "answer)");
	if (ek->parms.alg != TPM12_ALG_RSA || ek->publen < 128 ||
	    !tpm12_rsa_exponent(&ek->parms))
		return err_set(t->e, EX_FAIL, "TPM_ReadPubek: the EK is not "
			       "an RSA key of 1024 bits or more");
	return 0;
}

/* One value RSA-OAEP-encrypted to the EK (SHA-1, label "TCPA"). */
static int enc_auth(struct tpm *t, const struct tpm12_pubkey *ek,
		    const uint8_t v[20], uint8_t *out, size_t *outlen)
{
	if (rsa_oaep_encrypt(ek->pub, ek->publen,
			     tpm12_rsa_exponent(&ek->parms), TPM2_ALG_SHA1,
			     "TCPA", 4, v, 20, out, outlen))
		return err_set(t->e, EX_FAIL, "cannot encrypt to the EK");
	return 0;
}

static int take(struct tpm *t, struct tpm12_own *o)
{
	static uint8_t in[2 + 2 * (4 + TPM12_RSA_MAX) + 128];
	struct tpm12_call c = { .ord = TPM12_ORD_TakeOwnership };
	uint8_t encown[TPM12_RSA_MAX], encsrk[TPM12_RSA_MAX];
	size_t nown, nsrk;
	struct tpm12_pubkey ek;
	struct tpm12_key srk;
	struct tb b;
	int rc;

	if ((rc = read_pubek(t, &ek)) ||
	    (rc = enc_auth(t, &ek, o->owner, encown, &nown)) ||
	    (rc = enc_auth(t, &ek, o->srk, encsrk, &nsrk)))
		return rc;
	/* srkParams: a TPM_KEY for a storage key, RSA-2048, OAEP, no
	 * signature scheme, no PCRs, public key and encData empty. */
	memset(&srk, 0, sizeof(srk));
	srk.ver[0] = 1;
	srk.ver[1] = 1;
	srk.usage = TPM12_KEY_STORAGE;
	srk.auth_usage = TPM12_AUTH_ALWAYS;
	tpm12_key_parms_rsa(&srk.parms, 2048, TPM12_ES_RSAESOAEP_SHA1_MGF1,
			    TPM12_SS_NONE);
	tb_init(&b, in, sizeof(in));
	tb_put_u16(&b, TPM12_PID_OWNER);
	tb_put_u32(&b, (uint32_t)nown);
	tb_put_bytes(&b, encown, nown);
	tb_put_u32(&b, (uint32_t)nsrk);
	tb_put_bytes(&b, encsrk, nsrk);
	tpm12_put_key(&b, &srk);
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "TPM_TakeOwnership: parameters "
			       "too large");
	c.in = in;
	c.inlen = b.len;
	/* OIAP keyed with the new owner value: the TPM checks the command
	 * with it, and its answer (the SRK) is HMACed with it. */
	if ((rc = tpm12_call_oiap(t, o->owner, &c)))
		return rc;
	/* c.out is in the response buffer until the next command */
	if (tpm12_key_parse(c.out, c.outlen, &srk, "TPM_TakeOwnership",
			    t->e))
		return t->e->code;
	memset(&o->srkpub, 0, sizeof(o->srkpub));
	o->srkpub.parms = srk.parms;
	if (srk.publen > sizeof(o->srkpub.pub))
		return err_set(t->e, EX_IO, "TPM_TakeOwnership: SRK too large");
	o->srkpub.publen = srk.publen;
	memcpy(o->srkpub.pub, srk.pub, srk.publen);
	return 0;
}

/* Owned: the owner value confirmed by TPM_OwnerReadInternalPub(SRK),
 * which also gives the SRK's public key. */
static int confirm(struct tpm *t, struct tpm12_own *o)
{
	struct tpm12_call c = { .ord = TPM12_ORD_OwnerReadInternalPub };
	uint8_t in[4];
	struct tb b;
	int rc;

	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, TPM12_KH_SRK);
	c.in = in;
	c.inlen = b.len;
	if ((rc = tpm12_call_oiap(t, o->owner, &c)))
		return rc;
	if (tpm12_pubkey_parse(c.out, c.outlen, &o->srkpub,
			       "TPM_OwnerReadInternalPub", t->e))
		return t->e->code;
	return 0;
}

int tpm12_takeown(struct tpm *t, struct tpm12_own *o)
{
	int owned;
	int rc;

	o->already = 0;
	if ((rc = tpm12_owned(t, &owned)))
		return rc;
	if (owned) {
		if ((rc = confirm(t, o))) {
			if (rc == EX_AUTH)
				err_set(t->e, EX_AUTH, "this TPM 1.2 has an "
					"owner, and the owner value given is "
					"not its value");
			return rc;
		}
		o->already = 1;
	} else if ((rc = take(t, o))) {
		return rc;
	}
	pubkey_hash(&o->srkpub, o->srkhash);
	return 0;
}

int tpm12_owner_clear(struct tpm *t, const uint8_t owner[20])
{
	return tpm12_call_oiap_bare(t, owner, TPM12_ORD_OwnerClear);
}

/* One command with no authorization whose answer has no body. */
static int plain(struct tpm *t, uint32_t ord, const uint8_t *in, size_t n)
{
	struct tpm12_call c = { .ord = ord, .in = in, .inlen = n };
	int rc;

	if ((rc = tpm12_call(t, &c)))
		return rc;
	if (c.outlen)
		return err_set(t->e, EX_IO, "%s: malformed response",
			       tpm12_ord_name(ord));
	return 0;
}

static int presence(struct tpm *t)
{
	static const uint8_t present[2] = { 0x00, TPM12_PP_PRESENT };
	int rc;

	if ((rc = plain(t, TPM12_ORD_TSC_PhysicalPresence, present, 2))) {
		char why[sizeof(t->e->msg)];

		if (rc == EX_IO)
			return rc;	/* the transport, not the platform */
		memcpy(why, t->e->msg, sizeof(why));
		err_set(t->e, EX_FAIL, "the platform does not let software "
			"assert physical presence (%s)", why);
		err_hint(t->e, "most firmware locks it before the OS boots: "
			 "use its setup menu, or the physical presence "
			 "interface (tpmbox ppi)");
	}
	return rc;
}

int tpm12_force_clear(struct tpm *t)
{
	int rc;

	if ((rc = presence(t)))
		return rc;
	return plain(t, TPM12_ORD_ForceClear, NULL, 0);
}

int tpm12_reenable(struct tpm *t)
{
	static const uint8_t no[1] = { 0 };
	int rc;

	if ((rc = presence(t)) ||
	    (rc = plain(t, TPM12_ORD_PhysicalEnable, NULL, 0)))
		return rc;
	return plain(t, TPM12_ORD_PhysicalSetDeactivated, no, 1);
}

int tpm12_save_state(struct tpm *t)
{
	return plain(t, TPM12_ORD_SaveState, NULL, 0);
}

int tpm12_disable_force_clear(struct tpm *t)
{
	return plain(t, TPM12_ORD_DisableForceClear, NULL, 0);
}
