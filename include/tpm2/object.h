/* TPM 2.0 objects: TPMT_PUBLIC marshalling and parsing, names, the TCG
 * standard storage root key (SRK) templates, and the object and hierarchy
 * commands (CreatePrimary, Create, Load, ReadPublic, FlushContext,
 * EvictControl, HierarchyChangeAuth, DictionaryAttackParameters, Clear).
 *
 * Authorization: every command that needs one takes a struct tpm2_auth *
 * prepared by the caller, either a password (tpm2_auth_pw) or a session
 * (tpm2_session_use); NULL means the empty password. */
#ifndef TPMBOX_TPM2_OBJECT_H
#define TPMBOX_TPM2_OBJECT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

struct tpm;
struct tpm2_auth;

/* TPMA_OBJECT bits (Part 2, 8.3) */
#define TPMA_OBJECT_FIXEDTPM		(1u << 1)
#define TPMA_OBJECT_STCLEAR		(1u << 2)
#define TPMA_OBJECT_FIXEDPARENT		(1u << 4)
#define TPMA_OBJECT_SENSITIVEDATAORIGIN	(1u << 5)
#define TPMA_OBJECT_USERWITHAUTH	(1u << 6)
#define TPMA_OBJECT_ADMINWITHPOLICY	(1u << 7)
#define TPMA_OBJECT_NODA		(1u << 10)
#define TPMA_OBJECT_ENCRYPTEDDUPLICATION (1u << 11)
#define TPMA_OBJECT_RESTRICTED		(1u << 16)
#define TPMA_OBJECT_DECRYPT		(1u << 17)
#define TPMA_OBJECT_SIGN_ENCRYPT	(1u << 18)

/* Attributes of the standard SRK templates. */
#define TPM2_SRK_ATTRS (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | \
	TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | \
	TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)

#define TPM2_SRK_HANDLE		0x81000001u
#define TPM2_PUBLIC_MAX		1024	/* a TPMT_PUBLIC fits (RSA-4096) */
#define TPM2_PRIVATE_MAX	1024	/* a TPM2B_PRIVATE buffer fits */
#define TPM2_NAME_MAX		(2 + 64)

/* A TPMT_PUBLIC, both as fields and (after parse or marshal) as its wire
 * bytes with its name. */
struct tpm2_public {
	uint16_t type;		/* TPM2_ALG_RSA, _ECC, _KEYEDHASH, _SYMCIPHER */
	uint16_t name_alg;
	uint32_t attrs;		/* TPMA_OBJECT */
	uint8_t policy[64];	/* authPolicy */
	size_t policylen;
	/* parameters */
	uint16_t sym_alg;	/* TPMT_SYM_DEF_OBJECT: TPM2_ALG_NULL or AES */
	uint16_t sym_bits;
	uint16_t sym_mode;
	uint16_t scheme;	/* RSA/ECC/keyedhash scheme, TPM2_ALG_NULL */
	uint16_t scheme_hash;	/* its hashAlg when scheme != NULL */
	uint16_t scheme_count;	/* ECDAA count */
	uint16_t kdf;		/* ECC kdf scheme, keyedhash XOR kdf */
	uint16_t kdf_hash;
	uint16_t rsa_bits;
	uint32_t rsa_exp;	/* 0 = 65537 */
	uint16_t curve;		/* TPM2_ECC_NIST_P256 */
	/* unique */
	uint8_t ecc_x[66], ecc_y[66];
	size_t ecc_xlen, ecc_ylen;
	uint8_t rsa_n[512];
	size_t rsa_nlen;
	uint8_t unique[64];	/* keyedhash / symcipher TPM2B_DIGEST */
	size_t uniquelen;
	/* filled by tpm2_public_parse / tpm2_public_finish */
	uint8_t raw[TPM2_PUBLIC_MAX];	/* TPMT_PUBLIC wire bytes */
	size_t rawlen;
	uint8_t name[TPM2_NAME_MAX];	/* nameAlg || H(raw) */
	size_t namelen;
};

