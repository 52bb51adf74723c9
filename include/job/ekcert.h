/* EK certificates (TCG EK Credential Profile for TPM 2.0, 2.x): where
 * they live in NV, taking the DER out of an index's bytes, reading the
 * indices and the chain range, matching a certificate's key to the EK,
 * a CA given as a file or a directory, and the online location Intel
 * and AMD give for firmware TPMs without a certificate in NV. */
#ifndef TPMBOX_JOB_EKCERT_H
#define TPMBOX_JOB_EKCERT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct tpm;
struct tpm2_public;
struct crtset;

/* The EK template a certificate index is for. */
enum ek_tmpl { EKT_L1 = 1, EKT_L2, EKT_H1, EKT_H2, EKT_H3, EKT_H4, EKT_H5,
	       EKT_H6, EKT_H7 };

struct ekcert_slot {
	uint32_t index;
	enum ek_tmpl tmpl;
	int rsa;		/* RSA (else ECC) */
	const char *name;	/* "L-1", ... */
	const char *key;	/* "RSA-2048", "NIST P-384", ... */
};

/* Every certificate index of the profile, in the order ekcert looks:
 * 0x01c00002 (L-1), 0x01c0000a (L-2), 0x01c00012 ... 0x01c0001e (H-1 ..
 * H-7). */
extern const struct ekcert_slot ekcert_slots[];
extern const size_t ekcert_nslots;

/* The chain range: certificates of the CAs, one or more DER certificates
 * back to back in each index. */
#define EKCERT_CHAIN_FIRST	0x01c00100u
#define EKCERT_CHAIN_LAST	0x01c001ffu

/* The DER certificate in an index's bytes: a TPM 1.2 style header
 * (TCG_PCCLIENT_STORED_CERT: 10 01 00 SIZE16, then TCG_FULL_CERT's tag
 * 10 02) is taken off when present, never required; the DER's own length
 * decides where it ends, and what follows (padding) is left.  *off and
 * *len give the certificate.  Exit 1 "why" when no whole DER SEQUENCE is
 * there. */
int ekcert_der(const uint8_t *nv, size_t n, size_t *off, size_t *len,
	       struct tberr *e);

/* Read a whole NV index, authorized as nvread does without --auth (the
 * index's own empty value when authread is set, else the owner's).  Exit
 * 6 when the index is not defined; *data is malloc'd. */
int ekcert_read_index(struct tpm *t, uint32_t index, uint8_t **data,
		      size_t *n);

/* The certificates of the chain range into set (*count: how many; 0
 * when no index there is defined). */
int ekcert_read_chain(struct tpm *t, struct crtset *set, size_t *count);

/* The EK a certificate index is for: L-1/L-2 as ekpub finds them, H-n
 * as tpm2_ek_public_high (persisted beside the index, or made).  *how
 * gets EK_* (tpm2/ek.h).  Exit 1 for a template tpmbox does not make
 * (H-5). */
int ekcert_ek(struct tpm *t, const struct ekcert_slot *s,
	      struct tpm2_public *ek, int *how);

/* Whether a SubjectPublicKeyInfo is the key of the TPM public area:
 * 1 yes, 0 no (another key, type, curve or exponent, or unreadable). */
int ekcert_key_is(const uint8_t *spki, size_t n,
		  const struct tpm2_public *ek);

/* The certificates of a PEM file (several allowed), a DER file, or a
 * directory of such files (names starting with '.' skipped), into set.
 * Exit 6 missing, 3 unreadable, 2 "FILE: why" for a file that holds no
 * certificate or a bad one, or a directory with none. */
int ekcert_ca_load(const char *path, struct crtset *set, struct tberr *e);

/* First contact: the process session salted to an EK whose certificate
 * verifies to a CA of ca (a file or a directory, as ekcert_ca_load).  The
 * certificates at 0x01c00002 (L-1, RSA) then 0x01c0000a (L-2, ECC) are
 * tried in turn with the CA certificates NV holds as intermediates; for
 * the first that verifies, the EK (persisted, else made with the empty
 * endorsement value: tpm2_ek_find) must be its key, and the session is
 * salted to it (tpm2_trust_ek).  What was used goes to r.  Exit 1 when
 * no certificate verifies or the EK is not the certified key, 6 when NV
 * holds none, 2 in a build without X.509. */
struct ekcert_trusted {
	const char *slot;	/* "L-1" or "L-2" */
	char anchor[256];	/* the CA's subject */
	char subject[256];	/* the EK certificate's subject */
};
int ekcert_trust(struct tpm *t, const char *ca, struct ekcert_trusted *r);

/* TPM_PT_MANUFACTURER values. */
#define TPM_MANUF_INTC	0x494e5443u	/* "INTC" */
#define TPM_MANUF_AMD	0x414d4400u	/* "AMD\0" */
/* The manufacturer's online location of the EK certificate, computed
 * from the EK as tpm2-tools' tpm2_getekcertificate does it: Intel
 * https://ekop.intel.com/ekcertservice/ + base64url(SHA-256(n || 01 00
 * 01) or SHA-256(x || y)), '=' written %3D; AMD
 * https://ftpm.amd.com/pki/aia/ + hex of the first 16 bytes of
 * SHA-256(00 00 22 22 || e32 || n) or SHA-256(00 00 44 44 || x || y).
 * 0 and the URL in out; -1 for another manufacturer or key. */
int ekcert_vendor_url(uint32_t manufacturer, const struct tpm2_public *ek,
		      char *out, size_t cap);

#endif
