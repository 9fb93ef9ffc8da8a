/*
 * workload.h: the workloads a box runs (fsmark, dd, unlink), behind one
 * interface the runner drives:
 *
 *   start        start the first children
 *   child_ended  a child was reaped: check it, maybe start more
 *   tick         once a second: per-second figures, deadlines
 *   done         whether the workload has ended
 *   finish       the stats, from the children's output and the series
 *
 * Every child a workload starts is kept until the end, so that the
 * workload's "time -v" figures (<name>.time.*) can be summed from the
 * rusage of all of them.
 */
#ifndef ROBOT_WORKLOAD_H
#define ROBOT_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "jobs/box/child.h"
#include "jobs/box/metrics.h"
#include "robot/core/node.h"

struct workload;

struct workload_env {
	const struct node *job; /* the atomic job */
	const char **mounts;    /* the filesystems, NULL-terminated */
	const char **devices;   /* their device names (loop0), in order */
	size_t ndevs;
	const char *rundir; /* the children's output and working directory */
	int cpus;
	struct metrics *m; /* where the numbers go */
};

struct workload_ops {
	const char *name;
	bool (*start)(struct workload *w, char **err);
	bool (*child_ended)(struct workload *w, struct child *c, char **err);
	void (*tick)(struct workload *w, double now);
	bool (*done)(struct workload *w);
	bool (*finish)(struct workload *w, char **err);
	void (*release)(struct workload *w);
};

struct workload {
	const struct workload_ops *ops;
	struct workload_env env;
	struct child **children; /* every child started */
	size_t nchildren;
	double started;
	double ended;
	json_t *outputs; /* name -> raw output text */
	void *priv;      /* the workload's own state */
};

/* A workload for program name ("fsmark"), or NULL if there is none. */
struct workload *workload_new(const char *name, const struct workload_env *env);
void workload_free(struct workload *w);
/* Starts a child for w in its run directory (env.rundir); NULL with *err
 * on failure. */
struct child *workload_spawn(struct workload *w, const char *name,
			     char *const argv[], const char *out,
			     const char *err_path, char **err);
struct child *workload_fork(struct workload *w, const char *name,
			    int (*fn)(void *), void *arg, char **err);
/* Sends sig to every running child. */
void workload_signal(struct workload *w, int sig);
/* Kills and reaps every running child. */
void workload_kill(struct workload *w);
/* Whether any child is still running. */
bool workload_running(const struct workload *w);
/* <name>.time.* from the children's rusage, as GNU time -v names them. */
void workload_time_stats(struct workload *w);
/* Keeps up to 256 KiB of a file as output name. */
void workload_keep_output(struct workload *w, const char *name,
			  const char *path);
/* The same into any outputs object. */
void workload_keep_output_path(json_t *outputs, const char *name,
			       const char *path);

/* Option values of the job: job[program][option], else job[option]. */
char *workload_option(const struct node *job, const char *program,
		      const char *option);
/* A count like "32t", "2dd", "50%" (of cpus), "1x"; def when absent. */
long workload_count(const char *s, int cpus, long def);

/* Every workload's, NULL at the end (made by scripts/c-table from
 * meson.build's list of workload files). */
extern const struct workload_ops *const workload_all[];

#endif
