/* The endorsement key (TCG EK Credential Profile for TPM 2.0, the low
 * range templates L-1 RSA-2048 and L-2 NIST P-256, and the high range
 * H-1, H-2, H-3, H-6 and H-7): its template, finding
 * it (persisted at 0x81010001 / 0x81010002, else made under the
 * endorsement hierarchy), and authorizing its use: its authPolicy is
 * PolicySecret(TPM_RH_ENDORSEMENT), so each use takes a policy session
 * that ran TPM2_PolicySecret with the endorsement hierarchy's value. */
#ifndef TPMBOX_TPM2_EK_H
#define TPMBOX_TPM2_EK_H

#include <stdint.h>

#include "tpm2/object.h"
#include "tpm2/srk.h"

struct tpm;
struct tpm2_session;
struct tpm2_auth;

#define TPM2_EK_RSA_HANDLE	0x81010001u
#define TPM2_EK_ECC_HANDLE	0x81010002u

/* fixedTPM, fixedParent, sensitiveDataOrigin, adminWithPolicy,
 * restricted, decrypt: no userWithAuth, so only the policy authorizes. */
#define TPM2_EK_ATTRS (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | \
	TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_ADMINWITHPOLICY | \
	TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)

/* The L-1 (rsa) or L-2 template, finished (zero-filled unique). */
void tpm2_ek_template(struct tpm2_public *p, int rsa);
/* Whether p is an EK of one of those templates (any unique); *rsa gets
 * which (may be NULL). */
int tpm2_ek_matches(const struct tpm2_public *p, int *rsa);
/* The EK: the persisted one of that type when it is of the template,
 * else made with TPM2_CreatePrimary (empty endorsement value; k->transient
 * set, flush with tpm2_srk_put). */
int tpm2_ek_find(struct tpm *t, int rsa, struct tpm2_srk *k);
/* NV indices of the EK Credential Profile: a template (TPMT_PUBLIC) and
 * a nonce for the unique field, per key type. */
#define TPM2_EK_NV_RSA_NONCE	0x01c00003u
#define TPM2_EK_NV_RSA_TEMPLATE	0x01c00004u
#define TPM2_EK_NV_ECC_NONCE	0x01c0000bu
#define TPM2_EK_NV_ECC_TEMPLATE	0x01c0000cu

/* Where tpm2_ek_public found the EK. */
enum { EK_PERSISTED = 1, EK_TEMPLATE, EK_NV_TEMPLATE };

/* The EK's public area as the EK Credential Profile defines it: the one
 * persisted at 0x81010001 (rsa) / 0x81010002 when it is a restricted
 * decryption key of that type; else the key TPM2_CreatePrimary makes
 * under the endorsement hierarchy from the template in NV (with the NV
 * nonce, when present, at the start of the unique field, the rest zero)
 * or the L-1/L-2 template (made and flushed).  *how gets EK_*. */
int tpm2_ek_public(struct tpm *t, int rsa, struct tpm2_public *pub,
		   int *how);

/* The high range templates H-n of the EK Credential Profile 2.x (B.4.4),
 * finished: fixedTPM, fixedParent, sensitiveDataOrigin, userWithAuth,
 * adminWithPolicy, restricted, decrypt; PolicyB; AES-CFB; empty unique.
 * H-1 RSA-2048 and H-2 NIST P-256 (SHA-256, AES-128), H-3 NIST P-384,
 * H-6 RSA-3072 and H-7 RSA-4096 (SHA-384, AES-256).  -1 for H-4 (NIST
 * P-521), H-5 (SM2) and any other n. */
int tpm2_ek_template_high(struct tpm2_public *p, int n);
/* Where a high range EK is looked for persisted: beside its certificate's
 * index (swtpm_setup persists H-3 at 0x81010016, its certificate being at
 * 0x01c00016). */
#define TPM2_EK_HIGH_HANDLE(n)	(0x81010010u + 2u * (unsigned)(n))
/* The H-n EK's public area: the one persisted at TPM2_EK_HIGH_HANDLE(n)
 * when it is of the template, else made under the endorsement hierarchy
 * (empty value) and flushed.  *how gets EK_PERSISTED or EK_TEMPLATE.
 * Exit 2 for a template tpmbox does not make. */
int tpm2_ek_public_high(struct tpm *t, int n, struct tpm2_public *pub,
			int *how);

/* A policy session that satisfies the EK's policy for one command:
 * started (*s, flush it) when NULL, else reused; TPM2_PolicySecret
 * with the empty endorsement value; a filled for the call. */
int tpm2_ek_auth(struct tpm *t, struct tpm2_session **s,
		 struct tpm2_auth *a);

#endif
