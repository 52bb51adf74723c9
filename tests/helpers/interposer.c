/* interposer: an active attacker on the TPM bus, for tests/interposer.bats.
 *
 * Sits between tpmbox and swtpm (unix sockets, one client at a time, a
 * fresh swtpm connection per client) and does what an interposer on LPC,
 * SPI or I2C can do: read every command and answer, change answers, drop
 * commands and answer them itself.  With -m srk it also answers for the
 * SRK with a P-256 key of its own; tpmbox then salts its session to that
 * key, and the interposer, knowing the salt, derives the session key,
 * terminates the session itself (it answers TPM2_StartAuthSession and
 * FlushContext for it), decrypts what tpmbox encrypts, guesses auth
 * values from their HMACs, forwards the commands to swtpm with plain
 * passwords, and signs the answers - changed or not - with the session
 * key.  Against an unpinned run that succeeds (the tests show it does:
 * the switch that makes them able to fail); against a pinned one the
 * substituted key is refused before anything is sent.
 *
 * usage: interposer -l LISTEN -t SWTPM_SOCK -m MODE[,MODE...] [-o LOG]
 *                   [-w WORDS] [-K SRKPUB] [-A AKKEY] [-d DIR] [-F]
 *   -o LOG    append what it saw and did, one line per event:
 *               rx NAME                  a command from tpmbox
 *               hmac NAME                ... with a session in it (its
 *                                        answer comes HMACed)
 *               srk substituted          ReadPublic/CreatePrimary answer
 *               session key derived      from a salt to our key
 *               auth 0xHANDLE HEX        an auth value recovered
 *               param NAME HEX           a decrypted first parameter
 *               forged NAME              an answer it changed or made
 *               injected PCR_Extend      (pcrchanged)
 *               saw GetRandom HEX        the bytes as they crossed
 *   -w WORDS  candidate auth values, one per line (also tried: the empty
 *             value and 0000-9999)
 *   -K FILE   write its SRK public key (PEM) there
 *   -A FILE   write its attestation key (private PEM) there, and the
 *             public one to FILE.pub
 *   -d DIR    akswap/quoteswap: write the forged quote there; akimport:
 *             read the imported key from there
 *             (forged.msg: TPMS_ATTEST, forged.sig.der: ECDSA DER)
 *   -F        flush what a client left loaded in swtpm when it goes
 * Modes:
 *   pass        forward, log
 *   srk         substitute its own key for the SRK (0x81000001's
 *               ReadPublic, every CreatePrimary) and terminate sessions
 *               salted to it
 *   pcrzero     PCR_Read values all zero
 *   pcrcount1   TPM_PT_PCR_COUNT answered as 1, and every allocated
 *               bank of TPM_CAP_PCRS cut to PCR 0
 *   random      GetRandom bytes all 'A'
 *   dropextend  PCR_Extend never reaches the TPM; success answered
 *   dropchange  HierarchyChangeAuth never reaches the TPM; success
 *   nvforge     NV_Read data all 'F'
 *   akswap      TPM2_Create of a signing key: its public key replaced by
 *               the interposer's AK
 *   akimport    TPM2_Create of a signing key: its outPrivate and outPublic
 *               replaced by DIR/import.priv and DIR/import.pub (-d), a key
 *               the test imported under the real SRK (tpm2_import of -A's
 *               key): the blob loads and quotes on the real TPM, and the
 *               attacker holds its private key.  The TPM lets no imported
 *               key be fixedTPM or fixedParent, so the public area it
 *               loads with cannot claim to be.
 *   quoteswap   ReadPublic of a transient key answered with the
 *               interposer's AK, PCR_Read values all 0x11, TPM2_Quote's
 *               attestation rewritten to them and signed with that AK
 *   pcrchanged=N  after each of the first N PolicyPCR answers, extend
 *               PCR 10 behind the client's back (TPM_RC_PCR_CHANGED)
 * An answer changed in a session the interposer does not hold the key of
 * keeps the TPM's authorization area: its HMAC no longer verifies. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mbedtls/ecdsa.h>
#include <mbedtls/ecp.h>
#include <mbedtls/pk.h>

#include "base/buf.h"
#include "base/tpm2const.h"
#include "crypto/hash.h"
#include "crypto/kdf.h"
#include "crypto/pk.h"
#include "crypto/sym.h"

#include "proxy.h"

#define NFAKE 8
#define NNAMES 64
#define FAKE_BASE 0x02fff000u

enum {
	M_SRK = 1 << 0, M_PCRZERO = 1 << 1, M_PCRCOUNT1 = 1 << 2,
	M_RANDOM = 1 << 3, M_DROPEXTEND = 1 << 4, M_DROPCHANGE = 1 << 5,
	M_NVFORGE = 1 << 6, M_AKSWAP = 1 << 7, M_QUOTESWAP = 1 << 8,
	M_PCRCHANGED = 1 << 9, M_AKIMPORT = 1 << 10,
};

static const struct {
	const char *name;
	int bit;
} mode_names[] = {
	{ "pass", 0 }, { "srk", M_SRK }, { "pcrzero", M_PCRZERO },
	{ "pcrcount1", M_PCRCOUNT1 }, { "random", M_RANDOM },
	{ "dropextend", M_DROPEXTEND }, { "dropchange", M_DROPCHANGE },
	{ "nvforge", M_NVFORGE }, { "akswap", M_AKSWAP },
	{ "quoteswap", M_QUOTESWAP }, { "akimport", M_AKIMPORT },
};

/* What each command looks like: handles, how many of them are
 * authorized, response handles. */
