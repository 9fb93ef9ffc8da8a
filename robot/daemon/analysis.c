/*
 * analysis.c: pairs analysed, a worker of the drain engine (drain.h)
 * with ANALYSIS_SLOTS pairs in hand at once (the database's part of one
 * overlaps the comparison of another).  The engine claims them
 * (robot_pair_next(), decoded: store/analysis.h); each is a state
 * machine driven by pair_drive():
 *
 *   VALUES     --(its values, in binary)------------> COMPARING (worker)
 *   COMPARING  --(compared and decided)--------------> STORING
 *   STORING    --(stored: more or stale)-------------> ended
 *   STORING    --(stored final)----------------------> HISTORY
 *   HISTORY    --(its KPIs' histories, a branch's)---> SCANNING (worker)
 *   HISTORY    --(none: no branch)-------------------> ended
 *   SCANNING   --(their change points found)---------> RECORDING
 *   RECORDING  --(recorded)--------------------------> ended
 *   VALUES, COMPARING, STORING --(the database failed, or values that
 *              cannot be read)-----------------------> ended (the claim
 *                                                      runs out; taken
 *                                                      again)
 *   HISTORY, RECORDING --(the database failed)-------> ended (said; the
 *                                                      next final pair of
 *                                                      the series scans
 *                                                      again)
 *
 * The comparison runs on the worker thread: it touches only the pair's
 * values and the results it fills in, which the loop does not touch
 * meanwhile; so does the scan of a final pair's histories for change
 * points (robot/analysis/changes.h: a new change point of a KPI in its
 * worse direction is a regression record, robot_change_points_record()).  A comparison asked for (analysis_compare()) reads the same
 * values the same way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/catalog.h"
#include "robot/analysis/changes.h"
#include "robot/analysis/decide.h"
#include "robot/analysis/findings.h"
#include "robot/analysis/history.h"
#include "robot/analysis/noise.h"
#include "robot/analysis/series.h"
#include "robot/analysis/table.h"
#include "robot/core/buf.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/analysis.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/store/analysis.h"
#include "robot/core/banned.h"

#define ANALYSIS_TICK  5 /* seconds between looks when nothing woke it */
#define ANALYSIS_SLOTS 4 /* pairs in hand at once */
/* The commits back along a head's first-parent line its history holds. */
#define ANALYSIS_HISTORY_COMMITS 10000

/* A claimed pair's steps (a comparison asked for has its own). */
enum pair_state {
	PAIR_VALUES,
	PAIR_COMPARING,
	PAIR_STORING,
	PAIR_HISTORY,
	PAIR_SCANNING,
	PAIR_RECORDING,
};
static const char *const pair_states[] = {
	[PAIR_VALUES] = "values",     [PAIR_COMPARING] = "comparing",
	[PAIR_STORING] = "storing",   [PAIR_HISTORY] = "history",
	[PAIR_SCANNING] = "scanning", [PAIR_RECORDING] = "recording",
};
static const struct fsm pair_fsm =
	FSM("analysis of a pair", pair_states, PAIR_RECORDING);

/* One pair's analysis: the claim, and what the worker made of it. */
struct pair_work {
	enum pair_state state;
	struct analysis *a;
	struct store_pair_claim *claim; /* or NULL for an ask */
	struct store_pair_head *in;     /* what its comparison starts from */
	struct store_values *values;    /* which the columns' names are of */
	struct comparison_column *cols;
	size_t ncols;
	double *block; /* the columns' values */
	int max_runs;  /* of the pair, or robotd's */
	int looked;    /* the runs a side asked at this look */
	const struct direction_table *dt;
	struct compare_options opt;   /* analysis's, or an ask's */
	struct compare_prior *priors; /* of the claim's noise history */
	size_t npriors;
	bool all; /* every metric in the comparison */
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
	char *note;     /* too noisy at the cap: for the lab's operators */
	char *history;  /* a final pair's histories (robot_pair_history()) */
	char *changes;  /* what their change points record, or NULL */
	char *changes_summary; /* the change points, for the log */
};

