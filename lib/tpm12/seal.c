/* Sealing on a TPM 1.2 (tpm12/seal.h). */
#include <string.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/cmd.h"
#include "tpm12/key.h"
#include "tpm12/seal.h"
#include "tpm12/session.h"

#define LOC_ALL	0x1f	/* localityAtRelease: any locality */

void tpm12_xor_mask(const uint8_t secret[20], const uint8_t even[20],
		    const uint8_t odd[20], uint8_t *p, size_t n)
{
	uint8_t blk[20], ctr[4];
	uint32_t c;
	size_t off, i, k;

	for (c = 0, off = 0; off < n; c++, off += 20) {
		struct hash_ctx *h = hash_new(TPM2_ALG_SHA1);

		ctr[0] = (uint8_t)(c >> 24);
		ctr[1] = (uint8_t)(c >> 16);
		ctr[2] = (uint8_t)(c >> 8);
		ctr[3] = (uint8_t)c;
		hash_update(h, even, 20);
		hash_update(h, odd, 20);
		hash_update(h, "XOR", 3);
		hash_update(h, secret, 20);
		hash_update(h, ctr, 4);
		hash_final(h, blk);
		k = n - off < 20 ? n - off : 20;
		for (i = 0; i < k; i++)
			p[off + i] ^= blk[i];
	}
	explicit_bzero(blk, sizeof(blk));
}

/* The composite of the values of the PCRs in sel (vals: those of mask,
 * ascending); -1 when sel is not within mask. */
static int composite_of(const struct tpm12_pcr_sel *sel, uint32_t mask,
			const uint8_t (*vals)[20], uint8_t out[20])
{
	uint8_t pick[TPM12_PCR_MAX][20];
	size_t n = 0, k = 0;
	int i;

	if (sel->mask & ~mask)
		return -1;
	for (i = 0; i < TPM12_PCR_MAX; i++) {
		if (!(mask >> i & 1))
			continue;
		if (sel->mask >> i & 1)
			memcpy(pick[n++], vals[k], 20);
		k++;
	}
	return tpm12_pcr_composite_hash(sel, (const uint8_t (*)[20])pick, n,
					out);
}

/* The pcrInfo TPM_Seal(x) takes: the release selection of mask with
 * digestAtRelease the composite of vals; the creation selection (the
 * TPM fills digestAtCreation from the PCRs as they are) of check when
 * the long form has room for it, else of mask. */
static int seal_info(uint32_t mask, uint32_t check, const uint8_t (*vals)[20],
		     int sealx, struct tpm12_pcr_info *i)
{
	memset(i, 0, sizeof(*i));
	i->kind = sealx || mask >> 16 ? TPM12_PCR_INFO_LONG : TPM12_PCR_INFO;
	/* TrouSerS' sizes: 2 bytes below PCR 16, else 3. */
	tpm12_pcr_sel_set(&i->release, mask,
			  i->kind == TPM12_PCR_INFO_LONG ? 3 : 2);
	i->creation = i->release;
	if (i->kind == TPM12_PCR_INFO_LONG) {	/* the TPM sets creation's */
		i->loc_creation = i->loc_release = LOC_ALL;
		if (check)
			tpm12_pcr_sel_set(&i->creation, check, 3);
	}
	return composite_of(&i->release, mask, vals, i->digest_release);
}

/* The values read from the TPM for check (within the sealed data's
 * creation selection) against the digestAtCreation the TPM computed and
 * returned under the answer's HMAC: an interposer that changed what
 * TPM_PcrRead answered is caught here. */
static int creation_check(struct tpm *t, const struct tpm12_stored *sd,
			  uint32_t mask, uint32_t check,
			  const uint8_t (*vals)[20])
{
	/* TPM_PCR_INFO has one selection, kept as the release one. */
	const struct tpm12_pcr_sel *csel = sd->pcr.kind == TPM12_PCR_INFO ?
		&sd->pcr.release : &sd->pcr.creation;
	uint8_t want[20];

	if (!check)
		return 0;
	if (csel->mask != check || composite_of(csel, mask, vals, want) ||
	    memcmp(want, sd->pcr.digest_creation, 20))
		return err_set(t->e, EX_IO, "the PCR values read are not the "
			       "TPM's (a damaged answer or an interposer, or "
			       "a PCR extended meanwhile); nothing was "
			       "sealed");
	return 0;
}

int tpm12_seal(struct tpm *t, uint32_t key, const uint8_t keyauth[20],
	       uint32_t mask, uint32_t check, const uint8_t (*vals)[20],
	       const uint8_t dataauth[20],
	       const uint8_t *data, size_t n, int sealx,
	       struct tpm12_stored *out)
{
	struct tpm12_call c = {
		.ord = sealx ? TPM12_ORD_Sealx : TPM12_ORD_Seal,
		.in_handles = 4, .na = 1,
	};
	uint8_t in[4 + 20 + 4 + 128 + 4 + TPM12_SEAL_DATA_MAX];
	uint8_t enc[20];
	struct tpm12_pcr_info info;
	struct tpm12_sess s;
	size_t at, infoat;
	struct tb b;
	int rc;

