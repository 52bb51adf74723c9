/* The Linux PPI sysfs texts (include/tpm/ppi.h): strict, bounded readers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tpm/ppi.h"

struct cur {
	const char *s;
	size_t n, i;
};

static int at(const struct cur *c, char ch)
{
	return c->i < c->n && c->s[c->i] == ch;
}

static int eat(struct cur *c, char ch)
{
	if (!at(c, ch))
		return 0;
	c->i++;
	return 1;
}

/* A decimal number (1..10 digits) or, with hex, 0x and 1..8 hex digits;
 * at most 0xffffffff. */
static int num(struct cur *c, int hex, uint32_t *v)
{
	uint64_t x = 0;
	size_t k = 0;

	if (hex && c->i + 1 < c->n && c->s[c->i] == '0' &&
	    (c->s[c->i + 1] == 'x' || c->s[c->i + 1] == 'X')) {
		c->i += 2;
		for (; c->i < c->n && k < 9; c->i++, k++) {
			char d = c->s[c->i];

			if (d >= '0' && d <= '9')
				x = x * 16 + (uint64_t)(d - '0');
			else if (d >= 'a' && d <= 'f')
				x = x * 16 + (uint64_t)(d - 'a' + 10);
			else if (d >= 'A' && d <= 'F')
				x = x * 16 + (uint64_t)(d - 'A' + 10);
			else
				break;
		}
		if (k == 0 || k > 8)
			return -1;
		*v = (uint32_t)x;
		return 0;
	}
	for (; c->i < c->n && k < 11; c->i++, k++) {
		char d = c->s[c->i];

		if (d < '0' || d > '9')
			break;
		x = x * 10 + (uint64_t)(d - '0');
	}
	if (k == 0 || k > 10 || x > 0xffffffffu)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* ": TEXT" up to the end of the line: printable, not empty. */
static int text(struct cur *c)
{
	size_t k = 0;

	if (!eat(c, ':') || !eat(c, ' '))
		return -1;
	for (; c->i < c->n && c->s[c->i] != '\n'; c->i++, k++)
		if (c->s[c->i] < 0x20 || c->s[c->i] > 0x7e)
			return -1;
	return k ? 0 : -1;
}

/* The end: one optional newline, then nothing. */
static int end(struct cur *c)
{
	eat(c, '\n');
	return c->i == c->n ? 0 : -1;
}

static int bad(struct tberr *e, const char *what)
{
	return err_set(e, EX_IO, "ppi/%s: not the kernel's format", what);
}

int ppi_parse_version(const char *s, size_t n, char out[8], struct tberr *e)
{
	/* "D.D" (the kernel keeps three characters). */
	if (n && s[n - 1] == '\n')
		n--;
	if (n != 3 || s[0] < '1' || s[0] > '9' || s[1] != '.' ||
	    s[2] < '0' || s[2] > '9')
		return bad(e, "version");
	memcpy(out, s, 3);
	out[3] = '\0';
	return 0;
}

int ppi_parse_request(const char *s, size_t n, struct ppi_request *r,
		      struct tberr *e)
{
	struct cur c = { s, n, 0 };

	memset(r, 0, sizeof(*r));
	if (num(&c, 0, &r->op))
		return bad(e, "request");
	if (eat(&c, ' ')) {
		if (r->op != PPI_OP_SET_BANKS || num(&c, 0, &r->arg))
			return bad(e, "request");
		r->has_arg = 1;
	}
	if (end(&c))
		return bad(e, "request");
	return 0;
}

int ppi_parse_response(const char *s, size_t n, struct ppi_response *r,
		       struct tberr *e)
{
	struct cur c = { s, n, 0 };

	memset(r, 0, sizeof(*r));
	if (num(&c, 0, &r->op))
		return bad(e, "response");
	if (r->op == 0) {		/* "0: No Recent Request" */
		if (text(&c) || end(&c))
			return bad(e, "response");
		return 0;
	}
	if (!eat(&c, ' ') || num(&c, 1, &r->code) || text(&c) || end(&c))
		return bad(e, "response");
	return 0;
}

int ppi_parse_action(const char *s, size_t n, uint32_t *action,
		     struct tberr *e)
{
	struct cur c = { s, n, 0 };

	if (num(&c, 0, action) || text(&c) || end(&c))
		return bad(e, "transition_action");
	return 0;
}

int ppi_parse_ops(const char *s, size_t n, uint8_t st[PPI_OPS],
		  struct tberr *e)
{
	struct cur c = { s, n, 0 };
	uint8_t seen[PPI_OPS];

	memset(seen, 0, sizeof(seen));
	while (c.i < c.n) {
		uint32_t op, v;

		if (num(&c, 0, &op) || op >= PPI_OPS || seen[op] ||
		    !eat(&c, ' ') || num(&c, 0, &v) || v < PPI_ST_BIOS_ONLY ||
		    v > PPI_ST_NO_USER || text(&c) || !eat(&c, '\n'))
			return bad(e, "tcg_operations");
		seen[op] = 1;
		st[op] = (uint8_t)v;
	}
	return 0;
}

const char *ppi_op_name(uint32_t op)
{
	static const char *const n[] = {
		[0] = "no operation",
		[1] = "enable",
		[2] = "disable",
		[3] = "activate",
		[4] = "deactivate",
		[5] = "clear",
		[6] = "enable and activate",
		[7] = "deactivate and disable",
		[8] = "allow taking ownership",
		[9] = "forbid taking ownership",
		[10] = "enable, activate, allow taking ownership",
		[11] = "forbid taking ownership, deactivate, disable",
		[12] = "deferred physical presence for a field upgrade",
		[13] = "set the operator auth",
		[14] = "enable, activate and clear",
		[15] = "ask before provisioning",
		[16] = "provision without asking",
		[17] = "ask before clearing",
		[18] = "clear without asking",
		[19] = "ask before maintenance",
		[20] = "maintenance without asking",
		[21] = "enable, activate and clear",
		[22] = "enable, activate, clear, enable, activate",
		[23] = "set the PCR banks",
		[24] = "change the endorsement primary seed",
		[25] = "change PCR banks without asking",
		[26] = "ask before changing PCR banks",
		[27] = "turn on without asking",
		[28] = "ask before turning on",
		[29] = "turn off without asking",
		[30] = "ask before turning off",
		[31] = "change the endorsement seed without asking",
		[32] = "ask before changing the endorsement seed",
		[33] = "log all digests",
		[34] = "disable endorsement, enable storage hierarchy",
		[96] = "enable block SID",
		[97] = "disable block SID",
		[98] = "ask before enabling block SID",
		[99] = "enable block SID without asking",
		[100] = "ask before disabling block SID",
		[101] = "disable block SID without asking",
	};

	if (op >= 128 && op < PPI_OPS)
		return "vendor-specific operation";
	if (op < sizeof(n) / sizeof(n[0]) && n[op])
		return n[op];
	return "unknown operation";
}

const char *ppi_status_name(uint32_t st)
{
	static const char *const n[] = {
		"not implemented", "firmware only",
		"blocked for the OS by the firmware",
		"allowed, a person must confirm at boot",
		"allowed, no confirmation",
	};

	return st < 5 ? n[st] : "unknown";
}

const char *ppi_action_name(uint32_t a)
{
	static const char *const n[] = {
		"nothing needed", "shut down and power on", "reboot",
		"an OS vendor-specific action",
	};

	return a < 4 ? n[a] : "error (the firmware gave no action)";
}

const char *ppi_code_name(uint32_t code)
{
	if (code == 0)
		return "succeeded";
	if (code == 0xfffffff0u)
		return "declined by the person at the console";
	if (code == 0xfffffff1u)
		return "failed in the firmware";
	if (code <= 0xfff)
		return "failed with a TPM error";
	return "failed";
}

static const struct {
	const char *name;
	uint32_t bit;
} banks[] = {
	{ "sha1", 1 }, { "sha256", 2 }, { "sha384", 4 }, { "sha512", 8 },
	{ "sm3_256", 16 },
};
#define NBANKS (sizeof(banks) / sizeof(banks[0]))

int ppi_banks_parse(const char *list, uint32_t *bits, struct tberr *e)
{
	const char *p = list;

	*bits = 0;
	for (;;) {
		size_t len = strcspn(p, ","), k;

		for (k = 0; k < NBANKS; k++)
			if (strlen(banks[k].name) == len &&
			    strncmp(p, banks[k].name, len) == 0)
				break;
		if (k == NBANKS)
			return err_set(e, EX_USAGE, "unknown bank '%.*s' (sha1,"
				       " sha256, sha384, sha512, sm3_256)",
				       (int)(len > 32 ? 32 : len), p);
		if (*bits & banks[k].bit)
			return err_set(e, EX_USAGE, "bank %s given twice",
				       banks[k].name);
		*bits |= banks[k].bit;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

void ppi_banks_format(uint32_t bits, char *out, size_t n)
{
	size_t k, o = 0;

	if (n)
		out[0] = '\0';
	for (k = 0; k < NBANKS; k++) {
		int w;

		if (!(bits & banks[k].bit))
			continue;
		w = snprintf(out + o, n - o, "%s%s", o ? "," : "",
			     banks[k].name);
		if (w < 0 || (size_t)w >= n - o)
			return;
		o += (size_t)w;
	}
	if ((bits & ~0x1fu) && o < n)
		snprintf(out + o, n - o, "%sunknown bits 0x%x", o ? "," : "",
			 bits & ~0x1fu);
	else if (!bits && n)
		snprintf(out, n, "none");
}

/* PREFIX then N decimal (1..5 digits): N, else -1. */
static long tpm_number(const char *s, const char *prefix)
{
	size_t k = strlen(prefix), i;
	long v = 0;

	if (strncmp(s, prefix, k))
		return -1;
	for (i = k; s[i] >= '0' && s[i] <= '9' && i - k < 5; i++)
		v = v * 10 + (s[i] - '0');
	return i == k || s[i] ? -1 : v;
}

int ppi_find(const char *dev, char *dir, size_t n, struct tberr *e)
{
	const char *root = getenv("TPMBOX_SYSFS");
	char cls[4096];
	long best = -1;

	if (!root || !*root)
		root = "/sys";
	snprintf(cls, sizeof(cls), "%s/class/tpm", root);
	if (dev) {
		const char *b = strrchr(dev, '/');

		b = b ? b + 1 : dev;
		best = tpm_number(b, "tpmrm");
		if (best < 0)
			best = tpm_number(b, "tpm");
		if (best < 0)
			return err_set(e, EX_IO, "%s: not a kernel TPM device "
				       "(/dev/tpmN or /dev/tpmrmN)", dev);
	} else {
		DIR *d = opendir(cls);
		struct dirent *de;

		if (!d)
			return err_set(e, EX_IO, "%s: %s (no TPM known to the "
				       "kernel)", cls, strerror(errno));
		while ((de = readdir(d))) {
			long v = tpm_number(de->d_name, "tpm");

			if (v >= 0 && (best < 0 || v < best))
				best = v;
		}
		closedir(d);
		if (best < 0)
			return err_set(e, EX_IO, "%s: no TPM known to the "
				       "kernel", cls);
	}
	if ((size_t)snprintf(dir, n, "%s/tpm%ld/ppi", cls, best) >= n)
		return err_set(e, EX_IO, "%s: path too long", cls);
	if (access(dir, R_OK | X_OK))
		return err_set(e, EX_IO, "%s: %s", dir, strerror(errno));
	return 0;
}

int ppi_read(const char *dir, const char *name, char *buf, size_t *len,
	     struct tberr *e)
{
	char path[4200];
	size_t got = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return err_set(e, EX_IO, "%s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r = read(fd, buf + got, PPI_FILE_MAX - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int er = errno;

			close(fd);
			return err_set(e, EX_IO, "%s: %s", path, strerror(er));
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got == PPI_FILE_MAX) {
			close(fd);
			return err_set(e, EX_IO, "%s: longer than %d bytes",
				       path, PPI_FILE_MAX - 1);
		}
	}
	close(fd);
	*len = got;
	return 0;
}

int ppi_write_request(const char *dir, const struct ppi_request *r,
		      struct tberr *e)
{
	char path[4200], txt[32];
	int fd, len;
	ssize_t w;

	snprintf(path, sizeof(path), "%s/request", dir);
	len = r->has_arg ? snprintf(txt, sizeof(txt), "%u %u", r->op, r->arg)
			 : snprintf(txt, sizeof(txt), "%u", r->op);
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0) {
		int er = errno;

		if ((er == EACCES || er == EPERM) && geteuid() != 0) {
			err_set(e, EX_IO, "%s: %s", path, strerror(er));
			err_hint(e, "writing a PPI request needs root");
			return EX_IO;
		}
		err_set(e, EX_IO, "%s: %s", path, strerror(er));
		if (er == EACCES || er == EROFS || er == EPERM)
			err_hint(e, "the request file is read-only: this "
				 "kernel or firmware takes no requests");
		return EX_IO;
	}
	do
		w = write(fd, txt, (size_t)len);
	while (w < 0 && errno == EINTR);
	if (w != len) {
		int er = w < 0 ? errno : EIO;

		close(fd);
		if (er == EPERM)
			return err_set(e, EX_FAIL, "the firmware does not offer "
				       "operation %u (%s)", r->op,
				       ppi_op_name(r->op));
		return err_set(e, er == EINVAL ? EX_FAIL : EX_IO,
			       "%s: writing '%s': %s", path, txt,
			       strerror(er));
	}
	if (close(fd))
		return err_set(e, EX_IO, "%s: %s", path, strerror(errno));
	return 0;
}
