/*
 * api.c: routing, tokens, and the people's half of the API: submit and
 * list jobs, fetch result documents, status and metrics.
 *
 * Reads are answered with JSON that PostgreSQL builds (json_build_object
 * and json_agg), so a listing is one query and one copy.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobfile.h"
#include "jobs/needs.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "web/api.h"
#include "robot/core/banned.h"

/* Runs in a submission beyond which a submit is refused. */
#define API_MAX_RUNS 20000

struct api *
api_new(struct event_base *base, struct db *db, struct tokens *tokens,
	const struct api_config *cfg)
{
	struct api *a = xcalloc(1, sizeof *a);

	a->base = base;
	a->db = db;
	a->tokens = tokens;
	a->cfg = *cfg;
	a->cfg.default_group =
		cfg->default_group ? xstrdup(cfg->default_group) : NULL;
	return a;
}

void
api_free(struct api *a)
{
	if (a == NULL)
		return;
	boxes_free(a);
	free(a->cfg.default_group);
	free(a);
}

void
api_quiesce(struct api *a)
{
	a->stopping = true;
	boxes_quiesce(a);
}

size_t
api_body_limit(const char *method, const char *path)
{
	if (strcmp(method, "POST") != 0)
		return 0;
	if (strcmp(path, "/api/jobs") == 0)
		return API_JOB_LIMIT;
	if (str_has_prefix(path, "/api/leases/") &&
	    str_has_suffix(path, "/result"))
		return API_RESULT_LIMIT;
	return API_OTHER_LIMIT;
}

void
api_reply_db_error(struct http_req *req)
{
	const char *code = db_last_sqlstate(), *msg = db_last_message();
	const char *detail = db_last_detail();
	json_t *details = json_array();

	if (code[0] == 'R' && code[1] == 'B') {
		int status = atoi(code + 2);
		const char *p = detail;

		while (*p != '\0') {
			size_t n = strcspn(p, "\n");

			json_array_append_new(details,
					      rjson_string_lossy(p, n));
			p += n + (p[n] == '\n');
		}
		http_req_reply_error(
			req, status >= 400 && status < 500 ? status : 400, msg,
			details);
		return;
	}
	json_array_append_new(details, json_string(msg[0] ? msg : "down"));
	if (code[0] == '\0' || str_has_prefix(code, "08") ||
	    str_has_prefix(code, "57P")) {
		http_req_reply_error(req, 503, "the database is unavailable",
				     details);
		return;
	}
	log_warnx("query failed: %s: %s", code, msg);
	http_req_reply_error(req, 500, "internal error", details);
}

/* Tokens. */

struct auth {
	struct api *a;
	struct http_req *req;
	api_auth_cb cb;
	void *arg;
};

static void
api_on_token(const char *kind, const char *name, bool down, void *arg)
{
	struct auth *au = arg;

	if (down)
		http_req_reply_error(au->req, 503,
				     "the database is unavailable", NULL);
	else if (kind == NULL)
		http_req_reply_error(au->req, 401, "unknown token", NULL);
	au->cb(au->req, down ? NULL : kind, name, au->arg);
	free(au);
}

void
api_auth(struct api *a, struct http_req *req, api_auth_cb cb, void *arg)
{
	const char *h = http_req_header(req, "Authorization");
	struct auth *au;

	if (h == NULL || strncasecmp(h, "Bearer ", 7) != 0 || h[7] == '\0') {
		http_req_reply_error(req, 401,
				     "this call needs a token "
				     "(Authorization: Bearer TOKEN)",
				     NULL);
		cb(req, NULL, NULL, arg);
		return;
	}
	au = xcalloc(1, sizeof *au);
	au->a = a;
	au->req = req;
	au->cb = cb;
	au->arg = arg;
	tokens_check(a->tokens, h + 7, api_on_token, au);
}

