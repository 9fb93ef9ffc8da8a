/*
 * pages.h: what the pages, their JSON twins and /metrics read
 * (sql/functions/pages.sql), each one query.
 */
#ifndef ROBOT_STORE_PAGES_H
#define ROBOT_STORE_PAGES_H

#include "robot/core/view.h"
#include "robot/daemon/store.h"
#include "robot/daemon/store/reports.h"

/* {"queue": {counts}, "boxes": [...], "running": [...]}
 * (robot_status(), store_status_view). */
void store_status(struct store *s, store_text_cb cb, void *arg);
struct store_status_queue {
	long long queued, leased, done, failed, cancelled;
};
struct store_status_failed {
	long long id;
	const char *series, *commit, *box, *error, *updated;
};
struct store_status_box {
	const char *name, *tbox_group, *state, *suspect, *last_seen;
	long long failures;
	long long false_alarms; /* findings invalid for it, 30 days */
};
struct store_status_note {
	long long id;
	const char *kind, *series, *message, *created;
};
struct store_status_running {
	long long id, run, runs, attempts, lease;
	const char *key, *commit, *box, *deadline;
};
struct store_status {
	struct store_status_queue queue;
	struct store_status_failed *failed; /* the newest 5 */
	size_t nfailed;
	struct store_status_box *boxes;
	size_t nboxes;
	struct store_status_note *notes; /* the newest 5 */
	size_t nnotes;
	struct store_status_running *running;
	size_t nrunning;
};
extern const struct view_type store_status_view;

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

/* The home page's: the newest regressions by commit (limit commits), the
 * queue, the lab, the trees (robot_home(), decoded by store_home_view). */
void store_home(struct store *s, int limit, store_text_cb cb, void *arg);
struct store_home_finding {
	long long id;
	const char *kind, *state, *kpi, *series, *base, *head, *culprit;
	double change_pct;
};
struct store_home_range {
	struct store_commit_info base, head;
};
struct store_home_commit {
	const char *tree;
	/* the culprit's, or the range's head's */
	struct store_commit_info info;
	const json_t *range_json; /* NULL: no range (the culprit is known) */
	struct store_home_range range;
	struct store_home_finding *findings;
	size_t nfindings;
};
struct store_home_tree {
	const char *name, *url, *fetched, *fetch_error;
	long long heads;
};
struct store_home_queue {
	long long queued, leased;
};
struct store_home_lab {
	long long boxes, idle, busy, broken, suspect;
};
struct store_home {
	struct store_home_commit *commits;
	size_t ncommits;
	struct store_home_queue queue;
	struct store_home_lab lab;
	struct store_home_tree *trees;
	size_t ntrees;
	long long bisections; /* running */
};
extern const struct view_type store_home_view;
/* A metric of a series over its newest limit commits, oldest first,
 * with every run's value and the metric's regressions; 413 when they
 * may hold more than max_values values, before any is read. */
void store_series_history(struct store *s, const char *series,
			  const char *metric, int limit, int max_values,
			  store_text_cb cb, void *arg);
struct store_history_commit {
	const char *commit, *subject, *date;
	double *vals; /* every run's */
	size_t nvals;
	long long n;
	double mean, stddev;
};
struct store_history_regression {
	long long id;
	const char *kind, *state, *commit, *culprit, *fixed_by;
	double change_pct;
};
/* robot_series_history()'s (store_history_view). */
struct store_history {
	const char *series, *metric;
	struct store_history_commit *commits; /* oldest first */
	size_t ncommits;
	struct store_history_regression *regressions;
	size_t nregressions;
	const char **kpis; /* of its newest pairs */
	size_t nkpis;
	const char **metrics; /* of its newest run, KPIs first: 500 */
	size_t nmetrics;
	long long metrics_total; /* of its newest run, all */
};
extern const struct view_type store_history_view;
/* A commit's page (robot_commit()): its tree's record, series, pairs,
 * findings and bisections; NULL when robot knows no such commit.  tree
 * may be NULL. */
