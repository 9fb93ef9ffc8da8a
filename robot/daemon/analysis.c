/*
 * analysis.c: pairs analysed by ANALYSIS_SLOTS slots side by side (the
 * database's part of one overlaps the comparison of another), each a
 * state machine driven by slot_drive():
 *
 *   IDLE       --(woken, or the 5 s timer)--------> CLAIMING
 *   CLAIMING   --(no pair ready)------------------> IDLE
 *   CLAIMING   --(a pair claimed)-----------------> VALUES
 *   VALUES     --(its values, in binary)----------> COMPARING (worker)
 *   COMPARING  --(compared and decided)-----------> STORING
 *   STORING    --(stored: final, more or stale)---> CLAIMING (the next)
 *   CLAIMING, VALUES, STORING --(the database failed)--> IDLE (the timer
 *                                                   tries again; a claim
 *                                                   left runs out)
 *
 * The comparison runs on the worker thread: it touches only the pair's
 * values and the results it fills in, which the loop does not touch
 * meanwhile.  A comparison asked for (analysis_compare()) reads the same
 * values the same way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "robot/analysis/decide.h"
#include "robot/analysis/findings.h"
#include "robot/analysis/series.h"
#include "robot/analysis/table.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/analysis.h"
#include "robot/core/banned.h"

#define ANALYSIS_TICK 5 /* seconds between looks when nothing woke it */

enum analysis_state {
	ANALYSIS_IDLE,
	ANALYSIS_CLAIMING,
	ANALYSIS_VALUES,
	ANALYSIS_COMPARING,
	ANALYSIS_STORING,
};

/* One pair's analysis: the claim, and what the worker made of it. */
struct pair_work {
	json_t *claim; /* robot_pair_next()'s, or NULL for an ask */
	json_t *in;    /* robot_pair_head()'s, with the values */
	struct store_values *values; /* which the columns' names are of */
	struct comparison_column *cols;
	size_t ncols;
	double *block; /* the columns' values */
	int max_runs;  /* of the pair, or robotd's */
	const struct direction_table *dt;
	struct compare_options opt; /* analysis's, or an ask's */
	bool all;                   /* every metric in the comparison */
	/* out */
	const char *verdict;
	char *kpi;
	int runs;
	int more;
	char *comparison;
	char *table;
	char *kpis;
	char *findings; /* what a final pair records (a claim's only) */
	char *summary;  /* for the log */
};

/* One pair in hand: slots work side by side, so that the database's part
 * of one pair overlaps the comparison of another. */
struct analysis_slot {
	enum analysis_state state;
	struct analysis *a;
	int index;
	bool again; /* woken while busy: look once more */
	struct pair_work *work;
};

#define ANALYSIS_SLOTS 4

struct analysis {
	struct analysis_slot slots[ANALYSIS_SLOTS];
	struct event_base *base;
	struct store *store;
	struct worker *worker;
	const struct settings *set;
	struct direction_table *dt; /* read by the worker only */
	struct event *timer;
	unsigned long long count;
};

static void slot_drive(struct analysis_slot *sl);

static const char *
analysis_state_name(enum analysis_state s)
{
	switch (s) {
	case ANALYSIS_IDLE:
		return "idle";
	case ANALYSIS_CLAIMING:
		return "claiming";
	case ANALYSIS_VALUES:
		return "values";
	case ANALYSIS_COMPARING:
		return "comparing";
	case ANALYSIS_STORING:
		return "storing";
	}
	return "?";
}

static void
slot_set_state(struct analysis_slot *sl, enum analysis_state s)
{
	log_debug("analysis %d: %s -> %s", sl->index,
		  analysis_state_name(sl->state), analysis_state_name(s));
	sl->state = s;
}

/* A pair's work with analysis' directions, runs and options. */
static struct pair_work *
pair_work_new(struct analysis *a)
{
	struct pair_work *w = xcalloc(1, sizeof *w);

	w->dt = a->dt;
	w->max_runs = a->set->max_runs;
	compare_options_init(&w->opt);
	return w;
}

static void
pair_work_free(struct pair_work *w)
{
	if (w == NULL)
		return;
	free(w->cols);
	free(w->block);
	store_values_free(w->values);
	json_decref(w->claim);
	json_decref(w->in);
	free(w->kpi);
	free(w->comparison);
	free(w->table);
	free(w->kpis);
	free(w->findings);
	free(w->summary);
	free(w);
}

static int
json_int(json_t *o, const char *key)
{
	return (int)json_integer_value(json_object_get(o, key));
}

