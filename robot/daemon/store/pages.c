/*
 * pages.c: what the pages and /metrics read (pages.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "robot/daemon/store/call.h"
#include "robot/daemon/store/pages.h"
#include "robot/core/banned.h"

static const struct store_stmt status = {"SELECT robot_status()", "",
					 store_read_text, false};

void
store_status(struct store *s, store_text_cb cb, void *arg)
{
	store_call(s, &status, STORE_FN(cb), arg);
}

/* The rows (what, state, count) into their places. */
static void
read_counts(const struct db_result *r, const struct problem *p, store_fn cb,
	    void *arg)
{
	static const char *const jobs[] = {"queued", "leased", "done",
					   "failed"};
	static const char *const boxes[] = {"idle", "busy", "broken"};
	static const char *const outbox[] = {"pending", "sent", "failed",
					     "cancelled"};
	static const struct {
		const char *what;
		const char *const *states;
		size_t n;
		size_t offset;
	} groups[] = {
		{"jobs", jobs, 4, offsetof(struct store_counts, jobs)},
		{"boxes", boxes, 3, offsetof(struct store_counts, boxes)},
		{"outbox", outbox, 4, offsetof(struct store_counts, outbox)},
	};
	struct store_counts n;

	memset(&n, 0, sizeof n);
	for (size_t i = 0; p == NULL && i < db_rows(r); i++) {
		const char *what = db_value(r, i, 0), *st = db_value(r, i, 1);
		long long v = strtoll(db_value(r, i, 2), NULL, 10);

		if (strcmp(what, "leases") == 0)
			n.leases = v;
		for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
			long long *at =
				(long long *)((char *)&n + groups[g].offset);

			if (strcmp(what, groups[g].what) != 0)
				continue;
			for (size_t k = 0; k < groups[g].n; k++)
				if (strcmp(st, groups[g].states[k]) == 0)
					at[k] = v;
		}
	}
	((store_counts_cb)cb)(p == NULL ? &n : NULL, p, arg);
}

static const struct store_stmt counts = {
	"SELECT 'jobs', s, (SELECT count(*) FROM jobs WHERE state = "
	"s) FROM unnest(ARRAY['queued', 'leased', 'done', "
	"'failed']) s UNION ALL SELECT 'boxes', s, (SELECT count(*) "
	"FROM boxes WHERE state = s) FROM unnest(ARRAY['idle', "
	"'busy', 'broken']) s UNION ALL SELECT 'leases', 'active', "
	"count(*) FROM leases WHERE state = 'active' UNION ALL SELECT "
	"'outbox', state, count(*) FROM outbox GROUP BY state",
	"", read_counts, false};

void
store_counts(struct store *s, store_counts_cb cb, void *arg)
{
	store_call(s, &counts, STORE_FN(cb), arg);
}

static const struct store_stmt home = {"SELECT robot_home($1::int)", "i",
				       store_read_text, false, .shared = true};

void
store_home(struct store *s, int limit, store_text_cb cb, void *arg)
{
	store_call(s, &home, STORE_FN(cb), arg, STORE_INT(limit));
}

static const struct view_field home_finding_fields[] = {
	VIEW_F(store_home_finding, "id", VIEW_INT, id),
	VIEW_F(store_home_finding, "kind", VIEW_STR, kind),
	VIEW_F(store_home_finding, "state", VIEW_STR, state),
	VIEW_F(store_home_finding, "kpi", VIEW_STR, kpi),
	VIEW_F(store_home_finding, "change_pct", VIEW_NUM, change_pct),
	VIEW_F(store_home_finding, "series", VIEW_STR, series),
	VIEW_F(store_home_finding, "base", VIEW_STR, base),
	VIEW_F(store_home_finding, "head", VIEW_STR, head),
	VIEW_F(store_home_finding, "culprit", VIEW_STR, culprit),
};
static const struct view_type home_finding =
	VIEW_TYPE("finding", struct store_home_finding, home_finding_fields);
static const struct view_field home_range_fields[] = {
	VIEW_O(store_home_range, "base", store_commit_info_view, base),
	VIEW_O(store_home_range, "head", store_commit_info_view, head),
};
static const struct view_type home_range =
	VIEW_TYPE("range", struct store_home_range, home_range_fields);
