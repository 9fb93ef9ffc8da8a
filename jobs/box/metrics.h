/*
 * metrics.h: the numbers of one run as they are gathered: stats (one
 * number per metric) and series (one number per second), and the
 * reduction of a series to its stat as LKP does it (DESIGN.md section
 * 5): the mean over the run, or as the caller decides.
 */
#ifndef ROBOT_METRICS_H
#define ROBOT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct metrics;

struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);
/* Sets a stat (replacing one of the same name); non-finite is dropped. */
void metrics_set(struct metrics *m, const char *name, double value);
/* Appends a sample to a series; keep says whether it goes in "series". */
void metrics_append(struct metrics *m, const char *name, double value,
		    bool keep);
/* The samples of a series, or NULL. */
const double *metrics_series(const struct metrics *m, const char *name,
			     size_t *n);
/*
 * Sets the stat of every series without one to the mean of its samples.
 * Call once at the end of a run.
 */
void metrics_reduce(struct metrics *m);
/*
 * Adds NAME.min, .max, .stddev and .cv (stddev over mean) of a series's
 * samples, and its shape (shape.h): .peak and .trough (the means of the
 * top and bottom tenths) and, when it has one, .period_s (its dominant
 * period in seconds); leaving out the first (a ramp) and the last (a
 * partial second) when asked and there are more than two; nothing when
 * the series has fewer than METRICS_SPREAD_MIN samples.
 */
void metrics_spread(struct metrics *m, const char *name, bool drop_first,
		    bool drop_last);
/* The seconds between two samples of a series. */
#define METRICS_SAMPLE_S 1.0
/* The fewest samples (after the ones dropped) a spread is made of. */
#define METRICS_SPREAD_MIN 3
/* How many spreads metrics_spread() left out for too few samples. */
size_t metrics_short_series(const struct metrics *m);
/* {"name": value, ...} in the order first set. */
json_t *metrics_stats_json(const struct metrics *m);
/* {"name": [samples], ...} of the kept series. */
json_t *metrics_series_json(const struct metrics *m);
/* A stat's value, or false. */
bool metrics_get(const struct metrics *m, const char *name, double *value);

#endif