/* The KPIs' verdicts as robot_pair_done() takes them. */
static char *
kpis_json(const struct comparison *c)
{
	json_t *a = json_array();
	char *s;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];

		if (!m->kpi)
			continue;
		json_array_append_new(
			a,
			json_pack(
				"{s:s, s:s, s:o, s:o}", "kpi", m->name,
				"verdict", compare_verdict_name(m->r.verdict),
				"change_pct",
				m->r.change_defined && isfinite(m->r.change_pct)
					? json_real(m->r.change_pct)
					: json_null(),
				"p_value",
				isfinite(m->r.p_value) ? json_real(m->r.p_value)
						       : json_null()));
	}
	s = rjson_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

/* The open finding of kpi among the claim's (robot_pair_next()'s
 * "open"), or NULL; *id gets its id. */
static const struct finding_open *
open_finding(json_t *open, const char *kpi, struct finding_open *f,
	     long long *id)
{
	size_t i;
	json_t *o;

	json_array_foreach(open, i, o)
	{
		json_t *change = json_object_get(o, "change_pct");
		const char *kind = rjson_get_str(o, "kind");

		if (kind == NULL || strcmp(rjson_get_str(o, "kpi") ?: "", kpi))
			continue;
		f->regression = strcmp(kind, "regression") == 0;
		f->change_defined = json_is_number(change);
		f->change_pct = json_number_value(change);
		*id = json_integer_value(json_object_get(o, "id"));
		return f;
	}
	return NULL;
}

/* What the pair records of each KPI, given its branch's open findings
 * (robot/analysis/findings.c), as robot_pair_done() takes it. */
static char *
findings_json(const struct comparison *c, json_t *open)
{
	json_t *a = json_array();
	char *s;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		bool defined = m->r.change_defined && isfinite(m->r.change_pct);
		struct finding_open f;
		long long id = 0;
		const struct finding_open *r =
			open_finding(open, m->name, &f, &id);
		enum finding_action act = finding_decide(
			r, m->r.verdict, defined, m->r.change_pct);

		if (!m->kpi || act == FINDING_NONE)
			continue;
		json_array_append_new(
			a, json_pack("{s:s, s:s, s:o, s:o, s:s, s:o}", "kpi",
				     m->name, "verdict",
				     compare_verdict_name(m->r.verdict),
				     "change_pct",
				     defined ? json_real(m->r.change_pct)
					     : json_null(),
				     "p_value",
				     isfinite(m->r.p_value)
					     ? json_real(m->r.p_value)
					     : json_null(),
				     "action", finding_action_name(act),
				     "regression",
				     r != NULL && act != FINDING_NEW
					     ? json_integer(id)
					     : json_null()));
	}
	s = rjson_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

static char *
table_text(const struct comparison *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	if (fp == NULL)
		return NULL;
	table_print(fp, c, false);
	fclose(fp);
	return text;
}

/* The change of the KPI that decided, for the log: "-10.3%". */
static void
kpi_change(const struct comparison *c, const char *kpi, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	for (size_t i = 0; kpi != NULL && i < c->nmetrics; i++)
		if (c->metrics[i].name == kpi && c->metrics[i].r.change_defined)
			snprintf(buf, len, "%+.1f%%",
				 c->metrics[i].r.change_pct);
}

