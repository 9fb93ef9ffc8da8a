/*
 * store.h: every SQL statement of robotd, behind typed calls.  No other
 * file holds SQL text: the state changes themselves are the PL/pgSQL
 * functions of sql/, and the reads are built into JSON by PostgreSQL
 * (json_build_object, json_agg), so that a listing is one query and
 * one copy.
 *
 * Each call takes a callback that runs exactly once, from the loop,
 * never inside the call: with the answer, or with a problem (NULL on
 * success) that says why there is none.  What the callback gets is
 * borrowed for its duration.  A failure of the database itself is
 * PROBLEM_UNAVAILABLE; the RBnnn codes that sql/ raises become the
 * problem of kind nnn, with the DETAIL lines as details.
 *
 * The blocking calls run before the loop: the token command here, the
 * schema and functions in store/schema.h.
 */
#ifndef ROBOT_STORE_H
#define ROBOT_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/analysis/comparison.h"
#include "robot/daemon/problem.h"

struct db;
struct store;

/* A query's answer as text (a JSON document, or one value); NULL when
 * there is no such row (a 404 for reads of one thing). */
typedef void (*store_text_cb)(const char *text, const struct problem *p,
			      void *arg);

struct store *store_new(struct db *db);
void store_free(struct store *s);
/* Whether the database is reachable; queries waiting for a connection. */
bool store_up(const struct store *s);
size_t store_queued(const struct store *s);

/* Before the loop (blocking). */

/*
 * Makes a token of kind (submit, box, admin) for name and stores its
 * hash.  Returns the token (shown once; the caller frees it), or NULL
 * with *err.
 */
char *store_token_create(const char *conninfo, const char *kind,
			 const char *name, char **err);

/* Tokens. */

/* kind and name of a token, both NULL when the database has none. */
typedef void (*store_token_cb)(const char *kind, const char *name,
			       const struct problem *p, void *arg);
void store_token(struct store *s, const char *token, store_token_cb cb,
		 void *arg);

/* Jobs and submissions. */

/* The tbox_groups that have registered boxes, sorted. */
typedef void (*store_groups_cb)(const char *const *groups, size_t n,
				const struct problem *p, void *arg);
void store_groups(struct store *s, store_groups_cb cb, void *arg);
/*
 * Queues runs (a JSON array of {key, tbox_group, commit, tree, job,
 * needs, run, runs, priority, max_attempts}) as one submission of the
 * file body; refused (PROBLEM_INVALID, one detail per job and box) when
 * no registered box of a job's group can run it.  The answer is
 * {"submission": id, "jobs": [{id, key, commit, run, series, state}]}.
 */
void store_submit(struct store *s, const char *submitter, const char *file,
		  const char *body, const char *runs, store_text_cb cb,
		  void *arg);

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
 * any): how many. */
void store_cancel(struct store *s, long long job, long long submission,
		  const char *series, const char *by, store_text_cb cb,
		  void *arg);

/* Trees (sql/functions/trees.sql). */

/* The next tree due for a fetch, claimed for seconds: {name, url,
 * branches, base_ref, heads: {branch: sha}}, or NULL. */
void store_tree_claim(struct store *s, int seconds, store_text_cb cb,
		      void *arg);
/* A fetch failed: the error kept, the next try in retry_in seconds;
 * {error, retry_in}. */
void store_tree_failed(struct store *s, const char *name, const char *error,
		       int retry_in, store_text_cb cb, void *arg);
/* A fetch went well: heads ([{branch, sha, base, forced}]) and commits
 * ([{sha, parents, author, date, subject}]) recorded; the answer: {name,
 * jobs, tbox_groups, runs, max_runs, heads: the new ones, newest first}. */
void store_tree_fetched(struct store *s, const char *name, const char *heads,
			const char *commits, store_text_cb cb, void *arg);
/* {"trees": [...]} with heads and the last fetch, or one tree (NULL when
 * there is none). */
void store_trees(struct store *s, const char *name, store_text_cb cb,
		 void *arg);
/* Adds (or, with replace, changes) a tree from its JSON (checked by
 * trees.c): the tree, or 409 when it exists (404 when it does not). */
