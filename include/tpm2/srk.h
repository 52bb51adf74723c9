/* The trust anchor (DESIGN.md, "Trust"): the storage root key tpmbox
 * salts its sessions to, pinned by a name or public key the user gives,
 * and the one salted session a process keeps.
 *
 * Pin: --srk-name HEX, --srk-pub FILE (the PEM takeown --srk-pub wrote),
 * or TPMBOX_SRK (a name in hex or a path to that PEM).  With a pin, the
 * SRK read from 0x81000001 (or made with CreatePrimary when none is
 * persisted) must have the pinned name before anything secret is sent;
 * another key is refused (exit 1, naming both names).  Without one the
 * first key the TPM (or whatever answers on the bus) presents is taken:
 * trust on first use.
 *
 * The process session: an HMAC session salted to that key, started once
 * (tpm2_trust_start / tpm2_trust_need) and reused for every command of
 * the process.  While it is active, tpm2_call adds it as an audit
 * session to every command whose answer tpmbox acts on (GetCapability,
 * PCR_Read, GetRandom (its output encrypted too), PCR_Extend,
 * ReadPublic, NV_ReadPublic, PolicyPCR, CreatePrimary, Create, Load, ...),
 * so the TPM HMACs the response with a key only it and tpmbox hold; a
 * response whose HMAC does not verify fails the call.  tpm_close flushes
 * it.
 *
 * Hierarchy passwords (owner, lockout) are never sent as plain passwords:
 * they key the process session.  When no SRK can be had without the
 * owner password (none persisted and the owner has one), the session is
 * salted to a fresh primary key in the NULL hierarchy, which is not
 * pinnable: that is refused with a pin (exit 2) unless --allow-unsalted
 * is given. */
#ifndef TPMBOX_TPM2_SRK_H
#define TPMBOX_TPM2_SRK_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpm2/object.h"

struct tpm;
struct tpm2_session;

struct srk_pin {
	int set;
	int remembered;		/* from the remembered file (takeown's) */
	char from[96];		/* for messages: "--srk-name" ... */
	uint16_t type;		/* TPM2_ALG_ECC or _RSA, 0: unknown */
	uint8_t name[TPM2_NAME_MAX];
	size_t namelen;
	/* A pin from a public key (a file) holds the whole public area: a
	 * session is salted to it without asking the TPM for the key first
	 * (tpm2_srk_session_pinned). */
	int have_pub;
	struct tpm2_public pub;
};

/* A pin from a name in hex ("000b" + 64 hex digits, as takeown prints
 * it).  Exit 2 when it is not a name of a supported hash. */
int srk_pin_name(struct srk_pin *p, const char *hex, const char *from,
		 struct tberr *e);
/* A pin from the SRK's public key (PEM or DER SubjectPublicKeyInfo, as
 * takeown --srk-pub writes it): the name of the standard SRK template
 * with that key.  Exit 6/3 for a missing or unreadable file, 2 when it
 * holds no P-256 or RSA-2048 public key. */
/* Read a standard SRK's (ek: EK's, tpm2/ek.h) public area from path:
 * its public key (PEM or DER SubjectPublicKeyInfo, as takeown --srk-pub
 * writes it) on the standard template, or a TPM2B_PUBLIC
 * (tpm2_readpublic -o).  Exit 2 when it is not such a key, 3/6 when
 * unreadable; from names the option in messages. */
int srk_pub_read(const char *path, struct tpm2_public *k, int ek,
		 const char *from, struct tberr *e);
int srk_pin_pub(struct srk_pin *p, const char *path, const char *from,
		struct tberr *e);
/* Where takeown remembers the SRK's public key and every later process
 * pins to it: the machine's own TPM (a device) only; TPMBOX_SRK_FILE names
 * another file, for any TPM (tests, images, a throwaway swtpm). */
#define SRK_REMEMBERED_PATH	"/etc/tpmbox/srk.pem"
/* A pin from the remembered file at path: none (p->set 0, 0 returned)
 * when there is no such file; else as srk_pin_pub, its messages naming
 * "the remembered SRK", and a mismatch's hint saying what to do when the
 * TPM really was cleared or replaced. */
int srk_pin_remembered(struct srk_pin *p, const char *path,
		       struct tberr *e);
/* TPMBOX_SRK's value: a name in hex, else a path to the PEM. */
int srk_pin_env(struct srk_pin *p, const char *val, struct tberr *e);
/* The name in hex (at most 2 * TPM2_NAME_MAX + 1 bytes in out). */
void srk_name_hex(const uint8_t *name, size_t n, char *out);

/* The trust settings of this process (main.c, from the options and the
 * environment): the pin (may be NULL or unset) and --allow-unsalted. */
int tpm_trust_set(struct tpm *t, const struct srk_pin *pin,
		  int allow_unsalted);
/* Whether a pin is set. */
int tpm_trust_pinned(const struct tpm *t);

/* What a session is salted to (tpm2_trust_kind). */
enum {
	TRUST_NONE = 0,		/* no process session */
	TRUST_PINNED,		/* the SRK, with the pinned name */
	TRUST_TOFU,		/* an SRK, no pin set: trust on first use */
	TRUST_NULL,		/* a NULL-hierarchy key: never pinnable */
	TRUST_EK,		/* an EK whose certificate verified */
};

