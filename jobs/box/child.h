/*
 * child.h: the box's child processes (mkfs, the provisioning hook,
 * fs_mark, dd, the unlink workers), and the signals that end a run.
 *
 * Every child gets its own process group, dies with robot-box
 * (PR_SET_PDEATHSIG), and writes its output to files.  A child is
 * finished only when reaped with wait4(), which gives its rusage.
 *
 * The box blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP and reads them from
 * a signalfd (child_signals_fd()): the run loop polls it with its timer,
 * so that no signal is lost between a check and a wait.
 */
#ifndef ROBOT_CHILD_H
#define ROBOT_CHILD_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

enum child_state {
	CHILD_NEW,
	CHILD_RUNNING,
	CHILD_DONE, /* reaped */
};

struct child {
	pid_t pid;
	char *name; /* for messages: "fs_mark", "dd on loop0" */
	enum child_state state;
	int status;       /* from wait4() */
	struct rusage ru; /* from wait4() */
	double started;   /* CLOCK_MONOTONIC seconds */
	double ended;
	char *out_path; /* where stdout went, or NULL */
	char *err_path; /* where stderr went, or NULL */
};

/* Blocks the signals and opens the signalfd; fatal on failure.  In a
 * child made by child_fork(), blocks them again (the signalfd is kept). */
void child_signals_init(void);
int child_signals_fd(void);
/* Reads pending signals: true if SIGINT, SIGTERM or SIGHUP came (*sig). */
bool child_signals_read(int *sig);
/* The signal that asked the box to stop, or 0. */
int child_stop_signal(void);

/*
 * Starts argv[0] (looked up in PATH) with stdout and stderr to the given
 * files (NULL: /dev/null) in directory cwd (NULL: unchanged).  Returns
 * false with errno set if it could not fork.  A program that cannot be
 * executed exits 127 with the reason on its stderr.
 */
/* Writes each child's process group to path from now on (the file made
 * anew), or stops with NULL: cgroup.h's fallback. */
void child_record_groups(const char *path);
bool child_spawn(struct child *c, const char *name, char *const argv[],
		 const char *out_path, const char *err_path, const char *cwd)
	__attribute__((warn_unused_result));
/* Starts fn(arg) in a forked child that exits with fn's return value. */
bool child_fork(struct child *c, const char *name, int (*fn)(void *), void *arg)
	__attribute__((warn_unused_result));
/* Reaps c if it has ended, without waiting; true when it is done. */
bool child_reap(struct child *c);
/* Sends sig to the child's process group. */
void child_signal(struct child *c, int sig);
/* Kills the group and waits for the child (SIGKILL, then reap). */
void child_kill_wait(struct child *c);
/*
 * Waits for c, at most timeout seconds (0: no limit).  Returns true when
 * it ended by itself; false when it was killed because of the timeout
 * (*timed_out) or a stop signal.
 */
bool child_wait(struct child *c, double timeout, bool *timed_out);
/* child_wait() that calls tick(arg) about once a second while it waits. */
bool child_wait_tick(struct child *c, double timeout, bool *timed_out,
		     void (*tick)(void *), void *arg);
/* Whether it exited with status 0. */
bool child_succeeded(const struct child *c);
/* "exited with status 1", "was killed by signal 9 (Killed)". */
char *child_exit_text(const struct child *c);
/* The line of its stderr (or stdout) that tells what went wrong. */
char *child_last_words(const struct child *c);
void child_release(struct child *c);

/* Seconds on CLOCK_MONOTONIC. */
double child_now(void);

#endif
