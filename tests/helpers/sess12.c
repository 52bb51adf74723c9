/* sess12: drive the TPM 1.2 session code no applet uses yet, for
 * tests/tpm12.bats (built there from lib/).
 *
 * usage: sess12 TCTI MODE OWNERPASS
 *   oiap   OIAP keyed with SHA-1(OWNERPASS), TPM_GetCapabilityOwner sent
 *          with continueAuthSession = 0 (the TPM ends the session)
 *   osap   OSAP for the owner, TPM_GetCapabilityOwner twice (continue 1,
 *          then 0), then the session ended (nothing left to flush)
 *   flush  OIAP, then FlushSpecific ends it unused
 *   fill   a storage key made under the SRK (well-known value) and
 *          loaded until TPM_NOSPACE, then OIAP sessions opened until
 *          TPM_RESOURCES; exits with all of them loaded (what a killed
 *          process leaves).  Prints "keys N sessions M"; exit 0 only
 *          when both ran out.
 * Prints the answer (version, non-volatile and volatile flags) in hex;
 * exit 0, else the tpmbox exit code with the message. */
#include <stdio.h>
#include <string.h>

#include "base/hex.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "tpm12/cmd.h"
#include "tpm12/key.h"
#include "tpm12/session.h"

static int fail(struct tberr *e)
{
	fprintf(stderr, "sess12: %s\n", e->msg);
	return e->code ? e->code : 1;
}

static int owner_cap(struct tpm *t, struct tpm12_sess *s, int cont)
{
	struct tpm12_call c = { .ord = 0x66, .na = 1 };
	char hex[2 * 12 + 1];

	c.auth[0] = s;
	s->cont = (uint8_t)cont;
	if (tpm12_call(t, &c))
		return t->e->code;
	if (c.outlen != 12)
		return err_set(t->e, EX_IO, "GetCapabilityOwner: %zu bytes",
			       c.outlen);
	hex_encode(c.out, 12, hex);
	printf("%s\n", hex);
	return 0;
}

/* One process cannot flush its own keys and sessions as leftovers, so
 * this fills the TPM (lib/tpm12/cmd.c flush_leftovers). */
static int fill(struct tpm *t)
{
	static struct tpm12_key tmpl, key;
	static const uint8_t zero[20];
	struct tpm12_sess s;
	unsigned keys = 0, sess = 0;
	uint32_t h;

	memcpy(tmpl.ver, "\x01\x01\x00\x00", 4);
	tmpl.usage = TPM12_KEY_STORAGE;
	tmpl.flags = 4;
	tmpl.auth_usage = TPM12_AUTH_ALWAYS;
	tpm12_key_parms_rsa(&tmpl.parms, 2048, TPM12_ES_RSAESOAEP_SHA1_MGF1,
			    TPM12_SS_NONE);
	if (tpm12_create_wrap_key(t, TPM12_KH_SRK, zero, &tmpl, zero, &key))
		return fail(t->e);
	while (tpm12_loadkey2(t, TPM12_KH_SRK, zero, &key, &h) == 0)
		if (++keys > 64)
			break;
	if (t->e->rc != TPM12_NOSPACE)
		return fail(t->e);
	while (tpm12_oiap(t, zero, &s) == 0)
		if (++sess > 64)
			break;
	if (t->e->rc != TPM12_RESOURCES)
		return fail(t->e);
	printf("keys %u sessions %u\n", keys, sess);
	return 0;
}

int main(int argc, char **argv)
{
	struct tberr e;
	struct tpm *t;
	struct tpm12_sess s;
	uint8_t auth[20];
	int rc;

	if (argc != 4)
		return 2;
	memset(&e, 0, sizeof(e));
	hash_buf(TPM2_ALG_SHA1, argv[3], strlen(argv[3]), auth);
	if (tpm_open(&t, argv[1], 10, &e))
		return fail(&e);
	if (strcmp(argv[2], "fill") == 0)
		return fill(t);
	if (strcmp(argv[2], "oiap") == 0) {
		if ((rc = tpm12_oiap(t, auth, &s)) ||
		    (rc = owner_cap(t, &s, 0)))
			return fail(&e);
		if (s.active)
			return fprintf(stderr, "sess12: still active\n"), 1;
	} else if (strcmp(argv[2], "osap") == 0) {
		if ((rc = tpm12_osap(t, TPM12_ET_OWNER, TPM12_KH_OWNER, auth,
				     &s)) ||
		    (rc = owner_cap(t, &s, 1)) || (rc = owner_cap(t, &s, 0)))
			return fail(&e);
		if (s.active)
			return fprintf(stderr, "sess12: still active\n"), 1;
	} else if (strcmp(argv[2], "flush") == 0) {
		if ((rc = tpm12_oiap(t, auth, &s)))
			return fail(&e);
		printf("handle %08x\n", s.handle);
	} else {
		return 2;
	}
	if (tpm12_sess_end(t, &s))
		return fail(&e);
	tpm_close(t);
	return 0;
}
