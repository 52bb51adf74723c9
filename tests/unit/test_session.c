/* Session response checking against a scripted fake TPM (a child process
 * on a socketpair).  The fake answers StartAuthSession, then a command
 * with an encrypted response parameter: once honestly, then with one bit
 * of the encrypted parameter flipped, then with one bit of the HMAC
 * flipped, then with a nonce it did not sign, then honestly again.  The
 * altered answers must fail the call with the "response HMAC does not
 * verify" error and leave nothing decrypted; the honest ones must
 * decrypt to the secret.  That the honest HMAC and encryption match a
 * real TPM is shown by the bats suites against swtpm. */
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/sym.h"
#include "tpm2/cmd.h"
#include "tpm2/session.h"
#include "unit.h"

#define CC_TEST TPM2_CC_NV_Read
static const uint8_t secret[] = "the secret the TPM returns";
static const uint8_t authv[] = "abc";

static void put16(uint8_t *p, unsigned v) { p[0] = v >> 8; p[1] = v; }
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);

		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static size_t read_cmd(int fd, uint8_t *buf)
{
	size_t n;

	if (read_all(fd, buf, 10))
		return 0;
	n = ((size_t)buf[2] << 24) | ((size_t)buf[3] << 16) |
	    ((size_t)buf[4] << 8) | buf[5];
	if (n < 10 || n > 4096 || read_all(fd, buf + 10, n - 10))
		return 0;
	return n;
}

/* mode: 0 honest, 1 flip a parameter bit, 2 flip an HMAC bit, 3 a
 * different nonceTPM than the one signed. */
static void answer(int fd, const uint8_t *cmd, int mode, int round)
{
	uint8_t rsp[512], nc[32], nt[32], kiv[32], rp[32], mac[32];
	uint8_t param[2 + sizeof(secret)], w[4];
	size_t off, n;
	struct hash_ctx *h;
	struct hmac_ctx *m;
	uint8_t attrs;

	/* Command: header, 2 handles, authSize, session handle, nonce. */
	off = 10 + 8 + 4 + 4;
	memcpy(nc, cmd + off + 2, 32);
	attrs = cmd[off + 2 + 32];
	memset(nt, 0x60 + round, 32);
	/* Response parameter: TPM2B secret, encrypted with
	 * KDFa(sessionKey(empty) || auth, "CFB", nonceTPM, nonceCaller). */
	put16(param, sizeof(secret));
	memcpy(param + 2, secret, sizeof(secret));
	kdfa(TPM2_ALG_SHA256, authv, 3, "CFB", nt, 32, nc, 32, kiv, 256);
	aes_cfb(kiv, 16, kiv + 16, param + 2, sizeof(secret), 0);
	/* rpHash and the response HMAC keyed by the auth value. */
	h = hash_new(TPM2_ALG_SHA256);
	put32(w, 0);
	hash_update(h, w, 4);
	put32(w, CC_TEST);
	hash_update(h, w, 4);
	hash_update(h, param, sizeof(param));
	hash_final(h, rp);
	m = hmac_new(TPM2_ALG_SHA256, authv, 3);
	hmac_update(m, rp, 32);
	hmac_update(m, nt, 32);
	hmac_update(m, nc, 32);
	hmac_update(m, &attrs, 1);
	hmac_final(m, mac);
	if (mode == 1)
		param[7] ^= 0x10;
	if (mode == 2)
		mac[31] ^= 0x01;
	if (mode == 3)
		nt[0] ^= 0x01;
	n = 0;
	put16(rsp, TPM2_ST_SESSIONS);
	put32(rsp + 6, 0);
	n = 10;
	put32(rsp + n, sizeof(param));
	n += 4;
	memcpy(rsp + n, param, sizeof(param));
	n += sizeof(param);
	put16(rsp + n, 32);
	memcpy(rsp + n + 2, nt, 32);
	n += 34;
	rsp[n++] = attrs;
	put16(rsp + n, 32);
	memcpy(rsp + n + 2, mac, 32);
	n += 34;
	put32(rsp + 2, (uint32_t)n);
	if (write(fd, rsp, n) != (ssize_t)n)
		_exit(3);
}

static void fake_tpm(int fd)
{
	static const int modes[] = { 0, 1, 2, 3, 0 };
	uint8_t cmd[4096], rsp[64];
	size_t i, n;

	/* StartAuthSession: handle 0x02000000, nonceTPM 0x5a... */
	if (!read_cmd(fd, cmd))
		_exit(1);
	put16(rsp, TPM2_ST_NO_SESSIONS);
	put32(rsp + 2, 10 + 4 + 2 + 32);
	put32(rsp + 6, 0);
	put32(rsp + 10, 0x02000000);
	put16(rsp + 14, 32);
	memset(rsp + 16, 0x5a, 32);
	if (write(fd, rsp, 48) != 48)
		_exit(2);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!(n = read_cmd(fd, cmd)))
			_exit(1);
		answer(fd, cmd, modes[i], (int)i);
	}
	/* FlushContext */
	if (read_cmd(fd, cmd)) {
		put16(rsp, TPM2_ST_NO_SESSIONS);
		put32(rsp + 2, 10);
		put32(rsp + 6, 0);
		if (write(fd, rsp, 10) != 10)
			_exit(2);
	}
	_exit(0);
}