struct analysis {
	struct event_base *base;
	struct store *store;
	struct drain_worker *w;
	struct worker *worker;
	const struct settings *set;
	struct direction_table *dt; /* read by the worker only */
	unsigned long long count;
	int asks_making; /* asks SIZING, VALUES or COMPARING */
};

static void
pair_set_state(struct pair_work *w, enum pair_state s)
{
	FSM_SET(&pair_fsm, w->state, s, "analysis of pair %lld",
		w->claim->pair);
}

/* A pair's work with analysis' directions, runs and options. */
static struct pair_work *
pair_work_new(struct analysis *a)
{
	struct pair_work *w = xcalloc(1, sizeof *w);

	w->a = a;
	w->dt = a->dt;
	w->max_runs = a->set->max_runs;
	compare_options_init(&w->opt);
	return w;
}

static void
pair_work_free(void *arg)
{
	struct pair_work *w = arg;

	if (w == NULL)
		return;
	free(w->cols);
	free(w->block);
	free(w->priors);
	store_values_free(w->values);
	store_pair_claim_free(w->claim);
	store_pair_head_free(w->in);
	free(w->kpi);
	free(w->comparison);
	free(w->table);
	free(w->kpis);
	free(w->findings);
	free(w->summary);
	free(w->note);
	free(w->history);
	free(w->changes);
	free(w->changes_summary);
	free(w);
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
				"{s:s, s:s, s:o, s:o, s:o, s:o}", "kpi",
				m->name, "verdict",
				compare_verdict_name(m->r.verdict),
				"change_pct",
				m->r.change_defined && isfinite(m->r.change_pct)
					? json_real(m->r.change_pct)
					: json_null(),
				"p_value",
				isfinite(m->r.p_value) ? json_real(m->r.p_value)
						       : json_null(),
				"noise_var",
				m->r.noise_df > 0 && isfinite(m->r.noise_var)
					? json_real(m->r.noise_var)
					: json_null(),
				"noise_df",
				m->r.noise_df > 0 ? json_real(m->r.noise_df)
						  : json_null()));
	}
	s = rjson_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

/* What the pair records of each KPI, given its branch's open findings
 * (robot/analysis/findings.c), as robot_pair_done() takes it. */
static char *
findings_json(const struct comparison *c, const struct store_pair_claim *cl)
{
	json_t *a = json_array();
	char *s;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		bool defined = m->r.change_defined && isfinite(m->r.change_pct);
		const struct store_open_finding *o =
			store_pair_claim_open(cl, m->name);
		enum finding_action act =
			finding_decide(o ? &o->f : NULL, m->r.verdict, defined,
				       m->r.change_pct);

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
				     o != NULL && act != FINDING_NEW
					     ? json_integer(o->id)
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
	/* what moved with it, then LKP's table */
	if (table_print_moved(fp, c) > 0)
		fputc('\n', fp);
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
			num_pct(buf, len, c->metrics[i].r.change_pct, "?");
}

/*
 * The priors of the KPIs' noise into w->opt (robot/analysis/noise.h):
 * each KPI's history as the claim has it (its series' earlier pairs),
 * with the base's other runs on each box of the pair's rounds (its
 * canary: the base against itself).  Whether every KPI among the pair's
 * columns has one (the KPIs' prefix in prefix).
 */
static bool
noise_priors(struct pair_work *w, char *prefix, size_t len)
{
	const struct store_pair_head *in = w->in;
	const struct store_pair_claim *cl = w->claim;
	bool known = true;
	size_t kpis = 0;

	w->priors = xcalloc(w->ncols + 1, sizeof *w->priors);
	w->npriors = 0;
	if (!series_kpi_prefix_of(in->job, in->series,
				  catalog_testcase_workload, prefix, len))
		return false;
	for (size_t i = 0; i < w->ncols; i++) {
		const char *name = w->cols[i].name;
		const struct store_noise *h = NULL;
		struct noise_obs *obs;
		struct noise_prior p;
		size_t n = 0;

		if (!comparison_is_kpi(w->dt, name, prefix))
			continue;
		kpis++;
		for (size_t k = 0; k < cl->nnoise && h == NULL; k++)
			if (strcmp(cl->noise[k].metric, name) == 0)
				h = &cl->noise[k];
		obs = xcalloc((h ? h->nobs : 0) + in->ncanary + 1, sizeof *obs);
		for (size_t k = 0; h != NULL && k < h->nobs; k++)
			obs[n++] = h->obs[k];
		n += store_values_canary(w->values, in, name, obs + n,
					 in->ncanary);
		if (noise_fit(obs, n, &p))
			w->priors[w->npriors++] =
				(struct compare_prior){name, p.var, p.df};
		else
			known = false;
		free(obs);
	}
	w->opt.priors = w->priors;
	w->opt.npriors = w->npriors;
	return known && kpis > 0;
}