static const struct cmdinfo {
	uint32_t cc;
	const char *name;
	uint8_t nh, nauth, nrh;
} cmds[] = {
	{ 0x17a, "GetCapability", 0, 0, 0 },
	{ 0x17e, "PCR_Read", 0, 0, 0 },
	{ 0x17b, "GetRandom", 0, 0, 0 },
	{ 0x182, "PCR_Extend", 1, 1, 0 },
	{ 0x173, "ReadPublic", 1, 0, 0 },
	{ 0x169, "NV_ReadPublic", 1, 0, 0 },
	{ 0x17f, "PolicyPCR", 1, 0, 0 },
	{ 0x16b, "PolicyAuthValue", 1, 0, 0 },
	{ 0x18c, "PolicyPassword", 1, 0, 0 },
	{ 0x180, "PolicyRestart", 1, 0, 0 },
	{ 0x189, "PolicyGetDigest", 1, 0, 0 },
	{ 0x131, "CreatePrimary", 1, 1, 1 },
	{ 0x153, "Create", 1, 1, 0 },
	{ 0x157, "Load", 1, 1, 1 },
	{ 0x120, "EvictControl", 2, 1, 0 },
	{ 0x129, "HierarchyChangeAuth", 1, 1, 0 },
	{ 0x13a, "DictionaryAttackParameters", 1, 1, 0 },
	{ 0x139, "DictionaryAttackLockReset", 1, 1, 0 },
	{ 0x126, "Clear", 1, 1, 0 },
	{ 0x14e, "NV_Read", 2, 1, 0 },
	{ 0x137, "NV_Write", 2, 1, 0 },
	{ 0x134, "NV_Increment", 2, 1, 0 },
	{ 0x136, "NV_Extend", 2, 1, 0 },
	{ 0x135, "NV_SetBits", 2, 1, 0 },
	{ 0x12a, "NV_DefineSpace", 1, 1, 0 },
	{ 0x122, "NV_UndefineSpace", 2, 1, 0 },
	{ 0x176, "StartAuthSession", 2, 0, 1 },
	{ 0x165, "FlushContext", 0, 0, 0 },
	{ 0x15e, "Unseal", 1, 1, 0 },
	{ 0x158, "Quote", 1, 1, 0 },
};

struct fake {			/* a session the interposer terminates */
	int used;
	uint32_t handle;
	uint8_t key[32];
	uint8_t ntpm[32];
};

struct hname {			/* the name tpmbox was told */
	uint32_t h;
	uint8_t name[66];
	size_t n;
	uint8_t nvpub[128];	/* NV indices: TPMS_NV_PUBLIC */
	size_t nvlen;
	int evil;		/* answered with our SRK */
};

/* One command's session, as received. */
struct csess {
	uint32_t h;
	uint8_t nonce[64];
	size_t nn;
	uint8_t attrs;
	uint8_t hmac[64];
	size_t hn;
	struct fake *f;		/* ours, or NULL */
	uint8_t auth[64];	/* the value it authorizes with (fake) */
	size_t authlen;
	int authorizing;
};

static int modes, inject_left;
static const char *logpath, *dumpdir;
static char **words;
static size_t nwords;
static mbedtls_ecp_group grp;
static mbedtls_mpi srk_d, ak_d;
static mbedtls_ecp_point srk_q, ak_q;
static uint8_t srk_x[32], srk_y[32], ak_x[32], ak_y[32];

static struct {
	struct fake f[NFAKE];
	struct hname n[NNAMES];
	uint32_t next_fake;
} S;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;
	FILE *f;

	if (!logpath || !(f = fopen(logpath, "a")))
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static void log_hex(const char *what, const uint8_t *p, size_t n)
{
	char *s = malloc(2 * n + 1);
	size_t i;

	if (!s)
		return;
	for (i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", p[i]);
	s[2 * n] = '\0';
	logf_("%s %s", what, s);
	free(s);
}

static const struct cmdinfo *info(uint32_t cc)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].cc == cc)
			return &cmds[i];
	return NULL;
}

static const char *ccname(uint32_t cc)
{
	const struct cmdinfo *ci = info(cc);
	static char buf[16];

	if (ci)
		return ci->name;
	snprintf(buf, sizeof(buf), "0x%x", cc);
	return buf;
}

static int rng_cb(void *u, unsigned char *out, size_t n)
{
	(void)u;
	return rng_bytes(out, n) ? -1 : 0;
}

/* ---- keys ---- */

static int make_key(mbedtls_mpi *d, mbedtls_ecp_point *q, uint8_t *x,
		    uint8_t *y)
{
	return mbedtls_ecp_gen_keypair(&grp, d, q, rng_cb, NULL) ||
	       mbedtls_mpi_write_binary(&q->X, x, 32) ||
	       mbedtls_mpi_write_binary(&q->Y, y, 32);
}

static int write_pem(const char *path, const mbedtls_mpi *d,
		     const mbedtls_ecp_point *q, int priv)
{
	mbedtls_pk_context pk;
	mbedtls_ecp_keypair *kp;
	unsigned char buf[2048];
	FILE *f;
	int r;

	mbedtls_pk_init(&pk);
	r = mbedtls_pk_setup(&pk, mbedtls_pk_info_from_type(
				     MBEDTLS_PK_ECKEY));
	if (!r) {
		kp = mbedtls_pk_ec(pk);
		r = mbedtls_ecp_group_load(&kp->grp,
					   MBEDTLS_ECP_DP_SECP256R1) ||
		    mbedtls_ecp_copy(&kp->Q, q) ||
		    mbedtls_mpi_copy(&kp->d, d);
	}
	if (!r)
		r = priv ? mbedtls_pk_write_key_pem(&pk, buf, sizeof(buf)) :
			   mbedtls_pk_write_pubkey_pem(&pk, buf, sizeof(buf));
	mbedtls_pk_free(&pk);
	if (r || !(f = fopen(path, "w")))
		return -1;
	fputs((char *)buf, f);
	return fclose(f);
}

/* ---- names ---- */

static struct hname *name_slot(uint32_t h, int create)
{
	int i, free_i = -1;

	for (i = 0; i < NNAMES; i++) {
		if (S.n[i].n && S.n[i].h == h)
			return &S.n[i];
		if (!S.n[i].n && free_i < 0)
			free_i = i;
	}
	if (!create || free_i < 0)
		return NULL;
	memset(&S.n[free_i], 0, sizeof(S.n[free_i]));
	S.n[free_i].h = h;
	return &S.n[free_i];
}

static void set_name(uint32_t h, const uint8_t *name, size_t n, int evil)
{
	struct hname *s = name_slot(h, 1);

	if (!s || n > sizeof(s->name) || n == 0)
		return;
	memcpy(s->name, name, n);
	s->n = n;
	s->evil = evil;
}

/* The handle's name for a cpHash: what tpmbox was told, else the handle
 * itself (permanent handles, PCRs). */
static size_t get_name(uint32_t h, uint8_t *out)
{
	struct hname *s = name_slot(h, 0);

	if (s) {
		memcpy(out, s->name, s->n);
		return s->n;
	}
	put32(out, h);
	return 4;
}

static int is_evil(uint32_t h)
{
	struct hname *s = name_slot(h, 0);

	return s && s->evil;
}

