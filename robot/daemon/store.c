/*
 * store.c: the SQL of robotd.
 *
 * Each typed call packs its parameters as text, runs one statement on
 * the pool (db.c), and turns the rows into the callback's arguments.
 * Failures become problems here, in one place: a lost connection or a
 * stopping robotd is PROBLEM_UNAVAILABLE, an RBnnn code of sql/ is the
 * problem of kind nnn, anything else is a bug of ours (logged) and
 * PROBLEM_INTERNAL.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/db.h"
#include "robot/daemon/store.h"
#include "robot/core/banned.h"

struct store {
	struct db *db;
};

/* A call in flight: its callback and argument. */
struct store_call {
	union {
		store_text_cb text;
		store_token_cb token;
		store_groups_cb groups;
		store_counts_cb counts;
		store_claim_cb claim;
	} cb;
	void *arg;
};

struct store *
store_new(struct db *db)
{
	struct store *s = xcalloc(1, sizeof *s);

	s->db = db;
	return s;
}

void
store_free(struct store *s)
{
	free(s);
}

bool
store_up(const struct store *s)
{
	return db_up(s->db);
}

size_t
store_queued(const struct store *s)
{
	return db_queued(s->db);
}

/* The problem of a failed query, or NULL when it ran. */
static struct problem *
store_problem(const struct db_result *r)
{
	const char *code = db_sqlstate(r), *msg = db_message(r);
	const char *detail = db_detail(r);
	json_t *details = json_array();

	if (db_ok(r)) {
		json_decref(details);
		return NULL;
	}
	if (code[0] == 'R' && code[1] == 'B') {
		int kind = atoi(code + 2);
		const char *p = detail;

		while (*p != '\0') {
			size_t n = strcspn(p, "\n");

			json_array_append_new(details,
					      rjson_string_lossy(p, n));
			p += n + (p[n] == '\n');
		}
		if (kind < 400 || kind > 499)
			kind = PROBLEM_INVALID;
		return problem_new((enum problem_kind)kind, details, "%s", msg);
	}
	json_array_append_new(details, json_string(msg[0] ? msg : "down"));
	if (code[0] == '\0' || str_has_prefix(code, "08") ||
	    str_has_prefix(code, "57P") || str_has_prefix(code, "53"))
		return problem_new(PROBLEM_UNAVAILABLE, details,
				   "the database is unavailable");
	/* A value the database cannot take (class 22: bad encoding, out
	 * of range) is the request's fault; what enters is checked first,
	 * so this is the last line of defence. */
	if (str_has_prefix(code, "22"))
		return problem_new(PROBLEM_INVALID, details,
				   "the request holds a value the database "
				   "refuses");
	log_warnx("query failed: %s: %s", code, msg);
	return problem_new(PROBLEM_INTERNAL, details, "internal error");
}

static struct store_call *
call_new(void *cb, void *arg)
{
	struct store_call *c = xcalloc(1, sizeof *c);

	c->cb.text = (store_text_cb)cb;
	c->arg = arg;
	return c;
}

/* Answers with row 0, column 0 (NULL when there is no row). */
static void
store_on_text(const struct db_result *r, void *arg)
{
	struct store_call *c = arg;
	struct problem *p = store_problem(r);

	if (c->cb.text != NULL)
		c->cb.text(p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0)
						       : NULL,
			   p, c->arg);
	problem_free(p);
	free(c);
}

static void
store_text(struct store *s, const char *sql, int n, const char *const *params,
	   store_text_cb cb, void *arg)
{
	db_query(s->db, sql, n, params, store_on_text, call_new(cb, arg));
}

/* Tokens, before the loop. */

/* Runs sql; false with *err when it fails. */
static bool
exec_ok(struct db_conn *c, const char *sql, int n, const char *const *params,
	char **err)
{
	struct db_result *r = db_exec(c, sql, n, params);
	bool ok = db_ok(r);

	if (!ok)
		*err = xstrdup(db_message(r));
	db_result_free(r);
	return ok;
}

char *
store_token_create(const char *conninfo, const char *kind, const char *name,
		   char **err)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[24];
	char token[4 + 2 * sizeof raw + 1] = "rbt_";
	const char *params[3] = {kind, name, token};
	struct db_conn *c;
	char *out = NULL;

	*err = NULL;
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		*err = xasprintf("getrandom: %s", strerror(errno));
		return NULL;
	}
	for (size_t i = 0; i < sizeof raw; i++) {
		token[4 + 2 * i] = hex[raw[i] >> 4];
		token[5 + 2 * i] = hex[raw[i] & 15];
	}
	token[sizeof token - 1] = '\0';
	if ((c = db_connect(conninfo, err)) == NULL)
		return NULL;
	/* Only the hash is stored: a database dump reveals no token. */
	if (exec_ok(c,
		    "INSERT INTO tokens (kind, name, hash) VALUES "
		    "($1, $2, sha256(convert_to($3, 'UTF8')))",
		    3, params, err))
		out = xstrdup(token);
	db_disconnect(c);
	explicit_bzero(token, sizeof token);
	return out;
}