/* The resolution of each KPI whose noise its history knows, and why one
 * that asks for no more runs stopped (decide_futile()). */
static void
resolutions(struct comparison *c, int max_runs)
{
	for (size_t i = 0; i < c->nmetrics; i++) {
		struct compare_result *r = &c->metrics[i].r;

		if (!c->metrics[i].kpi)
			continue;
		r->resolution_pct = decide_resolution_pct(r, max_runs);
		if (isfinite(r->resolution_pct) && decide_futile(r, max_runs) &&
		    !r->within_floor)
			r->reason = "below the least change its cap could "
				    "find";
	}
}

/* On the worker thread: compares the pair's values and decides. */
static void
pair_compare(struct pair_work *w)
{
	const struct store_pair_head *in = w->in;
	struct comparison_side bs = {in->base, (size_t)in->base_runs.ok,
				     (size_t)in->base_runs.failed, 0};
	struct comparison_side hs = {in->head, (size_t)in->head_runs.ok,
				     (size_t)in->head_runs.failed, 0};
	/* The side with the fewest: a base shared with another head may
	 * have had more runs asked for already. */
	int asked = in->base_runs.asked < in->head_runs.asked
			    ? in->base_runs.asked
			    : in->head_runs.asked;
	struct comparison *c;
	struct decision d;
	char prefix[128], change[32];
	struct buf text;

	/* A pair measured in rounds is compared within them, its KPIs'
	 * noise weighed with their series' history (noise_priors()); a
	 * claimed pair's look spends its share of the false-alarm budget,
	 * the larger one when every KPI's noise is known.  A bisection's
	 * pair is no finding: it tells a step, between ends whose change
	 * was decided on the budget, and its last step is confirmed against
	 * its parent; each of its looks is at the whole budget, for the
	 * power a step needs (docs/bisect.md). */
	w->opt.paired = in->nrounds > 0;
	if (w->claim != NULL) {
		double budget = noise_priors(w, prefix, sizeof prefix)
					? DECIDE_ALPHA_KNOWN
					: DECIDE_ALPHA;

		w->opt.alpha =
			w->claim->bisection
				? budget
				: decide_look_alpha(asked, w->claim->looked,
						    w->max_runs, budget);
	}
	w->looked = asked;
	if (bs.runs == 0 || hs.runs == 0) {
		w->verdict = "failed";
		w->kpis = xstrdup("[]");
		w->summary = xasprintf("no ok runs on the %s side: nothing to "
				       "compare",
				       bs.runs == 0 ? "base" : "head");
		return;
	}
	c = comparison_of_columns(
		in->series, &bs, &hs, w->cols, w->ncols, &w->opt, w->dt,
		series_kpi_prefix_of(in->job, in->series,
				     catalog_testcase_workload, prefix,
				     sizeof prefix)
			? prefix
			: NULL);
	comparison_set_round_runs(c, (const long long(*)[2])in->rounds,
				  in->nrounds);
	/* No promising look past a cap the submitter set, nor for a
	 * bisection's pair (its steps have their own test and cap). */
	decide(c, asked, w->max_runs,
	       w->claim != NULL && !w->claim->bisection && !w->claim->capped
		       ? DECIDE_PROMISING_P
		       : 0,
	       &d);
	resolutions(c, w->max_runs);
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
		w->findings = findings_json(c, w->claim);
	kpi_change(c, d.kpi, change, sizeof change);
	{
		char note[512];

		if (decide_noise_note(c, &d, &w->opt, w->max_runs, note,
				      sizeof note))
			w->note = xstrdup(note);
	}
	if (w->more > w->max_runs)
		w->summary = xasprintf("%s inconclusive with %d runs a side, "
				       "near the line at the cap: more runs, "
				       "to %d (the promising look)",
				       d.kpi ? d.kpi : "a KPI", asked, w->more);
	else if (w->more > 0)
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

/* A claimed pair's analysis ended (done, or left to its claim). */
static void
pair_end(struct pair_work *w)
{
	drain_done(w->a->w, w);
}

/*
 * On the worker thread: the change points of each KPI's history in
 * w->history, as robot_change_points_record() takes them: those in the
 * KPI's worse direction, each with the point before it (its base), the
 * commits of the segments around it (its window) and the segments.
 */
/* One KPI's change points in its worse direction, as
 * robot_change_points_record() takes them, appended to said. */
static json_t *
kpi_changes(struct pair_work *w, const struct store_kpi_history *x,
	    struct buf *said)
{
	struct direction dir = direction_lookup(w->dt, x->kpi);
	struct changes_options opt;
	struct change_point *cp;
	struct history hist;
	json_t *found, *list = json_array();
	char pct[NUM_PCT_MAX];
	size_t n;

	changes_options_init(&opt);
	if (dir.floor_pct > opt.min_effect_pct)
		opt.min_effect_pct = dir.floor_pct;
	history_from_json(&hist, x->commits);
	n = changes_find(hist.pts, hist.n, &opt, &cp);
	found = history_changes_json(&hist, cp, n);
	for (size_t k = 0; k < n; k++) {
		const struct change_point *q = &cp[k];
		json_t *c = json_array_get(found, k), *window;

		if (dir.sign == 0 || !isfinite(q->change_pct) ||
		    (double)dir.sign * q->change_pct >= 0)
			continue; /* not the worse direction */
		window = json_array();
		for (size_t j = q->from; j < q->to; j++)
			json_array_append_new(window,
					      json_string(hist.pts[j].commit));
		json_object_set_new(c, "points",
				    json_integer((json_int_t)hist.n));
		json_array_append_new(
			list,
			json_pack("{s:s, s:s, s:s, s:f, s:f, s:o, s:O}",
				  "commit", hist.pts[q->index].commit, "base",
				  hist.pts[q->index - 1].commit, "kind",
				  "regression", "change_pct", q->change_pct,
				  "p", q->p, "window", window, "history", c));
		buf_addf(said, "%s%s at %.12s %s (p %.2g)",
			 said->len ? ", " : "", x->kpi,
			 hist.pts[q->index].commit,
			 num_pct(pct, sizeof pct, q->change_pct, "?"), q->p);
	}
	json_decref(found);
	free(cp);
	history_release(&hist);
	return list;
}

/*
 * On the worker thread: the change points of each KPI's history in
 * w->history, as robot_change_points_record() takes them: those in the
 * KPI's worse direction, each with the point before it (its base), the
 * commits of the segments around it (its window) and the segments.
 */
static void
pair_scan_work(void *arg)
{
	struct pair_work *w = arg;
	struct view_doc d = {0};
	struct store_pair_histories h;
	json_t *kpis = json_array(), *rec;
	struct buf said;
	char err[256];

	buf_init(&said);
	if (!view_load(&d, &store_pair_histories_view, w->history, &h, err,
		       sizeof err)) {
		log_warnx("analysis of pair %lld: %s", w->claim->pair, err);
		json_decref(kpis);
		view_release(&d);
		buf_release(&said);
		return;
	}
	for (size_t i = 0; i < h.nhistories; i++)
		if (h.histories[i].kpi != NULL)
			json_array_append_new(
				kpis, json_pack("{s:s, s:o}", "kpi",
						h.histories[i].kpi, "changes",
						kpi_changes(w, &h.histories[i],
							    &said)));
	rec = json_pack("{s:I, s:s?, s:s?, s:s?, s:s?, s:o}", "pair",
			(json_int_t)h.pair, "series", h.series, "tree", h.tree,
			"branch", h.branch, "head", h.head, "kpis", kpis);
	if (rec != NULL)
		w->changes = rjson_dumps(rec, JSON_COMPACT);
	json_decref(rec);
	view_release(&d);
	w->changes_summary = said.len ? buf_detach(&said) : NULL;
	if (w->changes_summary == NULL)
		buf_release(&said);
}

static void
pair_on_recorded(const struct store_change_points *r, const struct problem *p,
		 void *arg)
{
	struct pair_work *w = arg;
	long long made = r != NULL ? r->made : 0,
		  moved = r != NULL ? r->moved : 0,
		  dropped = r != NULL ? r->dropped : 0;

	if (p != NULL)
		log_warnx("analysis of pair %lld: cannot record its change "
			  "points: %s (the next final pair of its series "
			  "scans again)",
			  w->claim->pair, p->message);
	else if (w->changes_summary != NULL || dropped > 0)
		log_info("analysis: %s: change points up to %.12s: %s (%lld "
			 "recorded, %lld moved, %lld no longer one)",
			 w->claim->series, w->claim->head,
			 w->changes_summary ? w->changes_summary : "none", made,
			 moved, dropped);
	pair_end(w);
}

static void
pair_on_scanned(void *arg)
{
	struct pair_work *w = arg;

	if (w->changes == NULL) {
		log_warnx("analysis of pair %lld: its histories cannot be "
			  "read",
			  w->claim->pair);
		pair_end(w);
		return;
	}
	pair_set_state(w, PAIR_RECORDING);
	store_change_points(w->a->store, w->changes, pair_on_recorded, w);
}

static void
pair_on_history(const char *text, const struct problem *p, void *arg)
{
	struct pair_work *w = arg;

	if (p != NULL)
		log_warnx("analysis of pair %lld: cannot read its histories: "
			  "%s (the next final pair of its series scans again)",
			  w->claim->pair, p->message);
	if (p != NULL || text == NULL) {
		pair_end(w);
		return;
	}
	w->history = xstrdup(text);
	pair_set_state(w, PAIR_SCANNING);
	worker_run(w->a->worker, pair_scan_work, pair_on_scanned, w);
}

static void
pair_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct pair_work *w = arg;
	bool stale = text != NULL && strcmp(text, "stale") == 0;

	if (p != NULL) {
		log_warnx("analysis of pair %lld: %s (tried again later)",
			  w->claim->pair, p->message);
	} else {
		if (text != NULL && !stale)
			w->a->count++;
		log_info("analysis: %s %.12s..%.12s: %s%s", w->claim->series,
			 w->claim->base, w->claim->head, w->summary,
			 stale ? " (stale: measured again, or taken over, "
				 "meanwhile)"
			       : "");
	}
	/* A final pair of a branch adds a point to its KPIs' histories. */
	if (p == NULL && text != NULL && strcmp(text, "final") == 0 &&
	    !w->claim->bisection) {
		pair_set_state(w, PAIR_HISTORY);
		store_pair_history(w->a->store, w->claim->pair,
				   ANALYSIS_HISTORY_COMMITS, pair_on_history,
				   w);
		return;
	}
	pair_end(w);
}