static size_t name_of(const uint8_t *raw, size_t n, uint8_t *out)
{
	out[0] = 0x00;
	out[1] = 0x0b;
	hash_buf(TPM2_ALG_SHA256, raw, n, out + 2);
	return 34;
}

/* ---- TPMT_PUBLIC: where the ECC point is ---- */

/* Offsets of unique.x's and unique.y's bytes in a TPMT_PUBLIC of n bytes
 * (ECC with 32-byte coordinates only); 0 on success. */
static int ecc_point_at(const uint8_t *p, size_t n, size_t *xat,
			size_t *yat, uint32_t *attrs)
{
	struct tb b;
	uint16_t type, sym, scheme, kdf;

	tb_init_read(&b, p, n);
	type = tb_get_u16(&b);
	tb_skip(&b, 2);
	*attrs = tb_get_u32(&b);
	tb_skip(&b, tb_get_u16(&b));
	if (type != TPM2_ALG_ECC)
		return -1;
	sym = tb_get_u16(&b);
	if (sym != TPM2_ALG_NULL)
		tb_skip(&b, 4);
	scheme = tb_get_u16(&b);
	if (scheme != TPM2_ALG_NULL)
		tb_skip(&b, scheme == 0x1a ? 4 : 2);
	tb_skip(&b, 2);		/* curve */
	kdf = tb_get_u16(&b);
	if (kdf != TPM2_ALG_NULL)
		tb_skip(&b, 2);
	if (tb_get_u16(&b) != 32)
		return -1;
	*xat = b.pos;
	tb_skip(&b, 32);
	if (tb_get_u16(&b) != 32)
		return -1;
	*yat = b.pos;
	tb_skip(&b, 32);
	return tb_err(&b) || tb_left(&b) ? -1 : 0;
}

/* Put (x, y) into the TPMT_PUBLIC at p (n bytes); its name to name. */
static int swap_point(uint8_t *p, size_t n, const uint8_t *x,
		      const uint8_t *y, uint8_t *name)
{
	size_t xat, yat;
	uint32_t attrs;

	if (ecc_point_at(p, n, &xat, &yat, &attrs))
		return -1;
	memcpy(p + xat, x, 32);
	memcpy(p + yat, y, 32);
	if (name)
		name_of(p, n, name);
	return 0;
}

/* ---- sessions we terminate ---- */

static struct fake *fake_of(uint32_t h)
{
	int i;

	for (i = 0; i < NFAKE; i++)
		if (S.f[i].used && S.f[i].handle == h)
			return &S.f[i];
	return NULL;
}

static size_t trim(const uint8_t *v, size_t n)
{
	while (n && v[n - 1] == 0)
		n--;
	return n;
}

static void cfb(const struct fake *f, const uint8_t *auth, size_t alen,
		const uint8_t *newer, size_t nn, const uint8_t *older,
		size_t on, uint8_t *p, size_t n, int decrypt)
{
	uint8_t k[32 + 64], kiv[32];

	memcpy(k, f->key, 32);
	memcpy(k + 32, auth, alen);
	kdfa(TPM2_ALG_SHA256, k, 32 + alen, "CFB", newer, nn, older, on,
	     kiv, 256);
	aes_cfb(kiv, 16, kiv + 16, p, n, decrypt);
}

static void hmac_cmd(const struct fake *f, const uint8_t *auth, size_t alen,
		     const uint8_t *cp, const struct csess *s, uint8_t *out)
{
	uint8_t k[32 + 64];
	struct hmac_ctx *h;

	memcpy(k, f->key, 32);
	memcpy(k + 32, auth, alen);
	h = hmac_new(TPM2_ALG_SHA256, k, 32 + alen);
	hmac_update(h, cp, 32);
	hmac_update(h, s->nonce, s->nn);
	hmac_update(h, f->ntpm, 32);
	hmac_update(h, &s->attrs, 1);
	hmac_final(h, out);
}

/* Which value authorizes: tried against the command HMAC. */
static int guess_auth(struct csess *s, const uint8_t *cp)
{
	uint8_t mac[32];
	char c[16];
	size_t i;
	int d;

	if (s->hn != 32)
		return -1;
	for (i = 0; i < nwords + 1; i++) {
		const char *w = i ? words[i - 1] : "";
		size_t n = trim((const uint8_t *)w, strlen(w));

		if (n > 64)
			continue;
		hmac_cmd(s->f, (const uint8_t *)w, n, cp, s, mac);
		if (!memcmp(mac, s->hmac, 32)) {
			memcpy(s->auth, w, n);
			s->authlen = n;
			return 0;
		}
	}
	for (d = 0; d < 10000; d++) {
		snprintf(c, sizeof(c), "%04d", d);
		hmac_cmd(s->f, (const uint8_t *)c, 4, cp, s, mac);
		if (!memcmp(mac, s->hmac, 32)) {
			memcpy(s->auth, c, 4);
			s->authlen = 4;
			return 0;
		}
	}
	return -1;
}

/* StartAuthSession salted to our key: answered here. */
static size_t start_session(const uint8_t *cmd, size_t clen, uint8_t *rsp)
{
	uint8_t nc[64], ex[32], ey[32], z[32], salt[32], kin[32];
	const uint8_t *es;
	struct fake *f = NULL;
	mbedtls_ecp_point e, sh;
	size_t ncl, esl;
	struct tb b, w;
	int i, r;

	tb_init_read(&b, cmd, clen);
	tb_skip(&b, HDR + 8);
	if (get32(cmd) >> 16 == 0x8002)
		tb_skip(&b, tb_get_u32(&b));
	ncl = tb_get_tpm2b(&b, nc, sizeof(nc));
	esl = tb_get_tpm2b_ref(&b, &es);
	{
		struct tb p;

		tb_init_read(&p, es, esl);
		if (tb_get_tpm2b(&p, ex, 32) != 32 ||
		    tb_get_tpm2b(&p, ey, 32) != 32)
			return 0;
	}
	for (i = 0; i < NFAKE && S.f[i].used; i++)
		;
	if (i == NFAKE || tb_err(&b))
		return 0;
	f = &S.f[i];
	mbedtls_ecp_point_init(&e);
	mbedtls_ecp_point_init(&sh);
	r = mbedtls_mpi_read_binary(&e.X, ex, 32) ||
	    mbedtls_mpi_read_binary(&e.Y, ey, 32) ||
	    mbedtls_mpi_lset(&e.Z, 1) ||
	    mbedtls_ecp_mul(&grp, &sh, &srk_d, &e, rng_cb, NULL) ||
	    mbedtls_mpi_write_binary(&sh.X, z, 32);
	mbedtls_ecp_point_free(&e);
	mbedtls_ecp_point_free(&sh);
	if (r)
		return 0;
	kdfe(TPM2_ALG_SHA256, z, 32, "SECRET", ex, 32, srk_x, 32, salt, 256);
	memset(f, 0, sizeof(*f));
	f->used = 1;
	f->handle = FAKE_BASE + S.next_fake++;
	rng_bytes(f->ntpm, 32);
	memcpy(kin, salt, 32);
	kdfa(TPM2_ALG_SHA256, kin, 32, "ATH", f->ntpm, 32, nc, ncl, f->key,
	     256);
	logf_("session key derived (handle 0x%08x)", f->handle);
	tb_init(&w, rsp, MAXMSG);
	tb_put_u16(&w, 0x8001);
	tb_put_u32(&w, 0);
	tb_put_u32(&w, 0);
	tb_put_u32(&w, f->handle);
	tb_put_tpm2b(&w, f->ntpm, 32);
	put32(rsp + 2, (uint32_t)w.len);
	return w.len;
}