/* Tokens. */

static void
store_on_token(const struct db_result *r, void *arg)
{
	struct store_call *c = arg;
	struct problem *p = store_problem(r);

	if (p == NULL && db_rows(r) > 0)
		c->cb.token(db_value(r, 0, 0), db_value(r, 0, 1), NULL, c->arg);
	else
		c->cb.token(NULL, NULL, p, c->arg);
	problem_free(p);
	free(c);
}

void
store_token(struct store *s, const char *token, store_token_cb cb, void *arg)
{
	db_query(s->db,
		 "SELECT kind, name FROM tokens "
		 "WHERE hash = sha256(convert_to($1, 'UTF8'))",
		 1, &token, store_on_token, call_new(cb, arg));
}

/* Jobs and submissions. */

static void
store_on_groups(const struct db_result *r, void *arg)
{
	struct store_call *c = arg;
	struct problem *p = store_problem(r);
	size_t n = db_rows(r);
	const char **v = xcalloc(n + 1, sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = db_value(r, i, 0);
	c->cb.groups(v, n, p, c->arg);
	free(v);
	problem_free(p);
	free(c);
}

void
store_groups(struct store *s, store_groups_cb cb, void *arg)
{
	db_query(s->db,
		 "SELECT DISTINCT tbox_group FROM boxes ORDER BY tbox_group", 0,
		 NULL, store_on_groups, call_new(cb, arg));
}

void
store_submit(struct store *s, const char *submitter, const char *file,
	     const char *body, const char *runs, store_text_cb cb, void *arg)
{
	const char *params[4] = {submitter, file, body, runs};

	store_text(s,
		   "SELECT json_build_object('submission', "
		   "coalesce(max(x.submission), 0), 'jobs', "
		   "coalesce(json_agg(json_build_object('id', x.id, 'key', "
		   "x.key, 'commit', x.commit, 'run', x.run, 'series', "
		   "x.series, 'state', 'queued') ORDER BY x.id), '[]')) "
		   "FROM robot_submit($1, $2, $3, $4) x",
		   4, params, cb, arg);
}

void
store_jobs(struct store *s, const struct store_jobs_filter *f, store_text_cb cb,
	   void *arg)
{
	char lim[32], sub[32], before[32];
	const char *params[5] = {f->state, f->submission ? sub : NULL,
				 f->series, lim, f->before ? before : NULL};

	snprintf(lim, sizeof lim, "%ld", f->limit);
	snprintf(sub, sizeof sub, "%lld", f->submission);
	snprintf(before, sizeof before, "%lld", f->before);
	store_text(
		s,
		"SELECT json_build_object('jobs', coalesce(json_agg(x ORDER "
		"BY x.id DESC), '[]')) FROM (SELECT id, state, key, series, "
		"commit, run, runs, attempts, box, error, priority, "
		"submission, created, updated FROM jobs WHERE ($1::text IS "
		"NULL OR state = $1) AND ($2::bigint IS NULL OR submission = "
		"$2) AND ($3::text IS NULL OR series = $3) AND ($5::bigint IS "
		"NULL OR id < $5) ORDER BY id DESC LIMIT $4::int) x",
		5, params, cb, arg);
}

void
store_job(struct store *s, long long id, store_text_cb cb, void *arg)
{
	char ids[32];
	const char *params[1] = {ids};

	snprintf(ids, sizeof ids, "%lld", id);
	store_text(s,
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
		   1, params, cb, arg);
}

void
store_results(struct store *s, const char *series, const char *commit,
	      store_text_cb cb, void *arg)
{
	const char *params[2] = {series, commit};

	store_text(s,
		   "SELECT json_build_object('series', $1::text, 'commit', "
		   "$2::text, 'results', coalesce(json_agg(doc ORDER BY id), "
		   "'[]')) FROM results WHERE series = $1 AND commit IS NOT "
		   "DISTINCT FROM $2",
		   2, params, cb, arg);
}

void
store_status(struct store *s, store_text_cb cb, void *arg)
{
	store_text(s, "SELECT robot_status()", 0, NULL, cb, arg);
}

static void
store_on_counts(const struct db_result *r, void *arg)
{
	static const char *const jobs[] = {"queued", "leased", "done",
					   "failed"};
	static const char *const boxes[] = {"idle", "busy", "broken"};
	static const char *const outbox[] = {"pending", "sent", "failed",
					     "cancelled"};
	struct store_call *c = arg;
	struct problem *p = store_problem(r);
	struct store_counts n;

	memset(&n, 0, sizeof n);
	for (size_t i = 0; i < db_rows(r); i++) {
		const char *what = db_value(r, i, 0), *st = db_value(r, i, 1);
		long long v = strtoll(db_value(r, i, 2), NULL, 10);

		for (size_t k = 0; k < 4; k++)
			if (strcmp(what, "jobs") == 0 &&
			    strcmp(st, jobs[k]) == 0)
				n.jobs[k] = v;
		for (size_t k = 0; k < 3; k++)
			if (strcmp(what, "boxes") == 0 &&
			    strcmp(st, boxes[k]) == 0)
				n.boxes[k] = v;
		if (strcmp(what, "leases") == 0)
			n.leases = v;
		for (size_t k = 0; k < 4; k++)
			if (strcmp(what, "outbox") == 0 &&
			    strcmp(st, outbox[k]) == 0)
				n.outbox[k] = v;
	}
	c->cb.counts(p == NULL ? &n : NULL, p, c->arg);
	problem_free(p);
	free(c);
}

void
store_counts(struct store *s, store_counts_cb cb, void *arg)
{
	db_query(s->db,
		 "SELECT 'jobs', s, (SELECT count(*) FROM jobs WHERE state = "
		 "s) FROM unnest(ARRAY['queued', 'leased', 'done', "
		 "'failed']) s UNION ALL SELECT 'boxes', s, (SELECT count(*) "
		 "FROM boxes WHERE state = s) FROM unnest(ARRAY['idle', "
		 "'busy', 'broken']) s UNION ALL SELECT 'leases', 'active', "
		 "count(*) FROM leases WHERE state = 'active' UNION ALL SELECT "
		 "'outbox', state, count(*) FROM outbox GROUP BY state",
		 0, NULL, store_on_counts, call_new(cb, arg));
}

/* The lab. */

void
store_register(struct store *s, const char *box, const char *group,
	       const char *facts, int broken_after, store_text_cb cb, void *arg)
{
	char broken[16];
	const char *params[4] = {box, group, facts, broken};

	snprintf(broken, sizeof broken, "%d", broken_after);
	store_text(s, "SELECT robot_register($1, $2, $3::jsonb, $4::int)", 4,
		   params, cb, arg);
}

void
store_lease_check(struct store *s, long long lease, const char *box,
		  store_text_cb cb, void *arg)
{
	char id[32];
	const char *params[2] = {id, box};

	snprintf(id, sizeof id, "%lld", lease);
	store_text(s, "SELECT robot_lease_check($1::bigint, $2)", 2, params, cb,
		   arg);
}

static void
store_on_claim(const struct db_result *r, void *arg)
{
	struct store_call *c = arg;
	struct problem *p = store_problem(r);
	struct store_claim cl = {0, NULL, NULL};

	if (p == NULL && db_rows(r) > 0) {
		const char *lease = db_value(r, 0, 0);

		cl.lease = lease ? strtoll(lease, NULL, 10) : 0;
		cl.json = db_value(r, 0, 1);
		cl.group = db_value(r, 0, 2);
	}
	c->cb.claim(p == NULL ? &cl : NULL, p, c->arg);
	problem_free(p);
	free(c);
}

void
store_claim(struct store *s, const char *box, int seconds, store_claim_cb cb,
	    void *arg)
{
	char secs[16];
	const char *params[2] = {box, secs};

	snprintf(secs, sizeof secs, "%d", seconds);
	db_query(s->db,
		 "SELECT c.lease, CASE WHEN c.lease IS NULL THEN NULL ELSE "
		 "json_build_object('lease', c.lease, 'deadline', "
		 "c.deadline, 'job_id', c.job_id, 'key', c.key, 'commit', "
		 "c.commit, 'tree', c.tree, 'run', c.run, 'runs', c.runs, "
		 "'attempt', c.attempts, 'tbox_group', c.tbox_group, "
		 "'lease_seconds', $2::int, 'job', c.job)::text END, "
		 "c.tbox_group FROM robot_claim($1, $2::int) c",
		 2, params, store_on_claim, call_new(cb, arg));
}

void
store_release(struct store *s, long long lease, store_text_cb cb, void *arg)
{
	char id[32];
	const char *params[1] = {id};

	snprintf(id, sizeof id, "%lld", lease);
	store_text(s, "SELECT robot_release($1::bigint)", 1, params, cb, arg);
}

void
store_heartbeat(struct store *s, long long lease, const char *box, int seconds,
		store_text_cb cb, void *arg)
{
	char id[32], secs[16];
	const char *params[3] = {id, box, secs};

	snprintf(id, sizeof id, "%lld", lease);
	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_heartbeat($1::bigint, $2, $3::int)", 3,
		   params, cb, arg);
}

