/* Credential activation: see include/job/cred.h. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "job/attest.h"
#include "job/cred.h"
#include "tpm2/cmd.h"
#include "tpm2/ek.h"
#include "tpm2/rc.h"
#include "tpm2/session.h"
#include "tpm2/wrap.h"

int tpm2_make_credential(const struct tpm2_public *ek, const uint8_t *akname,
			 size_t aknamelen, const uint8_t *secret, size_t n,
			 struct credfile *out, struct tberr *e)
{
	uint8_t in[2 + TPM2_CRED_MAX];
	struct tb b;
	int rc;

	memset(out, 0, sizeof(*out));
	if (n == 0 || n > TPM2_CRED_MAX)
		return err_set(e, EX_USAGE, "the secret is %zu bytes (1 to "
			       "%d)", n, TPM2_CRED_MAX);
	/* the credential is a TPM2B_DIGEST */
	tb_init(&b, in, sizeof(in));
	tb_put_tpm2b(&b, secret, n);
	rc = tpm2_wrap_outer(ek, "IDENTITY", akname, aknamelen, in, b.len,
			     out->id, sizeof(out->id), &out->idlen,
			     out->secret, &out->secretlen, "the EK", e);
	explicit_bzero(in, sizeof(in));
	return rc;
}

/* TPM2_ActivateCredential: activateHandle ak (ADMIN role: its value),
 * keyHandle ek (its policy), a third session encrypting the answer. */
static int activate_cmd(struct tpm *t, uint32_t ak, const uint8_t *akname,
			size_t aknamelen, struct tpm2_auth *aka, uint32_t ek,
			const uint8_t *ekname, size_t eknamelen,
			struct tpm2_auth *eka, struct tpm2_auth *enc,
			const struct credfile *cf, uint8_t *out, size_t *n)
{
	uint8_t pbuf[2 + CREDFILE_ID_MAX + CREDFILE_SECRET_MAX];
	struct tpm2_call c = {0};
	struct tb b, r;
	int rc;

	tb_init(&b, pbuf, sizeof(pbuf));
	tb_put_tpm2b(&b, cf->id, cf->idlen);
	tb_put_bytes(&b, cf->secret, cf->secretlen);
	if (tb_err(&b))
		return err_set(t->e, EX_USAGE, "TPM2_ActivateCredential: "
			       "parameters too large");
	c.cc = TPM2_CC_ActivateCredential;
	c.nh = 2;
	c.h[0] = ak;
	c.name[0].p = akname;
	c.name[0].n = aknamelen;
	c.h[1] = ek;
	c.name[1].p = ekname;
	c.name[1].n = eknamelen;
	c.na = 3;
	c.auth[0] = aka;
	c.auth[1] = eka;
	c.auth[2] = enc;
	c.params = pbuf;
	c.plen = b.len;
	if ((rc = tpm2_call(t, &c)))
		return rc;
	tb_init_read(&r, c.rparams, c.rplen);
	*n = tb_get_tpm2b(&r, out, TPM2_CRED_MAX);
	if (tb_err(&r) || tb_left(&r) || *n == 0) {
		tb_wipe(&r);
		return err_set(t->e, EX_IO, "TPM2_ActivateCredential: "
			       "malformed response (certInfo)");
	}
	return 0;
}

int tpm2_activate(struct tpm *t, const struct ak_blob *blob,
		  const struct credfile *cf, uint8_t *out, size_t *n)
{
	struct tpm2_session *es = NULL, *enc = NULL;
	struct tpm2_auth aka, eka, encauth;
	struct tpm2_public akpub;
	struct tpm2_srk ek;
	uint32_t akh = 0;
	int rc;

	memset(&ek, 0, sizeof(ek));
	/* The seed says which EK: an RSA-2048 one is 256 bytes. */
	if ((rc = ak_load(t, blob, NULL, 0, &akh, &akpub)) ||
	    (rc = tpm2_ek_find(t, cf->secretlen == 2 + 256, &ek)) ||
	    (rc = tpm2_ek_auth(t, &es, &eka)) ||
	    (rc = tpm2_session_start(t, TPM2_SE_HMAC, ek.handle, &ek.pub,
				     TPM2_RH_NULL, NULL, 0, SESS_ENC_RSP,
				     &enc)))
		goto out;
	tpm2_auth_pw(&aka, NULL, 0);
	tpm2_session_audit(enc, &encauth, 1);
	rc = activate_cmd(t, akh, akpub.name, akpub.namelen, &aka, ek.handle,
			  ek.pub.name, ek.pub.namelen, &eka, &encauth, cf, out,
			  n);
	if (rc && rc_base(t->e->rc) == 0x09f) {	/* TPM_RC_INTEGRITY */
		err_set(t->e, EX_AUTH, "the credential is not for this AK "
			"and this TPM's EK (its integrity check fails)");
		rc = EX_AUTH;
	}
out:
	if (enc)
		tpm2_session_flush(t, enc);
	if (es)
		tpm2_session_flush(t, es);
	if (akh)
		tpm2_flush(t, akh);
	tpm2_srk_put(t, &ek);
	tpm_wipe(t);
	return rc;
}

/* A name: a hash algorithm this build knows, then its digest. */
static int name_ok(const uint8_t *p, size_t n)
{
	uint16_t alg;

	if (n < 2)
		return 0;
	alg = (uint16_t)(p[0] << 8 | p[1]);
	return hash_supported(alg) && hash_size(alg) == n - 2;
}

int cred_file_read(const char *path, struct credfile *cf, struct tberr *e)
{
	uint8_t *d = NULL;
	size_t n = 0;
	int rc;

	if (!(rc = file_read(path, CREDFILE_MAX, &d, &n, e)))
		rc = credfile_decode(d, n, cf, e);
	free(d);
	return rc;
}

int tpm2_name_arg(const char *arg, uint8_t *name, size_t *n,
		  const char *opt, struct tberr *e)
{
	uint8_t *d = NULL;
	size_t dn;
	long k;

	*n = 0;
	k = hex_decode(arg, name, TPM2_NAME_MAX);
	if (k > 0 && name_ok(name, (size_t)k)) {
		*n = (size_t)k;
		return 0;
	}
	if (file_read(arg, 4096, &d, &dn, e))
		return err_prefix(e, "%s", opt);
	if (name_ok(d, dn) && dn <= TPM2_NAME_MAX) {
		memcpy(name, d, dn);
		*n = dn;
	} else {
		char txt[2 * TPM2_NAME_MAX + 2];

		/* hex text, with or without a newline */
		while (dn && (d[dn - 1] == '\n' || d[dn - 1] == '\r'))
			dn--;
		if (dn < sizeof(txt)) {
			memcpy(txt, d, dn);
			txt[dn] = '\0';
			k = hex_decode(txt, name, TPM2_NAME_MAX);
			if (k > 0 && name_ok(name, (size_t)k))
				*n = (size_t)k;
		}
	}
	free(d);
	if (!*n)
		return err_set(e, EX_USAGE, "%s %s: not a name (a hash "
			       "algorithm and its digest, e.g. 000b and 64 hex "
			       "digits) nor a file holding one", opt, arg);
	return 0;
}