static const struct view_field home_commit_fields[] = {
	VIEW_F(store_home_commit, "tree", VIEW_STR, tree),
	VIEW_O(store_home_commit, "info", store_commit_info_view, info),
	VIEW_F(store_home_commit, "range", VIEW_JSON, range_json),
	VIEW_O(store_home_commit, "range", home_range, range),
	VIEW_A(store_home_commit, "findings", home_finding, findings,
	       nfindings),
};
static const struct view_type home_commit =
	VIEW_TYPE("commit", struct store_home_commit, home_commit_fields);
static const struct view_field home_tree_fields[] = {
	VIEW_F(store_home_tree, "name", VIEW_STR, name),
	VIEW_F(store_home_tree, "url", VIEW_STR, url),
	VIEW_F(store_home_tree, "fetched", VIEW_STR, fetched),
	VIEW_F(store_home_tree, "fetch_error", VIEW_STR, fetch_error),
	VIEW_F(store_home_tree, "heads", VIEW_INT, heads),
};
static const struct view_type home_tree =
	VIEW_TYPE("tree", struct store_home_tree, home_tree_fields);
static const struct view_field home_queue_fields[] = {
	VIEW_F(store_home_queue, "queued", VIEW_INT, queued),
	VIEW_F(store_home_queue, "leased", VIEW_INT, leased),
};
static const struct view_type home_queue =
	VIEW_TYPE("queue", struct store_home_queue, home_queue_fields);
static const struct view_field home_lab_fields[] = {
	VIEW_F(store_home_lab, "boxes", VIEW_INT, boxes),
	VIEW_F(store_home_lab, "idle", VIEW_INT, idle),
	VIEW_F(store_home_lab, "busy", VIEW_INT, busy),
	VIEW_F(store_home_lab, "broken", VIEW_INT, broken),
	VIEW_F(store_home_lab, "suspect", VIEW_INT, suspect),
};
static const struct view_type home_lab =
	VIEW_TYPE("lab", struct store_home_lab, home_lab_fields);
static const struct view_field home_fields[] = {
	VIEW_A(store_home, "commits", home_commit, commits, ncommits),
	VIEW_O(store_home, "queue", home_queue, queue),
	VIEW_O(store_home, "lab", home_lab, lab),
	VIEW_A(store_home, "trees", home_tree, trees, ntrees),
	VIEW_F(store_home, "bisections", VIEW_INT, bisections),
};
const struct view_type store_home_view =
	VIEW_TYPE("home", struct store_home, home_fields);

static const struct store_stmt history = {
	"SELECT robot_series_history($1, $2, $3::int, $4::int)", "ssii",
	store_read_text, false, .shared = true};

void
store_series_history(struct store *s, const char *series, const char *metric,
		     int limit, int max_values, store_text_cb cb, void *arg)
{
	store_call(s, &history, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(metric), STORE_INT(limit), STORE_INT(max_values));
}

static const struct store_stmt commit = {"SELECT robot_commit($1, $2)", "ss",
					 store_read_text, false,
					 .shared = true};

void
store_commit(struct store *s, const char *sha, const char *tree,
	     store_text_cb cb, void *arg)
{
	store_call(s, &commit, STORE_FN(cb), arg, STORE_TEXT(sha),
		   STORE_TEXT(tree));
}

static const struct store_stmt series_commit = {
	"SELECT robot_series_commit($1, $2)", "ss", store_read_text, false,
	.shared = true};

void
store_series_commit(struct store *s, const char *series, const char *name,
		    store_text_cb cb, void *arg)
{
	store_call(s, &series_commit, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(name));
}

static const struct store_stmt regression = {
	"SELECT robot_regression($1::bigint)", "l", store_read_text, false,
	.shared = true};

void
store_regression(struct store *s, long long id, store_text_cb cb, void *arg)
{
	store_call(s, &regression, STORE_FN(cb), arg, STORE_LONG(id));
}