void store_tree_put(struct store *s, const char *json, bool replace,
		    store_text_cb cb, void *arg);
/* Removes a tree, its mirror's records and heads: its name, or NULL. */
void store_tree_remove(struct store *s, const char *name, store_text_cb cb,
		       void *arg);

struct store_jobs_filter {
	const char *state;    /* NULL: any */
	long long submission; /* 0: any */
	const char *series;   /* NULL: any */
	long limit;           /* newest first */
	long long before;     /* 0: from the newest; else ids below it */
};
/* {"jobs": [...]}, newest first. */
void store_jobs(struct store *s, const struct store_jobs_filter *f,
		store_text_cb cb, void *arg);
/* One job with its leases and result, or NULL. */
void store_job(struct store *s, long long id, store_text_cb cb, void *arg);
/* {"series", "commit", "results": [the documents]}. */
void store_results(struct store *s, const char *series, const char *commit,
		   store_text_cb cb, void *arg);
/* {"queue": {counts}, "boxes": [...], "running": [...]}. */
void store_status(struct store *s, store_text_cb cb, void *arg);

struct store_counts {
	long long jobs[4];   /* queued, leased, done, failed */
	long long boxes[3];  /* idle, busy, broken */
	long long leases;    /* active */
	long long outbox[4]; /* mails and posts: pending, sent, failed,
			      * cancelled */
};
typedef void (*store_counts_cb)(const struct store_counts *c,
				const struct problem *p, void *arg);
void store_counts(struct store *s, store_counts_cb cb, void *arg);

/* The lab. */

/* A box (re)registers; its leases from before go back, each a failure
 * of the box (broken after broken_after in a row).  Its state. */
void store_register(struct store *s, const char *box, const char *group,
		    const char *facts, int broken_after, store_text_cb cb,
		    void *arg);
/* Whether box may upload a result for lease: "active", or "stored" when
 * one is there already; a problem otherwise (404, 403, 409). */
void store_lease_check(struct store *s, long long lease, const char *box,
		       store_text_cb cb, void *arg);

struct store_claim {
	long long lease;   /* 0: no job */
	const char *json;  /* the lease as the box gets it, or NULL */
	const char *group; /* the box's tbox_group */
};
typedef void (*store_claim_cb)(const struct store_claim *c,
			       const struct problem *p, void *arg);
/* The next job box can run, leased for seconds. */
void store_claim(struct store *s, const char *box, int seconds,
		 store_claim_cb cb, void *arg);
/* A lease nobody got: the job goes back uncounted.  cb may be NULL. */
void store_release(struct store *s, long long lease, store_text_cb cb,
		   void *arg);
/* The lease's new deadline. */
void store_heartbeat(struct store *s, long long lease, const char *box,
		     int seconds, store_text_cb cb, void *arg);

struct store_upload {
	long long lease;
	const char *box;
	const char *key;
	const char *tbox_group; /* the document's */
	const char *doc_box;    /* the box the document names, or NULL */
	const char *commit;     /* the document's, or NULL */
	const char *status;     /* ok, failed, incomplete */
	const char *error;      /* NULL unless failed */
	const char *doc;        /* the document as sent */
	int broken_after;
	bool job_fault; /* failed as the job's fault: not the box's */
};
/* "stored", "duplicate" or "requeued"; a document that is not of the
 * lease's job, or differs from the one stored for it, is refused. */
void store_upload(struct store *s, const struct store_upload *u,
		  store_text_cb cb, void *arg);
/* A broken box back to idle: its state. */
void store_reset(struct store *s, const char *box, store_text_cb cb, void *arg);
/* Leases past their deadline back to the queue: how many. */
void store_expire(struct store *s, store_text_cb cb, void *arg);

/* Analysis (sql/functions/analysis.sql). */

/* The next pair to analyse, claimed for seconds: JSON {pair, analyses,
 * max_runs, series, base, head}, or NULL when none is ready; its values
 * come from store_pair_columns(). */
