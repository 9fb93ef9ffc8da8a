/*
 * series.c: grouping runs by series, and the KPI prefix of a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/series.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static struct series_pair *
series_find(struct series_set *s, const char *series)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].series, series) == 0)
			return &s->v[i];
	return NULL;
}

static void
series_add(struct series_set *s, const struct result *r, bool head)
{
	struct series_pair *p = series_find(s, r->series);
	const struct result ***runs;
	size_t *n;

	if (p == NULL) {
		s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
		p = &s->v[s->n++];
		memset(p, 0, sizeof *p);
		p->series = r->series;
	}
	runs = head ? &p->head : &p->base;
	n = head ? &p->nhead : &p->nbase;
	*runs = xreallocarray(*runs, *n + 1, sizeof **runs);
	(*runs)[(*n)++] = r;
}

void
series_group(const struct result *base, size_t nb, const struct result *head,
	     size_t nh, struct series_set *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < nb; i++)
		series_add(out, &base[i], false);
	for (size_t i = 0; i < nh; i++)
		series_add(out, &head[i], true);
}

void
series_set_release(struct series_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].base);
		free(s->v[i].head);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}

bool
series_kpi_prefix_of(json_t *job, const char *key, series_workload_fn workload,
		     char *buf, size_t len)
{
	const char *k, *w = NULL;
	char *testcase = NULL;
	json_t *v;
	bool ok;

	json_object_foreach(job, k, v)
	{
		if ((w = workload(k)) != NULL && strcmp(w, k) == 0)
			break;
		w = NULL;
	}
	if (w == NULL) {
		testcase = xstrndup(key, strcspn(key, "/"));
		w = workload(testcase);
	}
	ok = w != NULL && (size_t)snprintf(buf, len, "%s.", w) < len;
	free(testcase); /* w may point into it */
	return ok;
}

bool
series_kpi_prefix(const struct result *r, series_workload_fn workload,
		  char *buf, size_t len)
{
	return series_kpi_prefix_of(json_object_get(r->json, "job"), r->key,
				    workload, buf, len);
}

char *
series_testcase(const char *series)
{
	return xstrndup(series, strcspn(series, "/"));
}
