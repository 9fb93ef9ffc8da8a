/*
 * comparison.c: one series, two commits, every metric.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/comparison.h"
#include "robot/core/buf.h"
#include "robot/core/num.h"
#include "robot/core/strmap.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* The significant digits of a comparison's numbers, in its JSON and so
 * in memory (written_result()). */
#define WRITTEN_DIGITS 10

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

bool
comparison_is_kpi(const struct direction_table *dt, const char *metric,
		  const char *kpi_prefix)
{
	return is_headline(metric, kpi_prefix) &&
	       direction_lookup(dt, metric).sign != 0;
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

/*
 * Whether a metric missing from some ok runs was 0 there: a profile row
 * (perf-profile.*) is left out of a run where its share was under the
 * box's floor (jobs/box/perfparse.h), so a function that appeared or
 * vanished is a change from or to 0, not a metric of one side.  In
 * rounds the missing run's round is not known: left as it is.
 */
static bool
zero_when_missing(const struct comparison_column *col,
		  const struct comparison_side *base,
		  const struct comparison_side *head,
		  const struct compare_options *opt)
{
	return !opt->paired && str_has_prefix(col->name, "perf-profile.") &&
	       base->runs > 0 && head->runs > 0 &&
	       (col->nb < base->runs || col->nh < head->runs);
}

static void
written_side(struct stats_summary *s)
{
	s->mean = num_round(s->mean, WRITTEN_DIGITS);
	s->stddev = num_round(s->stddev, WRITTEN_DIGITS);
	s->min = num_round(s->min, WRITTEN_DIGITS);
	s->max = num_round(s->max, WRITTEN_DIGITS);
}

/*
 * A metric's numbers made the ones its JSON holds: a table printed from
 * the comparison (robotd's, in its mails) is then the table printed from
 * the JSON it stored (robot compare --series, the pages).  Otherwise a
 * mean of rates with two decimals that falls an ulp under x.xx5 prints
 * 10.08 here and 10.09 there, and one of a metric and its copy in other
 * units (meminfo.Dirty, proc-vmstat.nr_dirty) leads "what moved" here
 * and the other there.
 */
static void
written_result(struct compare_result *r)
{
	written_side(&r->base);
	written_side(&r->head);
	if (r->change_defined)
		r->change_pct = num_round(r->change_pct, WRITTEN_DIGITS);
	r->p_value = num_round(r->p_value, WRITTEN_DIGITS);
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
	c->rounds = opt->paired ? base->runs : 0;
	c->metrics = xcalloc(ncols + 1, sizeof *c->metrics);
	for (size_t i = 0; i < ncols; i++) {
		const struct comparison_column *col = &cols[i];
		struct comparison_metric *m;
		struct direction dir;

		struct comparison_column z = *col;
		double *zeros = NULL;

		if (zero_when_missing(col, base, head, opt)) {
			zeros = xcalloc(base->runs + head->runs, sizeof *zeros);
			if (col->nb > 0)
				memcpy(zeros, col->base,
				       col->nb * sizeof *zeros);
			if (col->nh > 0)
				memcpy(zeros + base->runs, col->head,
				       col->nh * sizeof *zeros);
			z = (struct comparison_column){
				col->name, zeros, base->runs,
				zeros + base->runs, head->runs};
			col = &z;
		}
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
		compare_metric_lazy(col->name, col->base, col->nb, col->head,
				    col->nh, opt, &dir, &m->r);
		free(zeros);
		m->kpi = dir.sign != 0 && is_headline(col->name, kpi_prefix);
		/* (comparison_is_kpi(), with the direction at hand) */
		/* what is shown has its p-value; the writer makes the rest's */
		if (m->kpi || compare_verdict_is_change(m->r.verdict))
			m->r.p_value = compare_p_value(&m->r);
		written_result(&m->r);
		if (m->kpi && m->r.rounds_dropped > 0)
			note(c,
			     "%s: %zu of %zu rounds left out, an outlier run "
			     "in each (more than %d sd from the rounds' "
			     "median)",
			     col->name, m->r.rounds_dropped, col->nb,
			     COMPARE_SCREEN);
		if (m->kpi && m->r.screen_due &&
		    m->r.verdict == COMPARE_INCONCLUSIVE)
			note(c,
			     "%s: a round lies more than %d sd from the "
			     "rounds' median, an outlier run: it is left out "
			     "from %d rounds on",
			     col->name, COMPARE_SCREEN, COMPARE_SCREEN_FROM);
	}
	c->ncompared = c->nmetrics;
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
	free(c->round_runs);
	free(c->series);
	json_decref(c->json);
	free(c);
}

/*
 * The JSON writer.  A comparison of 100,000 metrics is a million
 * numbers: written straight into a buffer with num_format() (printf
 * and a jansson tree of them cost ten times the comparison), ten
 * significant digits (the figures are measurements), flushed to a
 * stream as it fills.
 */
struct jw {
	struct buf *b;
	FILE *fp;   /* flushed to when the buffer fills, or NULL */
	int indent; /* of the comparison's members; -1 for none */
	bool failed;
};

static void
jw_flush(struct jw *w, size_t over)
{
	if (w->fp == NULL || w->b->len < over)
		return;
	if (w->b->len > 0 &&
	    fwrite(w->b->data, 1, w->b->len, w->fp) != w->b->len)
		w->failed = true;
	buf_reset(w->b);
}

static void
jw_str(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	buf_addc(w->b, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(w->b, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\') {
			buf_addc(w->b, '\\');
			buf_addc(w->b, (char)c);
		} else {
			char u[6] = {'\\', 'u',         '0',
				     '0',  hex[c >> 4], hex[c & 15]};

			buf_add(w->b, u, sizeof u);
		}
	}
	buf_add(w->b, run, (size_t)(s - run));
	buf_addc(w->b, '"');
}

/* A finite number, or null: never NaN or infinity. */
static void
jw_num(struct jw *w, double d, bool defined)
{
	char tmp[NUM_FORMAT_MAX];

	if (defined && isfinite(d))
		buf_add(w->b, tmp, num_format(tmp, d, WRITTEN_DIGITS));
	else
		buf_adds(w->b, "null");
}

static void
jw_int(struct jw *w, long long v)
{
	char tmp[24], *p = tmp + sizeof tmp;
	unsigned long long u =
		v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		*--p = '-';
	buf_add(w->b, p, (size_t)(tmp + sizeof tmp - p));
}

/* ",\n" and the indent before a member (the first: no comma). */
static void
jw_member(struct jw *w, const char *key, bool first, int extra)
{
	if (!first)
		buf_addc(w->b, ',');
	if (w->indent >= 0) {
		buf_addc(w->b, '\n');
		for (int i = 0; i < w->indent + extra; i++)
			buf_addc(w->b, ' ');
	}
	if (key != NULL) {
		jw_str(w, key);
		buf_adds(w->b, w->indent >= 0 ? ": " : ":");
	}
}

/* ", " between the members of an object on one line. */
static const char *
jw_sep(const struct jw *w)
{
	return w->indent >= 0 ? ", " : ",";
}

/* ", \"key\": " inside an object on one line, of a literal key: one
 * copy of a string the compiler joined. */
#define JW_KEY(w, k)                                                           \
	((w)->indent >= 0                                                      \
		 ? buf_add((w)->b,                                             \
			   ", \"" k "\": ", sizeof(", \"" k "\": ") - 1)       \
		 : buf_add((w)->b, ",\"" k "\":", sizeof(",\"" k "\":") - 1))

/* ", \"key\": " inside an object on one line (key needs no escapes). */
static void
jw_key(struct jw *w, const char *key)
{
	buf_adds(w->b, jw_sep(w));
	buf_addc(w->b, '"');
	buf_adds(w->b, key);
	buf_adds(w->b, w->indent >= 0 ? "\": " : "\":");
}

static void
jw_side(struct jw *w, const char *key, const struct stats_summary *s)
{
	jw_key(w, key);
	buf_adds(w->b, w->indent >= 0 ? "{\"n\": " : "{\"n\":");
	jw_int(w, (long long)s->n);
	JW_KEY(w, "mean");
	jw_num(w, s->mean, true);
	JW_KEY(w, "stddev");
	jw_num(w, s->stddev, true);
	JW_KEY(w, "min");
	jw_num(w, s->min, true);
	JW_KEY(w, "max");
	jw_num(w, s->max, true);
	buf_addc(w->b, '}');
}

/* One metric's object, on one line. */
static void
jw_metric(struct jw *w, const struct comparison_metric *m)
{
	const struct compare_result *r = &m->r;
	buf_adds(w->b, w->indent >= 0 ? "{\"metric\": " : "{\"metric\":");
	jw_str(w, m->name);
	jw_side(w, "base", &r->base);
	jw_side(w, "head", &r->head);
	JW_KEY(w, "change_pct");
	jw_num(w, r->change_pct, r->change_defined);
	JW_KEY(w, "p_value");
	jw_num(w, compare_p_value(r), true);
	JW_KEY(w, "direction");
	jw_int(w, r->direction);
	JW_KEY(w, "verdict");
	jw_str(w, compare_verdict_name(r->verdict));
	JW_KEY(w, "kpi");
	buf_adds(w->b, m->kpi ? "true" : "false");
	if (r->verdict == COMPARE_INCONCLUSIVE) {
		JW_KEY(w, "runs_needed");
		if (r->runs_needed > 0)
			jw_int(w, r->runs_needed);
		else
			buf_adds(w->b, "null");
	}
	if (r->reason != NULL) {
		JW_KEY(w, "reason");
		jw_str(w, r->reason);
	}
	if (r->rounds_dropped > 0) {
		JW_KEY(w, "rounds_dropped");
		jw_int(w, (long long)r->rounds_dropped);
	}
	if (r->screen_due) {
		JW_KEY(w, "screen_due");
		buf_adds(w->b, "true");
	}
	if (r->history != COMPARE_HISTORY_NONE) {
		char note[256];

		JW_KEY(w, "history");
		buf_adds(w->b, w->indent >= 0 ? "{\"state\": " : "{\"state\":");
		jw_str(w, compare_history_name(r->history));
		JW_KEY(w, "prior_var");
		jw_num(w, r->prior_var, true);
		JW_KEY(w, "prior_df");
		jw_num(w, r->prior_df, true);
		JW_KEY(w, "own_var");
		jw_num(w, r->noise_var, true);
		JW_KEY(w, "own_df");
		jw_num(w, r->noise_df, true);
		if (isfinite(r->resolution_pct)) {
			JW_KEY(w, "resolution_pct");
			jw_num(w, r->resolution_pct, true);
		}
		compare_history_note(r, note, sizeof note);
		JW_KEY(w, "note");
		jw_str(w, note);
		buf_addc(w->b, '}');
	}
	buf_addc(w->b, '}');
}

static void
jw_runs(struct jw *w, const char *key, const struct comparison_side *s)
{
	jw_member(w, key, false, 0);
	buf_adds(w->b, w->indent >= 0 ? "{\"ok\": " : "{\"ok\":");
	jw_int(w, (long long)s->runs);
	JW_KEY(w, "failed");
	jw_int(w, (long long)s->failed);
	JW_KEY(w, "incomplete");
	jw_int(w, (long long)s->incomplete);
	buf_addc(w->b, '}');
}

bool
comparison_json(const struct comparison *c, bool all, int indent,
		struct buf *out, FILE *fp)
{
	struct jw w = {out, fp, indent, false};
	size_t shown = 0;

	buf_addc(out, '{');
	jw_member(&w, "series", true, 0);
	jw_str(&w, c->series);
	jw_member(&w, "method", false, 0);
	jw_str(&w, compare_method_name(c->method));
	jw_member(&w, "base_commit", false, 0);
	if (c->base.commit != NULL)
		jw_str(&w, c->base.commit);
	else
		buf_adds(out, "null");
	jw_member(&w, "head_commit", false, 0);
	if (c->head.commit != NULL)
		jw_str(&w, c->head.commit);
	else
		buf_adds(out, "null");
	jw_runs(&w, "base_runs", &c->base);
	jw_runs(&w, "head_runs", &c->head);
	jw_member(&w, "rounds", false, 0);
	jw_int(&w, (long long)c->rounds);
	if (c->nround_runs > 0) {
		jw_member(&w, "round_runs", false, 0);
		buf_addc(out, '[');
		for (size_t i = 0; i < c->nround_runs; i++) {
			buf_addf(out, "%s[%lld,%s%lld]",
				 i > 0 ? jw_sep(&w) : "", c->round_runs[i][0],
				 indent >= 0 ? " " : "", c->round_runs[i][1]);
		}
		buf_addc(out, ']');
	}
	jw_member(&w, "compared", false, 0);
	jw_int(&w, (long long)c->ncompared);
	jw_member(&w, "metrics", false, 0);
	buf_addc(out, '[');
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];

		if (!all && !m->kpi && !compare_verdict_is_change(m->r.verdict))
			continue;
		jw_member(&w, NULL, shown++ == 0, 2);
		jw_metric(&w, m);
		jw_flush(&w, 65536);
	}
	if (shown > 0)
		jw_member(&w, NULL, true, 0);
	buf_addc(out, ']');
	jw_member(&w, "notes", false, 0);
	buf_addc(out, '[');
	for (size_t i = 0; i < c->nnotes; i++) {
		if (i > 0)
			buf_adds(out, jw_sep(&w));
		jw_str(&w, c->notes[i]);
	}
	buf_addc(out, ']');
	if (indent >= 0) {
		buf_addc(out, '\n');
		for (int i = 0; i < indent - 2; i++)
			buf_addc(out, ' ');
	}
	buf_addc(out, '}');
	jw_flush(&w, 0);
	return !w.failed;
}

