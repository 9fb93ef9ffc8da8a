/*
 * child.c: child processes and the signals of the box.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobs/box/child.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static const char *const child_states[] = {
	[CHILD_NEW] = "new",
	[CHILD_RUNNING] = "running",
	[CHILD_DONE] = "done",
};
static const struct fsm child_fsm =
	FSM("child process", child_states, CHILD_DONE);

static void
child_set_state(struct child *c, enum child_state s)
{
	FSM_SET(&child_fsm, c->state, s, "%s (process %ld)", c->name,
		(long)c->pid);
}

static int signal_fd = -1;
static sigset_t blocked;
static int stop_signal;

double
child_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void
child_signals_init(void)
{
	if (signal_fd != -1) {
		/* Again in a forked child (child_fork() unblocked them):
		 * the signalfd it inherited reads its own signals. */
		if (sigprocmask(SIG_BLOCK, &blocked, NULL) == -1)
			fatal("sigprocmask");
		return;
	}
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGCHLD);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &blocked, NULL) == -1)
		fatal("sigprocmask");
	signal_fd = signalfd(-1, &blocked, SFD_NONBLOCK | SFD_CLOEXEC);
	if (signal_fd == -1)
		fatal("signalfd");
	/* A dying pipe reader must not kill the box. */
	signal(SIGPIPE, SIG_IGN);
}

int
child_signals_fd(void)
{
	return signal_fd;
}

int
child_stop_signal(void)
{
	return stop_signal;
}

bool
child_signals_read(int *sig)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(signal_fd, &si, sizeof si) == sizeof si) {
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM ||
		    si.ssi_signo == SIGHUP) {
			if (stop_signal == 0)
				stop_signal = (int)si.ssi_signo;
			stop = true;
		}
	}
	if (sig != NULL)
		*sig = stop_signal;
	return stop || stop_signal != 0;
}

/* In the child: its own group, death with the parent, default signals.
 * Every signal, not only those robot-box handles (exec resets those):
 * an ignored one stays ignored across exec, and robot-box started as a
 * shell's background job ignores SIGINT, with which dd is stopped at
 * its runtime's end (GNU dd keeps an ignored SIGINT ignored). */