/* A reply of JSON built by the query: row 0, column 0. */
static void
api_on_json_row(const struct db_result *r, void *arg)
{
	struct http_req *req = arg;
	const char *s;

	if (r == NULL) {
		api_reply_db_error(req);
		return;
	}
	s = db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;
	if (s == NULL)
		http_req_reply_error(req, 404, "not found", NULL);
	else
		http_req_reply(req, 200, "application/json", s, strlen(s));
}

/* Parses an integer argument; false (and a 400 answer) when bad. */
static bool
api_int_arg(struct http_req *req, const char *name, long lo, long hi, long *v)
{
	const char *s = http_req_arg(req, name, 0);
	char *end;
	long x;

	if (s == NULL)
		return true;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi) {
		char *msg = xasprintf("%s wants an integer from %ld to %ld, "
				      "not '%s'",
				      name, lo, hi, s);

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		return false;
	}
	*v = x;
	return true;
}

/* A commit, tree or group name: no spaces, no control characters. */
static bool
api_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 100 || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) &&
		    strchr("._-/+:", s[i]) == NULL)
			return false;
	return true;
}

/* Submit. */

struct submit {
	struct api *a;
	struct http_req *req;
	char *submitter;
	struct jobfile *jf;
	json_t *warnings;
	const char *group; /* from the query, or NULL */
	long repeat, priority;
	const char **commits; /* from the query */
	size_t ncommits;
	json_t *waiting; /* groups no box has registered for */
};

static void
submit_free(struct submit *s)
{
	free(s->submitter);
	jobfile_free(s->jf);
	json_decref(s->warnings);
	json_decref(s->waiting);
	free(s->commits);
	free(s);
}

static long
node_int(const struct node *job, const char *key, long dflt)
{
	const struct node *n = node_get(job, key);

	if (n != NULL && n->kind == NODE_SCALAR && n->stype == NODE_INT)
		return (long)n->ival;
	return dflt;
}

static char *
node_str(const struct node *job, const char *key)
{
	const struct node *n = node_get(job, key);

	return n != NULL && n->kind == NODE_SCALAR ? node_to_s(n) : NULL;
}

static void
submit_on_rows(const struct db_result *r, void *arg)
{
	struct submit *s = arg;
	json_t *out, *jobs, *waiting;

	if (r == NULL) {
		api_reply_db_error(s->req);
		submit_free(s);
		return;
	}
	jobs = json_array();
	for (size_t i = 0; i < db_rows(r); i++) {
		const char *commit = db_value(r, i, 2);

		json_array_append_new(
			jobs,
			json_pack("{s:I, s:s, s:o, s:i, s:s, s:s}", "id",
				  (json_int_t)strtoll(db_value(r, i, 0), NULL,
						      10),
				  "key", db_value(r, i, 1), "commit",
				  commit ? json_string(commit) : json_null(),
				  "run", atoi(db_value(r, i, 3)), "series",
				  db_value(r, i, 4), "state", "queued"));
	}
	waiting = json_array();
	for (size_t i = 0; i < json_array_size(s->waiting); i++) {
		char *msg = xasprintf(
			"no box of tbox_group %s has registered yet: its jobs "
			"wait in the queue",
			json_string_value(json_array_get(s->waiting, i)));

		json_array_append_new(waiting, json_string(msg));
		free(msg);
	}
	out = json_pack("{s:I, s:o, s:O, s:o}", "submission",
			(json_int_t)(db_rows(r) > 0 ? strtoll(db_value(r, 0, 5),
							      NULL, 10)
						    : 0),
			"jobs", jobs, "warnings", s->warnings, "waiting",
			waiting);
	log_info("%s submitted %zu runs of %s", s->submitter, db_rows(r),
		 s->jf->name);
	http_req_reply_json(s->req, 201, out);
	submit_free(s);
}

