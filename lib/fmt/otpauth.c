/* The totp blob's parameters and the otpauth URI, include/fmt/otpauth.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base32.h"
#include "base/buf.h"
#include "base/pem.h"
#include "fmt/otpauth.h"

#define OTP_MAGIC	"TBOT"
#define OTP_VERSION	1

static int text_ok(const char *s, size_t n, int issuer)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || (issuer && c == ':') ||
		    c == '\0')
			return 0;
	}
	return 1;
}

static int check(const struct otp_params *p, int usage, struct tberr *e)
{
	size_t il = strnlen(p->issuer, sizeof(p->issuer));
	size_t ll = strnlen(p->label, sizeof(p->label));
	int code = usage ? EX_USAGE : EX_FAIL;
	const char *pre = usage ? "" : "blob: ";

	if (p->kind != OTP_TOTP && p->kind != OTP_HOTP)
		return err_set(e, code, "%sunknown one-time password kind",
			       pre);
	if (p->digits != 6 && p->digits != 8)
		return err_set(e, code, "%s--digits: 6 or 8", pre);
	if (p->kind == OTP_TOTP &&
	    (p->period < 1 || p->period > OTP_PERIOD_MAX))
		return err_set(e, code, "%s--period: 1 to %d seconds", pre,
			       OTP_PERIOD_MAX);
	if (il > OTP_TEXT_MAX || !text_ok(p->issuer, il, 1))
		return err_set(e, code, "%s--issuer: at most %d bytes of "
			       "text, without control characters or ':'",
			       pre, OTP_TEXT_MAX);
	if (ll < 1 || ll > OTP_TEXT_MAX || !text_ok(p->label, ll, 0))
		return err_set(e, code, "%s--label: 1 to %d bytes of text, "
			       "without control characters", pre,
			       OTP_TEXT_MAX);
	if (p->nvnamelen > sizeof(p->nvname) ||
	    (p->kind == OTP_HOTP) != (p->nv != 0) ||
	    (p->kind == OTP_HOTP) != (p->nvnamelen != 0))
		return err_set(e, code, "%sthe HOTP counter is not recorded "
			       "right", pre);
	return 0;
}

int otp_params_check(const struct otp_params *p, struct tberr *e)
{
	return check(p, 1, e);
}

int otp_params_append(const struct otp_params *p, char **pem, size_t *n,
		      struct tberr *e)
{
	uint8_t mem[32 + OTP_NVNAME_MAX + 2 * OTP_TEXT_MAX];
	struct tb b;

	if (check(p, 0, e))
		return e->code;
	tb_init(&b, mem, sizeof(mem));
	tb_put_bytes(&b, OTP_MAGIC, 4);
	tb_put_u16(&b, OTP_VERSION);
	tb_put_u8(&b, (uint8_t)p->kind);
	tb_put_u8(&b, (uint8_t)p->digits);
	tb_put_u32(&b, p->kind == OTP_TOTP ? p->period : 0);
	tb_put_u32(&b, p->nv);
	tb_put_tpm2b(&b, p->nvname, p->nvnamelen);
	tb_put_tpm2b(&b, p->issuer, strlen(p->issuer));
	tb_put_tpm2b(&b, p->label, strlen(p->label));
	if (tb_err(&b))
		return err_set(e, EX_FAIL, "blob: the parameters do not fit");
	if (pem_append(pem, n, OTP_LABEL, mem, b.len))
		return err_set(e, EX_FAIL, "out of memory");
	return 0;
}

int otp_params_decode(const char *text, size_t n, struct otp_params *p,
		      struct tberr *e)
{
	uint8_t *der = NULL, magic[4];
	size_t len = 0, il, ll;
	struct tb b;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = pem_block(text, n, OTP_LABEL, &der, &len);
	if (rc == PEM_NONE)
		return err_set(e, EX_FAIL, "blob: no " OTP_LABEL " block (not "
			       "a totp blob)");
	if (rc)
		return err_set(e, rc == PEM_NOMEM ? EX_FAIL : EX_FAIL,
			       "blob: the " OTP_LABEL " block is malformed");
	tb_init_read(&b, der, len);
	tb_get_bytes(&b, magic, 4);
	if (!tb_err(&b) && (memcmp(magic, OTP_MAGIC, 4) ||
			    tb_get_u16(&b) != OTP_VERSION)) {
		free(der);
		return err_set(e, EX_FAIL, "blob: the " OTP_LABEL " block is "
			       "of another kind or version");
	}
	p->kind = tb_get_u8(&b);
	p->digits = tb_get_u8(&b);
	p->period = tb_get_u32(&b);
	p->nv = tb_get_u32(&b);
	p->nvnamelen = tb_get_tpm2b(&b, p->nvname, sizeof(p->nvname));
	il = tb_get_tpm2b(&b, p->issuer, OTP_TEXT_MAX);
	ll = tb_get_tpm2b(&b, p->label, OTP_TEXT_MAX);
	rc = tb_err(&b) || tb_left(&b);
	free(der);
	if (rc)
		return err_set(e, EX_FAIL, "blob: the " OTP_LABEL " block is "
			       "truncated or too long");
	p->issuer[il] = '\0';
	p->label[ll] = '\0';
	/* the lengths as sent: a NUL inside is refused by check */
	if (memchr(p->issuer, '\0', il) || memchr(p->label, '\0', ll) ||
	    (p->kind == OTP_HOTP && p->period))
		return err_set(e, EX_FAIL, "blob: bad text or period in the "
			       OTP_LABEL " block");
	return check(p, 0, e);
}

/* RFC 3986's unreserved characters as they are, the rest %XX. */
static size_t pct(const char *s, char *out)
{
	size_t o = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~')
			out[o++] = (char)c;
		else
			o += (size_t)sprintf(out + o, "%%%02X", c);
	}
	out[o] = '\0';
	return o;
}

int otp_uri(const struct otp_params *p, const uint8_t *secret, size_t len,
	    uint64_t counter, char **uri, struct tberr *e)
{
	char iss[3 * OTP_TEXT_MAX + 1], lab[3 * OTP_TEXT_MAX + 1];
	char b32[2 * OTP_SECRET_LEN + 8], tail[48];
	size_t cap = 2 * sizeof(iss) + sizeof(lab) + sizeof(b32) + 96;
	char *u;

	*uri = NULL;
	if (len > OTP_SECRET_LEN || b32_encode(secret, len, 0, b32,
					       sizeof(b32)) < 0)
		return err_set(e, EX_FAIL, "the secret is too long");
	pct(p->issuer, iss);
	pct(p->label, lab);
	if (p->kind == OTP_HOTP)
		snprintf(tail, sizeof(tail), "counter=%llu",
			 (unsigned long long)counter);
	else
		snprintf(tail, sizeof(tail), "period=%u", (unsigned)p->period);
	if (!(u = malloc(cap))) {
		explicit_bzero(b32, sizeof(b32));
		return err_set(e, EX_FAIL, "out of memory");
	}
	snprintf(u, cap, "otpauth://%s/%s%s%s?secret=%s%s%s&digits=%d&%s",
		 p->kind == OTP_HOTP ? "hotp" : "totp", iss, *iss ? ":" : "",
		 lab, b32, *iss ? "&issuer=" : "", iss, p->digits, tail);
	explicit_bzero(b32, sizeof(b32));
	*uri = u;
	return 0;
}