	if (check & ~mask)
		check = 0;
	if (!sealx && !(mask >> 16) && check != mask)
		check = 0;	/* one selection: all or nothing */
	if (mask && seal_info(mask, check, vals, sealx, &info))
		return err_set(t->e, EX_FAIL, "%s: bad PCR selection",
			       tpm12_ord_name(c.ord));
	if (n == 0 || n > TPM12_SEAL_DATA_MAX)
		return err_set(t->e, EX_FAIL, "%s: %zu bytes cannot be "
			       "sealed (1 to %d)", tpm12_ord_name(c.ord), n,
			       TPM12_SEAL_DATA_MAX);
	if ((rc = tpm12_osap(t, tpm12_key_entity(key), key, keyauth, &s)))
		return rc;
	if (tpm12_sess_odd(&s)) {
		tpm12_sess_end(t, &s);
		return err_set(t->e, EX_FAIL, "no random bytes for a nonce");
	}
	tpm12_adip(&s, dataauth, enc);
	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, key);
	tb_put_bytes(&b, enc, 20);
	infoat = tb_reserve32(&b);
	if (mask)
		tpm12_put_pcr_info(&b, &info);
	tb_patch32(&b, infoat);
	tb_put_u32(&b, (uint32_t)n);
	at = b.len;
	tb_put_bytes(&b, data, n);
	if (tb_err(&b)) {
		explicit_bzero(in, sizeof(in));
		tpm12_sess_end(t, &s);
		return err_set(t->e, EX_FAIL, "%s: bad parameters",
			       tpm12_ord_name(c.ord));
	}
	if (sealx)
		tpm12_xor_mask(s.key, s.nonce_even, s.nonce_odd, in + at, n);
	c.in = in;
	c.inlen = b.len;
	c.auth[0] = &s;
	s.cont = 0;
	rc = tpm12_call(t, &c);
	explicit_bzero(in, sizeof(in));
	explicit_bzero(enc, sizeof(enc));
	if ((rc = tpm12_sess_last(t, &s, rc, tpm12_ord_name(c.ord))))
		return rc;
	if (tpm12_stored_parse(c.out, c.outlen, out, tpm12_ord_name(c.ord),
			       t->e))
		return t->e->code;
	if (out->is12 != (sealx || mask >> 16))
		return err_set(t->e, EX_IO, "%s: the TPM answered a "
			       "TPM_STORED_DATA%s", tpm12_ord_name(c.ord),
			       out->is12 ? "12" : " (1.1)");
	if (!!mask != out->has_pcr ||
	    (mask && out->pcr.release.mask != mask))
		return err_set(t->e, EX_IO, "%s: the sealed data is not bound "
			       "to the PCRs asked for", tpm12_ord_name(c.ord));
	return creation_check(t, out, mask, check, vals);
}

int tpm12_unseal(struct tpm *t, uint32_t key, const uint8_t keyauth[20],
		 const struct tpm12_stored *sd, const uint8_t dataauth[20],
		 uint8_t *out, size_t *n)
{
	struct tpm12_call c = {
		.ord = TPM12_ORD_Unseal, .in_handles = 4, .na = 2,
	};
	uint8_t in[4 + 4096], even[20];
	struct tpm12_sess ks, ds;
	struct tb b, r;
	uint32_t len;
	int rc, xor;

	/* et: 0 in clear; TPM_ET_XOR | TPM_ET_KEY (TPM_Sealx with an XOR
	 * OSAP session).  Other schemes (AES-CTR ADIP) tpmbox never makes. */
	xor = sd->et != 0;
	if (sd->et != 0 && sd->et != TPM12_ET_XOR_KEY)
		return err_set(t->e, EX_FAIL, "sealed data: encryption "
			       "scheme 0x%04x is not supported", sd->et);
	tb_init(&b, in, sizeof(in));
	tb_put_u32(&b, key);
	tpm12_put_stored(&b, sd);
	if (tb_err(&b))
		return err_set(t->e, EX_FAIL, "sealed data: too large");
	if ((rc = tpm12_osap(t, tpm12_key_entity(key), key, keyauth, &ks)))
		return rc;
	if ((rc = tpm12_oiap(t, dataauth, &ds)))
		return tpm12_sess_end_keep(t, &ks, rc);
	memcpy(even, ks.nonce_even, 20);
	c.in = in;
	c.inlen = b.len;
	c.auth[0] = &ks;
	c.auth[1] = &ds;
	ks.cont = ds.cont = 0;
	rc = tpm12_call(t, &c);
	if (!rc && (ks.active || ds.active))
		rc = err_set(t->e, EX_IO, "TPM_Unseal: the TPM kept a session "
			     "it was asked to end");
	if (rc) {
		tpm12_sess_end_keep(t, &ks, rc);
		return tpm12_sess_end_keep(t, &ds, rc);
	}
	tb_init_read(&r, c.out, c.outlen);
	len = tb_get_u32(&r);
	if (tb_err(&r) || len != tb_left(&r) || len > TPM12_RSA_MAX) {
		rc = err_set(t->e, EX_IO, "TPM_Unseal: malformed response");
		goto out;
	}
	memcpy(out, c.out + 4, len);
	*n = len;
	if (xor)
		tpm12_xor_mask(ks.key, even, ks.nonce_odd, out, len);
out:
	explicit_bzero(&ks, sizeof(ks));
	explicit_bzero(&ds, sizeof(ds));
	explicit_bzero(t->rsp, sizeof(t->rsp));
	return rc;
}