/* Queues the runs once every job's group is known. */
static void
submit_queue(struct submit *s, json_t *groups)
{
	json_t *runs = json_array();
	const char *params[4];
	size_t body_len;
	char *p_jobs;

	for (size_t i = 0; i < s->jf->njobs; i++) {
		const struct atomic_job *aj = &s->jf->jobs[i];
		char *group = node_str(aj->job, "tbox_group");
		const char *grp =
			s->group ? s->group
			: group  ? group
			: s->a->cfg.default_group
				? s->a->cfg.default_group
				: json_string_value(json_array_get(groups, 0));
		long repeat =
			s->repeat ? s->repeat : node_int(aj->job, "repeat", 3);
		long priority = s->priority != LONG_MIN
					? s->priority
					: node_int(aj->job, "priority", 0);
		size_t nc = s->ncommits ? s->ncommits : 1;
		bool dup = false;

		/* Commits from the query replace the file's: its commit
		 * list gave jobs that differ in the commit alone. */
		for (size_t k = 0; s->ncommits && k < i; k++)
			dup = dup || strcmp(s->jf->jobs[k].key, aj->key) == 0;
		if (dup) {
			free(group);
			continue;
		}
		for (size_t c = 0; c < nc; c++) {
			const char *commit =
				s->ncommits ? s->commits[c] : aj->commit;

			for (long run = 1; run <= repeat; run++)
				json_array_append_new(
					runs,
					json_pack("{s:s, s:s, s:o, s:o, s:o, "
						  "s:o, s:I, s:I, s:I, s:i}",
						  "key", aj->key, "tbox_group",
						  grp, "commit",
						  commit ? json_string(commit)
							 : json_null(),
						  "tree", json_null(), "job",
						  jobfile_job_json(aj), "needs",
						  needs_of_job(aj->job), "run",
						  (json_int_t)run, "runs",
						  (json_int_t)repeat,
						  "priority",
						  (json_int_t)priority,
						  "max_attempts",
						  s->a->cfg.max_attempts));
		}
		free(group);
	}
	if (json_array_size(runs) > API_MAX_RUNS) {
		char *msg = xasprintf("%zu runs in one submission; the limit "
				      "is %d",
				      json_array_size(runs), API_MAX_RUNS);

		http_req_reply_error(s->req, 400, msg, NULL);
		free(msg);
		json_decref(runs);
		submit_free(s);
		return;
	}
	p_jobs = rjson_dumps(runs, JSON_COMPACT);
	json_decref(runs);
	params[0] = s->submitter;
	params[1] = s->jf->name;
	params[2] = http_req_body(s->req, &body_len);
	params[3] = p_jobs;
	db_query(s->a->db,
		 "SELECT id, key, commit, run, series, submission FROM "
		 "robot_submit($1, $2, $3, $4)",
		 4, params, submit_on_rows, s);
	free(p_jobs);
}

/* The lab's groups, for jobs that name none (and for "waiting"). */
static bool
json_has_string(const json_t *array, const char *s)
{
	for (size_t i = 0; i < json_array_size(array); i++)
		if (strcmp(json_string_value(json_array_get(array, i)), s) == 0)
			return true;
	return false;
}

