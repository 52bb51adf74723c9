/* EK certificates in NV (include/job/ekcert.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/hex.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "crypto/ecdh.h"
#include "crypto/hash.h"
#include "crypto/pk.h"
#include "crypto/x509crt.h"
#include "fmt/x509.h"
#include "job/ekcert.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/ek.h"
#include "tpm2/nv.h"
#include "tpm2/srk.h"

/* The profile's table of certificate indices (EK Credential Profile 2.x,
 * section 2.2.1.5: the low range and the high range). */
const struct ekcert_slot ekcert_slots[] = {
	{ 0x01c00002u, EKT_L1, 1, "L-1", "RSA-2048" },
	{ 0x01c0000au, EKT_L2, 0, "L-2", "NIST P-256" },
	{ 0x01c00012u, EKT_H1, 1, "H-1", "RSA-2048" },
	{ 0x01c00014u, EKT_H2, 0, "H-2", "NIST P-256" },
	{ 0x01c00016u, EKT_H3, 0, "H-3", "NIST P-384" },
	{ 0x01c00018u, EKT_H4, 0, "H-4", "NIST P-521" },
	{ 0x01c0001au, EKT_H5, 0, "H-5", "SM2 P-256" },
	{ 0x01c0001cu, EKT_H6, 1, "H-6", "RSA-3072" },
	{ 0x01c0001eu, EKT_H7, 1, "H-7", "RSA-4096" },
};
const size_t ekcert_nslots = sizeof(ekcert_slots) / sizeof(ekcert_slots[0]);

/* The length of the DER TLV at p (tag 0x30), 0 when not a whole one. */
static size_t der_seq_len(const uint8_t *p, size_t n)
{
	size_t len = 0, hdr, i;

	if (n < 2 || p[0] != 0x30)
		return 0;
	if (p[1] < 0x80) {
		len = p[1];
		hdr = 2;
	} else {
		size_t k = p[1] & 0x7f;

		/* definite, minimal, at most 3 length bytes (16 MiB) */
		if (k == 0 || k > 3 || n < 2 + k || p[2] == 0)
			return 0;
		for (i = 0; i < k; i++)
			len = len << 8 | p[2 + i];
		if (len < 0x80)
			return 0;
		hdr = 2 + k;
	}
	if (len > n - hdr)
		return 0;
	return hdr + len;
}

int ekcert_der(const uint8_t *nv, size_t n, size_t *off, size_t *len,
	       struct tberr *e)
{
	size_t at = 0, l;

	/* TCG_PCCLIENT_STORED_CERT { tag 0x1001, certType 0, certSize }
	 * then TCG_FULL_CERT { tag 0x1002, DER }: certSize counts the
	 * 0x1002 tag and the DER. */
	if (n >= 7 && nv[0] == 0x10 && nv[1] == 0x01 && nv[2] == 0x00) {
		size_t size = (size_t)nv[3] << 8 | nv[4];

		if (nv[5] != 0x10 || nv[6] != 0x02 || size < 2 ||
		    size > n - 5)
			return err_set(e, EX_FAIL, "a TCG stored-certificate "
				       "header (10 01 00) whose size or full-"
				       "certificate tag (10 02) is wrong");
		at = 7;
		if (!(l = der_seq_len(nv + at, n - at)) || l != size - 2)
			return err_set(e, EX_FAIL, "the certificate after "
				       "the TCG header is not %zu bytes of "
				       "DER", size - 2);
	} else if (!(l = der_seq_len(nv, n))) {
		return err_set(e, EX_FAIL, "not a DER certificate (no whole "
			       "SEQUENCE at its start)");
	}
	*off = at;
	*len = l;
	return 0;
}

int ekcert_read_index(struct tpm *t, uint32_t index, uint8_t **data,
		      size_t *n)
{
	uint32_t index_max, buffer_max;
	struct nv_access x;
	struct nv_public p;
	struct nv_auth na;
	uint8_t *buf;
	int rc;

	*data = NULL;
	*n = 0;
	if ((rc = tpm2_nv_readpublic(t, index, &p)) ||
	    (rc = tpm2_nv_limits(t, &index_max, &buffer_max)))
		return rc;
	if (!(p.attrs & TPMA_NV_WRITTEN))
		return err_set(t->e, EX_NOENT, "NV index 0x%08x is defined "
			       "but was never written", index);
	if (nv_type(p.attrs) != TPM2_NT_ORDINARY || p.size == 0)
		return err_set(t->e, EX_FAIL, "NV index 0x%08x is not an "
			       "ordinary index holding data", index);
	if (!(buf = calloc(1, p.size ? p.size : 1)))
		return err_set(t->e, EX_FAIL, "out of memory");
	memset(&x, 0, sizeof(x));
	x.p = &p;
	x.chunk = buffer_max;
	rc = nv_auth_begin(t, &x, &na, NV_OP_READ, NULL, NULL);
	if (!rc)
		rc = tpm2_nv_read(t, &x, buf, p.size, 0);
	rc = nv_auth_end(t, &na, rc);
	if (rc) {
		free(buf);
		return err_prefix(t->e, "NV index 0x%08x", index);
	}
	*data = buf;
	*n = p.size;
	return 0;
}