void store_commit(struct store *s, const char *sha, const char *tree,
		  store_text_cb cb, void *arg);
struct store_commit_series {
	const char *series;
	long long ok, failed, to_come;
	long long parent_ok; /* its first parent's ok runs there */
};
struct store_commit_pair {
	long long id;
	const char *series, *base, *head, *state, *verdict;
	long long bisection; /* the bisection it is a step of, or 0 */
};
struct store_commit_finding {
	long long id;
	const char *kind, *state, *series, *kpi;
	double change_pct;
	const char *part; /* "the commit at fault", "found at", ... */
};
struct store_commit_bisection {
	long long id;
	const char *state, *series;
	const char *part; /* "the first bad commit", "a step", ... */
};
/* robot_commit()'s (store_commit_view). */
struct store_commit {
	const char *sha, *tree, *subject, *author, *date;
	const char **parents;
	size_t nparents;
	struct store_commit_series *series;
	size_t nseries;
	struct store_commit_pair *pairs; /* newest 50 */
	size_t npairs;
	struct store_commit_finding *findings;
	size_t nfindings;
	struct store_commit_bisection *bisections;
	size_t nbisections;
};
extern const struct view_type store_commit_view;
/* A commit of series as a person names it (a short SHA, a branch, the
 * tree's base ref): robot_series_commit()'s {"sha"} or {"error"}. */
void store_series_commit(struct store *s, const char *series, const char *name,
			 store_text_cb cb, void *arg);
/* One regression with its pair's comparison and table, its report, its
 * news and its bisection, or NULL. */
void store_regression(struct store *s, long long id, store_text_cb cb,
		      void *arg);
struct store_regression_segment {
	long long from, to, runs; /* points [from, to) */
	double mean;
};
/* How a change point of a branch's history found it. */
struct store_regression_history {
	long long points;
	const json_t *before_json, *after_json; /* NULL: none */
	struct store_regression_segment before, after;
};
struct store_regression_report {
	long long id, recipients, sent; /* id 0: no report */
	const char *message_id, *subject, *body, *created;
};
struct store_regression_event {
	const char *kind, *head, *created;
	double change_pct, p_value;
	long long runs;
	/* a "measured" one's: its runs a side, the newest submission whose
	 * runs it read (0: none) */
	long long base_runs, head_runs, submission;
};
/* What a person (or robotd) said of a finding: a triage command. */
struct store_triage_event {
	const char *action, *detail, *by, *how, *created;
};
/* robot_regression()'s (store_regression_view). */
struct store_regression {
	long long id;
	const char *kind, *found_by, *tree, *branch, *commit, *base;
	const char *series, *kpi, *state, *fixed_by, *created, *updated;
	double change_pct, p_value;
	long long runs, base_runs, head_runs; /* base_runs 0: unknown */
	/* the latest head that still shows it */
	const char *last_head;
	double last_change_pct, last_p_value;
	long long last_runs;
	struct store_commit_info culprit, commit_info, base_info;
	struct store_regression_history history;
	const json_t *comparison; /* its pair's */
	const json_t *values;     /* {KPI: {"base": [...], "head": [...]}} */
	const json_t *job;        /* {"job": the atomic job, ...} */
	const char *tbox_group;
	long long repeat;
	struct store_regression_report report;
	struct store_regression_event *events;
	size_t nevents;
	const json_t *bisection; /* robot_bisection()'s, or NULL */
	/* its triage (robot/analysis/triage.h): untriaged, acknowledged,
	 * ...; each NULL (0) when not said */
	const char *triage, *triage_reason, *triage_text, *assignee;
	const char *fix_claimed, *fix_confirmed, *bug_url;
	long long duplicate_of;
	const char **tags;
	size_t ntags;
	struct store_triage_event *triage_events;
	size_t ntriage_events;
	const json_t *muted_by; /* {id, kind, pattern, reason, expires,
				   ended}, or NULL */
};
extern const struct view_type store_regression_view;
/* {"series": [{"series", "commits", "runs", "last"}]}: the series whose
 * name holds match (NULL: all), by name (store_series_list_view). */