static void
submit_on_groups(const struct db_result *r, void *arg)
{
	struct submit *s = arg;
	json_t *groups = json_array(), *have = json_array();
	bool unnamed = false;

	if (r == NULL) {
		api_reply_db_error(s->req);
		submit_free(s);
		json_decref(groups);
		json_decref(have);
		return;
	}
	for (size_t i = 0; i < db_rows(r); i++)
		json_array_append_new(have, json_string(db_value(r, i, 0)));
	for (size_t i = 0; i < s->jf->njobs; i++) {
		char *g = node_str(s->jf->jobs[i].job, "tbox_group");

		unnamed = unnamed || (g == NULL && s->group == NULL &&
				      s->a->cfg.default_group == NULL);
		free(g);
	}
	if (unnamed && json_array_size(have) != 1) {
		json_t *details = json_array();
		char *msg;

		if (json_array_size(have) == 0) {
			msg = xstrdup("no box has registered yet: name the "
				      "tbox_group to queue for");
		} else {
			struct buf b;

			buf_init(&b);
			for (size_t i = 0; i < json_array_size(have); i++)
				buf_addf(&b, "%s%s", i ? ", " : "",
					 json_string_value(
						 json_array_get(have, i)));
			msg = xasprintf("name a tbox_group (in the job file or "
					"?tbox_group=): the lab has %s",
					b.data);
			buf_release(&b);
		}
		http_req_reply_error(s->req, 400, msg, details);
		free(msg);
		json_decref(groups);
		json_decref(have);
		submit_free(s);
		return;
	}
	if (unnamed)
		json_array_append(groups, json_array_get(have, 0));
	/* Groups no box has registered for: queued, and said so. */
	for (size_t i = 0; i < s->jf->njobs; i++) {
		char *g = node_str(s->jf->jobs[i].job, "tbox_group");
		const char *grp =
			s->group ? s->group
			: g      ? g
			: s->a->cfg.default_group
				? s->a->cfg.default_group
				: json_string_value(json_array_get(groups, 0));

		if (!json_has_string(have, grp) &&
		    !json_has_string(s->waiting, grp))
			json_array_append_new(s->waiting, json_string(grp));
		free(g);
	}
	json_decref(have);
	submit_queue(s, groups);
	json_decref(groups);
}

static void
submit_on_auth(struct http_req *req, const char *kind, const char *name,
	       void *arg)
{
	struct api *a = arg;
	struct jobfile_options opt = {JOBFILE_AUTO, a->cfg.max_jobs};
	const char *fname = http_req_arg(req, "name", 0);
	struct submit *s;
	struct errlist el;
	const char *body, *c;
	size_t len, n = 0;

	if (kind == NULL)
		return; /* answered */
	if (strcmp(kind, "submit") != 0 && strcmp(kind, "admin") != 0) {
		http_req_reply_error(req, 403,
				     "submitting needs a submit token", NULL);
		return;
	}
	s = xcalloc(1, sizeof *s);
	s->a = a;
	s->req = req;
	s->submitter = xstrdup(name);
	s->priority = LONG_MIN;
	s->waiting = json_array();
	if (!api_int_arg(req, "repeat", 1, 100, &s->repeat) ||
	    !api_int_arg(req, "priority", -1000, 1000, &s->priority)) {
		submit_free(s);
		return;
	}
	while ((c = http_req_arg(req, "commit", n)) != NULL) {
		if (!api_name_ok(c)) {
			char *msg = xasprintf("'%s' is not a commit", c);

			http_req_reply_error(req, 400, msg, NULL);
			free(msg);
			submit_free(s);
			return;
		}
		s->commits =
			xreallocarray(s->commits, n + 1, sizeof *s->commits);
		s->commits[n++] = c;
	}
	s->ncommits = n;
	s->group = http_req_arg(req, "tbox_group", 0);
	if (s->group != NULL && !api_name_ok(s->group)) {
		http_req_reply_error(req, 400, "bad tbox_group", NULL);
		submit_free(s);
		return;
	}
	if (fname == NULL || !api_name_ok(fname))
		fname = "job.yaml";
	body = http_req_body(req, &len);
	errlist_init(&el);
	s->jf = jobfile_split(fname, body, len, &opt, &el);
	if (s->jf == NULL) {
		char *msg = xasprintf("the job file has %zu error%s",
				      el.nerrors, el.nerrors == 1 ? "" : "s");

		http_req_reply_error(req, 400, msg,
				     errlist_to_json(&el, false));
		free(msg);
		errlist_release(&el);
		submit_free(s);
		return;
	}
	s->warnings = errlist_to_json(&el, true);
	errlist_release(&el);
	db_query(a->db,
		 "SELECT DISTINCT tbox_group FROM boxes ORDER BY tbox_group", 0,
		 NULL, submit_on_groups, s);
}

/* Reads. */

