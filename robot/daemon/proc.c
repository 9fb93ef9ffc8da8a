/*
 * proc.c: a child process as a state machine:
 *
 *   RUNNING  --(stdout and stderr at their end)----> REAPING
 *   RUNNING  --(deadline: SIGKILL to its group)----> RUNNING (killed)
 *   REAPING  --(waitpid says it ended)-------------> DONE (cb; freed
 *                                                    after the loop
 *                                                    iteration)
 *
 * REAPING polls waitpid() with WNOHANG every 10 ms: a child closes its
 * output just before it exits.  A child that cannot be started ends at
 * once, through the loop, so that cb never runs inside proc_run().
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot/core/buf.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/proc.h"
#include "robot/core/banned.h"

#define PROC_MAX_ERR 65536

enum proc_state {
	PROC_RUNNING,
	PROC_REAPING,
	PROC_DONE,
};
static const char *const proc_states[] = {
	[PROC_RUNNING] = "running",
	[PROC_REAPING] = "reaping",
	[PROC_DONE] = "done",
};
static const struct fsm proc_fsm = FSM("process", proc_states, PROC_DONE);

struct proc {
	enum proc_state state;
	struct event_base *base;
	pid_t pid;
	int fd[2]; /* stdout, stderr; -1 at their end */
	struct event *ev[2];
	struct event *timer; /* the deadline, then the reaping poll */
	struct buf out, err;
	size_t max_out;
	bool killed;
	int status;
	proc_cb cb;
	void *arg;
};

static void proc_drive(struct proc *p);

static void
proc_free(void *arg)
{
	struct proc *p = arg;

	for (int i = 0; i < 2; i++) {
		if (p->ev[i] != NULL)
			event_free(p->ev[i]);
		if (p->fd[i] != -1)
			close(p->fd[i]);
	}
	if (p->timer != NULL)
		event_free(p->timer);
	buf_release(&p->out);
	buf_release(&p->err);
	free(p);
}

static void
proc_set_state(struct proc *p, enum proc_state s)
{
	FSM_SET(&proc_fsm, p->state, s, "process %ld", (long)p->pid);
}

/* Tells the caller; the proc is freed after this loop iteration (its
 * events stopped now: none of them fires again). */
static void
proc_end(struct proc *p)
{
	proc_set_state(p, PROC_DONE);
	for (int i = 0; i < 2; i++)
		if (p->ev[i] != NULL)
			event_del(p->ev[i]);
	if (p->timer != NULL)
		event_del(p->timer);
	if (p->cb != NULL)
		p->cb(p->killed ? -1 : p->status, p->out.data, p->out.len,
		      p->err.data, p->arg);
	defer(p->base, proc_free, p);
}

static void
proc_on_read(evutil_socket_t fd, short what, void *arg)
{
	struct proc *p = arg;
	int i = fd == p->fd[0] ? 0 : 1;
	struct buf *b = i == 0 ? &p->out : &p->err;
	size_t max = i == 0 ? p->max_out : PROC_MAX_ERR;
	char chunk[16384];
	ssize_t n = read(fd, chunk, sizeof chunk);

	(void)what;
	if (n > 0) {
		if (b->len < max)
			buf_add(b, chunk,
				(size_t)n < max - b->len ? (size_t)n
							 : max - b->len);
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	event_del(p->ev[i]); /* freed with the proc */
	close(p->fd[i]);
	p->fd[i] = -1;
	proc_drive(p);
}

static void
proc_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct proc *p = arg;

	(void)fd;
	(void)what;
	if (p->state == PROC_RUNNING && !p->killed) {
		p->killed = true;
		kill(-p->pid, SIGKILL);
		buf_adds(&p->err, "\n(killed: it ran past its deadline)");
		return;
	}
	proc_drive(p);
}

static void
proc_drive(struct proc *p)
{
	struct timeval poll = {0, 10000};
	int st;
	pid_t r;

	switch (p->state) {
	case PROC_RUNNING:
		if (p->fd[0] != -1 || p->fd[1] != -1)
			return;
		proc_set_state(p, PROC_REAPING);
		evtimer_del(p->timer); /* the deadline; now the poll */
				       /* FALLTHROUGH */
	case PROC_REAPING:
		errno = 0;
		r = p->pid > 0 ? waitpid(p->pid, &st, WNOHANG) : -1;
		if (p->pid > 0 && (r == 0 || (r == -1 && errno == EINTR))) {
			evtimer_add(p->timer, &poll);
			return;
		}
		if (r == p->pid)
			p->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		else
			p->status = -1;
		proc_end(p);
		return;
	case PROC_DONE:
		return;
	}
}

struct proc *
proc_run(struct event_base *base, char *const argv[], char *const env[],
	 int timeout, size_t max_out, proc_cb cb, void *arg)
{
	struct proc *p = xcalloc(1, sizeof *p);
	struct timeval tv = {timeout, 0}, now = {0, 0};
	int out[2] = {-1, -1}, err[2] = {-1, -1};
	pid_t parent = getpid();

	p->base = base;
	p->fd[0] = p->fd[1] = -1;
	p->max_out = max_out;
	p->cb = cb;
	p->arg = arg;
	p->status = -1;
	buf_init(&p->out);
	buf_init(&p->err);
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(err, O_CLOEXEC) == -1 ||
	    (p->pid = fork()) == -1) {
		buf_addf(&p->err, "cannot start %s: %s", argv[0],
			 strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (out[i] != -1)
				close(out[i]);
			if (err[i] != -1)
				close(err[i]);
		}
		/* It ends through the loop, as a reaped child would. */
		proc_set_state(p, PROC_REAPING);
		p->pid = -1;
		p->timer = evtimer_new(base, proc_on_timer, p);
		evtimer_add(p->timer, &now);
		return p;
	}
	if (p->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		/* A robotd killed -9 takes its git with it: no fetch hangs
		 * on after its deadline, with nobody left to enforce it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		setpgid(0, 0);
		dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		setenv("GIT_TERMINAL_PROMPT", "0", 1);
		/* Only the transports a tree's URL may name (trees.c's
		 * tree_url_ok()), whatever a submodule or redirect asks
		 * for: never ext:: or fd::, which run commands. */
		setenv("GIT_ALLOW_PROTOCOL", "file:git:http:https:ssh", 1);
		setenv("LC_ALL", "C", 1);
		for (size_t i = 0; env != NULL && env[i] != NULL; i++)
			putenv(env[i]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	p->fd[0] = out[0];
	p->fd[1] = err[0];
	for (int i = 0; i < 2; i++) {
		fcntl(p->fd[i], F_SETFL, O_NONBLOCK);
		p->ev[i] = event_new(base, p->fd[i], EV_READ | EV_PERSIST,
				     proc_on_read, p);
		event_add(p->ev[i], NULL);
	}
	proc_set_state(p, PROC_RUNNING);
	p->timer = evtimer_new(base, proc_on_timer, p);
	evtimer_add(p->timer, &tv);
	return p;
}

void
proc_cancel(struct proc *p)
{
	if (p == NULL)
		return;
	if (p->state == PROC_DONE) { /* ended: only its free is to come */
		p->cb = NULL;
		return;
	}
	if (p->pid > 0) {
		kill(-p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	proc_free(p);
}