static void
pair_on_compared(void *arg)
{
	struct pair_work *w = arg;
	struct store_pair_done d = {
		w->claim->pair, w->claim->analyses,
		w->verdict,     w->kpi,
		w->runs,        w->comparison,
		w->table,       w->more,
		w->kpis,        w->findings ? w->findings : "[]",
		w->note,        w->looked};

	if (w->verdict == NULL) { /* a bug: the values were not theirs */
		log_warnx("analysis of pair %lld: its values cannot be read",
			  w->claim->pair);
		pair_end(w);
		return;
	}
	pair_set_state(w, PAIR_STORING);
	store_pair_done(w->a->store, &d, pair_on_stored, w);
}

/* On the worker thread: reads the pair's values, compares and decides. */
static void
pair_compare_work(void *arg)
{
	struct pair_work *w = arg;

	if (!store_values_read(w->values, w->claim->base, w->claim->head,
			       &w->in, &w->cols, &w->ncols, &w->block))
		return; /* pair_on_compared() says so */
	if (w->claim->max_runs > 0)
		w->max_runs = w->claim->max_runs;
	pair_compare(w);
}

static void
pair_on_values(struct store_values *v, const struct problem *p, void *arg)
{
	struct pair_work *w = arg;

	if (p != NULL) {
		log_warnx("analysis of pair %lld: %s (tried again later)",
			  w->claim->pair, p->message);
		pair_end(w);
		return;
	}
	w->values = v;
	pair_set_state(w, PAIR_COMPARING);
	worker_run(w->a->worker, pair_compare_work, pair_on_compared, w);
}