json_t *
comparison_to_json(const struct comparison *c, bool all)
{
	struct buf b;
	json_t *j;

	buf_init(&b);
	if (!comparison_json(c, all, -1, &b, NULL))
		abort(); /* no stream: it cannot fail */
	j = json_loadb(b.data, b.len, 0, NULL);
	buf_release(&b);
	if (j == NULL)
		abort(); /* the writer writes JSON */
	return j;
}

/* A number of the writer's, or null (as NAN). */
static double
json_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool
side_from_json(json_t *o, struct stats_summary *s)
{
	if (!json_is_integer(json_object_get(o, "n")))
		return false;
	s->n = (size_t)json_integer_value(json_object_get(o, "n"));
	s->mean = json_num(o, "mean");
	s->stddev = json_num(o, "stddev");
	s->min = json_num(o, "min");
	s->max = json_num(o, "max");
	s->median = NAN; /* not in the JSON; nothing shown needs it */
	return true;
}

static bool
runs_from_json(json_t *o, struct comparison_side *s)
{
	s->runs = (size_t)json_integer_value(json_object_get(o, "ok"));
	s->failed = (size_t)json_integer_value(json_object_get(o, "failed"));
	s->incomplete =
		(size_t)json_integer_value(json_object_get(o, "incomplete"));
	return json_is_object(o);
}

