/* faultproxy: a fault-injecting TPM proxy for tests.
 *
 * Listens on a unix socket, forwards each raw TPM command to swtpm's unix
 * data socket, and damages one response per client connection the way a
 * broken TPM or a bus interposer would.  One client at a time (swtpm is
 * single-client too); each client gets its own swtpm connection and its
 * own random stream (seed, connection number), so a failing connection is
 * replayed with the same seed and -c N.
 *
 * usage: faultproxy -l LISTEN -t SWTPM_SOCK -m MODE [-s SEED] [-k K]
 *                   [-o STATSFILE] [-r RECORDDIR] [-F] [-c CONN]
 *                   [-e N:OFF:BYTE[:BYTE...]]
 *   -m MODE  pass trunc close stallmid inflate shrink sizefield flip rc
 *            twice stall retry retryall random set
 *   -k K     damage response number (rand % K) of each connection
 *            (default 1: the first)
 *   -o FILE  append one line per connection: what was done
 *   -r DIR   record every response as DIR/<cc>-<n>.bin (pass mode seeds)
 *   -F       after each client leaves, flush the transient objects and
 *            sessions it left in swtpm (a tiny resource manager)
 *   -c CONN  start numbering connections at CONN (replay)
 *   -e N:OFF:BYTE[:BYTE...]  for mode set: the answer, offset and value
 *                  (more values: the bytes after OFF, up to 8 in all)
 *
 * Modes (K-th response of a connection):
 *   pass       forward untouched
 *   trunc      cut the response at a random offset k and make the header
 *              size say k (a short but self-consistent answer)
 *   close      send the first k bytes, then close the connection
 *   stallmid   send the first k bytes, then never send more
 *   inflate    header size larger: extra garbage bytes appended, or a
 *              size beyond any buffer, or just a missing tail + close
 *   shrink     header size smaller, all bytes still sent
 *   sizefield  add/subtract/replace a 16- or 32-bit field in the body
 *              (TPM2B sizes, parameterSize, counts)
 *   flip       flip 1-4 random bits anywhere in the response
 *   rc         replace the response code (interesting codes or random,
 *              TPM 1.2 codes in a 1.2 answer), with or without the body
 *   twice      send the response twice back to back
 *   stall      never answer this command
 *   retry      every other command is answered TPM_RC_RETRY or
 *              TPM_RC_YIELDED without reaching swtpm (must succeed)
 *   retryall   every command is answered TPM_RC_RETRY
 *   random     one of the non-stalling modes above, per connection
 *   set        one chosen damage, not a random one: byte OFF of answer
 *              N (counted from 0 in each connection) becomes BYTE (-e)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proxy.h"

enum mode {
	M_PASS, M_TRUNC, M_CLOSE, M_STALLMID, M_INFLATE, M_SHRINK,
	M_SIZEFIELD, M_FLIP, M_RC, M_TWICE, M_STALL, M_RETRY, M_RETRYALL,
	M_RANDOM, M_SET, M_COUNT
};

static const char *const mode_names[M_COUNT] = {
	"pass", "trunc", "close", "stallmid", "inflate", "shrink",
	"sizefield", "flip", "rc", "twice", "stall", "retry", "retryall",
	"random", "set"
};

/* Modes "random" picks from: each ends without waiting for a timeout. */
static const enum mode quick_modes[] = {
	M_TRUNC, M_CLOSE, M_INFLATE, M_SHRINK, M_SIZEFIELD, M_FLIP, M_RC,
	M_TWICE, M_RETRY
};

static uint64_t rng;
static unsigned set_idx, set_off;	/* -e, mode set */
static int set_val[8], set_nval;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible, no libc state. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t rndn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

/* Wait until the client goes away (reading and dropping what it sends). */
static void wait_gone(int fd)
{
	uint8_t junk[4096];

	for (;;) {
		ssize_t r = read(fd, junk, sizeof(junk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
	}
}

static void record(const char *dir, const uint8_t *cmd, const uint8_t *rsp,
		   size_t rlen, unsigned long conn, unsigned idx)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%08x-%lu-%u.bin", dir,
		 get32(cmd + 6), conn, idx);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, rsp, rlen) != (ssize_t)rlen)
		unlink(path);
	close(fd);
}

