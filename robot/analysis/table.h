/*
 * table.h: LKP's ncompare table, byte for byte, so that the robot's
 * comparisons read like 0-day mails:
 *
 *   84d1f2b4c0a1d2e3 4e159150a9a56d66d247f4b5510
 *   ---------------- ---------------------------
 *            %stddev     %change         %stddev
 *                \          |                \
 *        36122 +-  3%     -57.4%      15404 +-  2%  fsmark.time.involu...
 *
 * (with LKP's "±").  Mean over the runs; %stddev = 100 * stddev / mean
 * of the population stddev, blank when 2% or less; %change of the means;
 * metrics ending in '%' show the absolute change.  Rows are sorted as
 * LKP sorts them: the test's own metrics first.
 */
#ifndef ROBOT_TABLE_H
#define ROBOT_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "robot/analysis/comparison.h"

/*
 * Prints the table of c: only the metrics that changed, or all of them.
 * Returns the number of rows printed.
 */
size_t table_print(FILE *fp, const struct comparison *c, bool all);
/* table_print() of the workload's own rows only (fsmark.*, dd.*, ...)
 * with workload_only; returns the rows printed. */
size_t table_print_rows(FILE *fp, const struct comparison *c, bool all,
			bool workload_only);
/*
 * "What moved with it": above the table, the TABLE_MOVED metrics that
 * are not the workload's own (profile, memory, I/O, CPU and the other
 * monitors) whose change is final (a regression, improvement or change),
 * ranked by the change of the mean against the metric's own noise (the
 * root mean square of the two sides' standard deviations), then grouped
 * by kind; each with its %change, how many times its noise, and its
 * verdict, and the metrics that moved alike with it (LKP's several
 * names of one count) under it instead of in rows of their own:
 *
 *   what moved with it (10 of 38 changed monitors, by change against
 *   their noise):
 *     memory  meminfo.Dirty                        -99.4%   53x  changed
 *     I/O     iostat.loop0.avgqu-sz                -95.2%   41x  changed
 *
 * Prints nothing when none moved; returns the rows printed.
 */
#define TABLE_MOVED 10
size_t table_print_moved(FILE *fp, const struct comparison *c);

/* One row of what moved: the metric, its kind, and its change over its
 * noise (+inf: it had none). */
#define TABLE_ALIKE 3
struct table_moved {
	const struct comparison_metric *m;
	const char *kind;
	double times;
	/* those that moved alike with it (of its kind, by the same change,
	 * as many times their noise), in no row of their own: the first
	 * TABLE_ALIKE, and how many */
	const struct comparison_metric *alike[TABLE_ALIKE];
	size_t nalike;
};

/* The rows table_print_moved() prints, into out (TABLE_MOVED of them at
 * most), in its order; *changed (when not NULL): how many monitors moved
 * in all.  Returns the rows. */
size_t table_moved(const struct comparison *c, struct table_moved *out,
		   size_t *changed);
/* A row's change as the section says it: "-99.4%", "+28.7" (a profile's
 * or a percentage's points), "from 0". */
void table_moved_change(const struct table_moved *t, char *buf, size_t len);
/* The names of a row's alike ones: "a, b, c and 2 more"; to be freed. */
char *table_moved_alike(const struct table_moved *t);
/* A row's change over its noise: "53x", "no noise". */
void table_moved_times(const struct table_moved *t, char *buf, size_t len);
/* The kind of a monitor's metric: "profile", "memory", "I/O", "CPU" or
 * "other"; NULL for the workload's own. */
const char *table_metric_kind(const char *metric);

/* The header (commit lines and column titles) alone. */
void table_print_header(FILE *fp, const char *base_commit,
			const char *head_commit);
/* One row, as LKP's show_perf_change and show_stat print it. */
void table_print_row(FILE *fp, const char *metric,
		     const struct compare_result *r);

#endif
