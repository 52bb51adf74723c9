/* A program fed a secret on its stdin (include/base/run.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/run.h"

int run_feed(char *const *argv, const void *data, size_t n,
	     struct tberr *e)
{
	struct sigaction ign, old;
	const char *p = data;
	int fd[2], st, werr = 0, xfd[2];
	char x = 0;
	pid_t pid;

	/* xfd: closed on a successful exec, carries errno when it fails */
	if (pipe2(fd, O_CLOEXEC) || pipe2(xfd, O_CLOEXEC))
		return err_set(e, EX_IO, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		close(xfd[0]);
		close(xfd[1]);
		return err_set(e, EX_IO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		if (dup2(fd[0], 0) == 0)
			execvp(argv[0], argv);
		x = (char)(errno == ENOENT ? 1 : 2);
		if (write(xfd[1], &x, 1) < 0)
			_exit(127);
		_exit(127);
	}
	close(fd[0]);
	close(xfd[1]);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	if (read(xfd[0], &x, 1) == 1) {
		close(fd[1]);
		close(xfd[0]);
		waitpid(pid, &st, 0);
		sigaction(SIGPIPE, &old, NULL);
		return x == 1 ? err_set(e, EX_NOENT, "%s: not found (on PATH)",
					argv[0]) :
		       err_set(e, EX_IO, "%s: cannot be run", argv[0]);
	}
	close(xfd[0]);
	while (n) {
		ssize_t w = write(fd[1], p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			werr = errno;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
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