int ekcert_read_chain(struct tpm *t, struct crtset *set, size_t *count)
{
	uint32_t *h = malloc(TPM2_HANDLES_MAX * sizeof(*h));
	size_t nh = 0, i, added;
	int rc;

	*count = 0;
	if (!h)
		return err_set(t->e, EX_FAIL, "out of memory");
	if ((rc = tpm2_gethandles(t, EKCERT_CHAIN_FIRST, h, TPM2_HANDLES_MAX,
				  &nh)))
		goto out;
	for (i = 0; i < nh && h[i] <= EKCERT_CHAIN_LAST; i++) {
		uint8_t *d;
		size_t n, at = 0, l;

		if (h[i] < EKCERT_CHAIN_FIRST)
			continue;
		if ((rc = ekcert_read_index(t, h[i], &d, &n))) {
			if (rc != EX_NOENT)	/* never written: none */
				goto out;
			err_clear(t->e);
			rc = 0;
			continue;
		}
		/* certificates back to back, then padding */
		while (at < n && (l = der_seq_len(d + at, n - at))) {
			if ((rc = crtset_add(set, d + at, l, &added, t->e))) {
				rc = err_prefix(t->e, "the CA certificates "
						"in NV index 0x%08x", h[i]);
				free(d);
				goto out;
			}
			*count += added;
			at += l;
		}
		free(d);
	}
out:
	free(h);
	return rc;
}

int ekcert_ek(struct tpm *t, const struct ekcert_slot *s,
	      struct tpm2_public *ek, int *how)
{
	if (s->tmpl == EKT_L1 || s->tmpl == EKT_L2)
		return tpm2_ek_public(t, s->rsa, ek, how);
	if (tpm2_ek_template_high(ek, (int)(s->tmpl - EKT_H1) + 1))
		return err_set(t->e, EX_FAIL, "the certificate at 0x%08x is "
			       "for the EK of template %s (%s), which tpmbox "
			       "cannot make: its key is not checked",
			       s->index, s->name, s->key);
	return tpm2_ek_public_high(t, (int)(s->tmpl - EKT_H1) + 1, ek, how);
}

/* A big-endian magnitude without its leading zeros. */
static void mag(const uint8_t **p, size_t *n)
{
	while (*n && **p == 0) {
		(*p)++;
		(*n)--;
	}
}

int ekcert_key_is(const uint8_t *spki, size_t n,
		  const struct tpm2_public *ek)
{
	struct pubkey k;

	/* P-521 (H-4): the certificate's SubjectPublicKeyInfo is the one
	 * the EK's point makes, byte for byte (x509.c reads no P-521). */
	if (ek->type == TPM2_ALG_ECC && ek->curve == TPM2_ECC_NIST_P521) {
		uint8_t *der;
		size_t dn;
		int same;

		if (pk_der_p521(ek->ecc_x, ek->ecc_xlen, ek->ecc_y,
				ek->ecc_ylen, &der, &dn))
			return 0;
		same = dn == n && memcmp(der, spki, n) == 0;
		free(der);
		return same;
	}
	memset(&k, 0, sizeof(k));
	if (x509_spki(spki, n, &k))
		return 0;
	if (ek->type == TPM2_ALG_RSA && k.type == KEY_RSA) {
		const uint8_t *a = k.n, *b = ek->rsa_n, *ex = k.e;
		size_t an = k.nlen, bn = ek->rsa_nlen, en = k.elen, i;
		uint32_t want = ek->rsa_exp ? ek->rsa_exp : 65537, got = 0;

		mag(&a, &an);
		mag(&b, &bn);
		mag(&ex, &en);
		if (en > 4)
			return 0;
		for (i = 0; i < en; i++)
			got = got << 8 | ex[i];
		return an == bn && memcmp(a, b, an) == 0 && got == want;
	}
	if (ek->type == TPM2_ALG_ECC && k.type == KEY_EC) {
		size_t cs = ek->curve == TPM2_ECC_NIST_P256 ? 32 :
			    ek->curve == TPM2_ECC_NIST_P384 ? 48 : 0;
		uint8_t pt[1 + 2 * 48];

		if (!cs || k.curve != ek->curve || k.pointlen != 1 + 2 * cs ||
		    ek->ecc_xlen > cs || ek->ecc_ylen > cs)
			return 0;
		memset(pt, 0, sizeof(pt));
		pt[0] = 0x04;
		memcpy(pt + 1 + cs - ek->ecc_xlen, ek->ecc_x, ek->ecc_xlen);
		memcpy(pt + 1 + 2 * cs - ek->ecc_ylen, ek->ecc_y,
		       ek->ecc_ylen);
		return memcmp(pt, k.point, k.pointlen) == 0;
	}
	return 0;
}

