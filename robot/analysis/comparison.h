/*
 * comparison.h: the comparison of one series (key and box group) between
 * the runs of two commits, metric by metric, as "robot compare" prints it
 * and the daemon stores it.
 *
 * Failed and incomplete runs are left out and counted; a metric missing
 * from one side is left out with a note; every other metric is compared
 * with compare_metric().
 */
#ifndef ROBOT_COMPARISON_H
#define ROBOT_COMPARISON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "robot/analysis/compare.h"
#include "robot/analysis/direction.h"
#include "robot/analysis/result.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"

struct comparison_metric {
	const char *name; /* borrowed from a result document */
	bool kpi;         /* the workload's own metric with a direction */
	struct compare_result r;
};

struct comparison_side {
	const char *commit; /* borrowed; NULL for runs of no commit */
	size_t runs;        /* ok runs compared */
	size_t failed;      /* runs left out */
	size_t incomplete;
};

struct comparison {
	char *series;
	enum compare_method method;
	struct comparison_side base;
	struct comparison_side head;
	size_t rounds; /* compared within rounds (compare_options.paired):
			* how many; 0 for two independent sides */
	/* the runs compared, round by round: each round's base run and
	 * head run (their jobs), when robotd knows them (its JSON's
	 * "round_runs"; comparison_set_round_runs()) */
	long long (*round_runs)[2];
	size_t nround_runs;
	struct comparison_metric *metrics; /* in the order of the documents */
	size_t nmetrics;
	size_t ncompared; /* metrics compared (comparison_from_json()'s
			   * holds only those its JSON had) */
	char **notes;     /* what was left out and why */
	size_t nnotes;
	json_t *json; /* comparison_from_json()'s, which names are of */
};

/* The values of one metric on both sides (borrowed). */
struct comparison_column {
	const char *name;
	const double *base;
	size_t nb;
	const double *head;
	size_t nh;
};

/*
 * Compares columns of values, one per metric, as comparison_new() does
 * once it has them: base and head say how many ok (and failed, and
 * incomplete) runs each side has, so that a metric missing from some runs
 * is noted.  robotd compares this way from the values it stores per
 * series, commit and metric.  Never NULL.
 */
struct comparison *
comparison_of_columns(const char *series, const struct comparison_side *base,
		      const struct comparison_side *head,
		      const struct comparison_column *cols, size_t ncols,
		      const struct compare_options *opt,
		      const struct direction_table *dt, const char *kpi_prefix);

/* Whether metric is a KPI: one of the workload's headline figures
 * (directly under kpi_prefix, "dd.write_bytes_per_sec") with a direction
 * in dt.  What a comparison marks "kpi". */
bool comparison_is_kpi(const struct direction_table *dt, const char *metric,
		       const char *kpi_prefix);

/*
 * Compares the runs of one series.  kpi_prefix is the workload's metric
 * prefix ("fsmark.", series_kpi_prefix()), or NULL when none is known
 * (then no metric is a KPI).
 * Returns NULL with the problems in el when there is nothing to compare.
 */
struct comparison *comparison_new(const char *series,
				  const struct result *const *base, size_t nb,
				  const struct result *const *head, size_t nh,
				  const struct compare_options *opt,
				  const struct direction_table *dt,
				  const char *kpi_prefix, struct errlist *el);
void comparison_free(struct comparison *c);
/*
 * The JSON of DESIGN.md section 6, appended to out: one object per
 * metric, of every metric with all, else of the KPIs and the metrics that
 * changed (what the table shows); "compared" counts them all.  Numbers
 * have ten significant digits.  indent -1 writes it compact; else each
 * member goes on a line of its own, indent spaces in, and each metric on
 * one line, two further in.  With fp, out is written to fp as it fills
 * and at the end (then out is left empty); false if that failed.
 */
bool comparison_json(const struct comparison *c, bool all, int indent,
		     struct buf *out, FILE *fp)
	__attribute__((warn_unused_result));
/* The same JSON as a jansson value, for who wants to look into it. */
json_t *comparison_to_json(const struct comparison *c, bool all);
/*
 * The comparison that JSON is of (robotd's answer to GET /api/compare),
 * with the metrics it holds: what the table and the KPIs need.  It holds
 * a reference to j.  NULL when j is not a comparison.
 */
struct comparison *comparison_from_json(json_t *j);
/* The runs c compared, round by round (copied). */
void comparison_set_round_runs(struct comparison *c, const long long (*runs)[2],
			       size_t n);

#endif