static const struct store_stmt series = {
	"SELECT json_build_object('series', coalesce(json_agg(x "
	"ORDER BY x.series), '[]')) FROM (SELECT series, "
	"count(DISTINCT commit) AS commits, count(*) AS runs, "
	"max(updated) AS last FROM jobs WHERE $1::text IS NULL OR "
	"strpos(series, $1) > 0 GROUP BY series ORDER BY series "
	"LIMIT $2::int) x",
	"sl", store_read_text, false, .shared = true};

void
store_series(struct store *s, const char *match, long limit, store_text_cb cb,
	     void *arg)
{
	store_call(s, &series, STORE_FN(cb), arg, STORE_TEXT(match),
		   STORE_LONG((long long)limit));
}

/* (the newest 1,000 commits, and how many there are: a series' commits
 * grow with its history) */
static const struct store_stmt series_commits = {
	"SELECT json_build_object('series', $1::text, 'commits', "
	"json_agg(x ORDER BY x.date DESC NULLS LAST, x.last DESC), "
	"'total', (SELECT count(DISTINCT commit) FROM jobs WHERE "
	"series = $1), "
	"'latest', (SELECT json_build_object('base', p.base, 'head', "
	"p.head) FROM pairs p WHERE p.series = $1 AND p.bisection IS "
	"NULL ORDER BY p.id DESC LIMIT 1)) FROM (SELECT j.commit, "
	"count(*) AS runs, count(*) FILTER (WHERE j.state = 'done') "
	"AS ok, min(j.created) AS first, max(j.updated) AS last, "
	"min(c.subject) AS subject, min(c.date) AS date FROM jobs j "
	"LEFT JOIN tree_commits c ON c.tree = j.tree AND c.sha = "
	"j.commit WHERE j.series = $1 GROUP BY j.commit ORDER BY "
	"min(c.date) DESC NULLS LAST, max(j.updated) DESC LIMIT 1000) x "
	"HAVING count(*) > 0",
	"s", store_read_text, false, .shared = true};

void
store_series_commits(struct store *s, const char *series_name, store_text_cb cb,
		     void *arg)
{
	store_call(s, &series_commits, STORE_FN(cb), arg,
		   STORE_TEXT(series_name));
}

#define RF(st, key, kind, field) VIEW_F(store_regression##st, key, kind, field)
static const struct view_field regression_segment_fields[] = {
	RF(_segment, "from", VIEW_INT, from),
	RF(_segment, "to", VIEW_INT, to),
	RF(_segment, "runs", VIEW_INT, runs),
	RF(_segment, "mean", VIEW_NUM, mean),
};
static const struct view_type regression_segment = VIEW_TYPE(
	"segment", struct store_regression_segment, regression_segment_fields);
static const struct view_field regression_history_fields[] = {
	VIEW_FO(store_regression_history, "points", VIEW_INT, points),
	VIEW_FO(store_regression_history, "before", VIEW_JSON, before_json),
	{"before", VIEW_OBJECT,
	 offsetof(struct store_regression_history, before), VIEW_OPT,
	 &regression_segment, 0},
	VIEW_FO(store_regression_history, "after", VIEW_JSON, after_json),
	{"after", VIEW_OBJECT, offsetof(struct store_regression_history, after),
	 VIEW_OPT, &regression_segment, 0},
};
static const struct view_type regression_history = VIEW_TYPE(
	"history", struct store_regression_history, regression_history_fields);
static const struct view_field regression_report_fields[] = {
	RF(_report, "id", VIEW_INT, id),
	RF(_report, "message_id", VIEW_STR, message_id),
	RF(_report, "subject", VIEW_STR, subject),
	RF(_report, "body", VIEW_STR, body),
	RF(_report, "created", VIEW_STR, created),
	RF(_report, "recipients", VIEW_INT, recipients),
	RF(_report, "sent", VIEW_INT, sent),
};
static const struct view_type regression_report = VIEW_TYPE(
	"report", struct store_regression_report, regression_report_fields);
static const struct view_field regression_event_fields[] = {
	RF(_event, "kind", VIEW_STR, kind),
	RF(_event, "head", VIEW_STR, head),
	RF(_event, "created", VIEW_STR, created),
	RF(_event, "change_pct", VIEW_NUM, change_pct),
	RF(_event, "p_value", VIEW_NUM, p_value),
	RF(_event, "runs", VIEW_INT, runs),
	RF(_event, "base_runs", VIEW_INT, base_runs),
	RF(_event, "head_runs", VIEW_INT, head_runs),
	RF(_event, "submission", VIEW_INT, submission),
};
static const struct view_type regression_event = VIEW_TYPE(
	"event", struct store_regression_event, regression_event_fields);
