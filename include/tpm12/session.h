/* TPM 1.2 authorization sessions (Main Specification Part 1, 11.2):
 * OIAP and OSAP, the command HMAC, the response HMAC check, ADIP
 * encryption of new auth values.  Keys and nonces are SHA-1 sized. */
#ifndef TPMBOX_TPM12_SESSION_H
#define TPMBOX_TPM12_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

struct tpm;

/* TPM_ENTITY_TYPE values for OSAP (the low byte; ADIP XOR is 0x00). */
#define TPM12_ET_KEYHANDLE	0x0001
#define TPM12_ET_OWNER		0x0002
#define TPM12_ET_SRK		0x0004
#define TPM12_ET_NV		0x000b
#define TPM12_KH_SRK		0x40000000u
#define TPM12_KH_OWNER		0x40000001u

struct tpm12_sess {
	uint32_t handle;
	int osap;
	int active;		/* the TPM holds it */
	uint8_t cont;		/* continueAuthSession for the next command */
	uint8_t key[20];	/* entity auth (OIAP) or shared secret (OSAP) */
	uint8_t nonce_even[20];
	uint8_t nonce_odd[20];
	uint8_t nonce_even_osap[20];
	int odd_ready;		/* nonce_odd drawn ahead (tpm12_sess_odd) */
};

/* Start a session.  auth is the entity's 20-byte auth value. */
int tpm12_oiap(struct tpm *t, const uint8_t auth[20], struct tpm12_sess *s);
int tpm12_osap(struct tpm *t, uint16_t etype, uint32_t evalue,
	       const uint8_t auth[20], struct tpm12_sess *s);
/* End it: FlushSpecific(TPM_RT_AUTH) when the TPM still holds it (a last
 * command sent with cont = 0 already ended it).  Wipes s. */
int tpm12_sess_end(struct tpm *t, struct tpm12_sess *s);
/* tpm12_sess_end after a failed command: the command's error (rc) is
 * kept over a flush's.  Returns rc. */
int tpm12_sess_end_keep(struct tpm *t, struct tpm12_sess *s, int rc);
/* After a command that was s's last (sent with cont = 0) and returned
 * rc: on an error s is ended and the error kept; a session the TPM kept
 * is ended and refused ("NAME: the TPM kept a session it was asked to
 * end", no "NAME: " when name is NULL); else s is wiped.  Returns the
 * exit code. */
int tpm12_sess_last(struct tpm *t, struct tpm12_sess *s, int rc,
		    const char *name);

/* One command authorized by a fresh OIAP session keyed with auth (20
 * bytes), sent with continueAuthSession = 0 so that the TPM ends it; the
 * answer's HMAC is checked by tpm12_call.  c->na and c->auth[0] are set
 * here.  On an error the session is ended and the error kept; on
 * success c->out is the answer (the TPM ended the session: an answer
 * that says otherwise is an error). */
struct tpm12_call;
int tpm12_call_oiap(struct tpm *t, const uint8_t auth[20],
		    struct tpm12_call *c);

/* tpm12_call_oiap for a command with no parameters whose answer has no
 * body (TPM_ResetLockValue, TPM_OwnerClear). */
int tpm12_call_oiap_bare(struct tpm *t, const uint8_t auth[20],
			 uint32_t ord);

/* ADIP: encAuth = newAuth XOR SHA-1(sharedSecret || nonceEven), the
 * nonceEven the session holds now (Part 1, 13.7.1). */
void tpm12_adip(const struct tpm12_sess *s, const uint8_t newauth[20],
		uint8_t enc[20]);

/* The math, for tpm12_call and the unit tests. */
/* SHA-1(u32 a || u32 b || p[0..n)): inParamDigest (a = ordinal, no b:
 * pass two = 0) or outParamDigest (a = rc, b = ordinal, two = 1). */
void tpm12_param_digest(uint32_t a, uint32_t b, int two, const uint8_t *p,
			size_t n, uint8_t out[20]);
/* HMAC-SHA1(key, digest || nonceEven || nonceOdd || cont). */
void tpm12_auth_hmac(const uint8_t key[20], const uint8_t digest[20],
		     const uint8_t even[20], const uint8_t odd[20],
		     uint8_t cont, uint8_t out[20]);
/* HMAC-SHA1(auth, nonceEvenOSAP || nonceOddOSAP). */
void tpm12_osap_secret(const uint8_t auth[20], const uint8_t even[20],
		       const uint8_t odd[20], uint8_t out[20]);

/* Draw the next command's nonceOdd now, for a command whose parameters
 * depend on it (TPM_Sealx masks its data with it).  -1 if no random
 * bytes could be had. */
int tpm12_sess_odd(struct tpm12_sess *s);
/* Write the command trailer for s (fresh nonceOdd unless drawn ahead, handle, nonceOdd,
 * cont, HMAC over digest).  -1 if no random bytes could be had. */
int tpm12_sess_put(struct tpm12_sess *s, const uint8_t digest[20],
		   struct tb *b);
/* Check a response trailer (41 bytes) against digest; on success take
 * the new nonceEven and the TPM's continue flag.  0, or an exit code. */
int tpm12_sess_check(struct tpm12_sess *s, const uint8_t digest[20],
		     const uint8_t *trailer, const char *what,
		     struct tberr *e);

#endif