static size_t simple_rsp(uint8_t *rsp, uint32_t rc)
{
	rsp[0] = 0x80;
	rsp[1] = 0x01;
	put32(rsp + 2, HDR);
	put32(rsp + 6, rc);
	return HDR;
}

/* ---- rewriting answers ---- */

static void pcr_values(uint8_t *p, size_t n, uint8_t fill)
{
	struct tb b;
	uint32_t cnt, i;

	tb_init_read(&b, p, n);
	tb_skip(&b, 4);
	cnt = tb_get_u32(&b);
	for (i = 0; i < cnt && !tb_err(&b); i++) {
		tb_skip(&b, 2);
		tb_skip(&b, tb_get_u8(&b));
	}
	cnt = tb_get_u32(&b);
	for (i = 0; i < cnt && !tb_err(&b); i++) {
		uint16_t sz = tb_get_u16(&b);

		if (tb_err(&b) || sz > tb_left(&b))
			return;
		memset(p + b.pos, fill, sz);
		tb_skip(&b, sz);
	}
}

static int pcr_count1(uint8_t *p, size_t n)
{
	struct tb b;
	uint32_t cnt, i;

	tb_init_read(&b, p, n);
	tb_skip(&b, 1);
	cnt = tb_get_u32(&b);
	if (cnt == 5) {
		/* TPM_CAP_PCRS: each allocated bank cut to PCR 0 (the count
		 * is read from the allocation too) */
		int changed = 0;

		cnt = tb_get_u32(&b);
		for (i = 0; i < cnt && !tb_err(&b); i++) {
			uint8_t k, j, any = 0;

			tb_skip(&b, 2);
			k = tb_get_u8(&b);
			if (tb_err(&b) || tb_left(&b) < k)
				return changed;
			for (j = 0; j < k; j++)
				any |= p[b.pos + j];
			for (j = 0; any && j < k; j++)
				p[b.pos + j] = j == 0 ? 1 : 0;
			changed |= any != 0;
			tb_skip(&b, k);
		}
		return changed;
	}
	if (cnt != 6)
		return 0;
	cnt = tb_get_u32(&b);
	for (i = 0; i < cnt && !tb_err(&b); i++) {
		uint32_t prop = tb_get_u32(&b);

		if (prop == 0x112 && tb_left(&b) >= 4) {
			put32(p + b.pos, 1);
			return 1;
		}
		tb_skip(&b, 4);
	}
	return 0;
}

static void sign_ak(const uint8_t *msg, size_t n, uint8_t *r32,
		    uint8_t *s32, uint8_t *der, size_t *derlen)
{
	uint8_t d[32];
	mbedtls_mpi r, s;
	mbedtls_ecdsa_context ec;

	hash_buf(TPM2_ALG_SHA256, msg, n, d);
	mbedtls_mpi_init(&r);
	mbedtls_mpi_init(&s);
	mbedtls_ecdsa_sign(&grp, &r, &s, &ak_d, d, 32, rng_cb, NULL);
	mbedtls_mpi_write_binary(&r, r32, 32);
	mbedtls_mpi_write_binary(&s, s32, 32);
	mbedtls_ecdsa_init(&ec);
	mbedtls_ecp_group_load(&ec.grp, MBEDTLS_ECP_DP_SECP256R1);
	mbedtls_ecp_copy(&ec.Q, &ak_q);
	mbedtls_mpi_copy(&ec.d, &ak_d);
	*derlen = 0;
	if (mbedtls_ecdsa_write_signature(&ec, MBEDTLS_MD_SHA256, d, 32, der,
					  derlen, rng_cb, NULL))
		*derlen = 0;
	mbedtls_ecdsa_free(&ec);
	mbedtls_mpi_free(&r);
	mbedtls_mpi_free(&s);
}

static void dump(const char *file, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	if (!dumpdir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dumpdir, file);
	if ((f = fopen(path, "w"))) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
}

/* Quote: the attestation's PCR digest becomes that of all-0x11 values
 * and the signature ours. */
