/* The controlling terminal (include/base/tty.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "base/file.h"
#include "base/tty.h"

static int tty_open(void)
{
	return open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
}

int tty_check(const char *what, struct tberr *e)
{
	int fd = tty_open();

	if (fd < 0)
		return err_set(e, EX_USAGE, "%s needs a terminal (there is "
			       "no controlling terminal here)", what);
	close(fd);
	return 0;
}

int tty_show(const char *text, struct tberr *e)
{
	int fd = tty_open(), rc;

	if (fd < 0)
		return err_set(e, EX_IO, "/dev/tty: %s", strerror(errno));
	rc = write_all(fd, text, strlen(text));
	close(fd);
	return rc ? err_set(e, EX_IO, "writing to the terminal failed") : 0;
}

int tty_ask(const char *prompt, char *buf, size_t cap, size_t *n,
	    struct tberr *e)
{
	struct termios old, quiet;
	int fd = tty_open(), rc = 0, echo_off = 0;
	size_t got = 0;
	char c;

	*n = 0;
	if (fd < 0)
		return err_set(e, EX_USAGE, "no terminal to ask on: give the "
			       "value (for example file:PATH or env:VAR)");
	if (tcgetattr(fd, &old) == 0) {
		quiet = old;
		quiet.c_lflag &= (tcflag_t)~(ECHO | ECHONL);
		quiet.c_lflag |= ICANON;
		echo_off = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
	}
	if (write_all(fd, prompt, strlen(prompt))) {
		rc = err_set(e, EX_IO, "writing to the terminal failed");
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = err_set(e, EX_IO, "no answer on the terminal "
				     "(end of input)");
			goto out;
		}
		if (c == '\n' || c == '\r')
			break;
		if (got + 1 >= cap) {
			rc = err_set(e, EX_USAGE, "the answer is longer than "
				     "%zu characters", cap - 1);
			goto out;
		}
		buf[got++] = c;
	}
	buf[got] = '\0';
	*n = got;
out:
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	(void)write_all(fd, "\n", 1);
	close(fd);
	c = 0;
	if (rc)
		explicit_bzero(buf, cap);
	return rc;
}