void
store_upload(struct store *s, const struct store_upload *u, store_text_cb cb,
	     void *arg)
{
	char id[32], broken[16];
	const char *params[11] = {id,
				  u->box,
				  u->key,
				  u->tbox_group,
				  u->doc_box,
				  u->commit,
				  u->status,
				  u->error,
				  u->doc,
				  broken,
				  u->job_fault ? "true" : "false"};

	snprintf(id, sizeof id, "%lld", u->lease);
	snprintf(broken, sizeof broken, "%d", u->broken_after);
	store_text(s,
		   "SELECT robot_upload($1::bigint, $2, $3, $4, $5, $6, $7, "
		   "$8, $9::json, $10::int, $11::boolean)",
		   11, params, cb, arg);
}

void
store_reset(struct store *s, const char *box, store_text_cb cb, void *arg)
{
	const char *params[1] = {box};

	store_text(s, "SELECT robot_reset($1)", 1, params, cb, arg);
}

void
store_expire(struct store *s, store_text_cb cb, void *arg)
{
	store_text(s, "SELECT robot_expire()", 0, NULL, cb, arg);
}

void
store_pair_next(struct store *s, int seconds, store_text_cb cb, void *arg)
{
	char secs[32];
	const char *params[1] = {secs};

	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_pair_next($1::int)", 1, params, cb, arg);
}