static bool
metric_from_json(json_t *o, struct comparison_metric *m)
{
	static const enum compare_verdict verdicts[] = {
		COMPARE_REGRESSION, COMPARE_IMPROVEMENT, COMPARE_CHANGED,
		COMPARE_UNCHANGED, COMPARE_INCONCLUSIVE};
	struct compare_result *r = &m->r;
	const char *v = json_string_value(json_object_get(o, "verdict"));
	json_t *need = json_object_get(o, "runs_needed"), *h;
	bool known = false;

	memset(m, 0, sizeof *m);
	m->name = json_string_value(json_object_get(o, "metric"));
	m->kpi = json_is_true(json_object_get(o, "kpi"));
	for (size_t i = 0; v != NULL && i < 5; i++)
		if (strcmp(v, compare_verdict_name(verdicts[i])) == 0) {
			r->verdict = verdicts[i];
			known = true;
		}
	r->change_pct = json_num(o, "change_pct");
	r->change_defined = !isnan(r->change_pct);
	r->p_value = json_num(o, "p_value");
	r->effect_pct = NAN;
	r->direction = (int)json_integer_value(json_object_get(o, "direction"));
	/* null for an inconclusive verdict: more runs are unlikely to
	 * settle it (the engine's -1) */
	r->runs_needed = json_is_integer(need) ? (int)json_integer_value(need)
			 : r->verdict == COMPARE_INCONCLUSIVE ? -1
							      : 0;
	r->reason = json_string_value(json_object_get(o, "reason"));
	r->resolution_pct = NAN;
	if (json_integer_value(json_object_get(o, "rounds_dropped")) > 0)
		r->rounds_dropped = (size_t)json_integer_value(
			json_object_get(o, "rounds_dropped"));
	r->screen_due = json_is_true(json_object_get(o, "screen_due"));
	if (json_is_object(h = json_object_get(o, "history"))) {
		const char *st = json_string_value(json_object_get(h, "state"));

		r->history = st == NULL                ? COMPARE_HISTORY_NONE
			     : strcmp(st, "used") == 0 ? COMPARE_HISTORY_USED
			     : strcmp(st, "noisier") == 0
				     ? COMPARE_HISTORY_NOISIER
				     : COMPARE_HISTORY_NONE;
		r->prior_var = json_num(h, "prior_var");
		r->prior_df = json_num(h, "prior_df");
		r->noise_var = json_num(h, "own_var");
		r->noise_df = json_num(h, "own_df");
		r->resolution_pct = json_num(h, "resolution_pct");
	}
	return m->name != NULL && known &&
	       side_from_json(json_object_get(o, "base"), &r->base) &&
	       side_from_json(json_object_get(o, "head"), &r->head);
}

