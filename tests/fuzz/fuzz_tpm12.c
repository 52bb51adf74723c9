/* The TPM 1.2 response parsers and session checks, fed responses from the
 * fuzzer.  Input: one byte choosing the operation, one parameter byte,
 * then TPM responses back to back (each as long as its header says; see
 * xport_stub.c). */
#include <stdlib.h>
#include <string.h>

#include "job/tpm.h"
#include "job/tpm12quote.h"
#include "tpm12/cap.h"
#include "tpm12/cmd.h"
#include "tpm12/da.h"
#include "tpm12/key.h"
#include "tpm12/nv.h"
#include "tpm12/owner.h"
#include "tpm12/pcr.h"
#include "tpm12/random.h"
#include "tpm12/session.h"
#include "tpm2/pcr.h"
#include "xport_stub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[70000];
	static const uint8_t zero[20];
	struct tberr e;
	struct tpm *t;
	uint8_t op, arg;

	if (size < 2)
		return 0;
	op = data[0];
	arg = data[1];
	memset(&e, 0, sizeof(e));
	if (op % 21 == 8) {
		/* The parser alone, on the raw bytes. */
		const uint8_t *body;
		size_t blen;
		uint32_t rc;

		if (tpm12_parse(data + 2, size - 2, 0x15, arg % 3, &rc, &body,
				&blen, &e) == 0 && rc == 0 &&
		    body + blen + (size_t)(arg % 3) * TPM12_RSP_AUTH_SIZE !=
		    data + size)
			abort();
		return 0;
	}
	stub_feed(data + 2, size - 2);
	if (tpm_open(&t, "fuzz", 2, &e))
		return 0;
	switch (op % 21) {
	case 0:
		/* Family from the first answer, then TPM_GetRandom loops. */
		tpm_getrandom(t, buf, (size_t)arg * 300 + 1);
		break;
	case 1: {
		struct pcr_sel alloc, sel;
		struct pcr_vals *v = malloc(sizeof(*v));
		unsigned n;

		if (v && tpm_pcr_banks(t, &alloc, &n) == 0 &&
		    pcr_sel_parse(arg & 1 ? "all" : "sha1:0,7,16", &sel,
				  &e) == 0 &&
		    tpm_pcr_resolve(t, &sel, &alloc, n) == 0)
			tpm_pcr_read(t, &sel, v);
		free(v);
		break;
	}
	case 2: {
		uint8_t d[64][64];
		uint16_t alg = 0x0004;

		memset(d, arg, sizeof(d));
		tpm_pcr_extend(t, arg % 24, 1, &alg,
			       (const uint8_t (*)[64])d);
		break;
	}
	case 3: {
		struct tpm12_info *in = malloc(sizeof(*in));

		if (in)
			tpm12_info(t, in);
		free(in);
		break;
	}
	case 4:
		tpm_family(t);
		break;
	case 5: {
		/* OIAP, then an authorized command whose response HMAC is
		 * checked, then the session's end. */
		struct tpm12_sess s;
		struct tpm12_call c = { .ord = 0x15, .na = 1 };
		uint8_t in[4] = { 0, 0, 0, arg };

		if (tpm12_oiap(t, zero, &s) == 0) {
			c.in = in;
			c.inlen = sizeof(in);
			c.auth[0] = &s;
			s.cont = arg & 1;
			tpm12_call(t, &c);
			tpm12_sess_end(t, &s);
		}
		break;
	}
	case 6: {
		struct tpm12_sess s, s2;
		struct tpm12_call c = { .ord = 0x18, .na = 2,
					.out_handles = arg % 8 };

		if (tpm12_osap(t, 1, 0x40000000u, zero, &s) == 0 &&
		    tpm12_oiap(t, zero, &s2) == 0) {
			c.auth[0] = &s;
			c.auth[1] = &s2;
			tpm12_call(t, &c);
			tpm12_sess_end(t, &s2);
		}
		tpm12_sess_end(t, &s);
		break;
	}
	case 7: {
		uint8_t d[20];

		tpm12_pcr_read(t, arg, d);
		break;
	}
	case 9: {
		/* TPM_CAP_DA_LOGIC: TPM_DA_INFO and TPM_DA_INFO_LIMITED */
		struct tpm12_da d;

		tpm12_da_state(t, &d);
		break;
	}
	case 10:
		/* TPM_ResetLockValue: OIAP, the call, its HMAC checked */
		tpm12_da_reset(t, zero);
		break;
	case 11: {
		/* takeown: the owner flag, then ReadPubek (checksum), OIAP,
		 * TakeOwnership (the SRK's TPM_KEY, HMAC) or, owned,
		 * OwnerReadInternalPub (TPM_PUBKEY) */
		struct tpm12_own *w = calloc(1, sizeof(*w));

		if (w)
			tpm12_takeown(t, w);
		free(w);
		break;
	}
	case 12:
		/* clearall: TPM_OwnerClear over OIAP */
		tpm12_owner_clear(t, zero);
		break;
	case 13:
		/* clearall --physical-presence, --reenable */
		if (arg & 1)
			tpm12_force_clear(t);
		else
			tpm12_reenable(t);
		break;
	case 14: {
		/* nvlist: TPM_CAP_NV_INDEX's TPM_NV_DATA_PUBLIC */
		struct tpm12_nv_public p;
		char perm[256];

		if (tpm12_nv_public(t, 0x00011101u, &p) == 0)
			tpm12_nv_perm_format(p.perm, perm, sizeof(perm));
		break;
	}
	case 15: {
		/* akcreate: OIAP, OSAP, TPM_MakeIdentity (two HMACs, the
		 * TPM_KEY and the binding), both sessions' ends */
		struct tpm12_aik *a = malloc(sizeof(*a));

		if (a)
			tpm12_make_identity(t, zero, zero, a);
		free(a);
		break;
	}
	case 16: {
		/* TPM_LoadKey2 over OIAP (the returned handle outside the
		 * HMAC), then TPM_FlushSpecific */
		struct tpm12_key *k = calloc(1, sizeof(*k));
		uint32_t h;

		if (k) {
			k->ver[0] = k->ver[1] = 1;
			k->usage = TPM12_KEY_IDENTITY;
			tpm12_key_parms_rsa(&k->parms, 2048, TPM12_ES_NONE,
					    TPM12_SS_RSASSAPKCS1v15_SHA1);
			if (tpm12_loadkey2(t, 0x40000000u, zero, k, &h) == 0)
				tpm12_flush_key(t, h);
		}
		free(k);
		break;
	}
	case 17: {
		/* quote: TPM_Quote (its composite) or TPM_Quote2 (its
		 * TPM_PCR_INFO_SHORT, then TPM_PcrRead per PCR), with or
		 * without OIAP, then the signature check */
		struct tpm12_key *k = calloc(1, sizeof(*k));
		struct quote12 *q = malloc(sizeof(*q));

		if (k && q) {
			k->usage = TPM12_KEY_IDENTITY;
			k->auth_usage = arg & 2 ? TPM12_AUTH_ALWAYS :
					TPM12_AUTH_NEVER;
			tpm12_key_parms_rsa(&k->parms, 2048, TPM12_ES_NONE,
					    TPM12_SS_RSASSAPKCS1v15_SHA1);
			k->publen = 256;
			memset(k->pub, 0xc5, 256);
			tpm12_quote(t, 0x01000000u, k, zero,
				    arg & 4 ? 0x81u : 0x400u | arg, arg & 1, q);
		}
		free(k);
		free(q);
		break;
	}
	case 18: {
		/* nvdefine / nvrelease: the index's public part (nvdefine
		 * asks whether it exists), OSAP on the owner, then
		 * TPM_NV_DefineSpace with its HMAC checked */
		struct tpm12_nv_public p, q;

		tpm12_nv_public_init(&p, 0x00011101u, 0x00020002u, 32);
		if (tpm12_nv_public(t, 0x00011101u, &q) == 0) {
			if (arg & 1)
				tpm12_nv_release(t, zero, &q);
		} else {
			tpm12_nv_define(t, zero, zero, &p);
		}
		break;
	}
	case 19: {
		/* nvwrite: TPM_CAP_PROP_INPUT_BUFFER, OSAP (owner, index or
		 * none), chunks of WriteValue(Auth) */
		struct tpm12_nv_access x = { .index = 0x00011101u,
					     .by = (enum tpm12_nv_by)(arg % 3) };

		memset(buf, arg, 9000);
		if (tpm12_nv_chunk(t, &x.chunk) == 0)
			tpm12_nv_write(t, &x, buf, (size_t)(arg >> 2) * 80,
				       0);
		break;
	}
	case 20: {
		/* nvread: the same with ReadValue(Auth), each answer's size
		 * checked against the size asked for */
		struct tpm12_nv_access x = { .index = 0x00011101u,
					     .by = (enum tpm12_nv_by)(arg % 3) };

		if (tpm12_nv_chunk(t, &x.chunk) == 0)
			tpm12_nv_read(t, &x, buf, (size_t)(arg >> 2) * 80 + 1,
				      0);
		break;
	}
	}
	tpm_close(t);
	return 0;
}