static void
api_jobs(struct api *a, struct http_req *req, const char *unused)
{
	(void)unused;
	static const char *const states[] = {"queued", "leased", "done",
					     "failed", NULL};
	const char *state = http_req_arg(req, "state", 0);
	const char *series = http_req_arg(req, "series", 0);
	const char *params[4];
	char lim[32], sub[32];
	long limit = 100, submission = 0;
	bool ok = state == NULL;

	for (size_t i = 0; state && states[i]; i++)
		ok = ok || strcmp(state, states[i]) == 0;
	if (!ok) {
		http_req_reply_error(req, 400,
				     "state is one of queued, leased, done, "
				     "failed",
				     NULL);
		return;
	}
	if (!api_int_arg(req, "limit", 1, 10000, &limit) ||
	    !api_int_arg(req, "submission", 1, LONG_MAX, &submission))
		return;
	snprintf(lim, sizeof lim, "%ld", limit);
	snprintf(sub, sizeof sub, "%ld", submission);
	params[0] = state;
	params[1] = submission ? sub : NULL;
	params[2] = series;
	params[3] = lim;
	db_query(a->db,
		 "SELECT json_build_object('jobs', coalesce(json_agg(x ORDER "
		 "BY x.id DESC), '[]')) FROM (SELECT id, state, key, series, "
		 "commit, run, runs, attempts, box, error, priority, "
		 "submission, created, updated FROM jobs WHERE ($1::text IS "
		 "NULL OR state = $1) AND ($2::bigint IS NULL OR submission = "
		 "$2) AND ($3::text IS NULL OR series = $3) ORDER BY id DESC "
		 "LIMIT $4::int) x",
		 4, params, api_on_json_row, req);
}

static void
api_job(struct api *a, struct http_req *req, const char *id)
{
	const char *params[1] = {id};

	db_query(a->db,
		 "SELECT json_build_object('id', j.id, 'state', j.state, "
		 "'key', j.key, 'series', j.series, 'commit', j.commit, "
		 "'run', j.run, 'runs', j.runs, 'attempts', j.attempts, "
		 "'max_attempts', j.max_attempts, 'box', j.box, 'error', "
		 "j.error, 'priority', j.priority, 'submission', "
		 "j.submission, 'created', j.created, 'updated', j.updated, "
		 "'job', j.job, 'needs', j.needs, 'leases', (SELECT "
		 "coalesce(json_agg(json_build_object('id', l.id, 'box', "
		 "l.box, 'state', l.state, 'created', l.created, 'deadline', "
		 "l.deadline) ORDER BY l.id), '[]') FROM leases l WHERE l.job "
		 "= j.id), 'result', (SELECT r.doc FROM results r WHERE r.job "
		 "= j.id)) FROM jobs j WHERE j.id = $1::bigint",
		 1, params, api_on_json_row, req);
}

static void
api_results(struct api *a, struct http_req *req, const char *unused)
{
	const char *params[2];

	(void)unused;
	params[0] = http_req_arg(req, "series", 0);
	params[1] = http_req_arg(req, "commit", 0);
	if (params[0] == NULL) {
		http_req_reply_error(req, 400,
				     "results want ?series=KEY/TBOX_GROUP and "
				     "&commit=SHA",
				     NULL);
		return;
	}
	db_query(a->db,
		 "SELECT json_build_object('series', $1::text, 'commit', "
		 "$2::text, 'results', coalesce(json_agg(doc ORDER BY id), "
		 "'[]')) FROM results WHERE series = $1 AND commit IS NOT "
		 "DISTINCT FROM $2",
		 2, params, api_on_json_row, req);
}