static void
child_setup(void)
{
	sigset_t none;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static int
open_output(const char *path)
{
	return open(path ? path : "/dev/null",
		    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static void
child_init(struct child *c, const char *name, const char *out, const char *err)
{
	memset(c, 0, sizeof *c);
	c->name = xstrdup(name);
	c->out_path = out ? xstrdup(out) : NULL;
	c->err_path = err ? xstrdup(err) : NULL;
}

/* Where each child's process group is written down (cgroup.h's
 * fallback), or NULL. */
static char *record_path;

void
child_record_groups(const char *path)
{
	FILE *fp;

	free(record_path);
	record_path = path ? xstrdup(path) : NULL;
	if (record_path != NULL && (fp = fopen(record_path, "w")) != NULL)
		fclose(fp); /* a new robot-box: the old groups are gone */
}

static void
child_record(pid_t pid)
{
	FILE *fp;

	if (record_path == NULL || (fp = fopen(record_path, "a")) == NULL)
		return;
	fprintf(fp, "%d\n", (int)pid);
	fclose(fp);
}

bool
child_spawn(struct child *c, const char *name, char *const argv[],
	    const char *out_path, const char *err_path, const char *cwd)
{
	pid_t pid;

	child_init(c, name, out_path, err_path);
	pid = fork();
	if (pid == -1)
		return false;
	if (pid == 0) {
		int out = open_output(out_path), err = open_output(err_path);

		child_setup();
		if (out == -1 || err == -1 || dup2(out, 1) == -1 ||
		    dup2(err, 2) == -1)
			_exit(126);
		if (cwd != NULL && chdir(cwd) == -1) {
			dprintf(2, "cannot change to '%s': %s\n", cwd,
				strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	setpgid(pid, pid); /* also here: no race with child_signal() */
	c->pid = pid;
	child_record(pid);
	child_set_state(c, CHILD_RUNNING);
	c->started = child_now();
	return true;
}

bool
child_fork(struct child *c, const char *name, int (*fn)(void *), void *arg)
{
	pid_t pid;

	child_init(c, name, NULL, NULL);
	pid = fork();
	if (pid == -1)
		return false;
	if (pid == 0) {
		child_setup();
		_exit(fn(arg));
	}
	setpgid(pid, pid);
	c->pid = pid;
	child_record(pid);
	child_set_state(c, CHILD_RUNNING);
	c->started = child_now();
	return true;
}

bool
child_reap(struct child *c)
{
	pid_t r;

	if (c->state != CHILD_RUNNING)
		return c->state == CHILD_DONE;
	r = wait4(c->pid, &c->status, WNOHANG, &c->ru);
	if (r == c->pid) {
		child_set_state(c, CHILD_DONE);
		c->ended = child_now();
		return true;
	}
	return false;
}

void
child_signal(struct child *c, int sig)
{
	if (c->state == CHILD_RUNNING && c->pid > 0)
		kill(-c->pid, sig);
}

void
child_kill_wait(struct child *c)
{
	if (c->state != CHILD_RUNNING)
		return;
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	while (wait4(c->pid, &c->status, 0, &c->ru) == -1 && errno == EINTR)
		;
	child_set_state(c, CHILD_DONE);
	c->ended = child_now();
}

bool
child_wait(struct child *c, double timeout, bool *timed_out)
{
	return child_wait_tick(c, timeout, timed_out, NULL, NULL);
}

bool
child_wait_tick(struct child *c, double timeout, bool *timed_out,
		void (*tick)(void *), void *arg)
{
	double deadline = timeout > 0 ? child_now() + timeout : 0;

	*timed_out = false;
	while (!child_reap(c)) {
		struct pollfd p = {signal_fd, POLLIN, 0};
		int ms = 1000;

		if (deadline > 0) {
			double left = deadline - child_now();

			if (left <= 0) {
				*timed_out = true;
				child_kill_wait(c);
				return false;
			}
			if (left < 1)
				ms = (int)(left * 1000) + 1;
		}
		if (signal_fd != -1) {
			poll(&p, 1, ms);
			if (child_signals_read(NULL)) {
				child_kill_wait(c);
				return false;
			}
		} else {
			usleep(10000);
		}
		if (tick != NULL)
			tick(arg);
	}
	return true;
}

bool
child_succeeded(const struct child *c)
{
	return c->state == CHILD_DONE && WIFEXITED(c->status) &&
	       WEXITSTATUS(c->status) == 0;
}

char *
child_exit_text(const struct child *c)
{
	if (c->state != CHILD_DONE)
		return xstrdup("is still running");
	if (WIFEXITED(c->status))
		return xasprintf("exited with status %d",
				 WEXITSTATUS(c->status));
	if (WIFSIGNALED(c->status))
		return xasprintf("was killed by signal %d (%s)",
				 WTERMSIG(c->status),
				 strsignal(WTERMSIG(c->status)));
	return xasprintf("ended with wait status %d", c->status);
}

/*
 * The line of a tool's output that says what went wrong: the one before
 * a usage text, else the last "<program>: ..." line (dd's "dd: error
 * writing ...: No space left on device" comes before its counts), else
 * the last line.
 */
static char *
telling_line(const char *path, const char *prog)
{
	char *buf = xmalloc(65536 + 1), *lines[4096], *best = NULL;
	size_t n = 0, plen = strlen(prog);
	ssize_t len;
	off_t size;
	int fd;

	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		free(buf);
		return NULL;
	}
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > 65536 ? size - 65536 : 0, SEEK_SET);
	len = read(fd, buf, 65536);
	close(fd);
	if (len <= 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	for (char *p = buf; *p != '\0' && n < 4096;) {
		char *e = p + strcspn(p, "\r\n");
		bool end = *e == '\0';

		*e = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '\0' && *p != '#')
			lines[n++] = p;
		if (end)
			break;
		p = e + 1;
	}
	for (size_t i = 0; i < n && best == NULL; i++)
		if (i > 0 && (strncmp(lines[i], "Usage:", 6) == 0 ||
			      strncmp(lines[i], "usage:", 6) == 0))
			best = lines[i - 1];
	for (size_t i = n; i-- > 0 && best == NULL;)
		if (plen > 0 && strncmp(lines[i], prog, plen) == 0 &&
		    lines[i][plen] == ':')
			best = lines[i];
	if (best == NULL && n > 0)
		best = lines[n - 1];
	best = best ? xstrdup(best) : NULL;
	free(buf);
	return best;
}

char *
child_last_words(const struct child *c)
{
	char prog[64];
	char *s;

	snprintf(prog, sizeof prog, "%s", c->name ? c->name : "");
	prog[strcspn(prog, " ")] = '\0';
	s = telling_line(c->err_path, prog);
	return s ? s : telling_line(c->out_path, prog);
}

void
child_release(struct child *c)
{
	if (c->state == CHILD_RUNNING)
		child_kill_wait(c);
	free(c->name);
	free(c->out_path);
	free(c->err_path);
	memset(c, 0, sizeof *c);
}