void
store_pair_done(struct store *s, const struct store_pair_done *d,
		store_text_cb cb, void *arg)
{
	char pair[32], analyses[32], runs[32], more[32];
	const char *params[10] = {pair,    analyses,      d->verdict, d->kpi,
				  runs,    d->comparison, d->table,   more,
				  d->kpis, d->findings};

	snprintf(pair, sizeof pair, "%lld", d->pair);
	snprintf(analyses, sizeof analyses, "%d", d->analyses);
	snprintf(runs, sizeof runs, "%d", d->runs);
	snprintf(more, sizeof more, "%d", d->more);
	store_text(s,
		   "SELECT robot_pair_done($1::bigint, $2::int, $3, $4, "
		   "$5::int, $6::json, $7, $8::int, $9::json, $10::json)",
		   10, params, cb, arg);
}

struct store_values {
	struct db_result *rows;
};

struct values_call {
	store_values_cb cb;
	void *arg;
};

static void
store_on_values(const struct db_result *r, void *arg)
{
	struct values_call *c = arg;
	struct problem *p = store_problem(r);
	struct store_values *v = NULL;

	if (p == NULL) {
		v = xcalloc(1, sizeof *v);
		v->rows = db_result_take(r);
	}
	c->cb(v, p, c->arg);
	problem_free(p);
	free(c);
}

void
store_pair_columns(struct store *s, const char *series, const char *base,
		   const char *head, store_values_cb cb, void *arg)
{
	const char *params[3] = {series, base, head};
	struct values_call *c = xcalloc(1, sizeof *c);

	c->cb = cb;
	c->arg = arg;
	/* Row 0: the head's JSON; then a row per side and metric: 1 for
	 * the base's, 2 for the head's, by metric. */
	db_query_binary(s->db,
			"SELECT 0, robot_pair_head($1, $2, $3)::text, "
			"NULL::float8[] UNION ALL SELECT CASE WHEN commit = "
			"$2 THEN 1 ELSE 2 END, metric, vals FROM "
			"metric_values WHERE series = $1 AND commit IN ($2, "
			"$3) ORDER BY 1, 2",
			3, params, store_on_values, c);
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A float8[]'s send format: ndim, has-nulls, element type, then each
 * dimension's size and lower bound, then each element's length (-1 for
 * NULL) and its 8 big-endian bytes.  Appends the finite ones to out;
 * false when it is not one. */
static bool
float8_array(const unsigned char *p, size_t len, double *out, size_t *n)
{
	const unsigned char *end = p + len;
	uint32_t ndim, count;

	*n = 0;
	if (len < 12)
		return false;
	ndim = be32(p);
	if (ndim == 0)
		return true;
	if (ndim != 1 || len < 20)
		return false;
	count = be32(p + 12);
	p += 20;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t bits = 0;
		double d;

		if (end - p < 4)
			return false;
		if (be32(p) == 0xffffffffu) {
			p += 4;
			continue;
		}
		if (be32(p) != 8 || end - p < 12)
			return false;
		for (int k = 0; k < 8; k++)
			bits = bits << 8 | p[4 + k];
		memcpy(&d, &bits, sizeof d);
		if (isfinite(d))
			out[(*n)++] = d;
		p += 12;
	}
	return true;
}