static int forge_quote(uint8_t *p, size_t n)
{
	struct tb b;
	size_t at, alen, dig_at, sig_at;
	uint32_t cnt, i, npcr = 0;
	uint8_t ones[64], d[32], der[128];
	size_t derlen;
	struct hash_ctx *h;

	tb_init_read(&b, p, n);
	alen = tb_get_u16(&b);
	at = b.pos;
	tb_skip(&b, 4 + 2);
	tb_skip(&b, tb_get_u16(&b));
	tb_skip(&b, tb_get_u16(&b));
	tb_skip(&b, 17 + 8);
	cnt = tb_get_u32(&b);
	for (i = 0; i < cnt && !tb_err(&b); i++) {
		uint8_t sz, k;

		tb_skip(&b, 2);
		sz = tb_get_u8(&b);
		for (k = 0; k < sz && !tb_err(&b); k++) {
			uint8_t m = tb_get_u8(&b);

			while (m) {
				npcr += m & 1;
				m >>= 1;
			}
		}
	}
	if (tb_get_u16(&b) != 32)
		return -1;
	dig_at = b.pos;
	tb_skip(&b, 32);
	if (tb_err(&b) || b.pos != at + alen)
		return -1;
	memset(ones, 0x11, sizeof(ones));
	h = hash_new(TPM2_ALG_SHA256);
	for (i = 0; i < npcr; i++)
		hash_update(h, ones, 32);
	hash_final(h, d);
	memcpy(p + dig_at, d, 32);
	sig_at = at + alen;
	/* TPMT_SIGNATURE: ECDSA, SHA256, r, s (32 bytes each) */
	if (n - sig_at != 2 + 2 + 2 + 32 + 2 + 32 ||
	    get32(p + sig_at) != (0x0018u << 16 | 0x000bu))
		return -1;
	sign_ak(p + at, alen, p + sig_at + 6, p + sig_at + 6 + 34, der,
		&derlen);
	p[sig_at + 4] = 0;
	p[sig_at + 5] = 32;
	p[sig_at + 6 + 32] = 0;
	p[sig_at + 6 + 33] = 32;
	dump("forged.msg", p + at, alen);
	dump("forged.sig.der", der, derlen);
	return 0;
}

static size_t slurp(const char *file, uint8_t *p, size_t cap)
{
	char path[4096];
	FILE *f;
	size_t n;

	if (!dumpdir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dumpdir, file);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(p, 1, cap, f);
	fclose(f);
	return n;
}

/* Create's answer (outPrivate, outPublic, creation data...) of a signing
 * key with the imported key's private and public parts instead; p has
 * room for cap bytes.  The new length, or 0 when not applicable. */
static size_t import_swap(uint8_t *p, size_t n, size_t cap)
{
	static uint8_t priv[4096], pub[4096], rest[MAXMSG];
	size_t privn, pubn, pn, rn, pubat;
	uint32_t attrs;
	struct tb b;

	tb_init_read(&b, p, n);
	tb_skip(&b, tb_get_u16(&b));
	pn = tb_get_u16(&b);
	pubat = b.pos;
	tb_skip(&b, pn);
	if (tb_err(&b) || pn < 8)
		return 0;
	attrs = get32(p + pubat + 4);
	if (!(attrs & (1u << 18)))	/* not a signing key */
		return 0;
	rn = tb_left(&b);
	memcpy(rest, p + b.pos, rn);
	privn = slurp("import.priv", priv, sizeof(priv));
	pubn = slurp("import.pub", pub, sizeof(pub));
	if (privn < 2 || pubn < 2 || privn + pubn + rn > cap)
		return 0;
	memcpy(p, priv, privn);
	memcpy(p + privn, pub, pubn);
	memcpy(p + privn + pubn, rest, rn);
	logf_("forged Create (an imported key)");
	return privn + pubn + rn;
}

/* Change the answer's parameters per the modes; 1 if changed. */
static int rewrite(uint32_t cc, const uint8_t *cmd, uint8_t *p, size_t n,
		   uint32_t rh)
{
	uint32_t h = info(cc) && info(cc)->nh ? get32(cmd + HDR) : 0;
	int changed = 0;

	switch (cc) {
	case 0x173: {	/* ReadPublic: outPublic, name, qualifiedName */
		size_t pn = (size_t)p[0] << 8 | p[1];
		uint8_t name[34];

		if (2 + pn + 2 + 34 > n || p[2 + pn] != 0 ||
		    p[2 + pn + 1] != 34)
			break;
		int evil = 0;

		if ((modes & M_SRK) && h == 0x81000001u &&
		    swap_point(p + 2, pn, srk_x, srk_y, name) == 0) {
			memcpy(p + 2 + pn + 2, name, 34);
			logf_("srk substituted");
			evil = 1;
		} else if ((modes & M_QUOTESWAP) && (h >> 24) == 0x80 &&
			   swap_point(p + 2, pn, ak_x, ak_y, name) == 0) {
			memcpy(p + 2 + pn + 2, name, 34);
			logf_("forged ReadPublic");
		}
		set_name(h, p + 2 + pn + 2, 34, evil);
		break;
	}
	case 0x131: {	/* CreatePrimary: outPublic ... name */
		struct tb b;
		size_t pn = (size_t)p[0] << 8 | p[1], nat;

		tb_init_read(&b, p, n);
		tb_skip(&b, 2 + pn);
		tb_skip(&b, tb_get_u16(&b));
		tb_skip(&b, tb_get_u16(&b));
		tb_skip(&b, 6);
		tb_skip(&b, tb_get_u16(&b));
		if (tb_get_u16(&b) != 34 || tb_err(&b))
			break;
		nat = b.pos;
		if ((modes & M_SRK) &&
		    swap_point(p + 2, pn, srk_x, srk_y, p + nat) == 0) {
			logf_("srk substituted");
			changed = 1;
		}
		set_name(rh, p + nat, 34, changed);
		break;
	}
	case 0x157:	/* Load: name */
		if (n == 36)
			set_name(rh, p + 2, 34, 0);
		break;
	case 0x169: {	/* NV_ReadPublic: nvPublic, nvName */
		size_t pn = (size_t)p[0] << 8 | p[1];
		struct hname *s;

		if (2 + pn + 2 + 34 > n)
			break;
		set_name(h, p + 2 + pn + 2, 34, 0);
		if ((s = name_slot(h, 0)) && pn <= sizeof(s->nvpub)) {
			memcpy(s->nvpub, p + 2, pn);
			s->nvlen = pn;
		}
		break;
	}
	case 0x17e:	/* PCR_Read */
		if (modes & (M_PCRZERO | M_QUOTESWAP)) {
			pcr_values(p, n, modes & M_QUOTESWAP ? 0x11 : 0);
			changed = 1;
		}
		break;
	case 0x17a:	/* GetCapability */
		if ((modes & M_PCRCOUNT1) && pcr_count1(p, n))
			changed = 1;
		break;
	case 0x17b:	/* GetRandom: what crossed the bus, then forged */
		if (n >= 2)
			log_hex("saw GetRandom", p + 2, n - 2);
		if ((modes & M_RANDOM) && n >= 2) {
			memset(p + 2, 'A', n - 2);
			changed = 1;
		}
		break;
	case 0x14e:	/* NV_Read */
		if ((modes & M_NVFORGE) && n >= 2) {
			memset(p + 2, 'F', n - 2);
			changed = 1;
		}
		break;
	case 0x153: {	/* Create: outPrivate, outPublic */
		struct tb b;
		size_t pn, at;
		uint32_t attrs;
		size_t xat, yat;

		if (!(modes & M_AKSWAP))
			break;
		tb_init_read(&b, p, n);
		tb_skip(&b, tb_get_u16(&b));
		pn = tb_get_u16(&b);
		at = b.pos;
		if (tb_err(&b) || pn > tb_left(&b) ||
		    ecc_point_at(p + at, pn, &xat, &yat, &attrs) ||
		    !(attrs & (1u << 18)))
			break;
		swap_point(p + at, pn, ak_x, ak_y, NULL);
		changed = 1;
		break;
	}
	case 0x158:	/* Quote */
		if ((modes & M_QUOTESWAP) && forge_quote(p, n) == 0)
			changed = 1;
		break;
	}
	if (changed && cc != 0x131)
		logf_("forged %s", ccname(cc));
	return changed;
}

