/* The sealed blob: base64 (RFC 4648 vectors), DER layout of the TPM 2.0
 * key file, round trips, and refusal of malformed or tampered input. */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/pem.h"
#include "base/tpm2const.h"
#include "fmt/keyfile.h"
#include "tpm2/policy.h"
#include "unit.h"

static int b64_is(const char *in, const char *want)
{
	size_t n;
	char *s = b64_encode((const uint8_t *)in, strlen(in), &n);
	uint8_t back[16];
	long m;
	int ok;

	if (!s)
		return 0;
	ok = strcmp(s, want) == 0 && n == strlen(want);
	m = b64_decode(s, n, back, sizeof(back));
	ok = ok && m == (long)strlen(in) && memcmp(back, in, (size_t)m) == 0;
	free(s);
	return ok;
}

/* A plausible blob: PCR policy + password, GCM data. */
static void sample(struct keyfile *k, int pcr, int auth, int gcm)
{
	struct policy_spec ps;
	struct tberr e;
	int i;

	memset(k, 0, sizeof(*k));
	k->parent = KEYFILE_PARENT_SRK;
	k->empty_auth = !auth;
	k->auth = auth;
	k->publen = 60;
	k->pub[0] = 0;
	k->pub[1] = 58;
	for (i = 2; i < 60; i++)
		k->pub[i] = (uint8_t)i;
	k->privlen = 130;
	k->priv[0] = 0;
	k->priv[1] = 128;
	for (i = 2; i < 130; i++)
		k->priv[i] = (uint8_t)(i * 7);
	k->parent_namelen = 34;
	k->parent_name[0] = 0;
	k->parent_name[1] = 0x0b;
	memset(k->parent_name + 2, 0x5a, 32);
	k->policy_alg = TPM2_ALG_SHA256;
	memset(&ps, 0, sizeof(ps));
	ps.halg = TPM2_ALG_SHA256;
	if (pcr) {
		k->nbranch = 1;
		pcr_sel_parse("sha256:0,7+sha1:3", &k->br[0].sel, &e);
		k->br[0].vals.n = 3;
		k->br[0].vals.v[0].alg = TPM2_ALG_SHA256;
		k->br[0].vals.v[0].idx = 0;
		k->br[0].vals.v[0].len = 32;
		k->br[0].vals.v[1].alg = TPM2_ALG_SHA256;
		k->br[0].vals.v[1].idx = 7;
		k->br[0].vals.v[1].len = 32;
		memset(k->br[0].vals.v[1].d, 0x11, 32);
		k->br[0].vals.v[2].alg = TPM2_ALG_SHA1;
		k->br[0].vals.v[2].idx = 3;
		k->br[0].vals.v[2].len = 20;
		memset(k->br[0].vals.v[2].d, 0x33, 20);
		k->br[0].pcrdigestlen = policy_pcr_digest(TPM2_ALG_SHA256, &k->br[0].vals,
						    k->br[0].pcrdigest);
		ps.nbranch = 1;
		ps.br[0].sel = k->br[0].sel;
		ps.br[0].vals = k->br[0].vals;
	}
	ps.auth = auth;
	k->policylen = (pcr || auth) ? policy_compute(&ps, k->policy) : 0;
	if (gcm) {
		k->mode = KEYFILE_GCM;
		memset(k->iv, 1, KEYFILE_IV);
		memset(k->tag, 2, KEYFILE_TAG);
		k->ctlen = 70000;
		k->ct = malloc(k->ctlen);
		for (i = 0; i < 70000; i++)
			k->ct[i] = (uint8_t)(i * 13);
	}
}

static int same(const struct keyfile *a, const struct keyfile *b)
{
	return a->parent == b->parent && a->empty_auth == b->empty_auth &&
	       a->auth == b->auth && a->nbranch == b->nbranch &&
	       a->publen == b->publen && !memcmp(a->pub, b->pub, a->publen) &&
	       a->privlen == b->privlen &&
	       !memcmp(a->priv, b->priv, a->privlen) &&
	       a->parent_namelen == b->parent_namelen &&
	       !memcmp(a->parent_name, b->parent_name, a->parent_namelen) &&
	       a->policylen == b->policylen &&
	       !memcmp(a->policy, b->policy, a->policylen) &&
	       a->br[0].vals.n == b->br[0].vals.n && a->mode == b->mode &&
	       a->ctlen == b->ctlen &&
	       (!a->ctlen || !memcmp(a->ct, b->ct, a->ctlen)) &&
	       !memcmp(a->iv, b->iv, KEYFILE_IV) &&
	       !memcmp(a->tag, b->tag, KEYFILE_TAG) &&
	       b->version == KEYFILE_VERSION;
}