/* The elements a float8[] in send format says it has. */
static size_t
float8_count(const unsigned char *p, size_t len)
{
	return len >= 20 && be32(p) == 1 ? be32(p + 12) : 0;
}

bool
store_values_read(const struct store_values *v, const char *base,
		  const char *head, json_t **in,
		  struct comparison_column **cols, size_t *ncols,
		  double **block)
{
	const struct db_result *r = v->rows;
	size_t rows = db_rows(r), total = 0, used = 0, n = 0;
	bool same = strcmp(base, head) == 0;
	struct strmap *index;

	*in = NULL;
	*cols = NULL;
	*block = NULL;
	*ncols = 0;
	if (rows == 0 || be32((const unsigned char *)db_value(r, 0, 0)) != 0)
		return false;
	*in = json_loadb(db_value(r, 0, 1), db_length(r, 0, 1), 0, NULL);
	if (*in == NULL)
		return false;
	for (size_t i = 1; i < rows; i++)
		total += float8_count((const unsigned char *)db_value(r, i, 2),
				      db_length(r, i, 2));
	/* room for the head's copy of the base's when they are one */
	*block = xreallocarray(NULL, 2 * total + 1, sizeof **block);
	*cols = xcalloc(rows, sizeof **cols);
	index = strmap_new(rows);
	for (size_t i = 1; i < rows; i++) {
		uint32_t side = be32((const unsigned char *)db_value(r, i, 0));
		const char *name = db_value(r, i, 1);
		struct comparison_column *c;
		double *vals = *block + used;
		size_t k, got;

		if (name == NULL ||
		    !float8_array((const unsigned char *)db_value(r, i, 2),
				  db_length(r, i, 2), vals, &got)) {
			strmap_free(index);
			return false;
		}
		used += got;
		if (!strmap_get(index, name, &k)) {
			k = n++;
			strmap_put(index, name, k);
			(*cols)[k] = (struct comparison_column){name, NULL, 0,
								NULL, 0};
		}
		c = &(*cols)[k];
		if (side == 1 && c->base == NULL) {
			c->base = vals;
			c->nb = got;
		} else if (side == 2 && c->head == NULL) {
			c->head = vals;
			c->nh = got;
		}
	}
	strmap_free(index);
	for (size_t k = 0; k < n; k++) {
		struct comparison_column *c = &(*cols)[k];

		if (same && c->head == NULL && c->base != NULL) {
			memcpy(*block + used, c->base, c->nb * sizeof(double));
			c->head = *block + used;
			c->nh = c->nb;
			used += c->nb;
		}
		if (c->base == NULL)
			c->base = *block;
		if (c->head == NULL)
			c->head = *block;
	}
	*ncols = n;
	return true;
}

void
store_values_free(struct store_values *v)
{
	if (v == NULL)
		return;
	db_result_free(v->rows);
	free(v);
}

void
store_pair(struct store *s, const char *series, const char *base,
	   const char *head, store_text_cb cb, void *arg)
{
	const char *params[3] = {series, base, head};

	store_text(s,
		   "SELECT json_build_object('pair', id, 'state', state, "
		   "'verdict', verdict, 'kpi', kpi, 'runs', runs, "
		   "'comparison', comparison, 'table', table_text) FROM pairs "
		   "WHERE series = $1 AND base = $2 AND head = $3 AND "
		   "comparison IS NOT NULL",
		   3, params, cb, arg);
}

void
store_regressions(struct store *s, const struct store_regressions_filter *f,
		  store_text_cb cb, void *arg)
{
	char lim[32];
	const char *params[5] = {f->tree, f->state, f->since, f->kind, lim};

	snprintf(lim, sizeof lim, "%ld", f->limit);
	store_text(s,
		   "SELECT json_build_object('regressions', "
		   "coalesce(json_agg(x ORDER BY x.id DESC), '[]')) FROM "
		   "(SELECT id, kind, tree, branch, commit, base, series, kpi, "
		   "change_pct, p_value, runs, state, last_head, fixed_by, "
		   "created, updated FROM regressions WHERE ($1::text IS NULL "
		   "OR tree = $1) AND ($2::text IS NULL OR state = $2) AND "
		   "($3::timestamptz IS NULL OR updated >= $3::timestamptz) "
		   "AND ($4::text IS NULL OR kind = $4) ORDER BY id DESC LIMIT "
		   "$5::int) x",
		   5, params, cb, arg);
}

