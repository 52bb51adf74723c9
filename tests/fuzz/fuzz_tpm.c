/* Every TPM response parser, fed responses from the fuzzer.  Input: one
 * byte choosing the operation, one parameter byte, then TPM responses
 * back to back (each as long as its header says; see xport_stub.c). */
#include <stdlib.h>
#include <string.h>

#include "base/tpm2const.h"
#include "fmt/quote.h"
#include "job/attest.h"
#include "job/cred.h"
#include "job/key.h"
#include "tpm2/authorize.h"
#include "tpm2/cap.h"
#include "tpm2/cmd.h"
#include "tpm2/dup.h"
#include "tpm2/ek.h"
#include "tpm2/nv.h"
#include "tpm2/object.h"
#include "tpm2/pcr.h"
#include "tpm2/policy.h"
#include "tpm2/random.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"
#include "xport_stub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[4096];
	struct tberr e;
	struct tpm *t;
	uint8_t op, arg;

	if (size < 2)
		return 0;
	op = data[0];
	arg = data[1];
	memset(&e, 0, sizeof(e));
	stub_feed(data + 2, size - 2);
	if (tpm_open(&t, "fuzz", 2, &e))
		return 0;
	switch (op % 19) {
	case 0:
		tpm2_getrandom(t, buf, (size_t)arg * 4 + 1);
		break;
	case 1: {
		struct pcr_sel alloc, sel;
		struct pcr_vals *v = malloc(sizeof(*v));
		unsigned n;

		if (v && tpm2_pcr_banks(t, &alloc, &n) == 0 &&
		    pcr_sel_parse(arg & 1 ? "all" : "sha256:0-7+sha1:16",
				  &sel, &e) == 0 &&
		    pcr_sel_resolve(&sel, &alloc, n, &e) == 0)
			tpm2_pcr_read(t, &sel, v);
		free(v);
		break;
	}
	case 2: {
		struct tpm2_prop p[256];
		size_t n;
		uint32_t v;

		if (tpm2_getprops(t, 0x100, 0x80, p, 256, &n) == 0)
			tpm2_prop_find(p, n, 0x100 + arg, &v);
		break;
	}
	case 3: {
		uint32_t h[64];
		size_t n;

		tpm2_gethandles(t, arg & 1 ? 0x81000000u : 0x01000000u, h,
				64, &n);
		break;
	}
	case 4: {
		struct nv_public p;

		tpm2_nv_readpublic(t, 0x01500001, &p);
		break;
	}
	case 5: {
		uint32_t a, b;
		int yes;

		if (tpm2_nv_limits(t, &a, &b) == 0)
			tpm2_has_command(t, TPM2_CC_NV_Read, &yes);
		break;
	}
	case 6: {
		struct tpm2_public pub;

		tpm2_readpublic(t, 0x81000001, &pub);
		break;
	}
	case 7: {
		/* NV read with the empty password, in buffer-max chunks. */
		struct nv_public p;
		struct tpm2_auth a;
		struct nv_access x;

		if (tpm2_nv_readpublic(t, 0x01500001, &p))
			break;
		tpm2_auth_pw(&a, NULL, 0);
		x.p = &p;
		x.auth_handle = p.index;
		x.a = &a;
		x.chunk = 16 + arg;
		tpm2_nv_read(t, &x, buf, p.size, 0);
		break;
	}
	case 8: {
		/* An HMAC session, then an NV read authorized by it. */
		struct tpm2_session *s = NULL;
		struct nv_public p;
		struct tpm2_auth a;
		struct nv_access x;

		if (tpm2_nv_readpublic(t, 0x01500001, &p))
			break;
		if (tpm2_session_start(t, TPM2_SE_HMAC, TPM2_RH_NULL, NULL,
				       TPM2_RH_NULL, NULL, 0,
				       arg & 1 ? SESS_ENC_RSP : 0, &s))
			break;
		tpm2_session_use(s, &a, (const uint8_t *)"pw", 2);
		x.p = &p;
		x.auth_handle = p.index;
		x.a = &a;
		x.chunk = 64;
		tpm2_nv_read(t, &x, buf, p.size, 0);
		tpm2_session_flush(t, s);
		break;
	}
	case 9: {
		struct tpm2_public pub;
		uint32_t h;
		int tr, other;

		tpm2_srk_get(t, arg & 1, NULL, 0, &h, &pub, &tr, &other);
		break;
	}
	case 10: {
		struct pcr_sel sel;
		struct quote *q = malloc(sizeof(*q));
		struct tpm2_public ak;

		ak_template(&ak, arg & 1);
		if (q && pcr_sel_parse("sha256:0,7", &sel, &e) == 0)
			ak_quote(t, 0x80000001, &ak, (const uint8_t *)"nonce",
				 5, &sel, q);
		free(q);
		break;
	}
	case 11: {
		uint16_t algs[2] = { TPM2_ALG_SHA256, TPM2_ALG_SHA1 };
		static const uint8_t d[2][64];

		tpm2_pcr_extend(t, arg % 24, 1 + (arg & 1), algs, d);
		break;
	}
	case 12: {
		/* TPM2_Import's answer (unseal of a seal --to blob) */
		static struct tpm2_public obj;
		static struct tpm2_private dup, priv;
		static const uint8_t seed[4] = { 0, 2, 1, 2 };
		static const uint8_t inner[16];

		obj.rawlen = 4;
		dup.n = 8;
		tpm2_import(t, 0x81000001, NULL, 0, NULL, &obj, &dup, seed,
			    sizeof(seed), inner, sizeof(inner), &priv);
		break;
	}
	case 13: {
		/* seal --to-ek's unseal: the EK found or made, its policy
		 * session (StartAuthSession, PolicySecret) */
		struct tpm2_session *s = NULL;
		struct tpm2_srk ek;
		struct tpm2_auth a;

		if (arg & 2) {
			static struct tpm2_public pub;
			int how;

			/* ekpub: persisted, NV template and nonce, made */
			tpm2_ek_public(t, arg & 1, &pub, &how);
		} else if (tpm2_ek_find(t, arg & 1, &ek) == 0) {
			tpm2_ek_auth(t, &s, &a);
			tpm2_srk_put(t, &ek);
		}
		if (s)
			tpm2_session_flush(t, s);
		break;
	}
	case 14: {
		/* activatecredential: AK loaded, EK, sessions, the answer */
		static struct ak_blob b;
		static struct credfile cf;
		struct tpm2_public ak;
		uint8_t sec[TPM2_CRED_MAX];
		size_t n;

		ak_template(&ak, arg & 1);
		b.parent = 0x81000001;
		b.pub[0] = (uint8_t)(ak.rawlen >> 8);
		b.pub[1] = (uint8_t)ak.rawlen;
		memcpy(b.pub + 2, ak.raw, ak.rawlen);
		b.publen = ak.rawlen + 2;
		b.privlen = 4;
		b.priv[1] = 2;
		cf.idlen = 4;
		cf.secretlen = arg & 2 ? 2 + 256 : 2 + 68;
		tpm2_activate(t, &b, &cf, sec, &n);
		break;
	}
	case 15: {
		/* unseal --signature / PolicyOR: LoadExternal, VerifySignature,
		 * PolicyAuthorize, PolicyOR and their answers */
		static struct tpm2_public k;
		static const uint8_t sig[256], pol[32], ds[64];
		struct tpm2_ticket tk;
		uint32_t h = 0;

		k.type = TPM2_ALG_RSA;
		k.name_alg = TPM2_ALG_SHA256;
		k.sym_alg = k.scheme = TPM2_ALG_NULL;
		k.rsa_bits = 2048;
		k.rsa_nlen = 256;
		k.rsa_n[0] = 0x80;
		if (tpm2_public_finish(&k))
			break;
		if (arg & 1) {
			tpm2_policy_or(t, 0x03000000, ds, 2, 32);
			break;
		}
		if (tpm2_load_external(t, &k, TPM2_RH_OWNER, &h) == 0 &&
		    tpm2_verify_signature(t, h, k.name, k.namelen, &k, pol,
					  sizeof(pol), sig, sizeof(sig),
					  &tk) == 0)
			tpm2_policy_authorize(t, 0x03000000, pol, sizeof(pol),
					      k.name, k.namelen, &tk);
		if (h)
			tpm2_flush(t, h);
		break;
	}
	case 16: {
		/* pcrallocate: the implemented banks, then the answer */
		struct pcr_sel impl;
		struct pcr_alloc res;
		struct tpm2_auth a;
		unsigned n;

		tpm2_auth_pw(&a, NULL, 0);
		if (tpm2_pcr_implemented(t, &impl, &n) == 0)
			tpm2_pcr_allocate(t, &a, &impl, &res);
		break;
	}
	case 17:
	case 18: {
		/* keys in the TPM: the SRK found or made, the session, Load,
		 * then TPM2_Sign (its signature checked) or TPM2_RSA_Decrypt */
		static struct ak_blob b;
		static struct tpm2_public tmpl, pub;
		static struct quote_sig sig;
		static uint8_t out[512];
		static const uint8_t dg[32], ct[256];
		struct tpm2_session *pol = NULL;
		uint32_t h = 0;
		size_t n;
		struct tb w;

		memset(&b.pol, 0, sizeof(b.pol));
		key_template(&tmpl, op % 19 == 18, 2048, op % 19 == 18 ?
			     KEY_USE_DECRYPT : KEY_USE_SIGN);
		b.parent = arg & 1 ? TPM2_RH_OWNER : 0x81000001;
		tb_init(&w, b.pub, sizeof(b.pub));
		tb_put_tpm2b(&w, tmpl.raw, tmpl.rawlen);
		b.publen = w.len;
		b.priv[1] = 8;
		b.privlen = 10;
		if (arg & 2) {	/* keycreate -p's policy: the policy session */
			b.pol.pcr = 1;
			b.pol.sel.n = 1;
			b.pol.sel.b[0].alg = TPM2_ALG_SHA256;
			b.pol.sel.b[0].mask = 1u << 16;
			b.pol.dlen = 32;
			b.pol.authvalue = (arg & 4) != 0;
		}
		if (key_load(t, &b, NULL, 0, &h, &pub, &pol) == 0) {
			if (op % 19 == 17)
				key_sign(t, h, &pub, pol, NULL, 0,
					 TPM2_ALG_ECDSA, dg, sizeof(dg), &sig);
			else
				key_decrypt(t, h, &pub, pol, NULL, 0,
					    TPM2_ALG_SHA256, ct, sizeof(ct),
					    out, sizeof(out), &n);
			key_flush(t, h, pol);
		}
		break;
	}
	}
	tpm_close(t);
	return 0;
}