/* On the worker thread: compares the claim's values and decides. */
static void
pair_compare(void *arg)
{
	struct pair_work *w = arg;
	json_t *in = w->in, *br = json_object_get(in, "base_runs"),
	       *hr = json_object_get(in, "head_runs");
	const char *series = rjson_get_str(in, "series");
	struct comparison_side bs = {rjson_get_str(in, "base"),
				     (size_t)json_int(br, "ok"),
				     (size_t)json_int(br, "failed"), 0};
	struct comparison_side hs = {rjson_get_str(in, "head"),
				     (size_t)json_int(hr, "ok"),
				     (size_t)json_int(hr, "failed"), 0};
	/* The side with the fewest: a base shared with another head may
	 * have had more runs asked for already. */
	int asked = json_int(br, "asked") < json_int(hr, "asked")
			    ? json_int(br, "asked")
			    : json_int(hr, "asked");
	struct comparison *c;
	struct decision d;
	char prefix[128], change[32];
	struct buf text;

	if (bs.runs == 0 || hs.runs == 0) {
		w->verdict = "failed";
		w->kpis = xstrdup("[]");
		w->summary = xasprintf("no ok runs on the %s side: nothing to "
				       "compare",
				       bs.runs == 0 ? "base" : "head");
		return;
	}
	c = comparison_of_columns(
		series, &bs, &hs, w->cols, w->ncols, &w->opt, w->dt,
		series_kpi_prefix_of(json_object_get(in, "job"), series,
				     catalog_testcase_workload, prefix,
				     sizeof prefix)
			? prefix
			: NULL);
	decide(c, asked, w->max_runs, &d);
	w->verdict = decide_verdict_name(d.verdict);
	w->kpi = d.kpi ? xstrdup(d.kpi) : NULL;
	w->runs = (int)(bs.runs < hs.runs ? bs.runs : hs.runs);
	w->more = d.outcome == DECIDE_MORE ? d.runs : 0;
	buf_init(&text);
	if (!comparison_json(c, w->all, -1, &text, NULL))
		fatalx("cannot write a comparison"); /* no stream: cannot */
	w->comparison = buf_detach(&text);
	w->table = table_text(c);
	w->kpis = kpis_json(c);
	if (w->claim != NULL)
		w->findings =
			findings_json(c, json_object_get(w->claim, "open"));
	kpi_change(c, d.kpi, change, sizeof change);
	if (w->more > 0)
		w->summary = xasprintf("%s inconclusive with %d runs a side: "
				       "more runs, to %d",
				       d.kpi ? d.kpi : "a KPI", asked, w->more);
	else if (d.kpi != NULL)
		w->summary = xasprintf("%s, %s %s (%d runs a side)", w->verdict,
				       d.kpi, change, w->runs);
	else
		w->summary =
			xasprintf("%s (%d runs a side)", w->verdict, w->runs);
	comparison_free(c);
}

static void
slot_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct analysis_slot *sl = arg;
	struct pair_work *w = sl->work;

	if (p != NULL) {
		log_warnx("analysis of pair %lld: %s (tried again later)",
			  (long long)json_integer_value(
				  json_object_get(w->claim, "pair")),
			  p->message);
		sl->again = false;
		slot_set_state(sl, ANALYSIS_IDLE);
	} else {
		if (text != NULL && strcmp(text, "stale") != 0)
			sl->a->count++;
		log_info("analysis: %s %.12s..%.12s: %s%s",
			 rjson_get_str(w->in, "series"),
			 rjson_get_str(w->in, "base"),
			 rjson_get_str(w->in, "head"), w->summary,
			 text != NULL && strcmp(text, "stale") == 0
				 ? " (stale: another robotd took it over)"
				 : "");
		slot_set_state(sl, ANALYSIS_CLAIMING);
	}
	pair_work_free(w);
	sl->work = NULL;
	slot_drive(sl);
}

static void
slot_on_compared(void *arg)
{
	struct analysis_slot *sl = arg;
	struct pair_work *w = sl->work;
	struct store_pair_done d = {
		json_integer_value(json_object_get(w->claim, "pair")),
		json_int(w->claim, "analyses"),
		w->verdict,
		w->kpi,
		w->runs,
		w->comparison,
		w->table,
		w->more,
		w->kpis,
		w->findings ? w->findings : "[]"};

	if (w->verdict == NULL) { /* a bug: the values were not theirs */
		log_warnx("analysis of pair %lld: its values cannot be read",
			  (long long)d.pair);
		pair_work_free(w);
		sl->work = NULL;
		slot_set_state(sl, ANALYSIS_IDLE);
		return;
	}
	slot_set_state(sl, ANALYSIS_STORING);
	store_pair_done(sl->a->store, &d, slot_on_stored, sl);
}

/* On the worker thread: reads the pair's values, compares and decides. */
static void
slot_compare_work(void *arg)
{
	struct analysis_slot *sl = arg;
	struct pair_work *w = sl->work;

	if (!store_values_read(w->values, rjson_get_str(w->claim, "base"),
			       rjson_get_str(w->claim, "head"), &w->in,
			       &w->cols, &w->ncols, &w->block))
		return; /* slot_on_compared() says so */
	if (json_is_integer(json_object_get(w->claim, "max_runs")))
		w->max_runs = json_int(w->claim, "max_runs");
	pair_compare(w);
}

static void
slot_on_values(struct store_values *v, const struct problem *p, void *arg)
{
	struct analysis_slot *sl = arg;

	if (p != NULL) {
		log_warnx("analysis of pair %lld: %s (tried again later)",
			  (long long)json_integer_value(
				  json_object_get(sl->work->claim, "pair")),
			  p->message);
		pair_work_free(sl->work);
		sl->work = NULL;
		slot_set_state(sl, ANALYSIS_IDLE);
		return;
	}
	sl->work->values = v;
	slot_set_state(sl, ANALYSIS_COMPARING);
	worker_run(sl->a->worker, slot_compare_work, slot_on_compared, sl);
}

