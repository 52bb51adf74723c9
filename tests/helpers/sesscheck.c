/* sesscheck: drive session paths no applet uses on its own, for
 * tests/session.bats (built there from lib/).
 *
 * usage: sesscheck TCTI MODE OLD NEW
 *   bound     an HMAC session bound to the owner hierarchy (auth OLD) and
 *             salted to the SRK changes the owner auth to NEW (bound
 *             entity: the value is left out of the HMAC), then the
 *             endorsement auth from empty to NEW (not the bound entity:
 *             included)
 *   unsalted  an unsalted, unbound HMAC session changes the owner auth
 *             from OLD to NEW (HMAC keyed by the auth value alone)
 *   emptykey  the same with OLD empty: no key at all, empty command HMAC
 * Exit 0 on success, else the tpmbox exit code with the message. */
#include <stdio.h>
#include <string.h>

#include "base/tpm2const.h"
#include "tpm2/cmd.h"
#include "tpm2/object.h"
#include "tpm2/session.h"
#include "tpm2/srk.h"

static int fail(struct tberr *e)
{
	fprintf(stderr, "sesscheck: %s\n", e->msg);
	return e->code ? e->code : 1;
}

int main(int argc, char **argv)
{
	const uint8_t *old, *nw;
	struct tpm2_session *s = NULL;
	struct tpm2_public srk;
	struct tpm2_auth a;
	size_t on, nn;
	struct tberr e;
	struct tpm *t;
	uint32_t h = 0;
	int tr = 0, rc;

	memset(&e, 0, sizeof(e));
	if (argc != 5) {
		fputs("usage: sesscheck TCTI bound|unsalted|emptykey OLD NEW\n",
		      stderr);
		return 2;
	}
	old = (const uint8_t *)argv[3];
	on = strlen(argv[3]);
	nw = (const uint8_t *)argv[4];
	nn = strlen(argv[4]);
	if (tpm_open(&t, argv[1], 10, &e))
		return fail(&e);
	if (strcmp(argv[2], "bound") == 0) {
		if (tpm2_srk_get(t, 0, old, on, &h, &srk, &tr, NULL) ||
		    tpm2_session_start(t, TPM2_SE_HMAC, h, &srk,
				       TPM2_RH_OWNER, old, on, SESS_ENC_CMD,
				       &s))
			return fail(&e);
		tpm2_session_use(s, &a, old, on);
		if ((rc = tpm2_hierarchy_change_auth(t, TPM2_RH_OWNER, &a, nw,
						     nn)))
			return fail(&e);
		tpm2_session_use(s, &a, (const uint8_t *)"", 0);
		if ((rc = tpm2_hierarchy_change_auth(t, TPM2_RH_ENDORSEMENT,
						     &a, nw, nn)))
			return fail(&e);
	} else {
		if (tpm2_session_start(t, TPM2_SE_HMAC, TPM2_RH_NULL, NULL,
				       TPM2_RH_NULL, NULL, 0, 0, &s))
			return fail(&e);
		tpm2_session_use(s, &a, old, on);
		if ((rc = tpm2_hierarchy_change_auth(t, TPM2_RH_OWNER, &a, nw,
						     nn)))
			return fail(&e);
	}
	if (tpm2_session_flush(t, s))
		return fail(&e);
	if (tr)
		tpm2_flush(t, h);
	tpm_close(t);
	return 0;
}
