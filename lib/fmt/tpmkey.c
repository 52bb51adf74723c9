/* The TPM 2.0 key file ASN.1 (include/fmt/tpmkey.h). */
#include <stdlib.h>
#include <string.h>

#include "base/der.h"
#include "base/pem.h"
#include "fmt/tpmkey.h"

/* 2.23.133.10.1.x: the TCG key file types; x is the key type. */
static const uint8_t oid_prefix[] = { 0x67, 0x81, 0x05, 0x0a, 0x01 };
#define OID_LEN	(sizeof(oid_prefix) + 1)

/* TPMPolicy ::= SEQUENCE { [0] EXPLICIT INTEGER, [1] EXPLICIT OCTETS } */
static size_t policy_size(uint32_t cc, size_t len)
{
	return der_size(der_size(der_int_size(cc)) + der_size(der_size(len)));
}

int tpmkey_der(const struct tpmkey *k, struct tb *out)
{
	size_t pol = 0, body;
	int i;

	if ((k->type != TPMKEY_LOADABLE && k->type != TPMKEY_SEALED &&
	     k->type != TPMKEY_IMPORTABLE) ||
	    (k->type == TPMKEY_IMPORTABLE) != (k->secretlen > 0) ||
	    k->npolicy < 0 || k->npolicy > TPMKEY_POLICY_MAX ||
	    k->publen > TPMKEY_PUB_MAX || k->privlen > TPMKEY_PRIV_MAX ||
	    k->secretlen > TPMKEY_SECRET_MAX)
		return -1;
	for (i = 0; i < k->npolicy; i++) {
		if (k->policy[i].len > TPMKEY_POLICY_BODY)
			return -1;
		pol += policy_size(k->policy[i].cc, k->policy[i].len);
	}
	body = der_size(OID_LEN);
	if (k->empty_auth)
		body += 5;
	if (k->npolicy)
		body += der_size(der_size(pol));
	if (k->secretlen)
		body += der_size(der_size(k->secretlen));
	if (k->rsa_parent)
		body += 5;
	body += der_int_size(k->parent) + der_size(k->publen) +
		der_size(k->privlen);

	der_tl(out, DER_SEQ, body);
	der_tl(out, DER_OID, OID_LEN);
	tb_put_bytes(out, oid_prefix, sizeof(oid_prefix));
	tb_put_u8(out, (uint8_t)k->type);
	if (k->empty_auth)
		der_true(out, 0);
	if (k->npolicy) {
		der_tl(out, DER_CTX(1), der_size(pol));
		der_tl(out, DER_SEQ, pol);
		for (i = 0; i < k->npolicy; i++) {
			uint32_t cc = k->policy[i].cc;
			size_t len = k->policy[i].len;

			der_tl(out, DER_SEQ, der_size(der_int_size(cc)) +
			       der_size(der_size(len)));
			der_tl(out, DER_CTX(0), der_int_size(cc));
			der_int(out, cc);
			der_tl(out, DER_CTX(1), der_size(len));
			der_tl(out, DER_OCTETS, len);
			tb_put_bytes(out, k->policy[i].body, len);
		}
	}
	if (k->secretlen) {
		der_tl(out, DER_CTX(2), der_size(k->secretlen));
		der_tl(out, DER_OCTETS, k->secretlen);
		tb_put_bytes(out, k->secret, k->secretlen);
	}
	if (k->rsa_parent)
		der_true(out, 5);
	der_int(out, k->parent);
	der_tl(out, DER_OCTETS, k->publen);
	tb_put_bytes(out, k->pub, k->publen);
	der_tl(out, DER_OCTETS, k->privlen);
	tb_put_bytes(out, k->priv, k->privlen);
	return tb_err(out) ? -1 : 0;
}

static int bad(struct tberr *e, const char *what, const char *why)
{
	return err_set(e, EX_FAIL, "%s: %s", what, why);
}

static int get_policy(struct tb *b, struct tpmkey *k, const char *what,
		      struct tberr *e)
{
	struct tb outer, seq, one, t, v;
	uint32_t cc;

	if (der_get(b, DER_CTX(1), &outer) || der_get(&outer, DER_SEQ, &seq) ||
	    tb_left(&outer))
		return bad(e, what, "malformed policy list");
	while (tb_left(&seq)) {
		if (der_get(&seq, DER_SEQ, &one) ||
		    der_get(&one, DER_CTX(0), &t) || der_get_uint(&t, &cc) ||
		    tb_left(&t) || der_get(&one, DER_CTX(1), &t) ||
		    der_get(&t, DER_OCTETS, &v) || tb_left(&t) || tb_left(&one))
			return bad(e, what, "malformed policy command");
		if (k->npolicy == TPMKEY_POLICY_MAX || v.len > TPMKEY_POLICY_BODY)
			return err_set(e, EX_FAIL, "%s: the policy has more "
				       "than %d commands or one longer than %d "
				       "bytes", what, TPMKEY_POLICY_MAX,
				       TPMKEY_POLICY_BODY);
		k->policy[k->npolicy].cc = cc;
		k->policy[k->npolicy].len = v.len;
		tb_get_bytes(&v, k->policy[k->npolicy].body, v.len);
		k->npolicy++;
	}
	if (!k->npolicy)
		return bad(e, what, "empty policy list");
	return 0;
}

