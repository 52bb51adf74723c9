/* The endorsement key: see include/tpm2/ek.h. */
#include <string.h>

#include "tpm2/cmd.h"
#include "tpm2/constants.h"
#include "tpm2/ek.h"
#include "tpm2/policy.h"
#include "tpm2/session.h"

/* PolicySecret(TPM_RH_ENDORSEMENT), SHA-256 (EK Credential Profile). */
static const uint8_t ek_policy[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc,
	0x8d, 0x46, 0xa5, 0xd7, 0x24, 0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52,
	0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa
};

void tpm2_ek_template(struct tpm2_public *p, int rsa)
{
	tpm2_srk_template(p, rsa);
	p->attrs = TPM2_EK_ATTRS;
	memcpy(p->policy, ek_policy, sizeof(ek_policy));
	p->policylen = sizeof(ek_policy);
	tpm2_public_finish(p);
}

int tpm2_ek_matches(const struct tpm2_public *p, int *rsa)
{
	struct tpm2_public q = *p;

	/* the SRK template's checks, with the EK's attributes and policy */
	if (p->attrs != TPM2_EK_ATTRS || p->policylen != sizeof(ek_policy) ||
	    memcmp(p->policy, ek_policy, sizeof(ek_policy)))
		return 0;
	q.attrs = TPM2_SRK_ATTRS;
	q.policylen = 0;
	return tpm2_srk_matches(&q, rsa);
}

int tpm2_ek_find(struct tpm *t, int rsa, struct tpm2_srk *k)
{
	struct tpm2_public tmpl;
	struct tpm2_auth a;
	int rc, type;

	memset(k, 0, sizeof(*k));
	k->handle = rsa ? TPM2_EK_RSA_HANDLE : TPM2_EK_ECC_HANDLE;
	rc = tpm2_readpublic(t, k->handle, &k->pub);
	if (rc == 0 && tpm2_ek_matches(&k->pub, &type) && type == rsa)
		return 0;
	if (rc && rc != EX_NOENT)
		return rc;
	err_clear(t->e);
	tpm2_ek_template(&tmpl, rsa);
	tpm2_auth_pw(&a, NULL, 0);
	if ((rc = tpm2_create_primary(t, TPM2_RH_ENDORSEMENT, &a, &tmpl, NULL,
				      0, &k->handle, &k->pub))) {
		k->handle = 0;
		return err_prefix(t->e, "making the EK");
	}
	k->transient = 1;
	if (!tpm2_ek_matches(&k->pub, &type) || type != rsa) {
		tpm2_srk_put(t, k);
		return err_set(t->e, EX_FAIL, "TPM2_CreatePrimary: the key "
			       "made is not the EK its template asks for");
	}
	return 0;
}

int tpm2_ek_auth(struct tpm *t, struct tpm2_session **s,
		 struct tpm2_auth *a)
{
	struct tpm2_auth ea;
	int rc;

	/* A policy session that authorized a command starts over by itself
	 * (Part 1: its policyDigest is reset): no PolicyRestart needed. */
	if (!*s && (rc = tpm2_session_start(t, TPM2_SE_POLICY, TPM2_RH_NULL,
					    NULL, TPM2_RH_NULL, NULL, 0, 0,
					    s)))
		return rc;
	tpm2_auth_pw(&ea, NULL, 0);
	if ((rc = tpm2_policy_secret(t, TPM2_RH_ENDORSEMENT, &ea,
				     tpm2_session_handle(*s))))
		return err_prefix(t->e, "the EK's policy (PolicySecret with "
				  "the endorsement hierarchy)");
	tpm2_session_use(*s, a, NULL, 0);
	return 0;
}