void
store_regression(struct store *s, long long id, store_text_cb cb, void *arg)
{
	char ids[32];
	const char *params[1] = {ids};

	snprintf(ids, sizeof ids, "%lld", id);
	store_text(s, "SELECT robot_regression($1::bigint)", 1, params, cb,
		   arg);
}

void
store_regression_set(struct store *s, long long id, const char *state,
		     store_text_cb cb, void *arg)
{
	char ids[32];
	const char *params[2] = {ids, state};

	snprintf(ids, sizeof ids, "%lld", id);
	store_text(s,
		   "UPDATE regressions SET state = $2, updated = now() WHERE "
		   "id = $1::bigint RETURNING json_build_object('id', id, "
		   "'state', state, 'updated', updated)",
		   2, params, cb, arg);
}

void
store_series(struct store *s, const char *match, long limit, store_text_cb cb,
	     void *arg)
{
	char lim[32];
	const char *params[2] = {match, lim};

	snprintf(lim, sizeof lim, "%ld", limit);
	store_text(s,
		   "SELECT json_build_object('series', coalesce(json_agg(x "
		   "ORDER BY x.series), '[]')) FROM (SELECT series, "
		   "count(DISTINCT commit) AS commits, count(*) AS runs, "
		   "max(updated) AS last FROM jobs WHERE $1::text IS NULL OR "
		   "strpos(series, $1) > 0 GROUP BY series ORDER BY series "
		   "LIMIT $2::int) x",
		   2, params, cb, arg);
}

void
store_series_commits(struct store *s, const char *series, store_text_cb cb,
		     void *arg)
{
	const char *params[1] = {series};

	store_text(s,
		   "SELECT json_build_object('series', $1::text, 'commits', "
		   "json_agg(x ORDER BY x.last DESC)) FROM (SELECT commit, "
		   "count(*) AS runs, count(*) FILTER (WHERE state = 'done') "
		   "AS ok, min(created) AS first, max(updated) AS last FROM "
		   "jobs WHERE series = $1 GROUP BY commit) x HAVING count(*) "
		   "> 0",
		   1, params, cb, arg);
}

void
store_tree_submit(struct store *s, const struct store_tree_submit *t,
		  store_text_cb cb, void *arg)
{
	char mr[32];
	const char *params[9] = {t->submitter, t->file, t->body,
				 t->runs,      t->tree, t->branch,
				 t->base,      t->head, mr};

	snprintf(mr, sizeof mr, "%d", t->max_runs);
	store_text(s,
		   "SELECT json_build_object('submission', "
		   "coalesce(max(x.submission), 0), 'jobs', "
		   "coalesce(json_agg(json_build_object('id', x.id, 'key', "
		   "x.key, 'commit', x.commit, 'run', x.run, 'series', "
		   "x.series, 'state', 'queued') ORDER BY x.id), '[]')) "
		   "FROM robot_tree_submit($1, $2, $3, $4, $5, $6, $7, $8, "
		   "$9::int) x",
		   9, params, cb, arg);
}

void
store_cancel(struct store *s, long long job, long long submission,
	     const char *series, const char *by, store_text_cb cb, void *arg)
{
	char j[32], sub[32];
	const char *params[4] = {job ? j : NULL, submission ? sub : NULL,
				 series, by};

	snprintf(j, sizeof j, "%lld", job);
	snprintf(sub, sizeof sub, "%lld", submission);
	store_text(s, "SELECT robot_cancel($1::bigint, $2::bigint, $3, $4)", 4,
		   params, cb, arg);
}

void
store_tree_claim(struct store *s, int seconds, store_text_cb cb, void *arg)
{
	char secs[32];
	const char *params[1] = {secs};

	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_tree_claim($1::int)", 1, params, cb, arg);
}

void
store_tree_failed(struct store *s, const char *name, const char *error,
		  int retry_in, store_text_cb cb, void *arg)
{
	char retry[32];
	const char *params[3] = {name, error, retry};

	snprintf(retry, sizeof retry, "%d", retry_in);
	store_text(s, "SELECT robot_tree_failed($1, $2, $3::int)", 3, params,
		   cb, arg);
}

void
store_tree_fetched(struct store *s, const char *name, const char *heads,
		   const char *commits, store_text_cb cb, void *arg)
{
	const char *params[3] = {name, heads, commits};

	store_text(s, "SELECT robot_tree_fetched($1, $2::json, $3::json)", 3,
		   params, cb, arg);
}

