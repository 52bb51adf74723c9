/* One TPM 2.0 command round trip: header, handles, authorization area,
 * parameters; response checked in the order size, tag, rc, handles,
 * parameters, authorizations, nothing left over. */
#ifndef TPMBOX_TPM2_CMD_H
#define TPMBOX_TPM2_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"
#include "tpm/transport.h"

#define TPM_BUF_SIZE 8192

struct tpm2_call;

/* Trace hook (set by the applet side; lib/ never prints).  dir is '>' for
 * a command, '<' for a response; bytes already masked. */
typedef void (*tpm_trace_fn)(char dir, uint32_t cc, const uint8_t *p,
			     size_t n);

struct tpm_trust;
struct tpm2_auth;

struct tpm {
	struct xport x;
	struct tberr *e;
	tpm_trace_fn trace;
	unsigned ncmds;		/* commands sent, for bench and tests */
	/* Transient objects and sessions (keys and sessions on a 1.2) this
	 * process loaded and has not flushed: never taken for another's
	 * leftovers (tpm_own_add, tpm_own_drop, tpm_own_has, below).  nown
	 * past TPM2_OWN_MAX: no longer known, nothing is flushed. */
#define TPM2_OWN_MAX 16
	uint32_t own[TPM2_OWN_MAX];
	unsigned nown;
	/* Leftovers flushed to make room (see flush_leftovers). */
	unsigned nflushed;
	int in_recovery;
	/* TPM_FAMILY_12 / TPM_FAMILY_20 once known (lib/job/tpm.c), else 0. */
	int family;
	/* The trust anchor and the process's salted session
	 * (lib/tpm2/srk.c; NULL until set).  While a session is active,
	 * tpm2_call adds it to every command whose answer the caller acts
	 * on, so the TPM HMACs the response (attach, below). */
	struct tpm_trust *trust;
	/* Fill a for this call and return 1 to add it as the call's last
	 * authorization; 0 leaves the call alone. */
	int (*attach)(struct tpm *t, struct tpm2_call *c,
		      struct tpm2_auth *a);
	/* Called by tpm_close before the transport closes (flushes the
	 * session and frees trust). */
	void (*release)(struct tpm *t);
	/* Called with every call's result (before an attached session is
	 * taken off it); returns the result to report. */
	int (*after)(struct tpm *t, struct tpm2_call *c, int rc);
	uint8_t cmd[TPM_BUF_SIZE];
	uint8_t rsp[TPM_BUF_SIZE];
};

/* An authorization for one handle: a password (handle TPM2_RS_PW) or a
 * session whose hooks build and check the HMAC (lib/tpm2/session.c). */
struct tpm2_auth {
	uint32_t handle;
	const uint8_t *pw;
	size_t pwlen;
	void *sess;
	/* Encrypt the first parameter if the session asks to (phase 0),
	 * then write this session's command auth (phase 1). */
	int (*cmd_auth)(void *sess, struct tpm2_call *c, int phase,
			struct tb *out, struct tberr *e);
	/* Check this session's response auth (nonce, attrs, hmac already
	 * read into in) and decrypt the first response parameter. */
	int (*rsp_auth)(void *sess, struct tpm2_call *c, struct tb *in,
			struct tberr *e);
	/* Set for a session that authorizes no handle of this call but is
	 * there to have the TPM HMAC the response (audit) and perhaps
	 * encrypt its first parameter (tpm2_session_audit). */
	int audit;
	int audit_enc;
	/* The session's last command: continueSession clear, so the TPM
	 * ends the session with it and no FlushContext is needed
	 * (tpm2_auth_last). */
	int last;
};

struct tpm2_name {
	const uint8_t *p;
	size_t n;
};

struct tpm2_call {
	uint32_t cc;
	int nh;			/* handles in the command */
	uint32_t h[3];
	struct tpm2_name name[3];	/* their names, for cpHash */
	int na;			/* authorizations (0 = no sessions) */
	struct tpm2_auth *auth[3];
	uint8_t *params;	/* marshalled parameters (may be encrypted in
				 * place by a session) */
	size_t plen;
	int nrh;		/* handles in the response (0 or 1) */
	/* results */
	uint32_t rh;
	uint32_t rc;
	uint8_t *rparams;	/* response parameters, inside tpm->rsp */
	size_t rplen;
};

/* Open the TPM named by conf (see xport_open).  Returns 0 or an exit code;
 * *out is allocated on success. */
int tpm_open(struct tpm **out, const char *conf, int timeout_s,
	     struct tberr *e);
void tpm_close(struct tpm *t);

/* The handles this process loaded (struct tpm's own[]): added when a
 * command answers one, dropped when it is flushed or ended.  Past
 * TPM2_OWN_MAX nothing is known any more (tpm_own_has then says yes to
 * every handle, so nothing is taken for a leftover). */
void tpm_own_add(struct tpm *t, uint32_t h);
void tpm_own_drop(struct tpm *t, uint32_t h);
int tpm_own_has(const struct tpm *t, uint32_t h);

/* Run one command.  Returns 0, or an exit code with t->e set to
 * "TPM2_Name: TPM_RC_X: sentence" (e->rc holds the code). */
int tpm2_call(struct tpm *t, struct tpm2_call *c);
/* Password authorization helper. */
void tpm2_auth_pw(struct tpm2_auth *a, const uint8_t *pw, size_t n);
/* Wipe the command and response buffers (after secrets crossed them). */
void tpm_wipe(struct tpm *t);
/* Name of a command code, "TPM2_PCR_Extend". */
const char *tpm2_cc_name(uint32_t cc);

#endif