/* The engine's: a pair claimed, to analyse. */
static void
analysis_start(struct drain_worker *dw, void *work)
{
	struct pair_work *w = work;

	(void)dw;
	pair_set_state(w, PAIR_VALUES);
	store_pair_columns(w->a->store, w->claim->series, w->claim->base,
			   w->claim->head, pair_on_values, w);
}

static void
analysis_on_claimed(struct store_pair_claim *c, const struct problem *p,
		    void *arg)
{
	struct analysis *a = arg;
	struct pair_work *w = NULL;

	if (c != NULL) {
		w = pair_work_new(a);
		w->claim = c;
	}
	drain_claimed_one(a->w, w, p);
}

/* The engine's: claims the next pair ready (one a claim). */
static void
analysis_claim(struct drain_worker *dw, int n)
{
	struct analysis *a = drain_ctx(dw);

	(void)n;
	store_pair_next(a->store, a->set->analysis_claim, analysis_on_claimed,
			a);
}

static const struct drain_ops analysis_ops = {
	.name = "analysis",
	.topic = ":analysis",
	.tick = ANALYSIS_TICK,
	.slots = ANALYSIS_SLOTS,
	.batch = 1,
	.look_after_each = true,
	.claim = analysis_claim,
	.start = analysis_start,
	.free = pair_work_free,
};

