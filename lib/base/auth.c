#include <stdlib.h>
#include <string.h>

#include "base/auth.h"
#include "base/file.h"
#include "base/hex.h"
#include "base/tty.h"

static int too_long(struct tberr *e, const char *what)
{
	return err_set(e, EX_USAGE, "%s is longer than %d bytes", what,
		       AUTH_MAX);
}

int auth_parse(const char *spec, struct authval *a, struct tberr *e)
{
	memset(a, 0, sizeof(*a));
	if (strncmp(spec, "hex:", 4) == 0) {
		long n = hex_decode(spec + 4, a->v, sizeof(a->v));

		if (n < 0)
			return err_set(e, EX_USAGE, "bad hex: authorization "
				       "value (even number of hex digits, at "
				       "most %d bytes)", AUTH_MAX);
		a->n = (size_t)n;
		return 0;
	}
	if (strncmp(spec, "file:", 5) == 0) {
		uint8_t *d;
		size_t n;
		int rc = file_read(spec + 5, AUTH_MAX, &d, &n, e);

		if (rc)
			return err_prefix(e, "authorization value");
		memcpy(a->v, d, n);
		a->n = n;
		explicit_bzero(d, n);
		free(d);
		return 0;
	}
	if (strncmp(spec, "env:", 4) == 0) {
		const char *v = getenv(spec + 4);

		if (!v)
			return err_set(e, EX_USAGE, "environment variable %s "
				       "is not set", spec + 4);
		if (strlen(v) > AUTH_MAX)
			return too_long(e, spec);
		a->n = strlen(v);
		memcpy(a->v, v, a->n);
		return 0;
	}
	if (strncmp(spec, "str:", 4) == 0)
		spec += 4;
	if (strlen(spec) > AUTH_MAX)
		return too_long(e, "authorization value");
	a->n = strlen(spec);
	memcpy(a->v, spec, a->n);
	return 0;
}

void auth_wipe(struct authval *a)
{
	explicit_bzero(a, sizeof(*a));
}

int auth_text(const char *spec, const char *prompt, char *buf, size_t cap,
	      size_t *n, struct tberr *e)
{
	struct authval a;

	if (!spec)
		return tty_ask(prompt, buf, cap, n, e);
	if (auth_parse(spec, &a, e))
		return e->code;
	if (a.n >= cap) {
		auth_wipe(&a);
		return err_set(e, EX_USAGE, "the recovery code is too long");
	}
	memcpy(buf, a.v, a.n);
	buf[a.n] = '\0';
	*n = a.n;
	auth_wipe(&a);
	return 0;
}
