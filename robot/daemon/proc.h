/*
 * proc.h: a child process run from the event loop (git, for the trees):
 * its output read as it comes, its end reaped without blocking, killed
 * (with its process group) when it runs past its deadline, and killed
 * when robotd dies.  The loop never waits for it.
 */
#ifndef ROBOT_PROC_H
#define ROBOT_PROC_H

#include <stddef.h>

#include <event2/event.h>

struct proc;

/*
 * status: the exit status, or -1 when it was killed (its deadline: why
 * says so) or could not start; out and err: what it wrote (NUL-ended; at
 * most the max given, then cut).
 */
typedef void (*proc_cb)(int status, const char *out, size_t outlen,
			const char *err, void *arg);

/*
 * Runs argv (argv[0] looked up in PATH) with stdin from /dev/null, at
 * most timeout seconds, keeping at most max_out bytes of stdout.  env,
 * when not NULL, is more of the child's environment ("NAME=value", NULL
 * last): where a secret goes, since a command line is anyone's to read
 * in /proc and an environment only its owner's.  cb runs once, from the
 * loop, after the child is reaped; never from inside proc_run().  The
 * proc frees itself after cb.
 */
struct proc *proc_run(struct event_base *base, char *const argv[],
		      char *const env[], int timeout, size_t max_out,
		      proc_cb cb, void *arg);
/* Kills the child and forgets cb (robotd stopping): cb never runs. */
void proc_cancel(struct proc *p);

#endif