/* After a write: the index's WRITTEN bit and name. */
static void nv_written(uint32_t idx)
{
	struct hname *s = name_slot(idx, 0);

	if (!s || s->nvlen < 10)
		return;
	s->nvpub[6] |= 0x20;	/* TPMA_NV_WRITTEN, bit 29 */
	name_of(s->nvpub, s->nvlen, s->name);
}

/* ---- one command ---- */

static size_t respond_auths(struct tb *w, struct csess *cs, int ns,
			    uint32_t cc, const uint8_t *params, size_t plen,
			    const uint8_t *tpm_auths, size_t talen,
			    const uint8_t *newauth, size_t newlen)
{
	struct tb ta;
	uint8_t rp[32], k[32 + 64], mac[32];
	int i;

	tb_init_read(&ta, tpm_auths, talen);
	{
		struct hash_ctx *h = hash_new(TPM2_ALG_SHA256);
		uint8_t z[4] = { 0 }, c[4];

		put32(c, cc);
		hash_update(h, z, 4);
		hash_update(h, c, 4);
		hash_update(h, params, plen);
		hash_final(h, rp);
	}
	for (i = 0; i < ns; i++) {
		struct csess *s = &cs[i];

		if (s->f) {
			const uint8_t *a = s->auth;
			size_t al = s->authorizing ? s->authlen : 0;
			struct hmac_ctx *h;

			/* It went to the TPM as a password: skip that. */
			if (s->authorizing && tb_left(&ta)) {
				tb_skip(&ta, tb_get_u16(&ta));
				tb_skip(&ta, 1);
				tb_skip(&ta, tb_get_u16(&ta));
			}
			if (newauth && s->authorizing) {
				a = newauth;
				al = newlen;
			}
			memcpy(k, s->f->key, 32);
			memcpy(k + 32, a, al);
			h = hmac_new(TPM2_ALG_SHA256, k, 32 + al);
			hmac_update(h, rp, 32);
			hmac_update(h, s->f->ntpm, 32);
			hmac_update(h, s->nonce, s->nn);
			hmac_update(h, &s->attrs, 1);
			hmac_final(h, mac);
			tb_put_tpm2b(w, s->f->ntpm, 32);
			tb_put_u8(w, s->attrs);
			tb_put_tpm2b(w, mac, 32);
		} else if (tb_left(&ta)) {
			/* The TPM's own authorization, kept as it was. */
			size_t st = ta.pos;

			tb_skip(&ta, tb_get_u16(&ta));
			tb_skip(&ta, 1);
			tb_skip(&ta, tb_get_u16(&ta));
			tb_put_bytes(w, tpm_auths + st, ta.pos - st);
		} else if (s->h == TPM2_RS_PW) {
			tb_put_u16(w, 0);
			tb_put_u8(w, 1);
			tb_put_u16(w, 0);
		} else {
			/* Made up: a nonce and an HMAC that cannot verify. */
			uint8_t junk[32];

			rng_bytes(junk, 32);
			tb_put_tpm2b(w, junk, 32);
			tb_put_u8(w, s->attrs);
			tb_put_tpm2b(w, junk, 32);
		}
	}
	return w->len;
}

/* PCR_Extend of PCR 10 behind the client's back (as IMA would). */
static void inject_extend(int tfd)
{
	uint8_t x[HDR + 4 + 4 + 9 + 4 + 2 + 32], xr[64];
	size_t xl;
	struct tb e;

	tb_init(&e, x, sizeof(x));
	tb_put_u16(&e, 0x8002);
	tb_put_u32(&e, sizeof(x));
	tb_put_u32(&e, 0x182);
	tb_put_u32(&e, 10);
	tb_put_u32(&e, 9);
	tb_put_u32(&e, TPM2_RS_PW);
	tb_put_u16(&e, 0);
	tb_put_u8(&e, 0);
	tb_put_u16(&e, 0);
	tb_put_u32(&e, 1);
	tb_put_u16(&e, TPM2_ALG_SHA256);
	rng_bytes(x + e.len, 32);
	if (roundtrip(tfd, x, sizeof(x), xr, &xl) == 0 &&
	    get32(xr + 6) == 0) {
		inject_left--;
		logf_("injected PCR_Extend");
	}
}