static const struct view_field triage_event_fields[] = {
	VIEW_F(store_triage_event, "action", VIEW_STR, action),
	VIEW_F(store_triage_event, "detail", VIEW_STR, detail),
	VIEW_F(store_triage_event, "by", VIEW_STR, by),
	VIEW_F(store_triage_event, "how", VIEW_STR, how),
	VIEW_F(store_triage_event, "created", VIEW_STR, created),
};
static const struct view_type triage_event = VIEW_TYPE(
	"triage event", struct store_triage_event, triage_event_fields);
static const struct view_field regression_fields[] = {
	RF(, "id", VIEW_INT, id),
	RF(, "kind", VIEW_STR, kind),
	RF(, "found_by", VIEW_STR, found_by),
	VIEW_O(store_regression, "history", regression_history, history),
	RF(, "tree", VIEW_STR, tree),
	RF(, "branch", VIEW_STR, branch),
	RF(, "commit", VIEW_STR, commit),
	RF(, "base", VIEW_STR, base),
	RF(, "series", VIEW_STR, series),
	RF(, "kpi", VIEW_STR, kpi),
	RF(, "change_pct", VIEW_NUM, change_pct),
	RF(, "p_value", VIEW_NUM, p_value),
	RF(, "runs", VIEW_INT, runs),
	RF(, "base_runs", VIEW_INT, base_runs),
	RF(, "head_runs", VIEW_INT, head_runs),
	RF(, "state", VIEW_STR, state),
	RF(, "last_head", VIEW_STR, last_head),
	RF(, "last_change_pct", VIEW_NUM, last_change_pct),
	RF(, "last_p_value", VIEW_NUM, last_p_value),
	RF(, "last_runs", VIEW_INT, last_runs),
	VIEW_O(store_regression, "culprit", store_commit_info_view, culprit),
	RF(, "fixed_by", VIEW_STR, fixed_by),
	RF(, "created", VIEW_STR, created),
	RF(, "updated", VIEW_STR, updated),
	VIEW_O(store_regression, "commit_info", store_commit_info_view,
	       commit_info),
	VIEW_O(store_regression, "base_info", store_commit_info_view,
	       base_info),
	RF(, "comparison", VIEW_JSON, comparison),
	RF(, "values", VIEW_JSON, values),
	RF(, "job", VIEW_JSON, job),
	RF(, "tbox_group", VIEW_STR, tbox_group),
	RF(, "repeat", VIEW_INT, repeat),
	VIEW_O(store_regression, "report", regression_report, report),
	VIEW_A(store_regression, "events", regression_event, events, nevents),
	RF(, "bisection", VIEW_JSON, bisection),
	RF(, "triage", VIEW_STR, triage),
	RF(, "triage_reason", VIEW_STR, triage_reason),
	RF(, "triage_text", VIEW_STR, triage_text),
	RF(, "assignee", VIEW_STR, assignee),
	RF(, "fix_claimed", VIEW_STR, fix_claimed),
	RF(, "fix_confirmed", VIEW_STR, fix_confirmed),
	RF(, "bug_url", VIEW_STR, bug_url),
	RF(, "duplicate_of", VIEW_INT, duplicate_of),
	VIEW_S(store_regression, "tags", tags, ntags),
	VIEW_A(store_regression, "triage_events", triage_event, triage_events,
	       ntriage_events),
	RF(, "muted_by", VIEW_JSON, muted_by),
};
#undef RF
const struct view_type store_regression_view =
	VIEW_TYPE("regression", struct store_regression, regression_fields);

#define SF(st, key, kind, field) VIEW_F(store_status_##st, key, kind, field)
static const struct view_field status_queue_fields[] = {
	SF(queue, "queued", VIEW_INT, queued),
	SF(queue, "leased", VIEW_INT, leased),
	SF(queue, "done", VIEW_INT, done),
	SF(queue, "failed", VIEW_INT, failed),
	SF(queue, "cancelled", VIEW_INT, cancelled),
};
static const struct view_type status_queue =
	VIEW_TYPE("queue", struct store_status_queue, status_queue_fields);