void store_pair_next(struct store *s, int seconds, store_text_cb cb, void *arg);
struct store_pair_done {
	long long pair;
	int analyses;           /* the claim */
	const char *verdict;    /* regression, improvement, ... */
	const char *kpi;        /* the KPI that decided, or NULL */
	int runs;               /* ok runs per side compared */
	const char *comparison; /* JSON, or NULL */
	const char *table;      /* LKP's table, or NULL */
	int more;               /* > 0: runs per side to have; 0: final */
	const char *kpis;       /* JSON [{kpi, verdict, change_pct, p_value}] */
	const char *findings;   /* JSON [{kpi, verdict, change_pct, p_value,
				   action, regression}]: what a final pair
				   records (robot/analysis/findings.h) */
};
/* "final", "more" or "stale" (another robotd took the claim over). */
void store_pair_done(struct store *s, const struct store_pair_done *d,
		     store_text_cb cb, void *arg);
/*
 * A pair's values for a comparison asked for, any series, base and head
 * (nothing claimed): robot_pair_head()'s JSON and every metric's values
 * of both sides, in binary (hundreds of thousands of numbers, which the
 * server would take longer to print than robotd to compare).  cb gets
 * them (its to free) or the problem; store_values_read() reads them, on
 * any thread.
 */
struct store_values;
typedef void (*store_values_cb)(struct store_values *v, const struct problem *p,
				void *arg);
void store_pair_columns(struct store *s, const char *series, const char *base,
			const char *head, store_values_cb cb, void *arg);
/*
 * The head's JSON into *in, and a column per metric into *cols, whose
 * values are in *block (the caller frees the three).  When base and head
 * are one commit, the head's values are the base's.  False when the
 * values are not what robot_pair_head() and metric_values give.
 */
bool store_values_read(const struct store_values *v, const char *base,
		       const char *head, json_t **in,
		       struct comparison_column **cols, size_t *ncols,
		       double **block) __attribute__((warn_unused_result));
void store_values_free(struct store_values *v);
/* The stored comparison of a pair: {"pair", "state", "verdict", "kpi",
 * "runs", "comparison", "table"}, or NULL when there is none. */
void store_pair(struct store *s, const char *series, const char *base,
		const char *head, store_text_cb cb, void *arg);

struct store_regressions_filter {
	const char *tree;  /* NULL: any */
	const char *state; /* NULL: any */
	const char *since; /* an ISO date; NULL: any */
	const char *kind;  /* regression or improvement; NULL: any */
	long limit;        /* newest first */
};
/* {"regressions": [...]}, newest first. */
void store_regressions(struct store *s,
		       const struct store_regressions_filter *f,
		       store_text_cb cb, void *arg);
/* One regression with its pair's comparison and table, or NULL. */
void store_regression(struct store *s, long long id, store_text_cb cb,
		      void *arg);
/* Sets a regression's state (new, reported, invalid, ...): the record,
 * or NULL when there is no such regression. */
void store_regression_set(struct store *s, long long id, const char *state,
			  store_text_cb cb, void *arg);
/* {"series": [{"series", "commits", "runs", "last"}]}: the series whose
 * name holds match (NULL: all), by name. */
void store_series(struct store *s, const char *match, long limit,
		  store_text_cb cb, void *arg);
/* {"series", "commits": [{"commit", "runs", "ok", "first", "last"}]}
 * newest first, or NULL when the series has no runs. */
void store_series_commits(struct store *s, const char *series, store_text_cb cb,
			  void *arg);

/* Reports (sql/functions/reports.sql). */

/* The next commit whose final regressions are due for their report
 * (none of its pairs waits, or the oldest waited window seconds), claimed
 * for seconds: all a report says of it, or NULL. */
void store_report_next(struct store *s, int window, int seconds,
		       store_text_cb cb, void *arg);
/* The next thread with news of its regressions, claimed: or NULL. */
void store_followup_next(struct store *s, int seconds, store_text_cb cb,
			 void *arg);
/* A rendered report (JSON: robot_report_store()) stored with its outbox:
 * {id, message_id}, or "stale" when another robotd told of it. */
void store_report_store(struct store *s, const char *report, const char *domain,
			store_text_cb cb, void *arg);
