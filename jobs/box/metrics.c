/*
 * metrics.c: stats and series of a run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/box/metrics.h"
#include "robot/analysis/shape.h"
#include "robot/core/strmap.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct entry {
	char *name;
	bool has_stat;
	double stat;
	double *samples;
	size_t n, cap;
	bool keep; /* output the series */
};

struct metrics {
	struct entry *v;
	size_t n, cap;
	struct strmap *index;
	size_t short_series; /* spreads left out: too few samples */
};

struct metrics *
metrics_new(void)
{
	struct metrics *m = xcalloc(1, sizeof *m);

	m->index = strmap_new(256);
	return m;
}

void
metrics_free(struct metrics *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].samples);
	}
	free(m->v);
	strmap_free(m->index);
	free(m);
}

static struct entry *
entry(struct metrics *m, const char *name)
{
	size_t i;

	if (strmap_get(m->index, name, &i))
		return &m->v[i];
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->v = xreallocarray(m->v, m->cap, sizeof *m->v);
		/* The map keeps pointers to the names, which stay put. */
	}
	memset(&m->v[m->n], 0, sizeof m->v[m->n]);
	m->v[m->n].name = xstrdup(name);
	strmap_put(m->index, m->v[m->n].name, m->n);
	return &m->v[m->n++];
}

void
metrics_set(struct metrics *m, const char *name, double value)
{
	struct entry *e;

	if (!isfinite(value))
		return;
	e = entry(m, name);
	e->has_stat = true;
	e->stat = value;
}

void
metrics_append(struct metrics *m, const char *name, double value, bool keep)
{
	struct entry *e;

	if (!isfinite(value))
		return;
	e = entry(m, name);
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		e->samples =
			xreallocarray(e->samples, e->cap, sizeof *e->samples);
	}
	e->samples[e->n++] = value;
	e->keep = e->keep || keep;
}

const double *
metrics_series(const struct metrics *m, const char *name, size_t *n)
{
	size_t i;

	if (!strmap_get(m->index, name, &i))
		return NULL;
	*n = m->v[i].n;
	return m->v[i].samples;
}

bool
metrics_get(const struct metrics *m, const char *name, double *value)
{
	size_t i;

	if (!strmap_get(m->index, name, &i) || !m->v[i].has_stat)
		return false;
	*value = m->v[i].stat;
	return true;
}

void
metrics_reduce(struct metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct entry *e = &m->v[i];
		double sum = 0;

		if (e->has_stat || e->n == 0)
			continue;
		for (size_t k = 0; k < e->n; k++)
			sum += e->samples[k];
		e->has_stat = true;
		e->stat = sum / (double)e->n;
	}
}

void
metrics_spread(struct metrics *m, const char *name, bool drop_first,
	       bool drop_last)
{
	size_t n, i;
	const double *v = metrics_series(m, name, &n);
	double min, max, sum = 0, sq = 0, mean;
	struct shape sh;
	char *key;

	if (v == NULL || n == 0)
		return;
	/* Fewer than three seconds say nothing of how a throughput varies:
	 * no figures rather than noise (the run's warning says why). */
	if (n < METRICS_SPREAD_MIN) {
		m->short_series++;
		return;
	}
	if (drop_last && n > 2)
		n--;
	if (drop_first && n > 2) {
		v++;
		n--;
	}
	min = max = v[0];
	for (i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	key = xasprintf("%s.min", name);
	metrics_set(m, key, min);
	free(key);
	key = xasprintf("%s.max", name);
	metrics_set(m, key, max);
	free(key);
	key = xasprintf("%s.stddev", name);
	metrics_set(m, key, sqrt(sq / (double)n));
	free(key);
	/* How erratic, relative to the mean: a throughput that halves
	 * halves its stddev too, and is no steadier for it. */
	if (mean > 0) {
		key = xasprintf("%s.cv", name);
		metrics_set(m, key, sqrt(sq / (double)n) / mean);
		free(key);
	}
	/* Its shape: a steady 50k and a swing between 20k and 80k have
	 * one mean. */
	shape_of(v, n, &sh);
	key = xasprintf("%s.peak", name);
	metrics_set(m, key, sh.peak);
	free(key);
	key = xasprintf("%s.trough", name);
	metrics_set(m, key, sh.trough);
	free(key);
	if (sh.periodic) {
		key = xasprintf("%s.period_s", name);
		metrics_set(m, key, sh.period * METRICS_SAMPLE_S);
		free(key);
	}
}

size_t
metrics_short_series(const struct metrics *m)
{
	return m->short_series;
}

json_t *
metrics_stats_json(const struct metrics *m)
{
	json_t *o = json_object();

	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].has_stat)
			json_object_set_new(o, m->v[i].name,
					    json_real(m->v[i].stat));
	return o;
}

json_t *
metrics_series_json(const struct metrics *m)
{
	json_t *o = json_object();

	for (size_t i = 0; i < m->n; i++) {
		json_t *a;

		if (!m->v[i].keep)
			continue;
		a = json_array();
		for (size_t k = 0; k < m->v[i].n; k++)
			json_array_append_new(a, json_real(m->v[i].samples[k]));
		json_object_set_new(o, m->v[i].name, a);
	}
	return o;
}
