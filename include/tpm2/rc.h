/* TPM 2.0 response codes: spec names, a plain sentence, an exit code. */
#ifndef TPMBOX_TPM2_RC_H
#define TPMBOX_TPM2_RC_H

#include <stddef.h>
#include <stdint.h>

/* The base code with handle/parameter/session numbers removed. */
uint32_t rc_base(uint32_t rc);
/* "TPM_RC_AUTH_FAIL"; "TPM_RC_0x1234" when unknown. buf gets the name. */
const char *rc_name(uint32_t rc, char *buf, size_t n);
/* A sentence for the base code, "" when none. */
const char *rc_text(uint32_t rc);
/* Full decoded string: "TPM_RC_AUTH_FAIL (session 1): the authorization
 * value is wrong" */
void rc_describe(uint32_t rc, char *buf, size_t n);
/* Exit code per tpmbox(1): 4 auth/policy, 5 lockout, 6 no such object,
 * 1 otherwise. */
int rc_exit(uint32_t rc);

#endif