static size_t handle_cmd(int tfd, uint8_t *cmd, size_t clen, uint8_t *rsp)
{
	static uint8_t fwd[MAXMSG], tr[MAXMSG], params[MAXMSG];
	const struct cmdinfo *ci;
	struct csess cs[3];
	uint32_t cc = get32(cmd + 6), h[3] = { 0 }, rh = 0, rc;
	uint16_t tag = (uint16_t)(cmd[0] << 8 | cmd[1]);
	int ns = 0, any_fake = 0, i, drop = 0;
	size_t plen, trlen, pat, tplen, talen = 0;
	const uint8_t *cp = NULL, *tauths = NULL;
	uint8_t newauth[64];
	size_t newlen = 0;
	int has_new = 0;
	struct tb b, w;

	ci = info(cc);
	logf_("rx %s", ccname(cc));
	if (!ci)
		return roundtrip(tfd, cmd, clen, rsp, &trlen) ? 0 : trlen;
	tb_init_read(&b, cmd, clen);
	tb_skip(&b, HDR);
	for (i = 0; i < ci->nh; i++)
		h[i] = tb_get_u32(&b);
	memset(cs, 0, sizeof(cs));
	if (tag == 0x8002) {
		uint32_t asz = tb_get_u32(&b);
		size_t end = b.pos + asz;

		while (b.pos < end && ns < 3 && !tb_err(&b)) {
			struct csess *s = &cs[ns];

			s->h = tb_get_u32(&b);
			s->nn = tb_get_tpm2b(&b, s->nonce, sizeof(s->nonce));
			s->attrs = tb_get_u8(&b);
			s->hn = tb_get_tpm2b(&b, s->hmac, sizeof(s->hmac));
			s->f = fake_of(s->h);
			s->authorizing = ns < ci->nauth;
			any_fake |= s->f != NULL;
			ns++;
		}
	}
	plen = tb_left(&b);
	if (tb_err(&b))
		return roundtrip(tfd, cmd, clen, rsp, &trlen) ? 0 : trlen;
	for (i = 0; i < ns; i++)
		if (cs[i].h != TPM2_RS_PW) {
			logf_("hmac %s", ccname(cc));
			break;
		}
	memcpy(params, cmd + b.pos, plen);

	/* Answered here. */
	if (cc == 0x176 && is_evil(h[0]))
		return start_session(cmd, clen, rsp);
	if (cc == 0x165 && plen == 4 && fake_of(get32(params))) {
		fake_of(get32(params))->used = 0;
		return simple_rsp(rsp, 0);
	}

	/* Our sessions: check the value, decrypt, forward as passwords. */
	if (any_fake) {
		uint8_t names[3][66], cph[32];
		size_t nl[3];
		struct hash_ctx *hc = hash_new(TPM2_ALG_SHA256);
		uint8_t c4[4];

		put32(c4, cc);
		hash_update(hc, c4, 4);
		for (i = 0; i < ci->nh; i++) {
			nl[i] = get_name(h[i], names[i]);
			hash_update(hc, names[i], nl[i]);
		}
		hash_update(hc, params, plen);
		hash_final(hc, cph);
		cp = cph;
		for (i = 0; i < ns; i++) {
			struct csess *s = &cs[i];

			if (!s->f)
				continue;
			if (s->authorizing) {
				if (guess_auth(s, cp)) {
					logf_("auth value for 0x%08x not "
					      "found", h[i]);
				} else if (s->authlen) {
					char what[64];

					snprintf(what, sizeof(what),
						 "auth 0x%08x", h[i]);
					log_hex(what, s->auth, s->authlen);
				}
			}
			if ((s->attrs & 0x20) && plen >= 2) {
				size_t sz = (size_t)params[0] << 8 | params[1];
				char what[64];

				if (sz <= plen - 2) {
					cfb(s->f, s->auth, s->authorizing ?
					    s->authlen : 0, s->nonce, s->nn,
					    s->f->ntpm, 32, params + 2, sz, 1);
					snprintf(what, sizeof(what), "param %s",
						 ccname(cc));
					log_hex(what, params + 2, sz);
					if (cc == 0x129 && sz <= 64) {
						memcpy(newauth, params + 2, sz);
						newlen = trim(newauth, sz);
						has_new = 1;
					}
				}
			}
		}
	}

	if ((cc == 0x182 && (modes & M_DROPEXTEND)) ||
	    (cc == 0x129 && (modes & M_DROPCHANGE)))
		drop = 1;

	/* The command for the TPM: our sessions become passwords (an
	 * authorizing one) or go (an audit or encryption one). */
	tb_init(&w, fwd, sizeof(fwd));
	if (any_fake) {
		size_t szat, aat;
		int n_out = 0;

		tb_put_u16(&w, 0x8002);
		szat = tb_reserve32(&w);
		tb_put_u32(&w, cc);
		for (i = 0; i < ci->nh; i++)
			tb_put_u32(&w, h[i]);
		aat = tb_reserve32(&w);
		for (i = 0; i < ns; i++) {
			struct csess *s = &cs[i];

			if (s->f && !s->authorizing)
				continue;
			if (s->f) {
				tb_put_u32(&w, TPM2_RS_PW);
				tb_put_u16(&w, 0);
				tb_put_u8(&w, 0);
				tb_put_tpm2b(&w, s->auth, s->authlen);
			} else {
				tb_put_u32(&w, s->h);
				tb_put_tpm2b(&w, s->nonce, s->nn);
				tb_put_u8(&w, s->attrs);
				tb_put_tpm2b(&w, s->hmac, s->hn);
			}
			n_out++;
		}
		tb_patch32(&w, aat);
		tb_put_bytes(&w, params, plen);
		if (!n_out) {
			/* No authorization left: a no-sessions command. */
			tb_init(&w, fwd, sizeof(fwd));
			tb_put_u16(&w, 0x8001);
			szat = tb_reserve32(&w);
			tb_put_u32(&w, cc);
			for (i = 0; i < ci->nh; i++)
				tb_put_u32(&w, h[i]);
			tb_put_bytes(&w, params, plen);
		}
		tb_patch32(&w, szat);
		/* tb_patch32 counts from after the field; fix to total */
		put32(fwd + 2, (uint32_t)w.len);
	} else {
		tb_put_bytes(&w, cmd, clen);
	}

	if (drop) {
		logf_("forged %s (dropped)", ccname(cc));
		if (!any_fake && tag == 0x8001)
			return simple_rsp(rsp, 0);
		tplen = 0;
	} else {
		if (roundtrip(tfd, fwd, w.len, tr, &trlen))
			return 0;
		rc = get32(tr + 6);
		if (rc != 0) {
			memcpy(rsp, tr, trlen);
			return trlen;
		}
		tb_init_read(&b, tr, trlen);
		tb_skip(&b, HDR);
		if (ci->nrh)
			rh = tb_get_u32(&b);
		if (tr[1] == 0x02) {
			tplen = tb_get_u32(&b);
			pat = b.pos;
			tb_skip(&b, tplen);
			talen = tb_left(&b);
			tauths = tr + b.pos;
		} else {
			pat = b.pos;
			tplen = tb_left(&b);
		}
		if (tb_err(&b))
			return 0;
		if (cc == 0x17f && (modes & M_PCRCHANGED) && inject_left > 0)
			inject_extend(tfd);
		if (cc == 0x137 || cc == 0x134 || cc == 0x136 ||
		    cc == 0x135)
			nv_written(h[1]);
		if (!any_fake && cc == 0x153 && (modes & M_AKIMPORT)) {
			size_t nl;

			memcpy(params, tr + pat, tplen);
			if ((nl = import_swap(params, tplen, sizeof(params)))) {
				/* The TPM's authorizations kept: an HMAC
				 * no longer verifies, a password's has
				 * none to verify. */
				tb_init(&w, rsp, MAXMSG);
				tb_put_u16(&w, (uint16_t)(tr[0] << 8 | tr[1]));
				tb_put_u32(&w, 0);
				tb_put_u32(&w, 0);
				if (tr[1] == 0x02)
					tb_put_u32(&w, (uint32_t)nl);
				tb_put_bytes(&w, params, nl);
				tb_put_bytes(&w, tauths, talen);
				put32(rsp + 2, (uint32_t)w.len);
				return tb_err(&w) ? 0 : w.len;
			}
		}
		if (!any_fake) {
			/* Not ours: changed in place, the TPM's
			 * authorizations kept (they no longer verify). */
			rewrite(cc, cmd, tr + pat, tplen, rh);
			memcpy(rsp, tr, trlen);
			return trlen;
		}
		memcpy(params, tr + pat, tplen);
		if (cc == 0x153 && (modes & M_AKIMPORT)) {
			size_t nl = import_swap(params, tplen,
						sizeof(params));

			if (nl)
				tplen = nl;
		}
	}
	rewrite(cc, cmd, params, tplen, rh);

	/* The answer for tpmbox, signed with the session key: a fresh
	 * nonceTPM, the first parameter encrypted for an encrypting
	 * session, an HMAC per session. */
	for (i = 0; i < ns; i++)
		if (cs[i].f)
			rng_bytes(cs[i].f->ntpm, 32);
	for (i = 0; i < ns; i++) {
		struct csess *s = &cs[i];

		if (s->f && (s->attrs & 0x40) && tplen >= 2) {
			size_t sz = (size_t)params[0] << 8 | params[1];

			if (sz <= tplen - 2)
				cfb(s->f, s->auth, s->authorizing ?
				    s->authlen : 0, s->f->ntpm, 32, s->nonce,
				    s->nn, params + 2, sz, 0);
		}
	}
	tb_init(&w, rsp, MAXMSG);
	tb_put_u16(&w, 0x8002);
	tb_put_u32(&w, 0);
	tb_put_u32(&w, 0);
	if (ci->nrh)
		tb_put_u32(&w, rh);
	tb_put_u32(&w, (uint32_t)tplen);
	tb_put_bytes(&w, params, tplen);
	respond_auths(&w, cs, ns, cc, params, tplen, tauths, talen,
		      has_new ? newauth : NULL, newlen);
	if (any_fake)
		logf_("signed %s with the session key", ccname(cc));
	put32(rsp + 2, (uint32_t)w.len);
	return tb_err(&w) ? 0 : w.len;
}

