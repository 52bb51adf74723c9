/* Keys that live in the TPM: created under the SRK (keycreate), loaded
 * from their key file, and used to sign (TPM2_Sign) or decrypt
 * (TPM2_RSA_Decrypt).
 *
 * A key: nameAlg SHA-256, fixedTPM, fixedParent, sensitiveDataOrigin,
 * userWithAuth, and sign or decrypt (never both), no fixed scheme (each
 * use names it): ECC NIST P-256, or RSA 2048/3072 with the exponent
 * 65537.  Its file is the loadable TSS2 PRIVATE KEY of job/attest.h's
 * struct ak_blob (parent 0x81000001 where the SRK is persisted there,
 * else 0x40000001; emptyAuth when it has no value).
 *
 * Every use runs in the process's session salted to the SRK (pinned when
 * a pin is set): the key's auth value is never on the bus, and the
 * answer carries the TPM's HMAC.  A signature is also verified on the
 * host with the key's public area before it is given out. */
#ifndef TPMBOX_JOB_KEY_H
#define TPMBOX_JOB_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "fmt/quote.h"
#include "job/attest.h"
#include "job/keyimport.h"
#include "tpm2/object.h"

struct tpm;
struct tpm2_session;

/* The template (finished): rsa 0 for ECC P-256, else an RSA key of bits
 * (2048 or 3072); usage KEY_USE_SIGN or KEY_USE_DECRYPT. */
void key_template(struct tpm2_public *p, int rsa, int bits, int usage);

/* TPM2_Create of tmpl under the ECC SRK (owner keys its creation when
 * none is persistent), with the auth value auth[0..authlen) sent
 * encrypted; the key made is compared with the template (what names it
 * in the message: "key", "attestation key").  b gets the key file's
 * fields, pub the public area. */
int key_create(struct tpm *t, const struct tpm2_public *tmpl,
	       const uint8_t *auth, size_t authlen, const uint8_t *owner,
	       size_t ownerlen, const char *what, struct ak_blob *b,
	       struct tpm2_public *pub);

/* Load a key file's key under its parent (0x40000001 or 0x81000001: the
 * ECC SRK, found and checked against the pin, or made; or another
 * persistent handle) and start the process session salted
 * to that parent.  *handle is transient; pub gets its public area.  A
 * key with a policy (keycreate -p) also gets *pol: a policy session
 * salted to the parent in which the policy ran (PolicyPCR: exit 4 when
 * the PCRs are not the key's state; PolicyAuthValue); pol NULL refuses
 * such a key.  Flush both with key_flush.  A key from another TPM (or
 * SRK) is exit 1 saying so. */
int key_load(struct tpm *t, const struct ak_blob *b, const uint8_t *owner,
	     size_t ownerlen, uint32_t *handle, struct tpm2_public *pub,
	     struct tpm2_session **pol);

/* Parse a loadable key file (a TSS2 PRIVATE KEY with the loadable OID, a
 * policy of PolicyPCR and/or PolicyAuthValue or none, parent 0x40000001
 * or persistent); exit 1 "WHAT: why" for anything else (a sealed blob,
 * an importable key). */
int key_file_decode(const uint8_t *text, size_t n, struct ak_blob *k,
		    const char *what, struct tberr *e);
/* The largest key file read (a TSS2 PEM is about 2 KiB at most). */
#define KEY_FILE_MAX	(64 * 1024)
/* Read PATH (at most KEY_FILE_MAX bytes, base/file.h's checks) and decode
 * it as key_file_decode does; the text is wiped. */
int key_file_read(const char *path, struct ak_blob *k, const char *what,
		  struct tberr *e);

/* A key file's key for one use (sign, decrypt, unbind): blob filled by
 * key_file_read, the key loaded by key_open and used through t, handle,
 * pub and pol, flushed by key_close. */
struct key_loaded {
	struct ak_blob blob;
	struct tpm *t;			/* key_open's TPM */
	uint32_t handle;		/* transient; 0 when not loaded */
	struct tpm2_public pub;
	struct tpm2_session *pol;	/* a key with a policy: its session */
};

/* A zeroed one (malloc'd), NULL when out of memory. */
struct key_loaded *key_loaded_new(void);
/* The SRK pin's session (tpm_trust_begin), then key_load of k->blob
 * under its parent, no owner value.  Nothing stays loaded on failure. */
int key_open(struct tpm *t, struct key_loaded *k);
/* key_flush of what key_open loaded (nothing when it is not loaded),
 * keeping the error being reported. */
void key_close(struct key_loaded *k);
/* key_close, then the blob wiped and k freed; NULL is nothing. */
void key_loaded_free(struct key_loaded *k);

/* The files a key just made is written to (keycreate, keyimport,
 * akcreate): NULL for each one not asked for. */
struct key_outs {
	const char *key;	/* the key file (mode 0600) */
	const char *pub;	/* its public key: SubjectPublicKeyInfo PEM */
	const char *ssh;	/* the same as an OpenSSH public key line */
	const char *tpm_public;	/* its TPM2B_PUBLIC (tpm2_create -u) */
	const char *name;	/* its name, binary (tpm2_readpublic -n) */
	int flags;		/* OUT_FORCE (-f) or 0 */
};

/* Write them: the key file's text pem[0..pn), and the public parts from
 * pub, each encoded before the first file is written (atomically, in the
 * order above). */
int key_outs_write(const struct key_outs *o, const char *pem, size_t pn,
		   const struct tpm2_public *pub, struct tberr *e);
/* key_outs_write with b's key file (ak_blob_encode; the text wiped). */
int key_blob_write(const struct key_outs *o, const struct ak_blob *b,
		   const struct tpm2_public *pub, struct tberr *e);

/* key_load's loading, for a public area already parsed and checked into
 * pub: salt 0 leaves the process session alone (akcreate's AKs sign with
 * their empty value as a password: the quote is checked on the host). */
int key_load_as(struct tpm *t, const struct ak_blob *b, const uint8_t *owner,
		size_t ownerlen, int salt, uint32_t *handle,
		struct tpm2_public *pub, struct tpm2_session **pol);

/* TPM2_Sign of a digest (SHA-256, SHA-384 or SHA-512 sized) with scheme
 * (TPM2_ALG_ECDSA, _RSASSA or _RSAPSS, the hash from the digest's
 * size), the key's value auth; the signature is verified with pub
 * before it is returned.  Exit 2 for a scheme the key cannot make. */
int key_sign(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
	     struct tpm2_session *pol, const uint8_t *auth, size_t authlen,
	     uint16_t scheme,
	     const uint8_t *digest, size_t dlen, struct quote_sig *sig);

/* TPM2_RSA_Decrypt with OAEP (hash for the digest and MGF1: SHA-256 as a
 * rule) and no label; the answer is encrypted on the bus.  out holds at
 * most cap bytes. */
int key_decrypt(struct tpm *t, uint32_t key, const struct tpm2_public *pub,
		struct tpm2_session *pol, const uint8_t *auth, size_t authlen,
		uint16_t hash,
		const uint8_t *ct, size_t ctlen, uint8_t *out, size_t cap,
		size_t *outlen);

/* Flush a loaded key and its policy session (either may be 0/NULL),
 * keeping the error being reported. */
void key_flush(struct tpm *t, uint32_t key, struct tpm2_session *pol);

/* A signature as openssl reads it: DER ECDSA-Sig-Value for ECDSA, the
 * raw signature for RSA.  -1 when out (cap bytes) is too small. */
int key_sig_encode(const struct quote_sig *s, uint8_t *out, size_t cap,
		   size_t *n);

#endif