/* A TPM2B_PRIVATE's contents (without the size field). */
struct tpm2_private {
	uint8_t b[TPM2_PRIVATE_MAX];
	size_t n;
};

/* Marshal the fields of p as a TPMT_PUBLIC (no size prefix) into b. */
void tpm2_public_marshal(struct tb *b, const struct tpm2_public *p);
/* Marshal p's fields into p->raw and compute p->name.  -1 if too large or
 * the name algorithm is unsupported. */
int tpm2_public_finish(struct tpm2_public *p);
/* Parse a TPMT_PUBLIC (no size prefix) of exactly n bytes into o (fields,
 * raw, name).  Returns 0 or EX_FAIL with e set ("public area: why"). */
int tpm2_public_parse(const uint8_t *p, size_t n, struct tpm2_public *o,
		      struct tberr *e);
/* Parse a TPM2B_PUBLIC (UINT16 size, then TPMT_PUBLIC) from a cursor. */
int tpm2_public_get2b(struct tb *b, struct tpm2_public *o, struct tberr *e);
/* The name of p: nameAlg || H_nameAlg(raw).  Writes out (TPM2_NAME_MAX
 * bytes) and returns its length, 0 if the hash is unsupported. */
size_t tpm2_name_of(uint16_t name_alg, const uint8_t *raw, size_t n,
		    uint8_t *out);

/* Whether a public area the TPM returned for a created object is the
 * template asked for: every field but the unique one (ECC points must be
 * P-256 sized, RSA moduli the template's size). */
int tpm2_public_same_template(const struct tpm2_public *made,
			      const struct tpm2_public *tmpl);

/* The TCG standard SRK template (TCG TPM v2.0 Provisioning Guidance,
 * storage key; the EK Credential Profile's H-2 layout for ECC, H-1 for
 * RSA): ECC NIST P-256 (rsa = 0) or RSA-2048 (rsa = 1), nameAlg SHA-256,
 * TPM2_SRK_ATTRS, empty authPolicy, AES-128-CFB, NULL scheme and kdf,
 * exponent 0, an EMPTY unique field: the key systemd, tpm2-openssl,
 * GnuPG's tpm2d and GRUB derive for parent 0x40000001.  Fills p and
 * finishes it (raw bytes). */
void tpm2_srk_template(struct tpm2_public *p, int rsa);
/* The same with the unique field filled with zeros of the key's size: the
 * EK Credential Profile's low-range layout (L-1, L-2), and the SRK
 * tpmbox made before it derived the ecosystem's (its blobs and pins
 * still name that key: tpm2_srk_find makes it when they do). */
void tpm2_srk_template_zeros(struct tpm2_public *p, int rsa);
/* Whether a public area read from the TPM is an SRK made from one of the
 * two standard templates (every field but the unique key).  *rsa gets
 * which one (may be NULL). */
int tpm2_srk_matches(const struct tpm2_public *p, int *rsa);

/* TPM2_CreatePrimary under hierarchy hier (TPM2_RH_OWNER...) with template
 * tmpl (finished), the new object's authValue auth[0..authlen) (may be
 * NULL/0).  *handle gets the transient handle, out (may be NULL) the
 * parsed public area; the TPM's returned name is checked against the one
 * computed from it. */
int tpm2_create_primary(struct tpm *t, uint32_t hier, struct tpm2_auth *ha,
			const struct tpm2_public *tmpl, const uint8_t *auth,
			size_t authlen, uint32_t *handle,
			struct tpm2_public *out);

/* TPM2_Create under parent (pa authorizes it; parent_name/namelen its
 * name, needed for sessions, may be NULL for passwords).  data[0..datalen)
 * is the sensitive data (a sealed secret; NULL/0 for keys).  priv gets the
 * TPM2B_PRIVATE contents, pub the created public area (parsed). */
