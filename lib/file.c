#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file.h"

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
	/* A device or pipe (-o /dev/null, -o /dev/stdout) is written in
	 * place: renaming over it would replace the device node. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 || write_all(fd, data, n)) {
			er = errno;
			if (fd >= 0)
				close(fd);
			return err_set(e, EX_IO, "writing %s: %s", path,
				       strerror(er));
		}
		close(fd);
		return 0;
	}
	if (!(flags & OUT_FORCE) && lstat(path, &st) == 0)
		return err_set(e, EX_IO, "%s already exists (use -f to "
			       "replace it)", path);
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
	if (!(flags & OUT_SECRET)) {
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

int file_read(const char *path, size_t max, uint8_t **data, size_t *n,
	      struct tberr *e)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, len = 0;
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
	for (;;) {
		ssize_t r;

		if (!p) {
			if (fd)
				close(fd);
			return err_set(e, EX_IO, "out of memory");
		}
		if (len == cap) {
			uint8_t *q;

			if (cap > max) {
				explicit_bzero(p, len);
				free(p);
				if (fd)
					close(fd);
				return err_set(e, EX_USAGE, "%s is larger "
					       "than %zu bytes", path, max);
			}
			q = realloc(p, cap * 2);
			if (!q) {
				explicit_bzero(p, len);
				free(p);
				p = NULL;
				continue;
			}
			p = q;
			cap *= 2;
		}
		r = read(fd, p + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int er = errno;

			explicit_bzero(p, len);
			free(p);
			if (fd)
				close(fd);
			return err_set(e, EX_IO, "reading %s: %s", path,
				       strerror(er));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (fd)
		close(fd);
	if (len > max) {
		explicit_bzero(p, len);
		free(p);
		return err_set(e, EX_USAGE, "%s is larger than %zu bytes",
			       path, max);
	}
	*data = p;
	*n = len;
	return 0;
}
