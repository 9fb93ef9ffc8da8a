/*
 * jobs.c: the store's queue of runs (jobs.h).
 */
#include <stddef.h>
#include <stdlib.h>

#include "robot/core/xmalloc.h"
#include "robot/daemon/store/call.h"
#include "robot/daemon/store/jobs.h"
#include "robot/core/banned.h"

static void
read_groups(const struct db_result *r, const struct problem *p, store_fn cb,
	    void *arg)
{
	size_t n = p == NULL ? db_rows(r) : 0;
	const char **v = xcalloc(n + 1, sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = db_value(r, i, 0);
	((store_groups_cb)cb)(v, n, p, arg);
	free(v);
}

static const struct store_stmt groups = {
	"SELECT DISTINCT tbox_group FROM boxes ORDER BY tbox_group", "",
	read_groups, false};

void
store_groups(struct store *s, store_groups_cb cb, void *arg)
{
	store_call(s, &groups, STORE_FN(cb), arg);
}

/* The runs a submit queued (from fn, robot_submit() or
 * robot_tree_submit()): {"submission", "jobs": [{id, key, commit, run,
 * series, state}]}. */
#define SUBMITTED(fn)                                                          \
	"SELECT json_build_object('submission', "                              \
	"coalesce(max(x.submission), 0), 'jobs', "                             \
	"coalesce(json_agg(json_build_object('id', x.id, 'key', "              \
	"x.key, 'commit', x.commit, 'run', x.run, 'series', "                  \
	"x.series, 'state', 'queued') ORDER BY x.id), '[]')) FROM " fn " x"

/* (shared: eight submits of 5,000 runs held every connection, and
 * status and the boxes' leases waited 29 s: issue 61) */
static const struct store_stmt submit = {
	SUBMITTED("robot_submit($1, $2, $3, $4, $5::int)"), "ssssz",
	store_read_text, false, .shared = true};

void
store_submit(struct store *s, const char *submitter, const char *file,
	     const char *body, const char *runs, int max_runs, store_text_cb cb,
	     void *arg)
{
	store_call(s, &submit, STORE_FN(cb), arg, STORE_TEXT(submitter),
		   STORE_TEXT(file), STORE_TEXT(body), STORE_TEXT(runs),
		   STORE_ID((long long)max_runs));
}

static const struct store_stmt tree_submit = {
	SUBMITTED("robot_tree_submit($1, $2, $3, $4, $5, $6, $7, $8, $9::int)"),
	"ssssssssi", store_read_text, false};

void
store_tree_submit(struct store *s, const struct store_tree_submit *t,
		  store_text_cb cb, void *arg)
{
	store_call(s, &tree_submit, STORE_FN(cb), arg, STORE_TEXT(t->submitter),
		   STORE_TEXT(t->file), STORE_TEXT(t->body),
		   STORE_TEXT(t->runs), STORE_TEXT(t->tree),
		   STORE_TEXT(t->branch), STORE_TEXT(t->base),
		   STORE_TEXT(t->head), STORE_INT(t->max_runs));
}

static const struct store_stmt cancel = {
	"SELECT robot_cancel($1::bigint, $2::bigint, $3, $4, $5::boolean)",
	"zzssb", store_read_text, false};

void
store_cancel(struct store *s, long long job, long long submission,
	     const char *series, const char *by, bool admin, store_text_cb cb,
	     void *arg)
{
	store_call(s, &cancel, STORE_FN(cb), arg, STORE_ID(job),
		   STORE_ID(submission), STORE_TEXT(series), STORE_TEXT(by),
		   STORE_BOOL((int)admin));
}

static const struct store_stmt jobs = {
	"SELECT json_build_object('jobs', coalesce(json_agg(x ORDER "
	"BY x.id DESC), '[]')) FROM (SELECT id, state, key, series, "
	"commit, run, runs, attempts, box, error, priority, "
	"submission, created, updated FROM jobs WHERE ($1::text IS "
	"NULL OR state = $1) AND ($2::bigint IS NULL OR submission = "
	"$2) AND ($3::text IS NULL OR series = $3) AND ($5::bigint IS "
	"NULL OR id < $5) AND ($6::text IS NULL OR commit LIKE $6 || "
	"'%') AND ($7::text IS NULL OR box = $7) ORDER BY id DESC "
	"LIMIT $4::int) x",
	"szslzss", store_read_text, false};

void
store_jobs(struct store *s, const struct store_jobs_filter *f, store_text_cb cb,
	   void *arg)
{
	store_call(s, &jobs, STORE_FN(cb), arg, STORE_TEXT(f->state),
		   STORE_ID(f->submission), STORE_TEXT(f->series),
		   STORE_LONG((long long)f->limit), STORE_ID(f->before),
		   STORE_TEXT(f->commit), STORE_TEXT(f->box));
}

static const struct store_stmt job = {
	"SELECT json_build_object('id', j.id, 'state', j.state, "
	"'key', j.key, 'series', j.series, 'commit', j.commit, "
	"'run', j.run, 'runs', j.runs, 'attempts', j.attempts, "
	"'max_attempts', j.max_attempts, 'box', j.box, 'error', "
	"j.error, 'priority', j.priority, 'submission', "
	"j.submission, 'created', j.created, 'updated', j.updated, "
	"'job', j.job, 'needs', j.needs, 'leases', (SELECT "
	"coalesce(json_agg(json_build_object('id', l.id, 'box', "
	"l.box, 'state', l.state, 'created', l.created, "
	"'deadline', l.deadline) ORDER BY l.id), '[]') FROM leases "
	"l WHERE l.job = j.id), 'result', (SELECT r.doc FROM "
	"results r WHERE r.job = j.id)) FROM jobs j WHERE j.id = "
	"$1::bigint",
	"l", store_read_text, false};

void
store_job(struct store *s, long long id, store_text_cb cb, void *arg)
{
	store_call(s, &job, STORE_FN(cb), arg, STORE_LONG(id));
}

#define JF(key, kind, field) VIEW_F(store_jobs_row, key, kind, field)
static const struct view_field jobs_row_fields[] = {
	JF("id", VIEW_INT, id),
	JF("state", VIEW_STR, state),
	JF("key", VIEW_STR, key),
	JF("series", VIEW_STR, series),
	JF("commit", VIEW_STR, commit),
	JF("run", VIEW_INT, run),
	JF("runs", VIEW_INT, runs),
	JF("attempts", VIEW_INT, attempts),
	JF("box", VIEW_STR, box),
	JF("error", VIEW_STR, error),
	JF("priority", VIEW_INT, priority),
	JF("submission", VIEW_INT, submission),
	JF("created", VIEW_STR, created),
	JF("updated", VIEW_STR, updated),
};
#undef JF
static const struct view_type jobs_row =
	VIEW_TYPE("job", struct store_jobs_row, jobs_row_fields);
static const struct view_field jobs_fields[] = {
	VIEW_A(store_jobs, "jobs", jobs_row, jobs, njobs),
};
const struct view_type store_jobs_view =
	VIEW_TYPE("jobs", struct store_jobs, jobs_fields);

static const struct view_field job_result_fields[] = {
	VIEW_FO(store_job_result, "stats", VIEW_JSON, stats),
	VIEW_FO(store_job_result, "error", VIEW_STR, error),
	VIEW_FO(store_job_result, "provision", VIEW_JSON, provision),
	VIEW_FO(store_job_result, "facts", VIEW_JSON, facts),
	VIEW_FO(store_job_result, "series", VIEW_JSON, series),
	VIEW_FO(store_job_result, "outputs", VIEW_JSON, outputs),
};
static const struct view_type job_result =
	VIEW_TYPE("result", struct store_job_result, job_result_fields);
static const struct view_field job_fields[] = {
	VIEW_F(store_job, "id", VIEW_INT, id),
	VIEW_F(store_job, "key", VIEW_STR, key),
	VIEW_F(store_job, "state", VIEW_STR, state),
	VIEW_F(store_job, "series", VIEW_STR, series),
	VIEW_F(store_job, "commit", VIEW_STR, commit),
	VIEW_F(store_job, "box", VIEW_STR, box),
	VIEW_F(store_job, "error", VIEW_STR, error),
	VIEW_F(store_job, "created", VIEW_STR, created),
	VIEW_F(store_job, "updated", VIEW_STR, updated),
	VIEW_F(store_job, "run", VIEW_INT, run),
	VIEW_F(store_job, "runs", VIEW_INT, runs),
	VIEW_F(store_job, "attempts", VIEW_INT, attempts),
	VIEW_F(store_job, "job", VIEW_JSON, job),
	VIEW_F(store_job, "result", VIEW_JSON, doc),
	VIEW_O(store_job, "result", job_result, result),
};
const struct view_type store_job_view =
	VIEW_TYPE("job", struct store_job, job_fields);

static const struct store_stmt results = {
	"SELECT robot_results($1, $2, $3::bigint, $4::int)", "ssli",
	store_read_text, false, .shared = true};

void
store_results(struct store *s, const char *series, const char *commit,
	      long long after, int max_bytes, store_text_cb cb, void *arg)
{
	store_call(s, &results, STORE_FN(cb), arg, STORE_TEXT(series),
		   STORE_TEXT(commit), STORE_LONG(after), STORE_INT(max_bytes));
}
