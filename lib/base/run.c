/* A program fed a secret on its stdin (include/base/run.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/run.h"

/* All of p[0..n) to fd (a pipe: SIGPIPE ignored by the caller); 0 or
 * errno. */
static int feed(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return errno ? errno : EPIPE;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int run_feed2(char *const *argv, const void *data, size_t n,
	      const void *data3, size_t n3, struct tberr *e)
{
	struct sigaction ign, old;
	int fd[2], fd3[2] = { -1, -1 }, st, werr = 0, xfd[2];
	char x = 0;
	pid_t pid;

	/* xfd: closed on a successful exec, carries errno when it fails;
	 * fd3: the second pipe, the child's descriptor 3 */
	if (pipe2(fd, O_CLOEXEC) || pipe2(xfd, O_CLOEXEC) ||
	    (data3 && pipe2(fd3, O_CLOEXEC)))
		return err_set(e, EX_IO, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		close(xfd[0]);
		close(xfd[1]);
		if (data3) {
			close(fd3[0]);
			close(fd3[1]);
		}
		return err_set(e, EX_IO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* dup2 onto itself would keep close-on-exec */
		if (data3 && fd3[0] == 3)
			fcntl(3, F_SETFD, 0);
		if (dup2(fd[0], 0) == 0 &&
		    (!data3 || fd3[0] == 3 || dup2(fd3[0], 3) == 3))
			execvp(argv[0], argv);
		x = (char)(errno == ENOENT ? 1 : 2);
		if (write(xfd[1], &x, 1) < 0)
			_exit(127);
		_exit(127);
	}
	close(fd[0]);
	close(xfd[1]);
	if (data3)
		close(fd3[0]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	if (read(xfd[0], &x, 1) == 1) {
		close(fd[1]);
		close(xfd[0]);
		if (data3)
			close(fd3[1]);
		waitpid(pid, &st, 0);
		sigaction(SIGPIPE, &old, NULL);
		return x == 1 ? err_set(e, EX_NOENT, "%s: not found (on PATH)",
					argv[0]) :
		       err_set(e, EX_IO, "%s: cannot be run", argv[0]);
	}
	close(xfd[0]);
	/* both fit a pipe's buffer (a passphrase, a token): neither write
	 * waits for the child to read the other */
	if (data3) {
		werr = feed(fd3[1], data3, n3);
		close(fd3[1]);
	}
	if (!werr)
		werr = feed(fd[1], data, n);
	close(fd[1]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &old, NULL);
	if (WIFSIGNALED(st))
		return err_set(e, EX_FAIL, "%s failed (signal %d)", argv[0],
			       WTERMSIG(st));
	if (WEXITSTATUS(st))
		return err_set(e, EX_FAIL, "%s failed (exit %d)", argv[0],
			       WEXITSTATUS(st));
	if (werr)
		return err_set(e, EX_FAIL, "%s did not read the passphrase: "
			       "%s", argv[0], strerror(werr));
	return 0;
}

int run_feed(char *const *argv, const void *data, size_t n,
	     struct tberr *e)
{
	return run_feed2(argv, data, n, NULL, 0, e);
}