/* Up to limit outbox rows due, claimed for seconds: [...], or NULL. */
void store_outbox_next(struct store *s, int limit, int seconds,
		       store_text_cb cb, void *arg);
struct store_outbox_done {
	long long id;
	const char *state; /* sent, pending (tried again), failed (for good) */
	const char *error; /* NULL when sent */
	int retry_in;      /* pending: seconds until the next try */
};
/* The row's new state: sent, pending (tried again later), failed. */
void store_outbox_done(struct store *s, const struct store_outbox_done *d,
		       store_text_cb cb, void *arg);
struct store_subscribe {
	const char *json;         /* {email, tree, branch, ...} (checked) */
	const char *confirm_hash; /* sha256 of the link's token, hex */
	const char *subject, *message; /* the confirmation mail */
};
/* {id, email, state}; 429 when confirmations wait in the mailbox. */
void store_subscribe(struct store *s, const struct store_subscribe *sub,
		     store_text_cb cb, void *arg);
/* The subscription a confirmation link names, now confirmed; NULL for a
 * link unknown, used or too old. */
void store_subscription_confirm(struct store *s, const char *hash,
				store_text_cb cb, void *arg);
/* {email, subscriptions}: the address opted out; NULL for no such token. */
void store_unsubscribe(struct store *s, const char *token, store_text_cb cb,
		       void *arg);
/* {"subscriptions": [...]}. */
void store_subscriptions(struct store *s, store_text_cb cb, void *arg);
/* {counts, reports, rows}: the outbox for robot reports. */
void store_outbox(struct store *s, int limit, store_text_cb cb, void *arg);

/* Pages (sql/functions/pages.sql). */

/* The home page's: the newest regressions by commit (limit commits), the
 * queue, the lab, the trees. */
void store_home(struct store *s, int limit, store_text_cb cb, void *arg);
/* A metric of a series over its newest limit commits, oldest first,
 * with every run's value and the metric's regressions. */
void store_series_history(struct store *s, const char *series,
			  const char *metric, int limit, store_text_cb cb,
			  void *arg);
/* Every run's values of metrics (a JSON array of names) at base and
 * head, and what one ok run of each side says of its setting:
 * {"values": {metric: {"base": [...], "head": [...]}}, "runs": {"base":
 * {"sysctl", "provision"}, "head": ...}}. */
void store_side_values(struct store *s, const char *series, const char *base,
		       const char *head, const char *metrics, store_text_cb cb,
		       void *arg);

/* Bisections (sql/functions/bisect.sql). */

/* A bisection started by by (json: {regression} or {series, good, bad,
 * tree, kpi}, commits full SHAs): robot_bisection() of it, with
 * "running": true when one of those ends ran already. */
void store_bisect_start(struct store *s, const char *json, const char *by,
			store_text_cb cb, void *arg);
/* The next bisection whose step has its answer, claimed for seconds
 * (robot_bisect_next()), or NULL. */
void store_bisect_next(struct store *s, int seconds, store_text_cb cb,
		       void *arg);
/* The step in hand of bisection id decided under claim claims (json:
 * {verdict, reason, kpi, end}): the bisection, or "stale". */
void store_bisect_mark(struct store *s, long long id, int claims,
		       const char *json, store_text_cb cb, void *arg);
/* The next step (json: {kind, commit, against, candidates}): the
 * bisection, or "stale". */
void store_bisect_step(struct store *s, long long id, int claims,
		       const char *json, store_text_cb cb, void *arg);
/* More runs (runs a side) for the step in hand of bisection id: the
 * number of its pairs given them, or "stale". */
void store_bisect_more(struct store *s, long long id, int claims, int runs,
		       store_text_cb cb, void *arg);
/* A running bisection cancelled by by; 404 when there is none. */
void store_bisect_cancel(struct store *s, long long id, const char *by,
			 store_text_cb cb, void *arg);
/* {"bisections": [...]}, newest first. */
void store_bisections(struct store *s, int limit, store_text_cb cb, void *arg);
/* One bisection with its steps, or NULL. */
void store_bisection(struct store *s, long long id, store_text_cb cb,
		     void *arg);

#endif