static void
api_status(struct api *a, struct http_req *req, const char *unused)
{
	(void)unused;
	db_query(a->db,
		 "SELECT json_build_object("
		 "'queue', (SELECT json_build_object("
		 "'queued', count(*) FILTER (WHERE state = 'queued'), "
		 "'leased', count(*) FILTER (WHERE state = 'leased'), "
		 "'done', count(*) FILTER (WHERE state = 'done'), "
		 "'failed', count(*) FILTER (WHERE state = 'failed')) "
		 "FROM jobs), "
		 "'boxes', (SELECT coalesce(json_agg(json_build_object("
		 "'name', b.name, 'tbox_group', b.tbox_group, 'state', "
		 "b.state, 'failures', b.failures, 'last_seen', b.last_seen, "
		 "'facts', b.facts) ORDER BY b.name), '[]') FROM boxes b), "
		 "'running', (SELECT coalesce(json_agg(json_build_object("
		 "'id', j.id, 'key', j.key, 'commit', j.commit, 'run', "
		 "j.run, 'runs', j.runs, 'attempts', j.attempts, 'box', "
		 "l.box, 'lease', l.id, 'deadline', l.deadline) ORDER BY "
		 "j.id), '[]') FROM jobs j JOIN leases l ON l.job = j.id AND "
		 "l.state = 'active' WHERE j.state = 'leased'))",
		 0, NULL, api_on_json_row, req);
}

struct metrics {
	struct api *a;
	struct http_req *req;
};

/* The rows (what, state, value) of r as one gauge, labelled by state
 * when by_state. */
static void
metric_rows(struct buf *b, const struct db_result *r, const char *what,
	    const char *name, const char *help, bool by_state)
{
	buf_addf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (size_t i = 0; i < db_rows(r); i++) {
		if (strcmp(db_value(r, i, 0), what) != 0)
			continue;
		if (by_state)
			buf_addf(b, "%s{state=\"%s\"} %s\n", name,
				 db_value(r, i, 1), db_value(r, i, 2));
		else
			buf_addf(b, "%s %s\n", name, db_value(r, i, 2));
	}
}

static void
api_on_metrics(const struct db_result *r, void *arg)
{
	struct metrics *m = arg;
	struct api *a = m->a;
	struct buf b;

	buf_init(&b);
	buf_adds(&b, "# HELP robot_up Whether robotd reaches its "
		     "database.\n# TYPE robot_up gauge\n");
	buf_addf(&b, "robot_up %d\n", r != NULL);
	if (r != NULL) {
		metric_rows(&b, r, "jobs", "robot_jobs", "Runs by state.",
			    true);
		metric_rows(&b, r, "boxes", "robot_boxes", "Boxes by state.",
			    true);
		metric_rows(&b, r, "leases", "robot_leases_active",
			    "Leases held.", false);
	}
	buf_addf(&b,
		 "# HELP robot_lease_waiters Lease requests waiting for "
		 "work in this robotd.\n# TYPE robot_lease_waiters gauge\n"
		 "robot_lease_waiters %zu\n"
		 "# HELP robot_db_queued Queries waiting for a connection.\n"
		 "# TYPE robot_db_queued gauge\nrobot_db_queued %zu\n"
		 "# HELP robot_http_requests_total Requests served.\n"
		 "# TYPE robot_http_requests_total counter\n"
		 "robot_http_requests_total %llu\n"
		 "# HELP robot_leases_granted_total Leases this robotd "
		 "granted.\n# TYPE robot_leases_granted_total counter\n"
		 "robot_leases_granted_total %llu\n"
		 "# HELP robot_uploads_total Result documents stored.\n"
		 "# TYPE robot_uploads_total counter\n"
		 "robot_uploads_total %llu\n",
		 a->nwaiters, db_queued(a->db), a->requests, a->leases_granted,
		 a->uploads);
	http_req_reply(m->req, 200, "text/plain; version=0.0.4", b.data, b.len);
	buf_release(&b);
	free(m);
}

static void
api_metrics(struct api *a, struct http_req *req, const char *unused)
{
	struct metrics *m = xcalloc(1, sizeof *m);

	(void)unused;

	m->a = a;
	m->req = req;
	db_query(a->db,
		 "SELECT 'jobs', s, (SELECT count(*) FROM jobs WHERE state = "
		 "s) FROM unnest(ARRAY['queued', 'leased', 'done', "
		 "'failed']) s UNION ALL SELECT 'boxes', s, (SELECT count(*) "
		 "FROM boxes WHERE state = s) FROM unnest(ARRAY['idle', "
		 "'busy', 'broken']) s UNION ALL SELECT 'leases', 'active', "
		 "count(*) FROM leases WHERE state = 'active'",
		 0, NULL, api_on_metrics, m);
}

