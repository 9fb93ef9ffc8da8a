/*
 * comparison.c: one series, two commits, every metric.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/comparison.h"
#include "robot/core/buf.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static void note(struct comparison *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
note(struct comparison *c, const char *fmt, ...)
{
	va_list ap;

	c->notes = xreallocarray(c->notes, c->nnotes + 1, sizeof *c->notes);
	va_start(ap, fmt);
	c->notes[c->nnotes++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Picks the ok runs of a side; false with an error if there are none. */
static bool
side_runs(const char *series, const char *what, const struct result *const *v,
	  size_t n, const struct result ***ok, size_t *nok,
	  struct comparison_side *side, struct errlist *el)
{
	*ok = xcalloc(n + 1, sizeof **ok);
	*nok = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i]->status == RESULT_OK)
			(*ok)[(*nok)++] = v[i];
		else if (v[i]->status == RESULT_FAILED)
			side->failed++;
		else
			side->incomplete++;
	}
	side->runs = *nok;
	if (*nok == 0) {
		errlist_error(el, series, 0,
			      "no complete %s runs to compare (%zu failed, "
			      "%zu incomplete)",
			      what, side->failed, side->incomplete);
		return false;
	}
	side->commit = (*ok)[0]->commit;
	for (size_t i = 1; i < *nok; i++) {
		const char *c = (*ok)[i]->commit;

		if ((c == NULL) != (side->commit == NULL) ||
		    (c != NULL && strcmp(c, side->commit) != 0)) {
			errlist_error(el, series, 0,
				      "the %s runs are of more than one commit "
				      "(%s and %s); give the runs of one",
				      what,
				      side->commit ? side->commit : "none",
				      c ? c : "none");
			return false;
		}
	}
	return true;
}

/* Joins "a, b, c" (at most 5 names, then "and N more"). */
static char *
name_list(const char **names, size_t n)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < n && i < 5; i++)
		buf_addf(&b, "%s%s", i ? ", " : "", names[i]);
	if (n > 5)
		buf_addf(&b, " and %zu more", n - 5);
	return buf_detach(&b);
}

/*
 * Whether metric is one of the workload's headline figures, its KPIs:
 * directly under the workload's prefix ("dd.write_bytes_per_sec").  Deeper
 * names explain a change but do not decide one: a device's share
 * ("dd.loop0.write_bytes_per_sec"), a time series' summary ("....stddev")
 * and resource figures ("fsmark.time.elapsed_time").
 */
static bool
is_headline(const char *metric, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;

	return n > 0 && strncmp(metric, prefix, n) == 0 && metric[n] != '\0' &&
	       strchr(metric + n, '.') == NULL;
}

/*
 * Collects one column of values per metric, in the order the metrics
 * first appear, from the ok runs of both sides, the values of all in one
 * block (*block, which the caller frees): a metric's base values, then
 * its head values.  Runs of one job list their stats in one order, so a
 * stat is looked for first at its own place (a pointer compare when the
 * names are interned); the map of names is made only when that fails
 * after the first run.
 */
static struct comparison_column *
collect_columns(const struct result **okb, size_t nokb,
		const struct result **okh, size_t nokh, size_t *ncols,
		double **block)
{
	struct comparison_column *cols = NULL;
	size_t cap = 0, width = nokb + nokh, *nvals = NULL;
	struct strmap *index = NULL;
	double *vals = NULL;

	*ncols = 0;
	for (size_t side = 0; side < 2; side++) {
		const struct result **runs = side == 0 ? okb : okh;
		size_t nruns = side == 0 ? nokb : nokh;

		for (size_t r = 0; r < nruns; r++) {
			for (size_t s = 0; s < runs[r]->nstats; s++) {
				const struct result_stat *st =
					&runs[r]->stats[s];
				struct comparison_column *col;
				size_t i;

				if (s < *ncols &&
				    (cols[s].name == st->name ||
				     strcmp(cols[s].name, st->name) == 0))
					i = s;
				else if (side == 0 && r == 0)
					i = *ncols; /* a run's names differ */
				else {
					if (index == NULL) {
						index = strmap_new(cap + 16);
						for (size_t k = 0; k < *ncols;
						     k++)
							strmap_put(index,
								   cols[k].name,
								   k);
					}
					if (!strmap_get(index, st->name, &i))
						i = *ncols;
				}
				if (i == *ncols) {
					if (*ncols == cap) {
						cap = cap ? cap * 2
							  : runs[r]->nstats +
								      16;
						cols = xreallocarray(
							cols, cap,
							sizeof *cols);
						nvals = xreallocarray(
							nvals, cap,
							sizeof *nvals);
						vals = xreallocarray(
							vals, cap * width + 1,
							sizeof *vals);
					}
					cols[i] = (struct comparison_column){
						st->name, NULL, 0, NULL, 0};
					nvals[i] = 0;
					(*ncols)++;
					if (index != NULL)
						strmap_put(index, st->name, i);
				}
				col = &cols[i];
				/* a stat twice in a run counts once */
				if (side == 0 && col->nb < nokb && col->nb <= r)
					vals[i * width + col->nb++] = st->value;
				else if (side == 1 && col->nh < nokh &&
					 col->nh <= r)
					vals[i * width + nokb + col->nh++] =
						st->value;
			}
		}
	}
	strmap_free(index);
	free(nvals);
	for (size_t i = 0; i < *ncols; i++) {
		cols[i].base = vals + i * width;
		cols[i].head = vals + i * width + nokb;
	}
	*block = vals;
	return cols;
}

/* Notes the metrics of one side only ("2 metrics are only in the base
 * runs, not compared: a, b"). */