/*
 * A comparison asked for (GET /api/compare), a state machine:
 *
 *   STORED     the pair's stored comparison, if analysis made one
 *   SIZING     else, when fewer than compare_max_running others are
 *              being made (429 else), how many values it would read:
 *              413 over compare_max_values
 *   VALUES     the values of both sides, to compare now
 *   COMPARING  on the worker thread, which also makes the answer
 *   DONE       answered; freed after the loop iteration
 *
 * A comparison made on request reads every value of both sides and holds
 * them, and its answer, at once: the two limits bound robotd's memory and
 * its worker's queue however many clients ask (issue 28).
 */
enum ask_state {
	ASK_STORED,
	ASK_SIZING,
	ASK_VALUES,
	ASK_COMPARING,
	ASK_DONE,
};
static const char *const ask_states[] = {
	[ASK_STORED] = "stored", [ASK_SIZING] = "sizing",
	[ASK_VALUES] = "values", [ASK_COMPARING] = "comparing",
	[ASK_DONE] = "done",
};
static const struct fsm ask_fsm = FSM("comparison asked", ask_states, ASK_DONE);

struct ask {
	enum ask_state state;
	struct analysis *a;
	char *series, *base, *head;
	struct analysis_ask ask; /* how to compare */
	struct pair_work *work;
	bool making;    /* counted in asks_making */
	json_t *answer; /* made on the worker */
	analysis_cb cb;
	void *arg;
};

static void
ask_set_state(struct ask *k, enum ask_state s)
{
	FSM_SET(&ask_fsm, k->state, s, "compare %s %s..%s", k->series, k->base,
		k->head);
}

static void
ask_free(void *arg)
{
	struct ask *k = arg;

	pair_work_free(k->work);
	json_decref(k->answer);
	free(k->series);
	free(k->base);
	free(k->head);
	free(k);
}

/* Answers; the ask is freed after this loop iteration. */
static void
ask_finish(struct ask *k, json_t *answer, const struct problem *p)
{
	if (k->making)
		k->a->asks_making--;
	k->making = false;
	ask_set_state(k, ASK_DONE);
	k->cb(answer, p, k->arg);
	defer(k->a->base, ask_free, k);
}

static void
ask_on_compared(void *arg)
{
	struct ask *k = arg;
	struct pair_work *w = k->work;
	json_t *answer;

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
	answer = k->answer;
	k->answer = NULL;
	ask_finish(k, answer, NULL);
}

/* On the worker thread: reads the binary values, compares them and
 * makes the answer (parsing a comparison of 20,000 metrics takes the
 * loop's time otherwise); the values are freed as soon as they are
 * compared. */