static const struct view_field status_failed_fields[] = {
	SF(failed, "id", VIEW_INT, id),
	SF(failed, "series", VIEW_STR, series),
	SF(failed, "commit", VIEW_STR, commit),
	SF(failed, "box", VIEW_STR, box),
	SF(failed, "error", VIEW_STR, error),
	SF(failed, "updated", VIEW_STR, updated),
};
static const struct view_type status_failed =
	VIEW_TYPE("failed", struct store_status_failed, status_failed_fields);
static const struct view_field status_box_fields[] = {
	SF(box, "name", VIEW_STR, name),
	SF(box, "tbox_group", VIEW_STR, tbox_group),
	SF(box, "state", VIEW_STR, state),
	SF(box, "suspect", VIEW_STR, suspect),
	SF(box, "failures", VIEW_INT, failures),
	SF(box, "last_seen", VIEW_STR, last_seen),
	SF(box, "false_alarms", VIEW_INT, false_alarms),
};
static const struct view_type status_box =
	VIEW_TYPE("box", struct store_status_box, status_box_fields);
static const struct view_field status_note_fields[] = {
	SF(note, "id", VIEW_INT, id),
	SF(note, "kind", VIEW_STR, kind),
	SF(note, "series", VIEW_STR, series),
	SF(note, "message", VIEW_STR, message),
	SF(note, "created", VIEW_STR, created),
};
static const struct view_type status_note =
	VIEW_TYPE("note", struct store_status_note, status_note_fields);
static const struct view_field status_running_fields[] = {
	SF(running, "id", VIEW_INT, id),
	SF(running, "key", VIEW_STR, key),
	SF(running, "commit", VIEW_STR, commit),
	SF(running, "run", VIEW_INT, run),
	SF(running, "runs", VIEW_INT, runs),
	SF(running, "attempts", VIEW_INT, attempts),
	SF(running, "box", VIEW_STR, box),
	SF(running, "lease", VIEW_INT, lease),
	SF(running, "deadline", VIEW_STR, deadline),
};
static const struct view_type status_running = VIEW_TYPE(
	"running", struct store_status_running, status_running_fields);
#undef SF
static const struct view_field status_fields[] = {
	VIEW_O(store_status, "queue", status_queue, queue),
	VIEW_A(store_status, "failed", status_failed, failed, nfailed),
	VIEW_A(store_status, "boxes", status_box, boxes, nboxes),
	VIEW_A(store_status, "notes", status_note, notes, nnotes),
	VIEW_A(store_status, "running", status_running, running, nrunning),
};
const struct view_type store_status_view =
	VIEW_TYPE("status", struct store_status, status_fields);

#define HF(st, key, kind, field) VIEW_F(store_history_##st, key, kind, field)
static const struct view_field history_commit_fields[] = {
	HF(commit, "commit", VIEW_STR, commit),
	HF(commit, "subject", VIEW_STR, subject),
	HF(commit, "date", VIEW_STR, date),
	VIEW_N(store_history_commit, "vals", vals, nvals),
	HF(commit, "n", VIEW_INT, n),
	HF(commit, "mean", VIEW_NUM, mean),
	HF(commit, "stddev", VIEW_NUM, stddev),
};
static const struct view_type history_commit =
	VIEW_TYPE("commit", struct store_history_commit, history_commit_fields);
static const struct view_field history_regression_fields[] = {
	HF(regression, "id", VIEW_INT, id),
	HF(regression, "kind", VIEW_STR, kind),
	HF(regression, "state", VIEW_STR, state),
	HF(regression, "commit", VIEW_STR, commit),
	HF(regression, "culprit", VIEW_STR, culprit),
	HF(regression, "fixed_by", VIEW_STR, fixed_by),
	HF(regression, "change_pct", VIEW_NUM, change_pct),
};
static const struct view_type history_regression =
	VIEW_TYPE("regression", struct store_history_regression,
		  history_regression_fields);