void
store_trees(struct store *s, const char *name, store_text_cb cb, void *arg)
{
	const char *params[1] = {name};
	static const char *const one =
		"SELECT row_to_json(x) FROM (SELECT t.name, t.url, "
		"t.branches, t.base_ref, t.jobs, t.tbox_groups, t.runs, "
		"t.max_runs, t.poll, t.mail_author, t.bisect, t.fetched, "
		"t.fetch_error, "
		"t.next_fetch, "
		"(SELECT coalesce(json_agg(json_build_object('branch', "
		"h.branch, 'sha', h.sha, 'base', h.base, 'updated', "
		"h.updated) ORDER BY h.branch), '[]') FROM tree_heads h "
		"WHERE h.tree = t.name) AS heads, (SELECT count(*) FROM "
		"tree_commits c WHERE c.tree = t.name) AS commits FROM trees "
		"t WHERE t.name = $1) x";
	static const char *const all =
		"SELECT json_build_object('trees', coalesce(json_agg(x ORDER "
		"BY x.name), '[]')) FROM (SELECT t.name, t.url, t.branches, "
		"t.base_ref, t.tbox_groups, t.runs, t.max_runs, t.poll, "
		"t.fetched, t.fetch_error, (SELECT coalesce(json_agg("
		"json_build_object('branch', h.branch, 'sha', h.sha, 'base', "
		"h.base) ORDER BY h.branch), '[]') FROM tree_heads h WHERE "
		"h.tree = t.name) AS heads FROM trees t WHERE $1::text IS "
		"NULL) x";

	store_text(s, name != NULL ? one : all, 1, params, cb, arg);
}

void
store_tree_put(struct store *s, const char *json, bool replace,
	       store_text_cb cb, void *arg)
{
	const char *params[1] = {json};

	store_text(s,
		   replace ? "SELECT robot_tree_set($1::json)"
			   : "SELECT robot_tree_add($1::json)",
		   1, params, cb, arg);
}

void
store_tree_remove(struct store *s, const char *name, store_text_cb cb,
		  void *arg)
{
	const char *params[1] = {name};

	store_text(s,
		   "DELETE FROM trees WHERE name = $1 RETURNING "
		   "json_build_object('removed', name)",
		   1, params, cb, arg);
}

void
store_report_next(struct store *s, int window, int seconds, store_text_cb cb,
		  void *arg)
{
	char w[32], secs[32];
	const char *params[2] = {w, secs};

	snprintf(w, sizeof w, "%d", window);
	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_report_next($1::int, $2::int)", 2, params,
		   cb, arg);
}

void
store_followup_next(struct store *s, int seconds, store_text_cb cb, void *arg)
{
	char secs[32];
	const char *params[1] = {secs};

	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_followup_next($1::int)", 1, params, cb,
		   arg);
}

void
store_report_store(struct store *s, const char *report, const char *domain,
		   store_text_cb cb, void *arg)
{
	const char *params[2] = {report, domain};

	store_text(s, "SELECT robot_report_store($1::json, $2)", 2, params, cb,
		   arg);
}

void
store_outbox_next(struct store *s, int limit, int seconds, store_text_cb cb,
		  void *arg)
{
	char lim[32], secs[32];
	const char *params[2] = {lim, secs};

	snprintf(lim, sizeof lim, "%d", limit);
	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_outbox_next($1::int, $2::int)", 2, params,
		   cb, arg);
}

void
store_outbox_done(struct store *s, const struct store_outbox_done *d,
		  store_text_cb cb, void *arg)
{
	char id[32], retry[32];
	const char *params[4] = {id, d->state, d->error, retry};

	snprintf(id, sizeof id, "%lld", d->id);
	snprintf(retry, sizeof retry, "%d", d->retry_in);
	store_text(s, "SELECT robot_outbox_done($1::bigint, $2, $3, $4::int)",
		   4, params, cb, arg);
}

void
store_subscribe(struct store *s, const struct store_subscribe *sub,
		store_text_cb cb, void *arg)
{
	const char *params[4] = {sub->json, sub->confirm_hash, sub->subject,
				 sub->message};

	store_text(s, "SELECT robot_subscribe($1::json, $2, $3, $4)", 4, params,
		   cb, arg);
}

void
store_subscription_confirm(struct store *s, const char *hash, store_text_cb cb,
			   void *arg)
{
	const char *params[1] = {hash};

	store_text(s, "SELECT robot_subscription_confirm($1)", 1, params, cb,
		   arg);
}

void
store_unsubscribe(struct store *s, const char *token, store_text_cb cb,
		  void *arg)
{
	const char *params[1] = {token};

	store_text(s, "SELECT robot_unsubscribe($1)", 1, params, cb, arg);
}