/* A response code for mode rc: one of a family's interesting codes, or
 * (one time in four) a random one.  TPM 2.0: RETRY, YIELDED, TESTING,
 * LOCKOUT, AUTH_FAIL, HANDLE, INITIALIZE, FAILURE...  TPM 1.2 (Main
 * Specification Part 2, 16): AUTHFAIL, BADINDEX, DEACTIVATED, DISABLED,
 * FAIL, NOSPACE, NOSRK, RESOURCES, WRONGPCRVAL, AUTH2FAIL,
 * NO_ENDORSEMENT, INVALID_POSTINIT, BAD_ORDINAL, RETRY,
 * DEFEND_LOCK_RUNNING. */
static uint32_t pick_rc(int tpm12)
{
	static const uint32_t rcs20[] = {
		0x922, 0x908, 0x90a, 0x921, 0x98e, 0x9a2, 0x18b, 0x99d,
		0x14a, 0x100, 0x101, 0x143, 0x920, 0x28b, 0x1c4, 0x084,
		0x0000001e, 0x00000800, 0xffffffffu, 0x80000000u, 0x7ff
	};
	static const uint32_t rcs12[] = {
		0x01, 0x02, 0x06, 0x07, 0x09, 0x11, 0x12, 0x15, 0x18, 0x1d,
		0x23, 0x26, 0x0a, 0x800, 0x803
	};

	if (rndn(4) == 0)
		return (uint32_t)rnd();
	return tpm12 ? rcs12[rndn(sizeof(rcs12) / sizeof(rcs12[0]))]
		     : rcs20[rndn(sizeof(rcs20) / sizeof(rcs20[0]))];
}

struct outcome {
	int close;	/* close the client connection after sending */
	int stall;	/* wait for the client to leave */
	int twice;	/* send the response again after a pause */
	char what[200];
};