/* One file's certificates into set. */
static int ca_file(const char *path, struct crtset *set, struct tberr *e)
{
	uint8_t *d;
	size_t n, added;
	int rc;

	if ((rc = file_read(path, 4u << 20, &d, &n, e)))
		return rc;
	rc = crtset_add(set, d, n, &added, e);
	free(d);
	return rc ? err_prefix(e, "%s", path) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ekcert_ca_load(const char *path, struct crtset *set, struct tberr *e)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL, *p;
	size_t n = 0, cap = 0, i;
	DIR *d;
	int rc = 0;

	if (stat(path, &st))
		return ca_file(path, set, e);	/* its error names why */
	if (!S_ISDIR(st.st_mode))
		return ca_file(path, set, e);
	if (!(d = opendir(path)))
		return err_set(e, EX_IO, "%s: cannot open the directory",
			       path);
	/* sorted, so that what is read (and a bad file named) does not
	 * depend on the directory's order */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap * 2 + 16) *
					    sizeof(*names));
			if (!nn) {
				rc = err_set(e, EX_FAIL, "out of memory");
				goto out;
			}
			names = nn;
		}
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0) {
			rc = err_set(e, EX_FAIL, "out of memory");
			goto out;
		}
		names[n++] = p;
	}
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n && !rc; i++) {
		if (stat(names[i], &st) || !S_ISREG(st.st_mode))
			continue;
		rc = ca_file(names[i], set, e);
	}
	if (!rc && crtset_count(set) == 0)
		rc = err_set(e, EX_USAGE, "%s: no certificate in the "
			     "directory", path);
out:
	closedir(d);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int ekcert_vendor_url(uint32_t manufacturer, const struct tpm2_public *ek,
		      char *out, size_t cap)
{
	struct hash_ctx *h;
	uint8_t md[32];
	uint32_t exp = ek->rsa_exp ? ek->rsa_exp : 65537;
	int amd = manufacturer == TPM_MANUF_AMD ||
		  manufacturer == 0x414d4420u;	/* "AMD " */

	if ((manufacturer != TPM_MANUF_INTC && !amd) ||
	    (ek->type != TPM2_ALG_RSA && ek->type != TPM2_ALG_ECC) ||
	    !(h = hash_new(TPM2_ALG_SHA256)))
		return -1;
	if (amd) {
		uint8_t pre[8] = { 0, 0, 0x22, 0x22, (uint8_t)(exp >> 24),
				   (uint8_t)(exp >> 16), (uint8_t)(exp >> 8),
				   (uint8_t)exp };

		if (ek->type == TPM2_ALG_RSA) {
			hash_update(h, pre, 8);
			hash_update(h, ek->rsa_n, ek->rsa_nlen);
		} else {
			pre[2] = pre[3] = 0x44;
			hash_update(h, pre, 4);
			hash_update(h, ek->ecc_x, ek->ecc_xlen);
			hash_update(h, ek->ecc_y, ek->ecc_ylen);
		}
		hash_final(h, md);
		{
			char hx[33];

			hex_encode(md, 16, hx);
			snprintf(out, cap, "https://ftpm.amd.com/pki/aia/%s",
				 hx);
		}
		return 0;
	}
	if (ek->type == TPM2_ALG_RSA) {
		static const uint8_t e3[3] = { 0x01, 0x00, 0x01 };

		if (exp != 65537) {
			hash_final(h, md);
			return -1;
		}
		hash_update(h, ek->rsa_n, ek->rsa_nlen);
		hash_update(h, e3, 3);
	} else {
		hash_update(h, ek->ecc_x, ek->ecc_xlen);
		hash_update(h, ek->ecc_y, ek->ecc_ylen);
	}
	hash_final(h, md);
	{
		size_t bl, i, o;
		char *b = b64_encode(md, 32, &bl), enc[64];

		if (!b)
			return -1;
		for (i = o = 0; i < bl && o + 4 < sizeof(enc); i++) {
			if (b[i] == '=') {
				memcpy(enc + o, "%3D", 3);
				o += 3;
				continue;
			}
			enc[o++] = b[i] == '+' ? '-' : b[i] == '/' ? '_' :
				   b[i];
		}
		enc[o] = 0;
		free(b);
		snprintf(out, cap, "https://ekop.intel.com/ekcertservice/%s",
			 enc);
	}
	return 0;
}