#undef HF
static const struct view_field history_fields[] = {
	VIEW_F(store_history, "series", VIEW_STR, series),
	VIEW_F(store_history, "metric", VIEW_STR, metric),
	VIEW_A(store_history, "commits", history_commit, commits, ncommits),
	VIEW_A(store_history, "regressions", history_regression, regressions,
	       nregressions),
	VIEW_S(store_history, "kpis", kpis, nkpis),
	VIEW_S(store_history, "metrics", metrics, nmetrics),
	VIEW_FO(store_history, "metrics_total", VIEW_INT, metrics_total),
};
const struct view_type store_history_view =
	VIEW_TYPE("history", struct store_history, history_fields);

#define CF(st, key, kind, field) VIEW_F(store_commit_##st, key, kind, field)
static const struct view_field commit_series_fields[] = {
	CF(series, "series", VIEW_STR, series),
	CF(series, "ok", VIEW_INT, ok),
	CF(series, "failed", VIEW_INT, failed),
	CF(series, "to_come", VIEW_INT, to_come),
	CF(series, "parent_ok", VIEW_INT, parent_ok),
};
static const struct view_type commit_series =
	VIEW_TYPE("series", struct store_commit_series, commit_series_fields);
static const struct view_field commit_pair_fields[] = {
	CF(pair, "id", VIEW_INT, id),
	CF(pair, "series", VIEW_STR, series),
	CF(pair, "base", VIEW_STR, base),
	CF(pair, "head", VIEW_STR, head),
	CF(pair, "state", VIEW_STR, state),
	CF(pair, "verdict", VIEW_STR, verdict),
	CF(pair, "bisection", VIEW_INT, bisection),
};
static const struct view_type commit_pair =
	VIEW_TYPE("pair", struct store_commit_pair, commit_pair_fields);
static const struct view_field commit_finding_fields[] = {
	CF(finding, "id", VIEW_INT, id),
	CF(finding, "kind", VIEW_STR, kind),
	CF(finding, "state", VIEW_STR, state),
	CF(finding, "series", VIEW_STR, series),
	CF(finding, "kpi", VIEW_STR, kpi),
	CF(finding, "change_pct", VIEW_NUM, change_pct),
	CF(finding, "part", VIEW_STR, part),
};
static const struct view_type commit_finding = VIEW_TYPE(
	"finding", struct store_commit_finding, commit_finding_fields);
static const struct view_field commit_bisection_fields[] = {
	CF(bisection, "id", VIEW_INT, id),
	CF(bisection, "state", VIEW_STR, state),
	CF(bisection, "series", VIEW_STR, series),
	CF(bisection, "part", VIEW_STR, part),
};
static const struct view_type commit_bisection = VIEW_TYPE(
	"bisection", struct store_commit_bisection, commit_bisection_fields);
#undef CF
static const struct view_field commit_fields[] = {
	VIEW_F(store_commit, "sha", VIEW_STR, sha),
	VIEW_F(store_commit, "tree", VIEW_STR, tree),
	VIEW_F(store_commit, "subject", VIEW_STR, subject),
	VIEW_F(store_commit, "author", VIEW_STR, author),
	VIEW_F(store_commit, "date", VIEW_STR, date),
	VIEW_S(store_commit, "parents", parents, nparents),
	VIEW_A(store_commit, "series", commit_series, series, nseries),
	VIEW_A(store_commit, "pairs", commit_pair, pairs, npairs),
	VIEW_A(store_commit, "findings", commit_finding, findings, nfindings),
	VIEW_A(store_commit, "bisections", commit_bisection, bisections,
	       nbisections),
};
const struct view_type store_commit_view =
	VIEW_TYPE("commit", struct store_commit, commit_fields);

static const struct view_field series_row_fields[] = {
	VIEW_F(store_series_row, "series", VIEW_STR, series),
	VIEW_F(store_series_row, "commits", VIEW_INT, commits),
	VIEW_F(store_series_row, "runs", VIEW_INT, runs),
	VIEW_F(store_series_row, "last", VIEW_STR, last),
};
static const struct view_type series_row =
	VIEW_TYPE("series", struct store_series_row, series_row_fields);
static const struct view_field series_list_fields[] = {
	VIEW_A(store_series_list, "series", series_row, series, nseries),
};
const struct view_type store_series_list_view =
	VIEW_TYPE("series", struct store_series_list, series_list_fields);