static void
ask_compare_work(void *arg)
{
	struct ask *k = arg;
	struct pair_work *w = k->work;
	json_t *cj;

	if (!store_values_read(w->values, k->base, k->head, &w->in, &w->cols,
			       &w->ncols, &w->block))
		return;
	pair_compare(w);
	free(w->block);
	free(w->cols);
	store_values_free(w->values);
	w->block = NULL;
	w->cols = NULL;
	w->ncols = 0;
	w->values = NULL;
	if (w->verdict == NULL || strcmp(w->verdict, "failed") == 0)
		return;
	cj = rjson_loads(w->comparison, NULL);
	free(w->comparison);
	w->comparison = NULL;
	k->answer = json_pack(
		"{s:s, s:s, s:s, s:s, s:o, s:i, s:b, s:o, s:s}", "series",
		k->series, "base", k->base, "head", k->head, "verdict",
		w->verdict, "kpi", w->kpi ? json_string(w->kpi) : json_null(),
		"runs", w->runs, "stored", 0, "comparison",
		cj ? cj : json_null(), "table", w->table ? w->table : "");
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
	ask_set_state(k, ASK_COMPARING);
	worker_run(k->a->worker, ask_compare_work, ask_on_compared, k);
}

static void
ask_on_size(const char *text, const struct problem *p, void *arg)
{
	struct ask *k = arg;
	long long n = text != NULL ? strtoll(text, NULL, 10) : 0;
	struct problem *q;

	if (p != NULL) {
		ask_finish(k, NULL, p);
		return;
	}
	if (n > k->a->set->compare_max_values) {
		q = problem_new(PROBLEM_TOO_LARGE, NULL,
				"comparing %s at %.12s and %.12s reads %lld "
				"values (metrics x runs), over this robotd's "
				"compare_max_values (%d): fetch the runs with "
				"robot results and compare the files with "
				"robot compare",
				k->series, k->base, k->head, n,
				k->a->set->compare_max_values);
		ask_finish(k, NULL, q);
		problem_free(q);
		return;
	}
	ask_set_state(k, ASK_VALUES);
	store_pair_columns(k->a->store, k->series, k->base, k->head,
			   ask_on_values, k);
}

/* SIZING, or 429 while compare_max_running others are being made. */
static void
ask_size(struct ask *k)
{
	struct problem *q;

	if (k->a->asks_making >= k->a->set->compare_max_running) {
		q = problem_new(PROBLEM_BUSY, NULL,
				"%d comparisons are being made (this robotd's "
				"compare_max_running): ask again in a few "
				"seconds",
				k->a->asks_making);
		ask_finish(k, NULL, q);
		problem_free(q);
		return;
	}
	k->a->asks_making++;
	k->making = true;
	ask_set_state(k, ASK_SIZING);
	store_pair_size(k->a->store, k->series, k->base, k->head, ask_on_size,
			k);
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
	if (text != NULL && (j = rjson_loads(text, NULL)) != NULL) {
		json_object_set_new(j, "series", json_string(k->series));
		json_object_set_new(j, "base", json_string(k->base));
		json_object_set_new(j, "head", json_string(k->head));
		json_object_set_new(j, "stored", json_true());
		ask_finish(k, j, NULL);
		return;
	}
	ask_size(k);
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
		ask_set_state(k, ASK_STORED);
		store_pair(a->store, series, base, head, ask_on_stored, k);
	} else {
		ask_size(k);
	}
}

const struct direction_table *
analysis_directions(const struct analysis *a)
{
	return a->dt;
}

struct analysis *
analysis_new(struct drain *d, struct event_base *base, struct store *store,
	     const struct settings *set)
{
	struct analysis *a = xcalloc(1, sizeof *a);

	a->base = base;
	a->store = store;
	/* A thread of its own: analysis and uploads do not wait for each
	 * other. */
	a->worker = worker_new(base);
	a->set = set;
	a->dt = direction_table_new();
	a->w = drain_add(d, &analysis_ops, a);
	return a;
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
	worker_free(a->worker);
	direction_table_free(a->dt);
	free(a);
}