void
comparison_set_round_runs(struct comparison *c, const long long (*runs)[2],
			  size_t n)
{
	free(c->round_runs);
	c->round_runs =
		n > 0 ? xreallocarray(NULL, n, sizeof *c->round_runs) : NULL;
	if (n > 0)
		memcpy(c->round_runs, runs, n * sizeof *c->round_runs);
	c->nround_runs = n;
}

/* "round_runs": [[base job, head job], ...]; any other shape is none. */
static void
round_runs_from_json(struct comparison *c, const json_t *a)
{
	const json_t *r;
	size_t i;

	json_array_foreach(a, i, r)
	{
		if (json_array_size(r) != 2 ||
		    !json_is_integer(json_array_get(r, 0)) ||
		    !json_is_integer(json_array_get(r, 1)))
			return;
	}
	c->nround_runs = json_array_size(a);
	c->round_runs = c->nround_runs > 0
				? xcalloc(c->nround_runs, sizeof *c->round_runs)
				: NULL;
	json_array_foreach(a, i, r)
	{
		c->round_runs[i][0] = json_integer_value(json_array_get(r, 0));
		c->round_runs[i][1] = json_integer_value(json_array_get(r, 1));
	}
}

struct comparison *
comparison_from_json(json_t *j)
{
	json_t *metrics = json_object_get(j, "metrics"),
	       *notes = json_object_get(j, "notes"), *m = NULL;
	const char *series = json_string_value(json_object_get(j, "series"));
	const char *method;
	struct comparison *c;
	size_t i;

	if (series == NULL || !json_is_array(metrics))
		return NULL;
	c = xcalloc(1, sizeof *c);
	c->json = json_incref(j);
	c->series = xstrdup(series);
	method = json_string_value(json_object_get(j, "method"));
	c->method = method != NULL && strcmp(method, "lkp") == 0
			    ? COMPARE_LKP
			    : COMPARE_ROBUST;
	c->ncompared =
		(size_t)json_integer_value(json_object_get(j, "compared"));
	c->rounds = (size_t)json_integer_value(json_object_get(j, "rounds"));
	c->base.commit = json_string_value(json_object_get(j, "base_commit"));
	c->head.commit = json_string_value(json_object_get(j, "head_commit"));
	c->metrics = xcalloc(json_array_size(metrics) + 1, sizeof *c->metrics);
	if (!runs_from_json(json_object_get(j, "base_runs"), &c->base) ||
	    !runs_from_json(json_object_get(j, "head_runs"), &c->head))
		goto bad;
	json_array_foreach(metrics, i, m)
	{
		if (!metric_from_json(m, &c->metrics[c->nmetrics++]))
			goto bad;
	}
	json_array_foreach(notes, i, m)
	{
		if (json_is_string(m))
			note(c, "%s", json_string_value(m));
	}
	round_runs_from_json(c, json_object_get(j, "round_runs"));
	return c;
bad:
	comparison_free(c);
	return NULL;
}