/* Damage r[0..*n) per mode; fills o.  The buffer holds MAXMSG bytes. */
static void mutate(enum mode m, uint8_t *r, size_t *n, struct outcome *o)
{
	size_t len = *n, k, at;
	uint32_t v, d;

	switch (m) {
	case M_SET:
		if (set_off + (unsigned)set_nval <= len) {
			snprintf(o->what, sizeof(o->what), "set byte %u "
				 "0x%02x->0x%02x (%d byte%s)", set_off,
				 r[set_off], set_val[0], set_nval,
				 set_nval > 1 ? "s" : "");
			for (k = 0; k < (size_t)set_nval; k++)
				r[set_off + k] = (uint8_t)set_val[k];
		} else {
			snprintf(o->what, sizeof(o->what), "set byte %u: "
				 "beyond the %zu bytes", set_off, len);
		}
		break;
	case M_TRUNC:
		k = rndn((uint32_t)len);
		if (k >= 6)
			put32(r + 2, (uint32_t)k);
		else
			o->close = 1;	/* no size to rewrite */
		*n = k;
		snprintf(o->what, sizeof(o->what), "trunc %zu->%zu", len, k);
		break;
	case M_CLOSE:
	case M_STALLMID:
		k = rndn((uint32_t)len);
		*n = k;
		if (m == M_CLOSE)
			o->close = 1;
		else
			o->stall = 1;
		snprintf(o->what, sizeof(o->what), "%s after %zu of %zu",
			 mode_names[m], k, len);
		break;
	case M_INFLATE:
		switch (rndn(4)) {
		case 0:		/* beyond any buffer */
			v = rndn(2) ? 0xffffffffu : 8193 + rndn(100000);
			put32(r + 2, v);
			o->close = 1;
			snprintf(o->what, sizeof(o->what), "inflate size "
				 "%zu->%u", len, v);
			break;
		case 1:		/* tail missing; connection closed */
			v = (uint32_t)len + 1 + rndn(64);
			put32(r + 2, v);
			o->close = 1;
			snprintf(o->what, sizeof(o->what), "inflate size "
				 "%zu->%u, close", len, v);
			break;
		default:	/* garbage tail counted by the header */
			d = 1 + rndn(rndn(2) ? 8 : 512);
			if (len + d > MAXMSG)
				d = (uint32_t)(MAXMSG - len);
			for (k = 0; k < d; k++)
				r[len + k] = rndn(2) ? 0 : (uint8_t)rnd();
			*n = len + d;
			put32(r + 2, (uint32_t)*n);
			snprintf(o->what, sizeof(o->what), "inflate +%u "
				 "garbage bytes", d);
		}
		break;
	case M_SHRINK:
		d = 1 + rndn(len - 1 < 16 ? (uint32_t)len - 1 : 16);
		if (rndn(4) == 0)
			d = 1 + rndn((uint32_t)len);
		put32(r + 2, (uint32_t)(len - d));
		snprintf(o->what, sizeof(o->what), "shrink size %zu->%zu "
			 "(all sent)", len, len - d);
		break;
	case M_SIZEFIELD:
		if (len < HDR + 2) {
			mutate(M_FLIP, r, n, o);
			return;
		}
		at = HDR + rndn((uint32_t)(len - HDR - 1));
		if (rndn(3) == 0 && at + 4 <= len) {
			uint32_t old = get32(r + at);

			switch (rndn(4)) {
			case 0: v = old + 1 + rndn(16); break;
			case 1: v = old - 1 - rndn(16); break;
			case 2: v = 0xffffffffu; break;
			default: v = (uint32_t)rnd(); break;
			}
			put32(r + at, v);
			snprintf(o->what, sizeof(o->what), "u32@%zu %u->%u",
				 at, old, v);
		} else {
			uint16_t old = (uint16_t)(r[at] << 8 | r[at + 1]);
			uint16_t nv;

			switch (rndn(5)) {
			case 0: nv = (uint16_t)(old + 1 + rndn(64)); break;
			case 1: nv = (uint16_t)(old - 1 - rndn(8)); break;
			case 2: nv = 0xffff; break;
			case 3: nv = 0; break;
			default: nv = (uint16_t)(old * 2 + 1); break;
			}
			r[at] = (uint8_t)(nv >> 8);
			r[at + 1] = (uint8_t)nv;
			snprintf(o->what, sizeof(o->what), "u16@%zu %u->%u",
				 at, old, nv);
		}
		break;
	case M_FLIP: {
		int bits = 1 + (int)rndn(4), i;
		size_t w = 0;

		w += (size_t)snprintf(o->what, sizeof(o->what), "flip");
		for (i = 0; i < bits; i++) {
			size_t byte = rndn((uint32_t)len);
			int bit = (int)rndn(8);

			r[byte] ^= (uint8_t)(1u << bit);
			if (w < sizeof(o->what))
				w += (size_t)snprintf(o->what + w,
						      sizeof(o->what) - w,
						      " %zu.%d", byte, bit);
		}
		break;
	}
	case M_RC: {
		/* A 1.2 answers in its own tags (0x00c4-0x00c6) and codes,
		 * and an error of its own without a body is tagged 0x00c4. */
		int tpm12 = r[0] != 0x80;

		v = pick_rc(tpm12);
		put32(r + 6, v);
		if (rndn(2)) {
			*n = HDR;
			put32(r + 2, HDR);
			r[0] = tpm12 ? 0x00 : 0x80;
			r[1] = tpm12 ? 0xc4 : 0x01;
		}
		snprintf(o->what, sizeof(o->what), "rc 0x%x%s", v,
			 *n == HDR ? "" : " with body");
		break;
	}
	case M_TWICE:
		/* Both copies in one write, or the second a moment later
		 * (it then arrives while the client works on the first). */
		o->twice = 1 + (int)rndn(2);
		snprintf(o->what, sizeof(o->what), "twice%s",
			 o->twice == 2 ? " (second after 2 ms)" : "");
		if (o->twice == 1 && 2 * len <= MAXMSG) {
			memcpy(r + len, r, len);
			*n = 2 * len;
			o->twice = 0;
		}
		break;
	default:
		break;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: faultproxy -l LISTEN -t SWTPM_SOCK -m MODE "
		"[-s SEED] [-k K] [-o STATS] [-r DIR] [-F] [-c CONN] "
		"[-e N:OFF:BYTE]\n");
	exit(2);
}

/* -e N:OFF:BYTE[:BYTE...]: 1 when well formed. */
static int parse_edit(const char *a)
{
	char *end;
	unsigned long v;

	set_idx = (unsigned)strtoul(a, &end, 0);
	if (end == a || *end != ':')
		return 0;
	a = end + 1;
	set_off = (unsigned)strtoul(a, &end, 0);
	if (end == a || *end != ':')
		return 0;
	for (set_nval = 0; *end == ':' && set_nval < 8; set_nval++) {
		a = end + 1;
		v = strtoul(a, &end, 0);
		if (end == a || v > 255)
			return 0;
		set_val[set_nval] = (int)v;
	}
	return *end == '\0' && set_nval > 0;
}