static int roundtrip(int pcr, int auth, int gcm, int rsa)
{
	struct keyfile k, d;
	struct tberr e;
	char *pem;
	size_t n;
	int ok;

	sample(&k, pcr, auth, gcm);
	k.rsa_parent = rsa;
	if (keyfile_encode(&k, &pem, &n, &e))
		return 0;
	ok = keyfile_decode(pem, n, &d, &e) == 0 && same(&k, &d) &&
	     d.rsa_parent == rsa;
	if (!ok)
		fprintf(stderr, "roundtrip %d%d%d%d: %s\n", pcr, auth, gcm,
			rsa, e.msg);
	free(pem);
	keyfile_free(&k);
	keyfile_free(&d);
	return ok;
}

/* Decode the base64 body of a block into der; returns its length. */
static long block(const char *pem, const char *label, uint8_t *der,
		  size_t cap, const char **start, const char **end)
{
	char b[64];
	const char *p, *q;

	snprintf(b, sizeof(b), "-----BEGIN %s-----\n", label);
	p = strstr(pem, b);
	if (!p)
		return -1;
	p += strlen(b);
	q = strstr(p, "-----END");
	*start = p;
	*end = q;
	return b64_decode(p, (size_t)(q - p), der, cap);
}

/* Re-encode a block after patching its DER, into a new text. */
static char *patched(const char *pem, const char *label, size_t off,
		     uint8_t val, size_t *outn)
{
	static uint8_t der[200000];
	const char *s, *e;
	long n = block(pem, label, der, sizeof(der), &s, &e);
	char *b, *out;
	size_t bn;

	if (n < 0 || off >= (size_t)n)
		return NULL;
	der[off] = val;
	b = b64_encode(der, (size_t)n, &bn);
	out = malloc(strlen(pem) + bn + 8);
	memcpy(out, pem, (size_t)(s - pem));
	memcpy(out + (s - pem), b, bn);
	out[(s - pem) + bn] = '\n';
	strcpy(out + (s - pem) + bn + 1, e);
	*outn = strlen(out);
	free(b);
	return out;
}

static int refused(const char *text, size_t n, const char *msg)
{
	struct keyfile d;
	struct tberr e;
	int rc = keyfile_decode(text, n, &d, &e);

	keyfile_free(&d);
	if (rc == 0)
		return 0;
	if (msg && !strstr(e.msg, msg)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", e.msg, msg);
		return 0;
	}
	return rc == EX_FAIL;
}