struct tpm2_srk {
	uint32_t handle;	/* 0x81000001 or a transient handle */
	int transient;		/* made with CreatePrimary: flush it */
	int found_other;	/* 0x81000001 holds another object (no pin) */
	struct tpm2_public pub;	/* with its name */
};

/* What tpm2_srk_find looks for. */
struct srk_want {
	int rsa;		/* the template to make one from */
	int exact;		/* a persisted SRK of the other type does not
				 * do: make this one (transient) */
	const uint8_t *owner;	/* owner auth for CreatePrimary (NULL:
				 * empty; keys the salted session, never
				 * sent) */
	size_t ownerlen;
	const uint8_t *name;	/* a further pin: a blob's recorded name */
	size_t namelen;
	const char *name_from;	/* for messages ("BLOB") */
	int older;		/* make the SRK an older tpmbox made (unique
				 * filled with zeros), not the persisted one:
				 * for a key file that does not load under
				 * the SRK of today's template */
	int transient;		/* make it (today's template) even when one
				 * is persisted */
};

/* The SRK: the standard one at 0x81000001, or one made from the template
 * under the owner hierarchy (transient).  Checked against the pin and
 * want->name: another key is exit 1 before anything else is sent.  A
 * made key is also compared with its template.  With no pin, an object at
 * 0x81000001 that is not a standard SRK sets k->found_other and a key is
 * made (the caller decides whether to go on). */
int tpm2_srk_find(struct tpm *t, const struct srk_want *want,
		  struct tpm2_srk *k);
/* Check a key against the pin (no pin: 0).  where names it in the
 * message ("the key at 0x81000001"). */
int tpm2_srk_check(struct tpm *t, const struct tpm2_public *pub,
		   const char *where);
/* Flush a transient SRK (keeps the error being reported). */
void tpm2_srk_put(struct tpm *t, struct tpm2_srk *k);

/* Start the process session salted to key (once: when one is active this
 * does nothing).  From here on commands carry response HMACs. */
int tpm2_trust_start(struct tpm *t, uint32_t key,
		     const struct tpm2_public *pub);
/* Start the process session salted to an EK whose public area the
 * caller matched with a certificate that verified (ekcert_trust): only
 * that TPM learns the salt, so every answer HMACed in the session is
 * that TPM's, pin or not.  Does nothing when a session is up. */
int tpm2_trust_ek(struct tpm *t, uint32_t key, const struct tpm2_public *pub);
/* The process session, started if needed: salted to the SRK at
 * 0x81000001 (pinned when a pin is set; with no pin a standard SRK),
 * else to the SRK made from the template with the empty owner value
 * (with a pin) or to a NULL-hierarchy key (no pin, or --allow-unsalted).
 * Exit 2 when a pin is set and no key can be pinned. */
int tpm2_trust_need(struct tpm *t, struct tpm2_session **s);
/* The process session salted to a fresh primary key in the NULL
 * hierarchy, for an owner or lockout value when no SRK can be used
 * without it (why: that value, "the owner auth value", for the
 * message).  Its name changes
 * with every TPM reset, so it cannot be pinned: with a pin set this is
 * exit 2 unless --allow-unsalted.  Does nothing when a session is up. */
int tpm2_trust_null(struct tpm *t, const char *why);
/* With a pin set, start the process session (tpm2_trust_need); without
 * one do nothing (the answers stay unauthenticated, as documented). */
int tpm2_trust_begin(struct tpm *t);
/* With a pin that holds the SRK's public key: start a session of type
 * (TPM2_SE_*) and flags (SESS_*) salted to 0x81000001 as that key, without
 * asking the TPM for the key first (one ReadPublic less).  Whether the
 * key there is the pinned one shows at the first answer that depends on
 * it (the process session's first HMAC, a Load under it); a command that
 * fails before is followed by a ReadPublic that names another key, or a
 * missing one, as such (exit 1).  0 with *s NULL: no key in the pin, or
 * the TPM refused the session: the caller goes on as without the key. */
int tpm2_srk_session_pinned(struct tpm *t, int type, int flags,
			    struct tpm2_session **s);
/* The process session salted to the pin's public key that way, when the
 * pin holds one and the TPM takes it (else nothing is started, and 0). */
int tpm2_trust_try_pinned(struct tpm *t);
/* The process session's next use is its last: that command goes with
 * continueSession clear and the TPM ends the session with it (no
 * FlushContext).  Should a later command need the session, it is started
 * again.  Only for a session salted to the persistent SRK. */
void tpm2_trust_last(struct tpm *t);
/* The call a authorizes is the process session's last use: a itself is
 * marked (tpm2_auth_last) when it is that session, else the session
 * attached to the call is (tpm2_trust_last). */
void tpm2_trust_last_for(struct tpm *t, struct tpm2_auth *a);
/* Whether tpm2_trust_last is pending; clears it (a job of several
 * commands sets it again before its final one). */
int tpm2_trust_take_last(struct tpm *t);
/* The process session, or NULL. */
struct tpm2_session *tpm2_trust_session(const struct tpm *t);
/* TRUST_*: what the process session is salted to. */
int tpm2_trust_kind(const struct tpm *t);

/* Backwards-compatible form of tpm2_srk_find (fuzz harness, sesscheck):
 * rsa, the owner auth, and *found_other (may be NULL). */
int tpm2_srk_get(struct tpm *t, int rsa, const uint8_t *owner_auth,
		 size_t owner_authlen, uint32_t *handle,
		 struct tpm2_public *pub, int *transient, int *found_other);

#endif
