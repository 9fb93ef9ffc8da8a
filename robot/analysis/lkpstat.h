/*
 * lkpstat.h: LKP's "changed stat" rule (lib/stats.rb __get_changed_stats
 * and lib/changed_stat.rb), reproduced for the compatibility method of
 * "robot compare" and checked against LKP's own cases
 * (../shared/fixtures/lkp/stats_changed_stats).
 *
 * In LKP's words a is the new matrix (the head) and b the base.  "mean"
 * is LKP's: the upper median of the sorted samples after trimming the
 * margins; a side with fewer than 3 runs on both sides is not compared.
 */
#ifndef ROBOT_LKPSTAT_H
#define ROBOT_LKPSTAT_H

#include <stdbool.h>
#include <stddef.h>

/* One stat of a matrix: its samples, one per run. */
struct lkpstat_stat {
	const char *name;
	const double *v;
	size_t n;
};

struct lkpstat_options {
	bool more;            /* LKP's -m: every stat, not only bisectable */
	bool regression_only; /* skip fixed failures (and kmsg after a fix) */
	bool has_gap;
	double gap; /* the gap rule instead of LKP's default */
	bool has_variance;
	double variance; /* the variance rule (needs 10 runs a side) */
	bool has_distance;
	double distance; /* the distance rule (auto bisection) */
	/* State LKP keeps in its options hash across stats: */
	bool gap_distance_set; /* the default rule ran (gap_distance: 2) */
	bool has_boot_fix;
};

struct lkpstat_change {
	const char *stat;
	char interval[96];
	double *a, *b; /* sorted samples after trimming, owned */
	size_t na, nb;
	bool is_function_stat;
	bool is_latency;
	double ratio, delta, mean_a, mean_b, x, y, z;
	double min_a, max_a, min_b, max_b, max;
	size_t nr_run;
};

/* Whether LKP counts a stat as a failure ("function") stat. */
bool lkpstat_is_function_stat(const char *name);
/* Whether LKP counts a stat as a performance metric (ratio floor 1.01). */
bool lkpstat_is_perf_metric(const char *name);

/*
 * Compares matrix a (na stats, each of cols_a runs) with matrix b and
 * returns the changed stats (caller frees with lkpstat_changes_free()),
 * in a's order then b's.  *n gets their number.  opt is updated as LKP
 * updates its options.  abs_floor_of, if not NULL, gives LKP's
 * perf-metrics-threshold of a stat (0 for none).
 */
struct lkpstat_change *lkpstat_compare(const struct lkpstat_stat *a, size_t na,
				       const struct lkpstat_stat *b, size_t nb,
				       struct lkpstat_options *opt,
				       double (*abs_floor_of)(const char *),
				       size_t *n);
void lkpstat_changes_free(struct lkpstat_change *c, size_t n);

#endif
