/* One TPM 1.2 command round trip (TPM 1.2 Main Specification Part 3):
 * header (tag, size, ordinal), parameters, then zero, one or two
 * authorization trailers; the response checked in the order size, tag,
 * rc, body, authorizations (HMACs verified), nothing left over. */
#ifndef TPMBOX_TPM12_CMD_H
#define TPMBOX_TPM12_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "tpm2/cmd.h"

#define TPM12_TAG_RQU_COMMAND		0x00c1
#define TPM12_TAG_RQU_AUTH1_COMMAND	0x00c2
#define TPM12_TAG_RQU_AUTH2_COMMAND	0x00c3
#define TPM12_TAG_RSP_AUTH1_COMMAND	0x00c5
#define TPM12_TAG_RSP_AUTH2_COMMAND	0x00c6

/* Return codes tpm12_call answers by flushing leftovers */
#define TPM12_NOSPACE			0x11u	/* no room to load a key */
#define TPM12_RESOURCES			0x15u	/* no room for a session */

/* TPM_RESOURCE_TYPE: what TPM_FlushSpecific and TPM_CAP_HANDLE name */
#define TPM12_RT_KEY			0x00000001u
#define TPM12_RT_AUTH			0x00000002u

#define TPM12_ORD_OIAP			0x0000000a
#define TPM12_ORD_OSAP			0x0000000b
#define TPM12_ORD_Extend		0x00000014
#define TPM12_ORD_PcrRead		0x00000015
#define TPM12_ORD_GetRandom		0x00000046
#define TPM12_ORD_GetCapability		0x00000065
#define TPM12_ORD_FlushSpecific		0x000000ba

#define TPM12_DIGEST_SIZE	20
#define TPM12_NONCE_SIZE	20
/* One authorization trailer in a response: nonceEven, continueAuthSession,
 * resAuth. */
#define TPM12_RSP_AUTH_SIZE	(20 + 1 + 20)

/* Non-fatal rcs carry this bit (TPM_NON_FATAL). */
#define TPM12_NON_FATAL		0x00000800u
#define TPM12_RETRY		0x00000800u
#define TPM12_BAD_ORDINAL	0x0000000au
#define TPM12_BAD_LOCALITY	0x0000003du

struct tpm12_sess;

struct tpm12_call {
	uint32_t ord;
	const uint8_t *in;	/* handles then parameters, no auth trailer */
	size_t inlen;
	/* Bytes of handles at the start of in and of the response body:
	 * left out of the parameter digests (Part 1, 11.2). */
	size_t in_handles;
	size_t out_handles;
	int na;			/* authorizations: 0, 1 or 2 */
	struct tpm12_sess *auth[2];
	/* results */
	uint32_t rc;
	const uint8_t *out;	/* response body without the auth trailers,
				 * inside tpm->rsp */
	size_t outlen;
};

/* Run one command.  Returns 0 with c->out/outlen set, or an exit code
 * with t->e set to "TPM_Name: TPM_X: sentence" (e->rc holds the rc).  A
 * response HMAC that does not verify is an error (exit 3): the caller
 * must act on nothing.  Sessions are marked ended when the TPM ended
 * them (continueAuthSession 0, or any error). */
int tpm12_call(struct tpm *t, struct tpm12_call *c);
/* TPM_FlushSpecific(handle, rt): the one place it is sent (keys,
 * sessions, leftovers).  An answer with bytes after the header is
 * exit 3. */
int tpm12_flush(struct tpm *t, uint32_t handle, uint32_t rt);

/* Check a raw response for command ordinal ord with na authorizations:
 * the parser tpm12_call uses, exposed for tests and fuzzing.  On success
 * *rc, *body, *blen are set (body excludes the auth trailers, which start
 * at body + blen).  Returns 0 or an exit code with e set. */
int tpm12_parse(const uint8_t *rsp, size_t rlen, uint32_t ord, int na,
		uint32_t *rc, const uint8_t **body, size_t *blen,
		struct tberr *e);

/* "TPM_PcrRead"; "TPM 1.2 command" when unknown. */
const char *tpm12_ord_name(uint32_t ord);
/* "TPM_BAD_LOCALITY: the command was sent at a locality ..." */
void tpm12_rc_describe(uint32_t rc, char *buf, size_t n);
/* Exit code per tpmbox(1) for a TPM 1.2 rc. */
int tpm12_rc_exit(uint32_t rc);

#endif