static void
note_one_sided(struct comparison *c, const char **names, size_t n,
	       const char *side)
{
	char *list;

	if (n == 0)
		return;
	list = name_list(names, n);
	note(c, "%zu metric%s only in the %s runs, not compared: %s", n,
	     n == 1 ? " is" : "s are", side, list);
	free(list);
}

struct comparison *
comparison_of_columns(const char *series, const struct comparison_side *base,
		      const struct comparison_side *head,
		      const struct comparison_column *cols, size_t ncols,
		      const struct compare_options *opt,
		      const struct direction_table *dt, const char *kpi_prefix)
{
	struct comparison *c = xcalloc(1, sizeof *c);
	const char **only_base = xcalloc(ncols + 1, sizeof *only_base);
	const char **only_head = xcalloc(ncols + 1, sizeof *only_head);
	size_t n_only_base = 0, n_only_head = 0;

	c->series = xstrdup(series);
	c->method = opt->method;
	c->base = *base;
	c->head = *head;
	c->metrics = xcalloc(ncols + 1, sizeof *c->metrics);
	for (size_t i = 0; i < ncols; i++) {
		const struct comparison_column *col = &cols[i];
		struct comparison_metric *m;
		struct direction dir;

		if (col->nb == 0 || col->nh == 0) {
			if (col->nb == 0)
				only_head[n_only_head++] = col->name;
			else
				only_base[n_only_base++] = col->name;
			continue;
		}
		if (col->nb < base->runs || col->nh < head->runs)
			note(c,
			     "%s is in %zu of %zu base and %zu of %zu head "
			     "runs; compared as it is",
			     col->name, col->nb, base->runs, col->nh,
			     head->runs);
		m = &c->metrics[c->nmetrics++];
		m->name = col->name;
		dir = direction_lookup(dt, col->name);
		compare_metric(col->name, col->base, col->nb, col->head,
			       col->nh, opt, &dir, &m->r);
		m->kpi = dir.sign != 0 && is_headline(col->name, kpi_prefix);
	}
	note_one_sided(c, only_base, n_only_base, "base");
	note_one_sided(c, only_head, n_only_head, "head");
	free(only_base);
	free(only_head);
	return c;
}

struct comparison *
comparison_new(const char *series, const struct result *const *base, size_t nb,
	       const struct result *const *head, size_t nh,
	       const struct compare_options *opt,
	       const struct direction_table *dt, const char *kpi_prefix,
	       struct errlist *el)
{
	const struct result **okb = NULL, **okh = NULL;
	size_t nokb = 0, nokh = 0, ncols;
	struct comparison_side bs = {0}, hs = {0};
	struct comparison_column *cols;
	struct comparison *c;
	double *block;
	bool ok;

	ok = side_runs(series, "base", base, nb, &okb, &nokb, &bs, el);
	ok = side_runs(series, "head", head, nh, &okh, &nokh, &hs, el) && ok;
	if (!ok) {
		free(okb);
		free(okh);
		return NULL;
	}
	cols = collect_columns(okb, nokb, okh, nokh, &ncols, &block);
	c = comparison_of_columns(series, &bs, &hs, cols, ncols, opt, dt,
				  kpi_prefix);
	free(block);
	free(cols);
	free(okb);
	free(okh);
	return c;
}

void
comparison_free(struct comparison *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	free(c->metrics);
	free(c->series);
	free(c);
}

/* A finite number as JSON, or null: never NaN or infinity. */
static json_t *
num_or_null(double d, bool defined)
{
	return defined && isfinite(d) ? json_real(d) : json_null();
}

static json_t *
side_json(const struct stats_summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "n", (json_int_t)s->n,
			 "mean", num_or_null(s->mean, true), "stddev",
			 num_or_null(s->stddev, true), "min",
			 num_or_null(s->min, true), "max",
			 num_or_null(s->max, true));
}

json_t *
comparison_to_json(const struct comparison *c, bool all)
{
	json_t *metrics = json_array(), *notes = json_array(), *o;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		const struct compare_result *r = &m->r;

		if (!all && !m->kpi && !compare_verdict_is_change(r->verdict))
			continue;

		o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:i, s:s, s:b}",
			      "metric", m->name, "base", side_json(&r->base),
			      "head", side_json(&r->head), "change_pct",
			      num_or_null(r->change_pct, r->change_defined),
			      "p_value", num_or_null(r->p_value, true),
			      "direction", r->direction, "verdict",
			      compare_verdict_name(r->verdict), "kpi", m->kpi);
		if (r->verdict == COMPARE_INCONCLUSIVE)
			json_object_set_new(
				o, "runs_needed",
				r->runs_needed > 0
					? json_integer(r->runs_needed)
					: json_null());
		if (r->reason != NULL)
			json_object_set_new(o, "reason",
					    json_string(r->reason));
		json_array_append_new(metrics, o);
	}
	for (size_t i = 0; i < c->nnotes; i++)
		json_array_append_new(notes, json_string(c->notes[i]));
	return json_pack(
		"{s:s, s:s, s:o, s:o, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, "
		"s:i, s:o, s:o}",
		"series", c->series, "method", compare_method_name(c->method),
		"base_commit",
		c->base.commit ? json_string(c->base.commit) : json_null(),
		"head_commit",
		c->head.commit ? json_string(c->head.commit) : json_null(),
		"base_runs", "ok", (int)c->base.runs, "failed",
		(int)c->base.failed, "incomplete", (int)c->base.incomplete,
		"head_runs", "ok", (int)c->head.runs, "failed",
		(int)c->head.failed, "incomplete", (int)c->head.incomplete,
		"compared", (int)c->nmetrics, "metrics", metrics, "notes",
		notes);
}