static char **read_words(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[256], **v = NULL;

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char **nv;

		line[strcspn(line, "\n")] = '\0';
		if (!(nv = realloc(v, (*n + 1) * sizeof(*v))))
			break;
		v = nv;
		v[(*n)++] = strdup(line);
	}
	fclose(f);
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: interposer -l LISTEN -t SWTPM_SOCK -m "
		"MODE[,MODE] [-o LOG] [-w WORDS] [-K SRKPUB] [-A AKKEY] "
		"[-d DIR] [-F]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *lpath = NULL, *tpath = NULL, *srkpub = NULL,
		   *akkey = NULL, *mstr = NULL;
	int flush = 0, lfd, o;
	char *m, *save = NULL, *ms;

	while ((o = getopt(argc, argv, "l:t:m:o:w:K:A:d:F")) != -1) {
		switch (o) {
		case 'l': lpath = optarg; break;
		case 't': tpath = optarg; break;
		case 'm': mstr = optarg; break;
		case 'o': logpath = optarg; break;
		case 'w': words = read_words(optarg, &nwords); break;
		case 'K': srkpub = optarg; break;
		case 'A': akkey = optarg; break;
		case 'd': dumpdir = optarg; break;
		case 'F': flush = 1; break;
		default: usage();
		}
	}
	if (!lpath || !tpath || !mstr)
		usage();
	ms = strdup(mstr);
	for (m = strtok_r(ms, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
		size_t i;
		int found = 0;

		if (strncmp(m, "pcrchanged=", 11) == 0) {
			modes |= M_PCRCHANGED;
			inject_left = atoi(m + 11);
			continue;
		}
		for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]);
		     i++)
			if (strcmp(m, mode_names[i].name) == 0) {
				modes |= mode_names[i].bit;
				found = 1;
			}
		if (!found)
			usage();
	}
	free(ms);
	mbedtls_ecp_group_init(&grp);
	mbedtls_mpi_init(&srk_d);
	mbedtls_mpi_init(&ak_d);
	mbedtls_ecp_point_init(&srk_q);
	mbedtls_ecp_point_init(&ak_q);
	if (mbedtls_ecp_group_load(&grp, MBEDTLS_ECP_DP_SECP256R1) ||
	    make_key(&srk_d, &srk_q, srk_x, srk_y) ||
	    make_key(&ak_d, &ak_q, ak_x, ak_y)) {
		fputs("interposer: cannot make keys\n", stderr);
		return 1;
	}
	if (srkpub && write_pem(srkpub, &srk_d, &srk_q, 0))
		return 1;
	if (akkey) {
		char pub[4096];

		snprintf(pub, sizeof(pub), "%s.pub", akkey);
		if (write_pem(akkey, &ak_d, &ak_q, 1) ||
		    write_pem(pub, &ak_d, &ak_q, 0))
			return 1;
	}
	proxy_signals();
	lfd = listen_unix(lpath);
	if (lfd < 0) {
		perror("interposer: listen");
		return 1;
	}
	for (;;) {
		static uint8_t cmd[MAXMSG], rsp[MAXMSG];
		size_t clen, rlen;
		int cfd, tfd;

		if (stop)
			return 0;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EINTR)
				continue;
			perror("interposer: accept");
			return 1;
		}
		memset(&S, 0, sizeof(S));
		tfd = connect_unix(tpath);
		while (tfd >= 0 && read_msg(cfd, cmd, &clen, -1) == 0) {
			rlen = handle_cmd(tfd, cmd, clen, rsp);
			if (!rlen || write_all(cfd, rsp, rlen))
				break;
		}
		close(cfd);
		if (tfd >= 0) {
			if (flush)
				flush_leftovers(tfd);
			close(tfd);
		}
	}
}