static const struct view_field series_commit_fields[] = {
	VIEW_F(store_series_commit, "commit", VIEW_STR, commit),
	VIEW_F(store_series_commit, "subject", VIEW_STR, subject),
	VIEW_F(store_series_commit, "date", VIEW_STR, date),
	VIEW_F(store_series_commit, "runs", VIEW_INT, runs),
	VIEW_F(store_series_commit, "ok", VIEW_INT, ok),
	VIEW_F(store_series_commit, "first", VIEW_STR, first),
	VIEW_F(store_series_commit, "last", VIEW_STR, last),
};
static const struct view_type series_commit_view =
	VIEW_TYPE("commit", struct store_series_commit, series_commit_fields);
static const struct view_field series_latest_fields[] = {
	VIEW_F(store_series_latest, "base", VIEW_STR, base),
	VIEW_F(store_series_latest, "head", VIEW_STR, head),
};
static const struct view_type series_latest =
	VIEW_TYPE("latest", struct store_series_latest, series_latest_fields);
static const struct view_field series_commits_fields[] = {
	VIEW_F(store_series_commits, "series", VIEW_STR, series),
	VIEW_A(store_series_commits, "commits", series_commit_view, commits,
	       ncommits),
	VIEW_O(store_series_commits, "latest", series_latest, latest),
};
const struct view_type store_series_commits_view = VIEW_TYPE(
	"series commits", struct store_series_commits, series_commits_fields);

static const struct store_stmt submission = {
	"SELECT robot_submission($1::bigint)", "l", store_read_text, false,
	.shared = true};

void
store_submission(struct store *s, long long id, store_text_cb cb, void *arg)
{
	store_call(s, &submission, STORE_FN(cb), arg, STORE_LONG(id));
}

#define UF(st, key, kind, field) VIEW_F(store_submission##st, key, kind, field)
static const struct view_field submission_runs_fields[] = {
	UF(_runs, "queued", VIEW_INT, queued),
	UF(_runs, "leased", VIEW_INT, leased),
	UF(_runs, "done", VIEW_INT, done),
	UF(_runs, "failed", VIEW_INT, failed),
	UF(_runs, "cancelled", VIEW_INT, cancelled),
};
static const struct view_type submission_runs =
	VIEW_TYPE("runs", struct store_submission_runs, submission_runs_fields);
static const struct view_field submission_commit_fields[] = {
	UF(_commit, "series", VIEW_STR, series),
	UF(_commit, "commit", VIEW_STR, commit),
	UF(_commit, "ok", VIEW_INT, ok),
	UF(_commit, "failed", VIEW_INT, failed),
	UF(_commit, "to_come", VIEW_INT, to_come),
};
static const struct view_type submission_commit = VIEW_TYPE(
	"commit", struct store_submission_commit, submission_commit_fields);
static const struct view_field submission_pair_fields[] = {
	UF(_pair, "id", VIEW_INT, id),
	UF(_pair, "series", VIEW_STR, series),
	UF(_pair, "base", VIEW_STR, base),
	UF(_pair, "head", VIEW_STR, head),
	UF(_pair, "state", VIEW_STR, state),
	UF(_pair, "verdict", VIEW_STR, verdict),
	UF(_pair, "kpi", VIEW_STR, kpi),
};
static const struct view_type submission_pair =
	VIEW_TYPE("pair", struct store_submission_pair, submission_pair_fields);
static const struct view_field submission_fields[] = {
	UF(, "id", VIEW_INT, id),
	UF(, "submitter", VIEW_STR, submitter),
	UF(, "file", VIEW_STR, file),
	UF(, "created", VIEW_STR, created),
	UF(, "max_runs", VIEW_INT, max_runs),
	VIEW_O(store_submission, "runs", submission_runs, runs),
	VIEW_A(store_submission, "commits", submission_commit, commits,
	       ncommits),
	VIEW_A(store_submission, "pairs", submission_pair, pairs, npairs),
	UF(, "commits_total", VIEW_INT, commits_total),
	UF(, "pairs_total", VIEW_INT, pairs_total),
};
#undef UF
const struct view_type store_submission_view =
	VIEW_TYPE("submission", struct store_submission, submission_fields);