/* Routing. */

typedef void (*api_fn)(struct api *a, struct http_req *req, const char *arg);

static void
api_submit(struct api *a, struct http_req *req, const char *unused)
{
	(void)unused;
	api_auth(a, req, submit_on_auth, a);
}

/*
 * The routes.  In a pattern, ":id" is a number and ":name" a name; the
 * one such segment is the handler's argument.  GET routes answer HEAD.
 */
static const struct api_route {
	const char *method;
	const char *pattern;
	api_fn fn;
} api_routes[] = {
	{"GET", "/metrics", api_metrics},
	{"GET", "/api/status", api_status},
	{"GET", "/api/jobs", api_jobs},
	{"POST", "/api/jobs", api_submit},
	{"GET", "/api/jobs/:id", api_job},
	{"GET", "/api/results", api_results},
	{"POST", "/api/boxes/:name/register", boxes_register},
	{"POST", "/api/boxes/:name/lease", boxes_lease},
	{"POST", "/api/boxes/:name/reset", boxes_reset},
	{"POST", "/api/leases/:id/heartbeat", boxes_heartbeat},
	{"POST", "/api/leases/:id/result", boxes_result},
	{NULL, NULL, NULL},
};

static bool
api_is_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Whether path fits pattern; *arg gets the variable segment (in buf). */
static bool
api_match(const char *pattern, const char *path, char *buf, size_t len,
	  const char **arg)
{
	*arg = NULL;
	while (*pattern != '\0' && *path != '\0') {
		size_t pn = strcspn(pattern + 1, "/") + 1;
		size_t sn = strcspn(path + 1, "/") + 1;

		if (*pattern != '/' || *path != '/')
			return false;
		if (pattern[1] == ':') {
			if (sn - 1 >= len || sn == 1)
				return false;
			memcpy(buf, path + 1, sn - 1);
			buf[sn - 1] = '\0';
			if (strncmp(pattern + 1, ":id", pn - 1) == 0
				    ? !api_is_id(buf)
				    : !api_name_ok(buf))
				return false;
			*arg = buf;
		} else if (pn != sn || strncmp(pattern, path, pn) != 0) {
			return false;
		}
		pattern += pn;
		path += sn;
	}
	return *pattern == '\0' && (*path == '\0' || strcmp(path, "/") == 0);
}

void
api_on_request(struct http_req *req, void *arg)
{
	struct api *a = arg;
	const char *m = http_req_method(req), *path = http_req_path(req);
	const char *var;
	char buf[128], allow[64] = "";

	a->requests++;
	if (a->stopping) {
		http_req_reply_error(req, 503, "robotd is stopping", NULL);
		return;
	}
	if (strcmp(m, "HEAD") == 0)
		m = "GET";
	for (const struct api_route *r = api_routes; r->method != NULL; r++) {
		if (!api_match(r->pattern, path, buf, sizeof buf, &var))
			continue;
		if (strcmp(r->method, m) == 0) {
			r->fn(a, req, var);
			return;
		}
		snprintf(allow + strlen(allow), sizeof allow - strlen(allow),
			 "%s%s", allow[0] ? " or " : "", r->method);
	}
	if (allow[0] != '\0') {
		char *msg = xasprintf("%s %s: use %s", http_req_method(req),
				      path, allow);

		http_req_reply_error(req, 405, msg, NULL);
		free(msg);
		return;
	}
	{
		char *msg = xasprintf("no such resource: %s %s", m, path);

		http_req_reply_error(req, 404, msg, NULL);
		free(msg);
	}
}

void
api_on_notify(const char *payload, void *arg)
{
	boxes_notify(arg, payload);
}