void
store_subscriptions(struct store *s, store_text_cb cb, void *arg)
{
	store_text(s, "SELECT robot_subscriptions()", 0, NULL, cb, arg);
}

void
store_outbox(struct store *s, int limit, store_text_cb cb, void *arg)
{
	char lim[32];
	const char *params[1] = {lim};

	snprintf(lim, sizeof lim, "%d", limit);
	store_text(s, "SELECT robot_outbox($1::int)", 1, params, cb, arg);
}

void
store_bisect_start(struct store *s, const char *json, const char *by,
		   store_text_cb cb, void *arg)
{
	const char *params[2] = {json, by};

	store_text(s, "SELECT robot_bisect_start($1::json, $2)", 2, params, cb,
		   arg);
}

void
store_bisect_next(struct store *s, int seconds, store_text_cb cb, void *arg)
{
	char secs[32];
	const char *params[1] = {secs};

	snprintf(secs, sizeof secs, "%d", seconds);
	store_text(s, "SELECT robot_bisect_next($1::int)", 1, params, cb, arg);
}

/* robot_bisect_mark() or robot_bisect_step(): fn(id, claims, json). */
static void
store_bisect_call(struct store *s, const char *sql, long long id, int claims,
		  const char *json, store_text_cb cb, void *arg)
{
	char ids[32], cl[32];
	const char *params[3] = {ids, cl, json};

	snprintf(ids, sizeof ids, "%lld", id);
	snprintf(cl, sizeof cl, "%d", claims);
	store_text(s, sql, 3, params, cb, arg);
}

void
store_bisect_mark(struct store *s, long long id, int claims, const char *json,
		  store_text_cb cb, void *arg)
{
	store_bisect_call(s,
			  "SELECT robot_bisect_mark($1::bigint, $2::int, "
			  "$3::json)",
			  id, claims, json, cb, arg);
}

void
store_bisect_step(struct store *s, long long id, int claims, const char *json,
		  store_text_cb cb, void *arg)
{
	store_bisect_call(s,
			  "SELECT robot_bisect_step($1::bigint, $2::int, "
			  "$3::json)",
			  id, claims, json, cb, arg);
}

void
store_bisect_more(struct store *s, long long id, int claims, int runs,
		  store_text_cb cb, void *arg)
{
	char r[32];

	snprintf(r, sizeof r, "%d", runs);
	store_bisect_call(s,
			  "SELECT robot_bisect_more($1::bigint, $2::int, "
			  "$3::int)",
			  id, claims, r, cb, arg);
}

void
store_bisect_cancel(struct store *s, long long id, const char *by,
		    store_text_cb cb, void *arg)
{
	char ids[32];
	const char *params[2] = {ids, by};

	snprintf(ids, sizeof ids, "%lld", id);
	store_text(s, "SELECT robot_bisect_cancel($1::bigint, $2)", 2, params,
		   cb, arg);
}

void
store_bisections(struct store *s, int limit, store_text_cb cb, void *arg)
{
	char lim[32];
	const char *params[1] = {lim};

	snprintf(lim, sizeof lim, "%d", limit);
	store_text(s,
		   "SELECT json_build_object('bisections', "
		   "robot_bisections($1::int))",
		   1, params, cb, arg);
}

void
store_bisection(struct store *s, long long id, store_text_cb cb, void *arg)
{
	char ids[32];
	const char *params[1] = {ids};

	snprintf(ids, sizeof ids, "%lld", id);
	store_text(s, "SELECT robot_bisection($1::bigint)", 1, params, cb, arg);
}

void
store_home(struct store *s, int limit, store_text_cb cb, void *arg)
{
	char lim[32];
	const char *params[1] = {lim};

	snprintf(lim, sizeof lim, "%d", limit);
	store_text(s, "SELECT robot_home($1::int)", 1, params, cb, arg);
}

void
store_series_history(struct store *s, const char *series, const char *metric,
		     int limit, store_text_cb cb, void *arg)
{
	char lim[32];
	const char *params[3] = {series, metric, lim};

	snprintf(lim, sizeof lim, "%d", limit);
	store_text(s, "SELECT robot_series_history($1, $2, $3::int)", 3, params,
		   cb, arg);
}

void
store_side_values(struct store *s, const char *series, const char *base,
		  const char *head, const char *metrics, store_text_cb cb,
		  void *arg)
{
	const char *params[4] = {series, base, head, metrics};

	store_text(s,
		   "SELECT robot_compare_extras($1, $2, $3, ARRAY(SELECT "
		   "json_array_elements_text($4::json)))",
		   4, params, cb, arg);
}
