/*
 * submit.h: a submitted job file becomes queued runs.
 *
 * The file is split and validated (every problem at once), each atomic
 * job's tbox_group is resolved once (the request's, else the file's,
 * else robotd's default, else the lab's only group), the runs are
 * planned (commits x repeats, within a budget checked before anything is
 * built), and the store queues them in one transaction: it refuses a job
 * that no registered box of its group can run.
 */
#ifndef ROBOT_SUBMIT_H
#define ROBOT_SUBMIT_H

#include <limits.h>
#include <stddef.h>

#include <event2/event.h>
#include <jansson.h>

#include "robot/daemon/problem.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

#define SUBMIT_MAX_REPEAT   100
#define SUBMIT_MAX_PRIORITY 1000
/* Runs in a submission beyond which a submit is refused. */
#define SUBMIT_MAX_RUNS 20000

struct worker;

struct submit_request {
	const char *submitter; /* the token's name */
	const char *file_name; /* for messages; "job.yaml" when NULL */
	const char *body;      /* the file, NUL-terminated at len */
	size_t len;
	const char *const *commits; /* replace the file's; may be none */
	size_t ncommits;
	long repeat;       /* 0: the file's, else JOBFILE_DEFAULT_REPEAT */
	long priority;     /* LONG_MIN: the file's, else 0 */
	const char *group; /* NULL: as above */
	/* A person's submit: the tree its commits are resolved in (else
	 * the jobs' tree:, else they must be full SHAs). */
	const char *named_tree;
	/* A tree's head: commits are its base and the head, the runs a side
	 * already has are not queued again, and each series gets its pair
	 * on the branch (robot_tree_submit()). */
	const char *tree; /* NULL: a person's submit */
	const char *branch;
	int max_runs; /* runs per side analysis may ask for; 0: robotd's */
	/* Where the runs are written for the store (thousands of them),
	 * off the loop; NULL: at once. */
	struct worker *worker;
};

/*
 * The answer is {"submission", "jobs": [...], "warnings", "waiting",
 * "max_runs"} (the cap on runs a side that analysis may add to); the
 * callback owns it.  cb may run before submit_start() returns.
 */
typedef void (*submit_cb)(json_t *answer, const struct problem *p, void *arg);

void submit_start(struct event_base *base, struct store *store,
		  const struct settings *set, const struct submit_request *rq,
		  submit_cb cb, void *arg);

#endif
