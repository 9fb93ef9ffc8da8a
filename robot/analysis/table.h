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
/* The header (commit lines and column titles) alone. */
void table_print_header(FILE *fp, const char *base_commit,
			const char *head_commit);
/* One row, as LKP's show_perf_change and show_stat print it. */
void table_print_row(FILE *fp, const char *metric,
		     const struct compare_result *r);

#endif