static const struct store_stmt series_page = {"SELECT robot_series_page($1)",
					      "s", store_read_text, false,
					      .shared = true};

void
store_series_page(struct store *s, const char *name, store_text_cb cb,
		  void *arg)
{
	store_call(s, &series_page, STORE_FN(cb), arg, STORE_TEXT(name));
}

#define SF(st, key, kind, field) VIEW_F(store_series##st, key, kind, field)
static const struct view_field series_box_fields[] = {
	SF(_box, "box", VIEW_STR, box),
	SF(_box, "runs", VIEW_INT, runs),
	SF(_box, "failed", VIEW_INT, failed),
	SF(_box, "last", VIEW_STR, last),
};
static const struct view_type series_box =
	VIEW_TYPE("box", struct store_series_box, series_box_fields);
static const struct view_field series_kpi_fields[] = {
	SF(_kpi, "kpi", VIEW_STR, kpi),
	VIEW_FO(store_series_kpi, "verdict", VIEW_STR, verdict),
	VIEW_FO(store_series_kpi, "change_pct", VIEW_NUM, change_pct),
};
static const struct view_type series_kpi =
	VIEW_TYPE("kpi", struct store_series_kpi, series_kpi_fields);
static const struct view_field series_pair_fields[] = {
	SF(_pair, "id", VIEW_INT, id),
	SF(_pair, "tree", VIEW_STR, tree),
	SF(_pair, "branch", VIEW_STR, branch),
	SF(_pair, "base", VIEW_STR, base),
	SF(_pair, "head", VIEW_STR, head),
	SF(_pair, "state", VIEW_STR, state),
	SF(_pair, "verdict", VIEW_STR, verdict),
	SF(_pair, "kpi", VIEW_STR, kpi),
	SF(_pair, "runs", VIEW_INT, runs),
	SF(_pair, "updated", VIEW_STR, updated),
};
static const struct view_type series_pair =
	VIEW_TYPE("pair", struct store_series_pair, series_pair_fields);
static const struct view_field series_finding_fields[] = {
	SF(_finding, "id", VIEW_INT, id),
	SF(_finding, "kind", VIEW_STR, kind),
	SF(_finding, "state", VIEW_STR, state),
	SF(_finding, "kpi", VIEW_STR, kpi),
	SF(_finding, "change_pct", VIEW_NUM, change_pct),
	SF(_finding, "commit", VIEW_STR, commit),
	SF(_finding, "created", VIEW_STR, created),
};
static const struct view_type series_finding = VIEW_TYPE(
	"finding", struct store_series_finding, series_finding_fields);
static const struct view_field series_note_fields[] = {
	SF(_note, "message", VIEW_STR, message),
	SF(_note, "created", VIEW_STR, created),
	VIEW_S(store_series_note, "boxes", boxes, nboxes),
};
static const struct view_type series_note =
	VIEW_TYPE("note", struct store_series_note, series_note_fields);
static const struct view_field series_page_fields[] = {
	SF(_page, "series", VIEW_STR, series),
	SF(_page, "tbox_group", VIEW_STR, tbox_group),
	SF(_page, "first", VIEW_STR, first),
	SF(_page, "last", VIEW_STR, last),
	SF(_page, "queued", VIEW_INT, queued),
	SF(_page, "leased", VIEW_INT, leased),
	SF(_page, "done", VIEW_INT, done),
	SF(_page, "failed", VIEW_INT, failed),
	SF(_page, "commits", VIEW_INT, commits),
	VIEW_S(store_series_page, "trees", trees, ntrees),
	VIEW_A(store_series_page, "boxes", series_box, boxes, nboxes),
	SF(_page, "job", VIEW_JSON, job),
	VIEW_A(store_series_page, "kpis", series_kpi, kpis, nkpis),
	VIEW_A(store_series_page, "pairs", series_pair, pairs, npairs),
	VIEW_A(store_series_page, "findings", series_finding, findings,
	       nfindings),
	VIEW_A(store_series_page, "notes", series_note, notes, nnotes),
};
#undef SF
const struct view_type store_series_page_view =
	VIEW_TYPE("series", struct store_series_page, series_page_fields);
