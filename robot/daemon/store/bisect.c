/*
 * bisect.c: the store's bisections (bisect.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/bisect.h"
#include "robot/daemon/store/call.h"
#include "robot/core/banned.h"

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The strings of array a, copied (ending with NULL); *n gets how many. */
static char **
strings(json_t *a, size_t *n)
{
	char **v = xcalloc(json_array_size(a) + 1, sizeof *v);
	json_t *x;
	size_t i;

	*n = 0;
	json_array_foreach(a, i, x)
	{
		if (json_is_string(x))
			v[(*n)++] = xstrdup(json_string_value(x));
	}
	return v;
}

static void
strings_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
pair_release(struct store_bisect_pair *p)
{
	for (size_t i = 0; i < p->nkpis; i++) {
		free(p->kpis[i].kpi);
		free(p->kpis[i].verdict);
	}
	free(p->kpis);
	free(p->verdict);
}

void
store_bisect_claim_free(struct store_bisect_claim *c)
{
	if (c == NULL)
		return;
	free(c->tree);
	free(c->change);
	free(c->kpi);
	free(c->bad_now);
	strings_free(c->goods, c->ngoods);
	strings_free(c->skipped, c->nskipped);
	free(c->step.kind);
	free(c->step.commit);
	free(c->step.against);
	free(c->step.verdict);
	free(c->step.error);
	pair_release(&c->step.good);
	pair_release(&c->step.bad);
	free(c->step.rounds);
	free(c->step.ends);
	store_noise_free(c->step.noise, c->step.nnoise);
	free(c);
}

const struct store_bisect_kpi *
store_bisect_pair_kpi(const struct store_bisect_pair *pair, const char *kpi)
{
	for (size_t i = 0; kpi != NULL && i < pair->nkpis; i++)
		if (strcmp(pair->kpis[i].kpi, kpi) == 0)
			return &pair->kpis[i];
	return NULL;
}

/* robot_bisect_pair_info()'s JSON (or null) into p. */
static void
pair_decode(json_t *j, struct store_bisect_pair *p)
{
	json_t *kpis = json_object_get(j, "kpis"), *k;
	size_t i;

	memset(p, 0, sizeof *p);
	if (!json_is_object(j))
		return;
	p->present = true;
	p->verdict = dup_or_null(rjson_get_str(j, "verdict"));
	p->runs = (int)json_integer_value(json_object_get(j, "runs"));
	p->kpis_kept = !json_is_null(kpis);
	p->kpis = xcalloc(json_array_size(kpis) + 1, sizeof *p->kpis);
	json_array_foreach(kpis, i, k)
	{
		struct store_bisect_kpi *e = &p->kpis[p->nkpis];
		json_t *c = json_object_get(k, "change_pct");
		json_t *pv = json_object_get(k, "p_value");

		if (rjson_get_str(k, "kpi") == NULL)
			continue;
		e->kpi = xstrdup(rjson_get_str(k, "kpi"));
		e->verdict = dup_or_null(rjson_get_str(k, "verdict"));
		e->change_defined = json_is_number(c);
		e->change_pct = json_number_value(c);
		e->p_defined = json_is_number(pv);
		e->p_value = json_number_value(pv);
		p->nkpis++;
	}
}

/* A number of robot_bisect_rounds()'s, or NAN (null). */
static double
value(json_t *a, size_t i)
{
	json_t *v = json_array_get(a, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* robot_bisect_rounds()'s arrays of arrays into rounds: [[good, mid,
 * bad], ...] (width 3) or the ends' [[good, bad], ...] (width 2). */
static struct bisect_round *
rounds_decode(json_t *a, size_t width, size_t *n)
{
	struct bisect_round *r = xcalloc(json_array_size(a) + 1, sizeof *r);
	json_t *x;
	size_t i;

	*n = 0;
	json_array_foreach(a, i, x)
	{
		if (!json_is_array(x) || json_array_size(x) != width)
			continue;
		r[(*n)++] = width == 3 ? (struct bisect_round){value(x, 0),
							       value(x, 1),
							       value(x, 2)}
				       : (struct bisect_round){value(x, 0), NAN,
							       value(x, 1)};
	}
	return r;
}