int tpm2_create(struct tpm *t, uint32_t parent, const uint8_t *parent_name,
		size_t parent_namelen, struct tpm2_auth *pa,
		const struct tpm2_public *tmpl, const uint8_t *auth,
		size_t authlen, const uint8_t *data, size_t datalen,
		struct tpm2_private *priv, struct tpm2_public *pub);

/* TPM2_Load of priv/pub (pub->raw must be set: parsed or finished) under
 * parent.  *handle gets the transient handle; the name the TPM returns is
 * checked against pub->name (mismatch: EX_FAIL). */
int tpm2_load(struct tpm *t, uint32_t parent, const uint8_t *parent_name,
	      size_t parent_namelen, struct tpm2_auth *pa,
	      const struct tpm2_private *priv, const struct tpm2_public *pub,
	      uint32_t *handle);

/* TPM2_ReadPublic: the object's public area, parsed, with its name
 * computed and checked against the name the TPM returns.  A missing
 * handle gives EX_NOENT. */
/* TPM2_LoadExternal of a public key alone in hierarchy hier (a key in the
 * owner hierarchy gives VerifySignature a ticket PolicyAuthorize takes; a
 * NULL-hierarchy key gives a NULL ticket).  The name the TPM returns must
 * be pub's. */
int tpm2_load_external(struct tpm *t, const struct tpm2_public *pub,
		       uint32_t hier, uint32_t *handle);
int tpm2_readpublic(struct tpm *t, uint32_t h, struct tpm2_public *pub);

/* TPM2_FlushContext of a transient object or session (0 = nothing). */
int tpm2_flush(struct tpm *t, uint32_t h);

/* TPM2_EvictControl authorized by owner (NULL: empty password): with a
 * transient obj, persist it at persistent; with obj == persistent (a
 * persistent handle), remove it.  obj_name is the object's name (needed
 * only with sessions; may be NULL). */
int tpm2_evict(struct tpm *t, struct tpm2_auth *owner, uint32_t obj,
	       const uint8_t *obj_name, size_t obj_namelen,
	       uint32_t persistent);

/* TPM2_HierarchyChangeAuth: hier is TPM2_RH_OWNER, _ENDORSEMENT, _LOCKOUT
 * or _PLATFORM, ha its current authorization, newauth the new value
 * (n == 0 clears it).  Use an encrypting session so the new value does not
 * cross the bus in clear. */
int tpm2_hierarchy_change_auth(struct tpm *t, uint32_t hier,
			       struct tpm2_auth *ha, const uint8_t *newauth,
			       size_t n);

/* TPM2_DictionaryAttackParameters (lockout authorization). */
int tpm2_da_parameters(struct tpm *t, struct tpm2_auth *lockout,
		       uint32_t max_tries, uint32_t recovery_s,
		       uint32_t lockout_recovery_s);

/* TPM2_Clear, authorized by TPM2_RH_LOCKOUT or TPM2_RH_PLATFORM. */
int tpm2_clear(struct tpm *t, uint32_t auth_handle, struct tpm2_auth *a);
/* TPM2_ClearControl(auth_handle, disable): TPM2_RH_LOCKOUT may only set
 * disableClear (disable 1), TPM2_RH_PLATFORM set or clear it. */
int tpm2_clear_control(struct tpm *t, uint32_t auth_handle,
		       struct tpm2_auth *a, int disable);
/* TPM2_HierarchyControl(auth_handle, enable, state): enable or disable
 * hierarchy 'enable'; the platform hierarchy only by itself. */
int tpm2_hierarchy_control(struct tpm *t, uint32_t auth_handle,
			   struct tpm2_auth *a, uint32_t enable, int state);
/* TPM2_Shutdown(type): TPM2_SU_STATE or TPM2_SU_CLEAR. */
int tpm2_shutdown(struct tpm *t, uint16_t type);

/* Finding the SRK and checking it against a pin: tpm2/srk.h. */

#endif