void store_series(struct store *s, const char *match, long limit,
		  store_text_cb cb, void *arg);
struct store_series_row {
	const char *series, *last;
	long long commits, runs;
};
struct store_series_list {
	struct store_series_row *series;
	size_t nseries;
};
extern const struct view_type store_series_list_view;
/* {"series", "commits": [{"commit", "subject", "date", "runs", "ok",
 * "first", "last"}] newest first (by the commit's date when its tree
 * knows it, else its last run), "latest": its newest pair's {"base",
 * "head"} or null}, or NULL when the series has no runs
 * (store_series_commits_view). */
void store_series_commits(struct store *s, const char *series, store_text_cb cb,
			  void *arg);
struct store_series_commit {
	const char *commit, *subject, *date, *first, *last;
	long long runs, ok;
};
struct store_series_latest {
	const char *base, *head; /* NULL: no pair yet */
};
struct store_series_commits {
	const char *series;
	struct store_series_commit *commits;
	size_t ncommits;
	struct store_series_latest latest;
};
extern const struct view_type store_series_commits_view;

/* A submission (robot_submission()): who asked for it, its runs by
 * state, each series' commits with their runs, the pairs its runs are
 * in; NULL when there is none (store_submission_view). */
void store_submission(struct store *s, long long id, store_text_cb cb,
		      void *arg);
struct store_submission_runs {
	long long queued, leased, done, failed, cancelled;
};
struct store_submission_commit {
	const char *series, *commit;
	long long ok, failed, to_come;
};
struct store_submission_pair {
	long long id;
	const char *series, *base, *head, *state, *verdict, *kpi;
};
struct store_submission {
	long long id, max_runs; /* max_runs 0: robotd's */
	const char *submitter, *file, *created;
	struct store_submission_runs runs;
	struct store_submission_commit *commits; /* in the order queued, */
	size_t ncommits;                         /* at most 200 of */
	long long commits_total;
	struct store_submission_pair *pairs; /* at most 200 of */
	size_t npairs;
	long long pairs_total;
};
extern const struct view_type store_submission_view;

/* A series (robot_series_page()): its runs by state and box, its
 * commits and trees, its newest job, KPIs, pairs, findings and lab
 * notes; NULL when it has no run (store_series_page_view). */
void store_series_page(struct store *s, const char *series, store_text_cb cb,
		       void *arg);
struct store_series_box {
	const char *box, *last;
	long long runs, failed;
};
struct store_series_kpi {
	const char *kpi, *verdict;
	double change_pct; /* NAN: none */
};
struct store_series_pair {
	long long id, runs; /* runs: a side, when compared */
	const char *tree, *branch, *base, *head, *state, *verdict, *kpi;
	const char *updated;
};
struct store_series_finding {
	long long id;
	const char *kind, *state, *kpi, *commit, *created;
	double change_pct;
};
struct store_series_note {
	const char *message, *created;
	const char **boxes;
	size_t nboxes;
};
struct store_series_page {
	const char *series, *tbox_group, *first, *last;
	long long queued, leased, done, failed, commits;
	const char **trees;
	size_t ntrees;
	struct store_series_box *boxes;
	size_t nboxes;
	const json_t *job;             /* the newest run's */
	struct store_series_kpi *kpis; /* the newest final pair's */
	size_t nkpis;
	struct store_series_pair *pairs; /* newest first, at most 20 */
	size_t npairs;
	struct store_series_finding *findings; /* newest first, at most 20 */
	size_t nfindings;
	struct store_series_note *notes; /* newest first, at most 5 */
	size_t nnotes;
};
extern const struct view_type store_series_page_view;

#endif