int main(void)
{
	struct keyfile k;
	struct tberr e;
	uint8_t der[4096];
	const char *s, *en;
	char *pem, *t;
	size_t n, tn;
	long dn;

	CHECK(b64_is("", ""));
	CHECK(b64_is("f", "Zg=="));
	CHECK(b64_is("fo", "Zm8="));
	CHECK(b64_is("foo", "Zm9v"));
	CHECK(b64_is("foob", "Zm9vYg=="));
	CHECK(b64_is("fooba", "Zm9vYmE="));
	CHECK(b64_is("foobar", "Zm9vYmFy"));
	CHECK(b64_decode("Zm9vY", 5, der, sizeof(der)) == -1);
	CHECK(b64_decode("Zm9vYh==", 8, der, sizeof(der)) == -1);
	CHECK(b64_decode("Zm=9v", 5, der, sizeof(der)) == -1);
	CHECK(b64_decode("Zm9v!", 5, der, sizeof(der)) == -1);
	CHECK(b64_decode("Zm 9\nv", 6, der, sizeof(der)) == 3);

	CHECK(roundtrip(1, 1, 1, 0));
	CHECK(roundtrip(1, 0, 0, 0));
	CHECK(roundtrip(0, 1, 0, 1));
	CHECK(roundtrip(0, 0, 0, 0));
	CHECK(roundtrip(0, 0, 1, 0));

	/* DER layout: SEQUENCE { OID 2.23.133.10.1.5, [0] TRUE, [1] policy,
	 * INTEGER 0x81000001, OCTETS pub, OCTETS priv } */
	sample(&k, 1, 0, 0);
	CHECK(keyfile_encode(&k, &pem, &n, &e) == 0);
	CHECK(strncmp(pem, "-----BEGIN TSS2 PRIVATE KEY-----\n", 33) == 0);
	CHECK(strstr(pem, "-----END TSS2 PRIVATE KEY-----\n"
		      "-----BEGIN TPMBOX SEALED EXTRA-----\n") != NULL);
	dn = block(pem, "TSS2 PRIVATE KEY", der, sizeof(der), &s, &en);
	CHECK(dn > 200);
	{
		static const uint8_t head[] = { 0x06, 0x06, 0x67, 0x81, 0x05,
			0x0a, 0x01, 0x05, 0xa0, 0x03, 0x01, 0x01, 0xff, 0xa1 };
		static const uint8_t parent[] = { 0x02, 0x05, 0x00, 0x81, 0x00,
			0x00, 0x01, 0x04, 0x3c, 0x00, 0x3a };
		uint8_t *q;

		CHECK(der[0] == 0x30 && der[1] == 0x82);
		CHECK((long)((der[2] << 8 | der[3]) + 4) == dn);
		CHECK_MEM(der + 4, head, sizeof(head));
		q = memmem(der, (size_t)dn, parent, sizeof(parent));
		CHECK(q != NULL);
		/* PolicyPCR = 0x17f as [0] INTEGER */
		CHECK(memmem(der, (size_t)dn, "\xa0\x04\x02\x02\x01\x7f", 6)
		      != NULL);
	}

	/* Refusals: each leaves a clear message. */
	CHECK(refused(pem, 40, "no END line"));
	CHECK(refused(pem, (size_t)(strstr(pem, "-----BEGIN TPMBOX") - pem),
		      "no TPMBOX SEALED EXTRA PEM block"));
	CHECK(refused("hello", 5, "blob: no TSS2 PRIVATE KEY PEM block"));
	/* version 3 */
	t = patched(pem, "TPMBOX SEALED EXTRA", 5, 3, &tn);
	CHECK(t && refused(t, tn, "format version 3 is not supported"));
	free(t);
	/* bad magic */
	t = patched(pem, "TPMBOX SEALED EXTRA", 0, 'X', &tn);
	CHECK(t && refused(t, tn, "magic"));
	free(t);
	/* unknown flag */
	t = patched(pem, "TPMBOX SEALED EXTRA", 7, 0x81, &tn);
	CHECK(t && refused(t, tn, "header"));
	free(t);
	/* auth flag set in one block only */
	t = patched(pem, "TPMBOX SEALED EXTRA", 7, 0x03, &tn);
	CHECK(t && refused(t, tn, "disagree"));
	free(t);
	/* a changed PCR value (last bytes of the extra block) */
	dn = block(pem, "TPMBOX SEALED EXTRA", der, sizeof(der), &s, &en);
	t = patched(pem, "TPMBOX SEALED EXTRA", (size_t)dn - 1, 0x34, &tn);
	CHECK(t && refused(t, tn, "policies of the two blocks differ"));
	free(t);
	/* a changed policy digest byte: after magic, version, flags, parent
	 * handle, name (2+34), alg (2), size (2) */
	t = patched(pem, "TPMBOX SEALED EXTRA", 4 + 2 + 2 + 4 + 36 + 2 + 2,
		    0x00, &tn);
	CHECK(t && refused(t, tn, "policy digest"));
	free(t);
	/* another key type OID (.3, loadable, is totp's HMAC key) */
	t = patched(pem, "TSS2 PRIVATE KEY", 4 + 7, 0x06, &tn);
	CHECK(t && refused(t, tn, "key type OID is not"));
	free(t);
	/* a DER length that runs past the end */
	t = patched(pem, "TSS2 PRIVATE KEY", 3, 0xff, &tn);
	CHECK(t && refused(t, tn, "not one DER SEQUENCE"));
	free(t);
	free(pem);

	/* Truncated GCM data. */
	keyfile_free(&k);
	sample(&k, 0, 1, 1);
	CHECK(keyfile_encode(&k, &pem, &n, &e) == 0);
	{
		static uint8_t x[200000];
		char *b, *out;
		size_t bn;

		dn = block(pem, "TPMBOX SEALED EXTRA", x, sizeof(x), &s, &en);
		CHECK(dn > 70000);
		b = b64_encode(x, (size_t)dn - 10, &bn);
		out = malloc(n + 8);
		memcpy(out, pem, (size_t)(s - pem));
		memcpy(out + (s - pem), b, bn);
		out[(s - pem) + bn] = '\n';
		strcpy(out + (s - pem) + bn + 1, en);
		CHECK(refused(out, strlen(out), "truncated encrypted data"));
		free(out);
		free(b);
	}
	/* A duplicated block. */
	t = malloc(2 * n + 1);
	memcpy(t, pem, n);
	memcpy(t + n, pem, n + 1);
	CHECK(refused(t, 2 * n, "more than one"));
	free(t);
	free(pem);
	keyfile_free(&k);

	return unit_done("keyfile");
}