/* One certificate slot for first contact: 0 with the session salted to
 * its EK; EX_NOENT when the index holds none; else why in t->e. */
static int trust_slot(struct tpm *t, const struct ekcert_slot *s,
		      const char *ca, const struct crtset *cas,
		      const struct crtset *nvchain, struct ekcert_trusted *r)
{
	struct tpm2_srk *k = calloc(1, sizeof(*k));
	struct crt_info ci;
	uint8_t *nv = NULL;
	size_t n = 0, off, len;
	int rc;

	if (!k)
		return err_set(t->e, EX_FAIL, "out of memory");
	if ((rc = ekcert_read_index(t, s->index, &nv, &n)))
		goto out;
	if (ekcert_der(nv, n, &off, &len, t->e) ||
	    crt_parse(nv + off, len, &ci, t->e) ||
	    crt_verify(nv + off, len, cas, nvchain, r->anchor,
		       sizeof(r->anchor), t->e)) {
		rc = err_prefix(t->e, "the EK certificate at 0x%08x (%s) does "
				"not verify to a CA in %s", s->index, s->name,
				ca);
		goto out;
	}
	if ((rc = tpm2_ek_find(t, s->rsa, k)))
		goto out;
	if (!ekcert_key_is(nv + off + ci.spki_off, ci.spki_len, &k->pub)) {
		rc = err_set(t->e, EX_FAIL, "the EK this TPM shows is not the "
			     "key its certificate at 0x%08x (%s) certifies: "
			     "another TPM, or an interposer", s->index,
			     s->name);
		goto out;
	}
	if ((rc = tpm2_trust_ek(t, k->handle, &k->pub)))
		goto out;
	r->slot = s->name;
	snprintf(r->subject, sizeof(r->subject), "%s", ci.subject);
out:
	tpm2_srk_put(t, k);
	free(k);
	free(nv);
	return rc;
}

int ekcert_trust(struct tpm *t, const char *ca, struct ekcert_trusted *r)
{
	struct crtset *cas = NULL, *nvchain = NULL;
	struct tberr first;
	size_t i, nchain = 0;
	int rc = EX_NOENT, seen = 0;

	memset(r, 0, sizeof(*r));
	memset(&first, 0, sizeof(first));
	if (!crt_available())
		return err_set(t->e, EX_USAGE, "--ek-ca: this build reads no "
			       "X.509 certificates (make tiny leaves them "
			       "out)");
	if (!(cas = crtset_new()) || !(nvchain = crtset_new())) {
		rc = err_set(t->e, EX_FAIL, "out of memory");
		goto out;
	}
	if ((rc = ekcert_ca_load(ca, cas, t->e)) ||
	    (rc = ekcert_read_chain(t, nvchain, &nchain)))
		goto out;
	/* L-1 (RSA), then L-2 (ECC): the templates tpm2_ek_find makes. */
	for (i = 0; i < ekcert_nslots && i < 2; i++) {
		rc = trust_slot(t, &ekcert_slots[i], ca, cas, nvchain, r);
		if (rc == 0)
			goto out;
		if (rc != EX_NOENT && !seen++)
			first = *t->e;	/* the first reason is reported */
		err_clear(t->e);
	}
	if (seen) {
		*t->e = first;
		rc = first.code;
	} else {
		rc = err_set(t->e, EX_NOENT, "no EK certificate in NV "
			     "(0x01c00002, 0x01c0000a): --ek-ca has nothing "
			     "to verify");
	}
out:
	crtset_free(cas);
	crtset_free(nvchain);
	return rc;
}