/* An OCTET STRING holding a TPM2B whose size matches. */
static int get_tpm2b(struct tb *b, uint8_t *dst, size_t cap, size_t *len)
{
	struct tb s;

	if (der_get(b, DER_OCTETS, &s) || s.len > cap || s.len < 2 ||
	    (size_t)(s.p[s.pos] << 8 | s.p[s.pos + 1]) != s.len - 2)
		return -1;
	tb_get_bytes(&s, dst, s.len);
	*len = s.len;
	return 0;
}

int tpmkey_parse(const uint8_t *d, size_t n, struct tpmkey *k,
		 const char *what, struct tberr *e)
{
	struct tb top, b, s;

	memset(k, 0, sizeof(*k));
	tb_init_read(&top, d, n);
	if (der_get(&top, DER_SEQ, &b) || tb_left(&top))
		return bad(e, what, "the " TPMKEY_LABEL " block is not one "
			   "DER SEQUENCE");
	if (der_get(&b, DER_OID, &s))
		return bad(e, what, "no key type OID");
	if (s.len != OID_LEN || memcmp(s.p + s.pos, oid_prefix,
				       sizeof(oid_prefix)) ||
	    (s.p[s.pos + OID_LEN - 1] != TPMKEY_LOADABLE &&
	     s.p[s.pos + OID_LEN - 1] != TPMKEY_IMPORTABLE &&
	     s.p[s.pos + OID_LEN - 1] != TPMKEY_SEALED))
		return bad(e, what, "the key type OID is not a loadable key "
			   "(2.23.133.10.1.3), an importable one (.4) or "
			   "sealed data (.5)");
	k->type = s.p[s.pos + OID_LEN - 1];
	if (der_peek(&b) == DER_CTX(0) &&
	    der_get_true(&b, 0, &k->empty_auth))
		return bad(e, what, "malformed emptyAuth");
	if (der_peek(&b) == DER_CTX(1) && get_policy(&b, k, what, e))
		return e->code;
	if (der_peek(&b) == DER_CTX(2)) {
		struct tb x;

		if (der_get(&b, DER_CTX(2), &x) ||
		    get_tpm2b(&x, k->secret, sizeof(k->secret),
			      &k->secretlen) || tb_left(&x))
			return bad(e, what, "malformed secret "
				   "(TPM2B_ENCRYPTED_SECRET)");
	}
	if ((k->type == TPMKEY_IMPORTABLE) != (k->secretlen > 0))
		return bad(e, what, k->secretlen ? "a secret ([2]) on a key "
			   "that is not importable" : "an importable key "
			   "without its secret ([2])");
	if (der_peek(&b) == DER_CTX(3))
		return bad(e, what, "signed policies ([3] authPolicy) are not "
			   "supported");
	if (der_peek(&b) == DER_CTX(4) && der_get(&b, DER_CTX(4), &s))
		return bad(e, what, "malformed description");
	if (der_peek(&b) == DER_CTX(5) &&
	    der_get_true(&b, 5, &k->rsa_parent))
		return bad(e, what, "malformed rsaParent");
	if (der_peek(&b) != DER_INT)
		return bad(e, what, "unexpected field before the parent "
			   "handle");
	if (der_get_uint(&b, &k->parent))
		return bad(e, what, "malformed parent handle");
	if (get_tpm2b(&b, k->pub, sizeof(k->pub), &k->publen))
		return bad(e, what, "malformed public area (TPM2B_PUBLIC)");
	if (get_tpm2b(&b, k->priv, sizeof(k->priv), &k->privlen))
		return bad(e, what, "malformed private area (TPM2B_PRIVATE)");
	if (tb_left(&b))
		return bad(e, what, "unexpected data after the private area");
	return 0;
}

int tpmkey_encode(const struct tpmkey *k, char **pem, size_t *n,
		  const char *what, struct tberr *e)
{
	uint8_t der[TPMKEY_DER_MAX];
	struct tb b;
	int rc;

	*pem = NULL;
	*n = 0;
	tb_init(&b, der, sizeof(der));
	if (tpmkey_der(k, &b))
		return err_set(e, EX_FAIL, "%s: a field is too large to "
			       "encode", what);
	rc = pem_encode(TPMKEY_LABEL, b.p, b.len, pem, n, e);
	explicit_bzero(der, sizeof(der));
	return rc;
}

int tpmkey_decode(const char *text, size_t n, struct tpmkey *k,
		  const char *what, struct tberr *e)
{
	uint8_t *der;
	size_t len;
	int rc;

	memset(k, 0, sizeof(*k));
	if ((rc = pem_get(text, n, TPMKEY_LABEL, what, &der, &len, e)))
		return rc;
	rc = tpmkey_parse(der, len, k, what, e);
	explicit_bzero(der, len);
	free(der);
	return rc;
}