static void
slot_on_claimed(const char *text, const struct problem *p, void *arg)
{
	struct analysis_slot *sl = arg;
	json_t *claim;

	if (p != NULL || text == NULL) {
		if (p != NULL)
			log_warnx("analysis: cannot claim a pair: %s",
				  p->message);
		slot_set_state(sl, ANALYSIS_IDLE);
		if (p == NULL && sl->again) {
			sl->again = false;
			slot_drive(sl);
		}
		return;
	}
	if ((claim = json_loads(text, 0, NULL)) == NULL ||
	    rjson_get_str(claim, "series") == NULL ||
	    rjson_get_str(claim, "base") == NULL ||
	    rjson_get_str(claim, "head") == NULL) {
		log_warnx("analysis: a claim that is not one: %.80s", text);
		json_decref(claim);
		slot_set_state(sl, ANALYSIS_IDLE);
		return;
	}
	sl->work = pair_work_new(sl->a);
	sl->work->claim = claim;
	slot_set_state(sl, ANALYSIS_VALUES);
	store_pair_columns(sl->a->store, rjson_get_str(claim, "series"),
			   rjson_get_str(claim, "base"),
			   rjson_get_str(claim, "head"), slot_on_values, sl);
}

static void
slot_drive(struct analysis_slot *sl)
{
	switch (sl->state) {
	case ANALYSIS_IDLE:
		if (!store_up(sl->a->store))
			return;
		slot_set_state(sl, ANALYSIS_CLAIMING);
		/* FALLTHROUGH */
	case ANALYSIS_CLAIMING:
		sl->again = false;
		store_pair_next(sl->a->store, sl->a->set->analysis_claim,
				slot_on_claimed, sl);
		return;
	case ANALYSIS_VALUES:
	case ANALYSIS_COMPARING:
	case ANALYSIS_STORING:
		return; /* slot_on_stored() claims the next */
	}
}

static void
analysis_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct analysis *a = arg;

	(void)fd;
	(void)what;
	analysis_wake(a);
}

/*
 * A comparison asked for (GET /api/compare), a state machine:
 *
 *   STORED     the pair's stored comparison, if analysis made one
 *   VALUES     else the values of both sides, to compare now
 *   COMPARING  on the worker thread
 *   DONE       answered; freed after the loop iteration
 */
enum ask_state {
	ASK_STORED,
	ASK_VALUES,
	ASK_COMPARING,
	ASK_DONE,
};

struct ask {
	enum ask_state state;
	struct analysis *a;
	char *series, *base, *head;
	struct analysis_ask ask; /* how to compare */
	struct pair_work *work;
	analysis_cb cb;
	void *arg;
};

static void
ask_on_free(evutil_socket_t fd, short what, void *arg)
{
	struct ask *k = arg;

	(void)fd;
	(void)what;
	pair_work_free(k->work);
	free(k->series);
	free(k->base);
	free(k->head);
	free(k);
}

/* Answers; the ask is freed after this loop iteration. */
static void
ask_finish(struct ask *k, json_t *answer, const struct problem *p)
{
	static const struct timeval now = {0, 0};

	log_debug("compare %s %s..%s: -> done", k->series, k->base, k->head);
	k->state = ASK_DONE;
	k->cb(answer, p, k->arg);
	event_base_once(k->a->base, -1, EV_TIMEOUT, ask_on_free, k, &now);
}

static void
ask_on_compared(void *arg)
{
	struct ask *k = arg;
	struct pair_work *w = k->work;
	json_t *answer, *cj;

	if (w->verdict == NULL) {
		struct problem *p = problem_new(PROBLEM_INTERNAL, NULL,
						"the values cannot be read");

		ask_finish(k, NULL, p);
		problem_free(p);
		return;
	}
	if (strcmp(w->verdict, "failed") == 0) {
		struct problem *p =
			problem_new(PROBLEM_NOT_FOUND, NULL, "%s: %s",
				    k->series, w->summary);

		ask_finish(k, NULL, p);
		problem_free(p);
		return;
	}
	cj = json_loads(w->comparison, 0, NULL);
	answer = json_pack(
		"{s:s, s:s, s:s, s:s, s:o, s:i, s:b, s:o, s:s}", "series",
		k->series, "base", k->base, "head", k->head, "verdict",
		w->verdict, "kpi", w->kpi ? json_string(w->kpi) : json_null(),
		"runs", w->runs, "stored", 0, "comparison",
		cj ? cj : json_null(), "table", w->table ? w->table : "");
	ask_finish(k, answer, NULL);
}

