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

static const struct store_stmt history = {
	"SELECT robot_series_history($1, $2, $3::int)", "ssi", store_read_text,
	false, .shared = true};

void
store_series_history(struct store *s, const char *series, const char *metric,
		     int limit, store_text_cb cb, void *arg)
{
	store_call(s, &history, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(metric), STORE_INT(limit));
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

static const struct store_stmt series_commits = {
	"SELECT json_build_object('series', $1::text, 'commits', "
	"json_agg(x ORDER BY x.last DESC)) FROM (SELECT commit, "
	"count(*) AS runs, count(*) FILTER (WHERE state = 'done') "
	"AS ok, min(created) AS first, max(updated) AS last FROM "
	"jobs WHERE series = $1 GROUP BY commit) x HAVING count(*) "
	"> 0",
	"s", store_read_text, false, .shared = true};

void
store_series_commits(struct store *s, const char *series_name, store_text_cb cb,
		     void *arg)
{
	store_call(s, &series_commits, STORE_FN(cb), arg,
		   STORE_TEXT(series_name));
}
