/*
 * changes.h: the change points of a history.
 *
 * A history is one series' metric along its commits, in commit order:
 * each point a commit and the values of its runs.  changes_find() says
 * where its level changed: binary segmentation with a rank test (every
 * run counts, not only a point's mean; outliers and skew cannot make a
 * change), its p-value that of the largest of the candidate splits
 * (a permutation test, so exact whatever the noise), then a pruning pass
 * that tests each change point again between its neighbours.
 * docs/statistics.md has the method and its measured errors.
 */
#ifndef ROBOT_CHANGES_H
#define ROBOT_CHANGES_H

#include <stdbool.h>
#include <stddef.h>

/* One point of a history: a commit and its runs' values. */
struct changes_point {
	const char *commit; /* not read by changes_find() */
	const double *v;    /* n finite values */
	size_t n;           /* at least 1 */
};

struct changes_options {
	double alpha;          /* false change points per segment tested;
				  default 0.001 */
	double min_effect_pct; /* smallest change that counts; default 2 */
	size_t min_segment;    /* fewest points a segment has; default 2 */
};

/* A change point: the level of [from, index) differs from [index, to). */
struct change_point {
	size_t index;      /* the first point after the change */
	size_t from, to;   /* the segments around it */
	size_t nbefore;    /* runs of [from, index) */
	size_t nafter;     /* runs of [index, to) */
	double before;     /* the mean of the runs of [from, index) */
	double after;      /* the mean of the runs of [index, to) */
	double change_pct; /* 100 * (after - before) / before; NAN when
			       before is 0 */
	double effect_pct; /* the change the test rests on: of the 20%
			       trimmed means of the logs (of the values,
			       if one is not positive) */
	double p;          /* the test's p-value, the search for the
			       split accounted for */
};

/* Fills opt with the defaults. */
void changes_options_init(struct changes_options *opt);
/*
 * The change points of the history pts[0..n), in order, into *out (the
 * caller frees it; NULL when there are none).  Returns how many.  The
 * result depends only on the values: the permutations' random numbers
 * are seeded from the segment tested.
 */
size_t changes_find(const struct changes_point *pts, size_t n,
		    const struct changes_options *opt,
		    struct change_point **out);

#endif
