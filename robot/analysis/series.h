/*
 * series.h: runs grouped into series, and each series' KPIs.
 *
 * A series is a job's key with its box group (DESIGN.md section 4); the
 * runs of one series at two commits are what a comparison compares.  Its
 * KPIs are the workload's own metrics ("fsmark.", "dd."): the workload
 * is named by the job's program keys or, failing that, by its testcase
 * ("dd-write" runs dd).  Which names are workloads is the job language's
 * knowledge (jobs/catalog.h), handed in as a function so that analysis
 * does not depend on the layer above it.
 */
#ifndef ROBOT_SERIES_H
#define ROBOT_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/analysis/result.h"

/* The testcase of a series: its name's part before the first '/' (the
 * caller frees it). */
char *series_testcase(const char *series);
/* The workload a program name or a testcase stands for, or NULL. */
typedef const char *(*series_workload_fn)(const char *name);

/* The runs of one series on both sides (borrowed from the caller). */
struct series_pair {
	const char *series;
	const struct result **base;
	size_t nbase;
	const struct result **head;
	size_t nhead;
};

struct series_set {
	struct series_pair *v; /* base's series first, in the runs' order */
	size_t n;
};

/* Groups base and head runs by series. */
void series_group(const struct result *base, size_t nb,
		  const struct result *head, size_t nh, struct series_set *out);
void series_set_release(struct series_set *s);
/*
 * The KPI prefix of a run ("fsmark."), into buf; false when no workload
 * can be told.
 */
bool series_kpi_prefix(const struct result *r, series_workload_fn workload,
		       char *buf, size_t len);
/* The same, of an atomic job (its JSON, NULL when unknown) and its key. */
bool series_kpi_prefix_of(json_t *job, const char *key,
			  series_workload_fn workload, char *buf, size_t len);

#endif
