#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/hex.h"

int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *q = p;

	while (n) {
		ssize_t w = write(fd, q, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The caller's own descriptors: -o /dev/stdout, -o >(cmd).  These are
 * links the kernel makes to what the caller already holds open, so they
 * are followed and written in place. */
static int own_fd_path(const char *path)
{
	return strncmp(path, "/dev/fd/", 8) == 0 ||
	       strncmp(path, "/proc/self/fd/", 14) == 0 ||
	       strcmp(path, "/dev/stdout") == 0 ||
	       strcmp(path, "/dev/stderr") == 0;
}

static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : "not a regular file";
}

/* Write in place to a FIFO, device or socket (or one of the caller's own
 * descriptors).  O_NONBLOCK on open: a FIFO with no reader is ENXIO at
 * once, not a hang; then the writes block as usual. */
static int write_in_place(const char *path, const struct stat *was,
			  int follow, const void *data, size_t n,
			  struct tberr *e)
{
	struct stat st;
	int fd, fl, er;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
		  (follow ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		er = errno;
		if (er == ENXIO)
			return err_set(e, EX_IO, "writing %s: no process "
				       "reads this FIFO", path);
		return err_set(e, EX_IO, "writing %s: %s", path,
			       strerror(er));
	}
	/* The node checked is the node opened (no swap in between). */
	if (fstat(fd, &st) || (was && (st.st_dev != was->st_dev ||
				       st.st_ino != was->st_ino))) {
		close(fd);
		return err_set(e, EX_IO, "writing %s: the file changed "
			       "while it was opened", path);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (write_all(fd, data, n)) {
		er = errno;
		close(fd);
		return err_set(e, EX_IO, "writing %s: %s", path,
			       strerror(er));
	}
	close(fd);
	return 0;
}

int file_out_in_place(const char *path)
{
	struct stat st;

	if (own_fd_path(path))
		return 1;
	return lstat(path, &st) == 0 && !S_ISLNK(st.st_mode) &&
	       !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int file_write_atomic(const char *path, const void *data, size_t n,
		      int flags, struct tberr *e)
{
	char tmp[4096], dir[4096], base[4096];
	struct stat st;
	int fd, dfd, er;
	mode_t mode = (flags & OUT_SECRET) ? 0600 : 0644;

	if (strcmp(path, "-") == 0) {
		if (write_all(1, data, n))
			return err_set(e, EX_IO, "writing to stdout: %s",
				       strerror(errno));
		return 0;
	}
	if (own_fd_path(path))
		return write_in_place(path, NULL, 1, data, n, e);
	if (lstat(path, &st) == 0) {
		/* A symbolic link is never followed: another user's link
		 * in /tmp could send a secret anywhere.  With -f the link
		 * itself is replaced (rename does not follow it). */
		if (S_ISLNK(st.st_mode) && !(flags & OUT_FORCE))
			return err_set(e, EX_IO, "%s is a symbolic link "
				       "(not followed; use -f to replace "
				       "the link itself)", path);
		/* A FIFO, device or socket is written in place (renaming
		 * over it would replace the node), but only when the
		 * caller owns it or gives -f: someone else's FIFO in /tmp
		 * must not receive a secret. */
		if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode)) {
			if (st.st_uid != geteuid() && !(flags & OUT_FORCE))
				return err_set(e, EX_IO, "%s is %s owned by "
					       "uid %u, not by you (use -f "
					       "to write into it)", path,
					       kind(st.st_mode),
					       (unsigned)st.st_uid);
			return write_in_place(path, &st, 0, data, n, e);
		}
		if (!(flags & OUT_FORCE))
			return err_set(e, EX_IO, "%s already exists (use -f "
				       "to replace it)", path);
	}
	if (strlen(path) + 16 > sizeof(tmp))
		return err_set(e, EX_USAGE, "path too long: %s", path);
	/* dirname() may return a pointer into its argument: copy out of a
	 * separate buffer (overlapping snprintf is undefined). */
	snprintf(base, sizeof(base), "%s", path);
	snprintf(dir, sizeof(dir), "%s", dirname(base));
	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return err_set(e, EX_IO, "cannot create a file in %s: %s",
			       dir, strerror(errno));
	if (!(flags & (OUT_SECRET | OUT_PUBLIC))) {
		mode_t um = umask(0);

		umask(um);
		mode &= ~um;
	}
	if (fchmod(fd, mode) || write_all(fd, data, n) || fsync(fd)) {
		er = errno;
		close(fd);
		unlink(tmp);
		return err_set(e, EX_IO, "writing %s: %s", path,
			       strerror(er));
	}
	if (close(fd) || rename(tmp, path)) {
		er = errno;
		unlink(tmp);
		return err_set(e, EX_IO, "writing %s: %s", path,
			       strerror(er));
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* file_read's bound on a silent input (--timeout), in ms; 0: none. */
/* Above this a buffer grows in place (realloc). */
#define BIG_READ ((size_t)1 << 20)

static int read_timeout_ms = 120000;

void file_set_timeout(int seconds)
{
	read_timeout_ms = seconds > 0 ? seconds * 1000 : 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_fail(int fd, uint8_t *p, size_t len, int rc)
{
	if (p) {
		explicit_bzero(p, len);
		free(p);
	}
	if (fd > 0)
		close(fd);
	return rc;
}

int file_read(const char *path, size_t max, uint8_t **data, size_t *n,
	      struct tberr *e)
{
	/* O_NONBLOCK: opening a FIFO does not wait for a writer, and a
	 * silent writer is bounded by poll() below. */
	int fd = strcmp(path, "-") == 0 ? 0 :
		open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	/* Read at most max + 1 bytes: one more than the limit proves the
	 * input too large; the buffer never grows past that. */
	size_t lim = max + 1, cap = lim < 4096 ? lim : 4096, len = 0;
	long long deadline = read_timeout_ms ?
		now_ms() + read_timeout_ms : 0;
	uint8_t *p;

	*data = NULL;
	*n = 0;
	if (fd < 0) {
		if (errno == ENOENT)
			return err_set(e, EX_NOENT, "%s: no such file", path);
		return err_set(e, EX_IO, "cannot open %s: %s", path,
			       strerror(errno));
	}
	p = malloc(cap);
	if (!p)
		return read_fail(fd, NULL, 0,
				 err_set(e, EX_IO, "out of memory"));
	while (len < lim) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int w = -1;

		if (len == cap) {
			size_t nc = cap >= lim / 2 ? lim : cap * 2;
			uint8_t *q;

			if (cap >= BIG_READ) {
				/* Large inputs are logs, not secrets; glibc
				 * moves mmap'd blocks with mremap, so the
				 * peak stays at the limit, not 1.5 times. */
				q = realloc(p, nc);
				if (!q)
					return read_fail(fd, p, len,
						 err_set(e, EX_IO,
							 "out of memory"));
			} else {
				/* Small inputs may be secrets: copy, and
				 * wipe the old buffer (realloc would free
				 * it unwiped). */
				q = malloc(nc);
				if (!q)
					return read_fail(fd, p, len,
						 err_set(e, EX_IO,
							 "out of memory"));
				memcpy(q, p, len);
				explicit_bzero(p, len);
				free(p);
			}
			p = q;
			cap = nc;
		}
		if (deadline) {
			long long left = deadline - now_ms();

			w = left > 0 ? (int)left : 0;
		}
		r = poll(&pf, 1, w);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return read_fail(fd, p, len, err_set(e, EX_IO,
					 "reading %s: no data within %d s "
					 "(--timeout)", path,
					 read_timeout_ms / 1000));
		r = read(fd, p + len, cap - len);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			int er = errno;

			return read_fail(fd, p, len, err_set(e, EX_IO,
					 "reading %s: %s", path,
					 strerror(er)));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (fd)
		close(fd);
	if (len > max)
		return read_fail(0, p, len, err_set(e, EX_USAGE, "%s is "
				 "larger than %zu bytes", path, max));
	*data = p;
	*n = len;
	return 0;
}

int file_write_bytes(const char *path, const uint8_t *data, size_t n,
		     int hex, int flags, struct tberr *e)
{
	char *text;
	int rc;

	if (!hex)
		return file_write_atomic(path, data, n, flags, e);
	if (!(text = malloc(n * 2 + 2)))
		return err_set(e, EX_USAGE, "out of memory");
	hex_encode(data, n, text);
	strcat(text, "\n");
	rc = file_write_atomic(path, text, n * 2 + 1, flags, e);
	explicit_bzero(text, n * 2 + 1);
	free(text);
	return rc;
}

int file_write_same(const char *path, const void *data, size_t n,
		    int flags, struct tberr *e)
{
	uint8_t *old = NULL;
	size_t oldlen;

	if (strcmp(path, "-") != 0 &&
	    file_read(path, n, &old, &oldlen, e) == 0) {
		int same = oldlen == n && memcmp(old, data, n) == 0;

		free(old);
		if (same)
			return 0;
	}
	err_clear(e);
	return file_write_atomic(path, data, n, flags, e);
}
