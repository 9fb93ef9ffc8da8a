/*
 * jobs.h: the store's queue of runs (sql/functions/jobs.sql): submits,
 * cancels, and the jobs and results as the API lists them.
 */
#ifndef ROBOT_STORE_JOBS_H
#define ROBOT_STORE_JOBS_H

#include "robot/core/view.h"
#include "robot/daemon/store.h"

/* The tbox_groups that have registered boxes, sorted. */
typedef void (*store_groups_cb)(const char *const *groups, size_t n,
				const struct problem *p, void *arg);
void store_groups(struct store *s, store_groups_cb cb, void *arg);
/*
 * Queues runs (a JSON array of {key, tbox_group, commit, tree, job,
 * needs, run, runs, priority, max_attempts}) as one submission of the
 * file body, whose analysis adds runs up to max_runs a side (0: robotd's
 * max_runs); refused (PROBLEM_INVALID, one detail per job and box) when
 * no registered box of a job's group can run it.  The answer is
 * {"submission": id, "jobs": [{id, key, commit, run, series, state}]}.
 */
void store_submit(struct store *s, const char *submitter, const char *file,
		  const char *body, const char *runs, int max_runs,
		  store_text_cb cb, void *arg);
/* A tree head's runs (robot_tree_submit()): the runs a side has already
 * are left out, each series gets its pair; the answer as store_submit's. */
struct store_tree_submit {
	const char *submitter, *file, *body, *runs;
	const char *tree, *branch, *base, *head;
	int max_runs;
};
void store_tree_submit(struct store *s, const struct store_tree_submit *t,
		       store_text_cb cb, void *arg);

/* Queued runs cancelled (by job id, submission or series; 0 and NULL for
 * any) by the token named by: how many.  Not an admin, only the runs of
 * by's own submissions (403 when the runs named are all another's). */
void store_cancel(struct store *s, long long job, long long submission,
		  const char *series, const char *by, bool admin,
		  store_text_cb cb, void *arg);

struct store_jobs_filter {
	const char *state;    /* NULL: any */
	long long submission; /* 0: any */
	const char *series;   /* NULL: any */
	long limit;           /* newest first */
	long long before;     /* 0: from the newest; else ids below it */
	const char *commit;   /* a SHA or its prefix; NULL: any */
	const char *box;      /* NULL: any */
};
/* {"jobs": [...]}, newest first (store_jobs_view). */
void store_jobs(struct store *s, const struct store_jobs_filter *f,
		store_text_cb cb, void *arg);
struct store_jobs_row {
	long long id, run, runs, attempts, priority, submission;
	const char *state, *key, *series, *commit, *box, *error;
	const char *created, *updated;
};
struct store_jobs {
	struct store_jobs_row *jobs;
	size_t njobs;
};
extern const struct view_type store_jobs_view;
/* One job with its leases and result, or NULL (store_job_view). */
void store_job(struct store *s, long long id, store_text_cb cb, void *arg);
/* What the pages read of a result document (DESIGN.md section 5); each
 * NULL when the document has none. */
struct store_job_result {
	const json_t *stats;             /* {METRIC: number or [numbers]} */
	const char *error;               /* a failed run's reason */
	const json_t *provision, *facts; /* {KEY: value} */
	const json_t *series;            /* per-second: {METRIC: [numbers]} */
	const json_t *outputs;           /* {NAME: text} */
};
struct store_job {
	long long id, run, runs, attempts;
	const char *key, *state, *series, *commit, *box, *error;
	const char *created, *updated;
	const json_t *job;              /* the atomic job as queued */
	const json_t *doc;              /* its result document, or NULL */
	struct store_job_result result; /* of doc */
};
extern const struct view_type store_job_view;
/* {"series", "commit", "results": [the documents], "next"}: those after
 * result id after (0: from the first), as many as fit in max_bytes and
 * at least one; next is the after of the rest, null when none is left. */
void store_results(struct store *s, const char *series, const char *commit,
		   long long after, int max_bytes, store_text_cb cb, void *arg);

#endif