static int call(struct tpm *t, struct tpm2_session *s, uint8_t *out,
		size_t *outn)
{
	struct tpm2_call c = {0};
	struct tpm2_auth a;
	uint8_t p[4] = { 0, (uint8_t)sizeof(secret), 0, 0 };
	int rc;

	tpm2_session_use(s, &a, authv, 3);
	c.cc = CC_TEST;
	c.nh = 2;
	c.h[0] = 0x01000001;
	c.h[1] = 0x01000001;
	c.na = 1;
	c.auth[0] = &a;
	c.params = p;
	c.plen = 4;
	rc = tpm2_call(t, &c);
	if (rc == 0) {
		*outn = c.rplen;
		memcpy(out, c.rparams, c.rplen);
	}
	return rc;
}

int main(void)
{
	struct tpm *t = NULL;
	struct tpm2_session *s = NULL;
	struct tberr e;
	uint8_t out[256];
	size_t n = 0;
	int sv[2], st;
	pid_t pid;

	memset(&e, 0, sizeof(e));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	if ((pid = fork()) == 0) {
		close(sv[0]);
		fake_tpm(sv[1]);
	}
	close(sv[1]);
	/* Allocated after the fork: the child (which _exits) owns nothing
	 * that a leak checker would count. */
	t = calloc(1, sizeof(*t));
	if (!t)
		return 1;
	t->x.kind = XPORT_UNIX;
	t->x.fd = sv[0];
	t->x.timeout_ms = 5000;
	strcpy(t->x.desc, "fake TPM");
	t->e = &e;

	CHECK(tpm2_session_start(t, TPM2_SE_HMAC, TPM2_RH_NULL, NULL,
				 TPM2_RH_NULL, NULL, 0, SESS_ENC_RSP, &s) == 0);
	CHECK(s && tpm2_session_handle(s) == 0x02000000);
	if (!s)
		return unit_done("session");
	/* Honest: decrypted, the TPM2B size in clear. */
	CHECK(call(t, s, out, &n) == 0);
	CHECK(n == 2 + sizeof(secret) && out[1] == sizeof(secret));
	CHECK_MEM(out + 2, secret, sizeof(secret));
	/* One parameter bit flipped: refused. */
	CHECK(call(t, s, out, &n) == EX_FAIL);
	CHECK(strstr(e.msg, "response HMAC does not verify") != NULL);
	/* One HMAC bit flipped: refused. */
	err_clear(&e);
	CHECK(call(t, s, out, &n) == EX_FAIL);
	CHECK(strstr(e.msg, "response HMAC does not verify") != NULL);
	/* A nonceTPM that is not the one signed: refused. */
	err_clear(&e);
	CHECK(call(t, s, out, &n) == EX_FAIL);
	CHECK(strstr(e.msg, "response HMAC does not verify") != NULL);
	/* And the session still works with an honest answer. */
	memset(out, 0, sizeof(out));
	CHECK(call(t, s, out, &n) == 0);
	CHECK_MEM(out + 2, secret, sizeof(secret));
	CHECK(tpm2_session_flush(t, s) == 0);
	close(sv[0]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);

	/* cpHash/rpHash layout (Part 1, 18.7 and 18.8). */
	{
		uint8_t d[32], want[32], buf[12];
		struct tpm2_name nm = { (const uint8_t *)"\x40\x00\x00\x01",
					4 };

		put32(buf, 0x129);
		memcpy(buf + 4, "\x40\x00\x00\x01", 4);
		memcpy(buf + 8, "\x00\x02\xab\xcd", 4);
		hash_buf(TPM2_ALG_SHA256, buf, 12, want);
		CHECK(tpm2_phash(TPM2_ALG_SHA256, 0, 0, 0x129, &nm, 1,
				 (const uint8_t *)"\x00\x02\xab\xcd", 4, d) ==
		      32);
		CHECK_MEM(d, want, 32);
		put32(buf, 0);
		put32(buf + 4, 0x129);
		hash_buf(TPM2_ALG_SHA256, buf, 8, want);
		tpm2_phash(TPM2_ALG_SHA256, 1, 0, 0x129, NULL, 0, NULL, 0, d);
		CHECK_MEM(d, want, 32);
	}
	free(t);
	return unit_done("session");
}