int main(int argc, char **argv)
{
	const char *lpath = NULL, *tpath = NULL, *stats = NULL,
		   *recdir = NULL;
	enum mode mode = M_COUNT;
	uint64_t seed = 1;
	unsigned k = 1;
	unsigned long conn = 0;
	int flush = 0, lfd, o, i, edit = 0;

	while ((o = getopt(argc, argv, "l:t:m:s:k:o:r:Fc:e:")) != -1) {
		switch (o) {
		case 'l': lpath = optarg; break;
		case 't': tpath = optarg; break;
		case 'm':
			for (i = 0; i < M_COUNT; i++)
				if (strcmp(optarg, mode_names[i]) == 0)
					mode = (enum mode)i;
			break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'k': k = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'o': stats = optarg; break;
		case 'r': recdir = optarg; break;
		case 'F': flush = 1; break;
		case 'c': conn = strtoul(optarg, NULL, 0); break;
		case 'e':
			edit = parse_edit(optarg);
			if (!edit)
				usage();
			break;
		default: usage();
		}
	}
	if (!lpath || !tpath || mode == M_COUNT || k == 0 ||
	    (mode == M_SET) != edit)
		usage();
	proxy_signals();
	lfd = listen_unix(lpath);
	if (lfd < 0) {
		perror("faultproxy: listen");
		return 1;
	}
	for (;; conn++) {
		static uint8_t cmd[MAXMSG], rsp[MAXMSG * 2];
		enum mode m = mode;
		struct outcome out;
		unsigned idx, target, mutated = 0;
		size_t clen, rlen;
		int cfd, tfd;
		FILE *sf;

		if (stop)
			return 0;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EINTR) {
				conn--;
				continue;
			}
			perror("faultproxy: accept");
			return 1;
		}
		rng = seed * 0x9E3779B97F4A7C15ULL + conn * 0xBF58476D1CE4E5B9ULL
		      + 1;
		rnd();
		if (m == M_RANDOM)
			m = quick_modes[rndn(sizeof(quick_modes) /
					     sizeof(quick_modes[0]))];
		target = m == M_SET ? set_idx : rndn(k);
		memset(&out, 0, sizeof(out));
		/* swtpm serves one client at a time: connect only when a
		 * command goes through, so stalled clients hold nothing. */
		tfd = -1;
		for (idx = 0; !out.close && !out.stall; idx++) {
			if (read_msg(cfd, cmd, &clen, -1))
				break;
			if (m == M_RETRYALL || (m == M_RETRY && idx % 2 == 0)) {
				uint8_t e[HDR] = { 0x80, 0x01 };
				uint32_t rc = (m == M_RETRY && idx % 4 == 2) ?
					      0x908 : 0x922;

				put32(e + 2, HDR);
				put32(e + 6, rc);
				mutated++;
				snprintf(out.what, sizeof(out.what),
					 "%s 0x%x", mode_names[m], rc);
				if (write_all(cfd, e, sizeof(e)))
					break;
				continue;
			}
			if (m == M_STALL && idx == target) {
				mutated++;
				snprintf(out.what, sizeof(out.what),
					 "stall cmd %u", idx);
				out.stall = 1;
				break;
			}
			if (tfd < 0 && (tfd = connect_unix(tpath)) < 0) {
				snprintf(out.what, sizeof(out.what),
					 "cannot connect to swtpm");
				break;
			}
			if (roundtrip(tfd, cmd, clen, rsp, &rlen)) {
				snprintf(out.what, sizeof(out.what),
					 "swtpm failed");
				break;
			}
			if (recdir)
				record(recdir, cmd, rsp, rlen, conn, idx);
			if (idx == target && m != M_PASS && m != M_RETRY) {
				char what[sizeof(out.what) + 40];

				mutate(m, rsp, &rlen, &out);
				mutated++;
				/* Name the command whose answer was hit. */
				snprintf(what, sizeof(what), "cmd %u cc 0x%x: %s",
					 idx, get32(cmd + 6), out.what);
				snprintf(out.what, sizeof(out.what), "%.190s", what);
			}
			if (rlen && write_all(cfd, rsp, rlen))
				break;
			if (out.twice) {
				usleep(2000);
				out.twice = 0;
				if (write_all(cfd, rsp, rlen))
					break;
			}
		}
		if (out.stall && tfd >= 0) {
			if (flush)
				flush_leftovers(tfd);
			close(tfd);
			tfd = -1;
		}
		if (out.stall)
			wait_gone(cfd);
		close(cfd);
		if (tfd >= 0) {
			if (flush)
				flush_leftovers(tfd);
			close(tfd);
		}
		if (stats && (sf = fopen(stats, "a")) != NULL) {
			fprintf(sf, "conn=%lu mode=%s seed=%llu cmds=%u "
				"mutated=%u what=%s\n", conn, mode_names[m],
				(unsigned long long)seed, idx, mutated,
				out.what[0] ? out.what : "-");
			fclose(sf);
		}
	}
}
