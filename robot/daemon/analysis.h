/*
 * analysis.h: robotd decides by itself (DESIGN.md section 7).  A pair
 * (one series, a base and a head commit) whose runs have all ended is
 * claimed from the database, compared with the robust method from the
 * values stored per series, commit and metric (the same code as `robot
 * compare`), and decided on (robot/analysis/decide.h): more runs on both
 * sides while a KPI is inconclusive, up to max_runs; then final, its
 * regressions and improvements recorded.  A few pairs at a time, one
 * after another while there are any; woken by the database's
 * notification when a pair is ready, and every few seconds for claims
 * that a robotd killed meanwhile left behind.
 */
#ifndef ROBOT_ANALYSIS_H
#define ROBOT_ANALYSIS_H

#include <event2/event.h>

#include <jansson.h>

#include "robot/analysis/compare.h"

#include "robot/daemon/drain.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"
#include "robot/daemon/worker.h"

struct analysis;

/* A worker of d (woken by ":analysis"); the comparisons run on a
 * thread of analysis' own (worker.h). */
struct analysis *analysis_new(struct drain *d, struct event_base *base,
			      struct store *store, const struct settings *set);
/* Stops the thread (what it has ends; later work runs at once): before
 * the database goes, at robotd's stop. */
void analysis_stop(struct analysis *a);
typedef void (*analysis_cb)(json_t *answer, const struct problem *p, void *arg);

/* How a comparison asked for is made (GET /api/compare's options). */
struct analysis_ask {
	enum compare_method method;
	double min_effect_pct;
	bool all; /* every metric in the answer, not only what is shown */
};

/*
 * The comparison of series between base and head: the one analysis
 * stored when ask is NULL or asks what analysis does (the robust method,
 * the default floor, what is shown), else one made now from the stored
 * values, as ask says.  answer (consumed by the callback): {"series",
 * "base", "head", "verdict", "kpi", "runs", "stored", "comparison",
 * "table"}; 404 when a side has no ok runs.
 */
/* The metric directions analysis decides with (read-only: the pages
 * may read them too). */
const struct direction_table *analysis_directions(const struct analysis *a);
void analysis_compare(struct analysis *a, const char *series, const char *base,
		      const char *head, const struct analysis_ask *ask,
		      analysis_cb cb, void *arg);
/* Pairs analysed since the start (for /metrics). */
unsigned long long analysis_count(const struct analysis *a);
void analysis_free(struct analysis *a);

#endif