/* On the worker thread: reads the binary values and compares them. */
static void
ask_compare_work(void *arg)
{
	struct ask *k = arg;
	struct pair_work *w = k->work;

	if (store_values_read(w->values, k->base, k->head, &w->in, &w->cols,
			      &w->ncols, &w->block))
		pair_compare(w);
}

static void
ask_on_values(struct store_values *v, const struct problem *p, void *arg)
{
	struct ask *k = arg;

	if (p != NULL || v == NULL) {
		struct problem *q = p ? NULL
				      : problem_new(PROBLEM_INTERNAL, NULL,
						    "no values came");

		ask_finish(k, NULL, p ? p : q);
		problem_free(q);
		store_values_free(v);
		return;
	}
	k->work = pair_work_new(k->a);
	k->work->values = v;
	k->work->opt.method = k->ask.method;
	k->work->opt.min_effect_pct = k->ask.min_effect_pct;
	k->work->all = k->ask.all;
	k->state = ASK_COMPARING;
	worker_run(k->a->worker, ask_compare_work, ask_on_compared, k);
}

static void
ask_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct ask *k = arg;
	json_t *j;

	if (p != NULL) {
		ask_finish(k, NULL, p);
		return;
	}
	if (text != NULL && (j = json_loads(text, 0, NULL)) != NULL) {
		json_object_set_new(j, "series", json_string(k->series));
		json_object_set_new(j, "base", json_string(k->base));
		json_object_set_new(j, "head", json_string(k->head));
		json_object_set_new(j, "stored", json_true());
		ask_finish(k, j, NULL);
		return;
	}
	k->state = ASK_VALUES;
	store_pair_columns(k->a->store, k->series, k->base, k->head,
			   ask_on_values, k);
}

void
analysis_compare(struct analysis *a, const char *series, const char *base,
		 const char *head, const struct analysis_ask *ask,
		 analysis_cb cb, void *arg)
{
	struct ask *k = xcalloc(1, sizeof *k);
	struct compare_options def;

	compare_options_init(&def);
	k->a = a;
	k->series = xstrdup(series);
	k->base = xstrdup(base);
	k->head = xstrdup(head);
	k->ask = ask ? *ask
		     : (struct analysis_ask){def.method, def.min_effect_pct,
					     false};
	k->cb = cb;
	k->arg = arg;
	/* The stored comparison is analysis's: of its options, of what is
	 * shown. */
	if (k->ask.method == def.method &&
	    k->ask.min_effect_pct == def.min_effect_pct && !k->ask.all) {
		k->state = ASK_STORED;
		store_pair(a->store, series, base, head, ask_on_stored, k);
	} else {
		k->state = ASK_VALUES;
		store_pair_columns(a->store, series, base, head, ask_on_values,
				   k);
	}
}

struct analysis *
analysis_new(struct event_base *base, struct store *store,
	     const struct settings *set)
{
	struct analysis *a = xcalloc(1, sizeof *a);
	struct timeval tv = {ANALYSIS_TICK, 0};

	for (int i = 0; i < ANALYSIS_SLOTS; i++)
		a->slots[i] = (struct analysis_slot){ANALYSIS_IDLE, a, i, false,
						     NULL};
	a->base = base;
	a->store = store;
	/* A thread of its own: analysis and uploads do not wait for each
	 * other. */
	a->worker = worker_new(base);
	a->set = set;
	a->dt = direction_table_new();
	a->timer = event_new(base, -1, EV_PERSIST, analysis_on_timer, a);
	event_add(a->timer, &tv);
	return a;
}

void
analysis_wake(struct analysis *a)
{
	for (int i = 0; i < ANALYSIS_SLOTS; i++) {
		struct analysis_slot *sl = &a->slots[i];

		if (sl->state == ANALYSIS_IDLE)
			slot_drive(sl);
		else
			sl->again = true; /* in hand: it looks again after */
	}
}

void
analysis_stop(struct analysis *a)
{
	worker_stop(a->worker);
}

unsigned long long
analysis_count(const struct analysis *a)
{
	return a->count;
}

void
analysis_free(struct analysis *a)
{
	if (a == NULL)
		return;
	event_free(a->timer);
	worker_free(a->worker);
	direction_table_free(a->dt);
	for (int i = 0; i < ANALYSIS_SLOTS; i++)
		pair_work_free(a->slots[i].work);
	free(a);
}