/* robot_bisect_next()'s JSON, decoded; NULL when it is not one. */
static void *
bisect_claim_decode(const char *text)
{
	json_t *j = rjson_loads(text, NULL);
	json_t *step = json_object_get(j, "step");
	struct store_bisect_claim *c;

	if (j == NULL || !json_is_object(step) ||
	    rjson_get_str(step, "kind") == NULL ||
	    rjson_get_str(step, "commit") == NULL ||
	    rjson_get_str(j, "tree") == NULL ||
	    rjson_get_str(j, "bad_now") == NULL) {
		json_decref(j);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->id = json_integer_value(json_object_get(j, "id"));
	c->claims = (int)json_integer_value(json_object_get(j, "claims"));
	c->of_regression = json_is_integer(json_object_get(j, "regression"));
	c->tree = xstrdup(rjson_get_str(j, "tree"));
	c->change = xstrdup(rjson_get_str(j, "change") != NULL
				    ? rjson_get_str(j, "change")
				    : "regression");
	c->kpi = dup_or_null(rjson_get_str(j, "kpi"));
	c->bad_now = xstrdup(rjson_get_str(j, "bad_now"));
	c->goods = strings(json_object_get(j, "goods"), &c->ngoods);
	c->skipped = strings(json_object_get(j, "skipped"), &c->nskipped);
	c->max_runs = (int)json_integer_value(json_object_get(j, "max_runs"));
	c->step.kind = xstrdup(rjson_get_str(step, "kind"));
	c->step.commit = xstrdup(rjson_get_str(step, "commit"));
	c->step.against = dup_or_null(rjson_get_str(step, "against"));
	c->step.verdict = dup_or_null(rjson_get_str(step, "verdict"));
	c->step.error = dup_or_null(json_string_value(
		json_array_get(json_object_get(step, "errors"), 0)));
	pair_decode(json_object_get(step, "good_pair"), &c->step.good);
	pair_decode(json_object_get(step, "bad_pair"), &c->step.bad);
	c->step.rounds = rounds_decode(
		json_object_get(json_object_get(step, "values"), "rounds"), 3,
		&c->step.nrounds);
	c->step.ends = rounds_decode(
		json_object_get(json_object_get(step, "values"), "ends"), 2,
		&c->step.nends);
	store_noise_decode(json_object_get(step, "noise"), &c->step.noise,
			   &c->step.nnoise);
	json_decref(j);
	return c;
}

static void
read_bisect_claim(const struct db_result *r, const struct problem *p,
		  store_fn cb, void *arg)
{
	void *c;
	struct problem *q = store_decode(r, p, bisect_claim_decode, &c);

	((store_bisect_claim_cb)cb)(c, q, arg);
	store_decoded_free(q, p);
}

static const struct store_stmt next = {"SELECT robot_bisect_next($1::int)", "i",
				       read_bisect_claim, false};

void
store_bisect_next(struct store *s, int seconds, store_bisect_claim_cb cb,
		  void *arg)
{
	store_call(s, &next, STORE_FN(cb), arg, STORE_INT(seconds));
}

/* A mark in flight: the claim it updates, and the caller's. */
struct mark_call {
	struct store_bisect_claim *c;
	store_bisect_marked_cb cb;
	void *arg;
};

/* robot_bisect_mark()'s answer: "stale", or the bisection, whose known
 * commits and KPI the claim takes when it goes on. */
static void
read_marked(const struct db_result *r, const struct problem *p, store_fn cb,
	    void *arg)
{
	struct mark_call *mc = arg;
	const char *text =
		p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;
	json_t *j = text ? rjson_loads(text, NULL) : NULL;
	struct store_bisect_marked m = {true, false, NULL, NULL};
	struct store_bisect_claim *c = mc->c;

	(void)cb;
	if (json_is_object(j) && rjson_get_str(j, "state") != NULL) {
		m.stale = false;
		m.state = rjson_get_str(j, "state");
		m.reason = rjson_get_str(j, "reason");
		m.running = strcmp(m.state, "running") == 0;
	}
	if (m.running) {
		strings_free(c->goods, c->ngoods);
		strings_free(c->skipped, c->nskipped);
		c->goods = strings(json_object_get(j, "goods"), &c->ngoods);
		c->skipped =
			strings(json_object_get(j, "skipped"), &c->nskipped);
		if (rjson_get_str(j, "bad_now") != NULL) {
			free(c->bad_now);
			c->bad_now = xstrdup(rjson_get_str(j, "bad_now"));
		}
		free(c->kpi);
		c->kpi = dup_or_null(rjson_get_str(j, "kpi"));
	}
	mc->cb(p == NULL ? &m : NULL, p, mc->arg);
	json_decref(j);
	free(mc);
}

static const struct store_stmt mark = {
	"SELECT robot_bisect_mark($1::bigint, $2::int, $3::json)", "lis",
	read_marked, false};

void
store_bisect_mark(struct store *s, struct store_bisect_claim *c,
		  const char *json, store_bisect_marked_cb cb, void *arg)
{
	struct mark_call *mc = xmalloc(sizeof *mc);

	*mc = (struct mark_call){c, cb, arg};
	store_call(s, &mark, NULL, mc, STORE_LONG(c->id), STORE_INT(c->claims),
		   STORE_TEXT(json));
}

static const struct store_stmt step = {
	"SELECT robot_bisect_step($1::bigint, $2::int, $3::json)", "lis",
	store_read_text, false};

void
store_bisect_step(struct store *s, long long id, int claims, const char *json,
		  store_text_cb cb, void *arg)
{
	store_call(s, &step, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_INT(claims), STORE_TEXT(json));
}

static const struct store_stmt more = {
	"SELECT robot_bisect_more($1::bigint, $2::int, $3::int)", "lii",
	store_read_text, false};

void
store_bisect_more(struct store *s, long long id, int claims, int runs,
		  store_text_cb cb, void *arg)
{
	store_call(s, &more, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_INT(claims), STORE_INT(runs));
}

static const struct store_stmt start = {
	"SELECT robot_bisect_start($1::json, $2)", "ss", store_read_text,
	false};

void
store_bisect_start(struct store *s, const char *json, const char *by,
		   store_text_cb cb, void *arg)
{
	store_call(s, &start, STORE_FN(cb), arg, STORE_TEXT(json),
		   STORE_TEXT(by));
}

static const struct store_stmt cancel = {
	"SELECT robot_bisect_cancel($1::bigint, $2, $3::boolean)", "lsb",
	store_read_text, false};

void
store_bisect_cancel(struct store *s, long long id, const char *by, bool admin,
		    store_text_cb cb, void *arg)
{
	store_call(s, &cancel, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_TEXT(by), STORE_BOOL((int)admin));
}

static const struct store_stmt bisections = {
	"SELECT json_build_object('bisections', robot_bisections($1::int))",
	"i", store_read_text, false, .shared = true};

void
store_bisections(struct store *s, int limit, store_text_cb cb, void *arg)
{
	store_call(s, &bisections, STORE_FN(cb), arg, STORE_INT(limit));
}

static const struct store_stmt bisection = {
	"SELECT robot_bisection($1::bigint)", "l", store_read_text, false,
	.shared = true};

void
store_bisection(struct store *s, long long id, store_text_cb cb, void *arg)
{
	store_call(s, &bisection, STORE_FN(cb), arg, STORE_LONG(id));
}

static const struct view_field bisections_row_fields[] = {
	VIEW_F(store_bisections_row, "id", VIEW_INT, id),
	VIEW_F(store_bisections_row, "regression", VIEW_INT, regression),
	VIEW_F(store_bisections_row, "tree", VIEW_STR, tree),
	VIEW_F(store_bisections_row, "series", VIEW_STR, series),
	VIEW_F(store_bisections_row, "kpi", VIEW_STR, kpi),
	VIEW_F(store_bisections_row, "good", VIEW_STR, good),
	VIEW_F(store_bisections_row, "bad", VIEW_STR, bad),
	VIEW_F(store_bisections_row, "state", VIEW_STR, state),
	VIEW_F(store_bisections_row, "lead", VIEW_INT, lead),
	VIEW_O(store_bisections_row, "first_bad", store_commit_info_view,
	       first_bad),
	VIEW_F(store_bisections_row, "reason", VIEW_STR, reason),
	VIEW_F(store_bisections_row, "created", VIEW_STR, created),
	VIEW_F(store_bisections_row, "finished", VIEW_STR, finished),
	VIEW_F(store_bisections_row, "steps", VIEW_INT, steps),
	VIEW_F(store_bisections_row, "runs_queued", VIEW_INT, runs_queued),
};
static const struct view_type bisections_row = VIEW_TYPE(
	"bisection", struct store_bisections_row, bisections_row_fields);
static const struct view_field bisections_fields[] = {
	VIEW_A(store_bisections, "bisections", bisections_row, bisections,
	       nbisections),
};
const struct view_type store_bisections_view =
	VIEW_TYPE("bisections", struct store_bisections, bisections_fields);

struct step_runs {
	long long ok;
};
static const struct view_field step_runs_fields[] = {
	VIEW_F(step_runs, "ok", VIEW_INT, ok),
};
static const struct view_type step_runs =
	VIEW_TYPE("runs", struct step_runs, step_runs_fields);
static const struct view_field bisection_pair_fields[] = {
	VIEW_F(store_bisection_pair, "base", VIEW_STR, base),
	VIEW_F(store_bisection_pair, "head", VIEW_STR, head),
};
static const struct view_type bisection_pair =
	VIEW_TYPE("pair", struct store_bisection_pair, bisection_pair_fields);
static const struct view_field bisection_step_fields[] = {
	VIEW_F(store_bisection_step, "n", VIEW_INT, n),
	VIEW_F(store_bisection_step, "kind", VIEW_STR, kind),
	VIEW_O(store_bisection_step, "commit", store_commit_info_view, commit),
	VIEW_F(store_bisection_step, "verdict", VIEW_STR, verdict),
	VIEW_F(store_bisection_step, "reason", VIEW_STR, reason),
	/* (runs: {ok, failed, waiting}; its ok in place) */
	{"runs", VIEW_OBJECT, offsetof(struct store_bisection_step, ok), 0,
	 &step_runs, 0},
	VIEW_O(store_bisection_step, "good_pair", bisection_pair, good_pair),
	VIEW_O(store_bisection_step, "bad_pair", bisection_pair, bad_pair),
};
static const struct view_type bisection_step =
	VIEW_TYPE("step", struct store_bisection_step, bisection_step_fields);
static const struct view_field bisection_fields[] = {
	VIEW_F(store_bisection, "id", VIEW_INT, id),
	VIEW_F(store_bisection, "regression", VIEW_INT, regression),
	VIEW_F(store_bisection, "tree", VIEW_STR, tree),
	VIEW_F(store_bisection, "series", VIEW_STR, series),
	VIEW_F(store_bisection, "kpi", VIEW_STR, kpi),
	VIEW_F(store_bisection, "good", VIEW_STR, good),
	VIEW_F(store_bisection, "bad", VIEW_STR, bad),
	VIEW_F(store_bisection, "state", VIEW_STR, state),
	VIEW_F(store_bisection, "lead", VIEW_INT, lead),
	VIEW_O(store_bisection, "first_bad", store_commit_info_view, first_bad),
	VIEW_F(store_bisection, "reason", VIEW_STR, reason),
	VIEW_A(store_bisection, "steps", bisection_step, steps, nsteps),
};
const struct view_type store_bisection_view =
	VIEW_TYPE("bisection", struct store_bisection, bisection_fields);
