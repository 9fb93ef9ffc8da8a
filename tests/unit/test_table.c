/*
 * test_table.c: LKP's ncompare table, byte for byte (golden rows taken
 * from 0-day mails).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/table.h"
#include "tap.h"

#define PM "\xc2\xb1" /* LKP's plus-minus sign */

/* A result whose two sides have the given means and relative stddevs. */
static struct compare_result
result(double base, double base_pct, double head, double head_pct, size_t n)
{
	struct compare_result r;

	memset(&r, 0, sizeof r);
	r.base.n = r.head.n = n;
	r.base.mean = base;
	r.base.stddev = base * base_pct / 100;
	r.head.mean = head;
	r.head.stddev = head * head_pct / 100;
	return r;
}

static char *
row(const char *metric, struct compare_result r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	table_print_row(fp, metric, &r);
	fclose(fp);
	return buf;
}

#define ROW(want, metric, ...)                                                 \
	do {                                                                   \
		char *got = row(metric, result(__VA_ARGS__));                  \
		CHECK_STR(got, want "\n");                                     \
		free(got);                                                     \
	} while (0)

static void
test_rows_as_in_0day_mails(void)
{
	ROW("     36122 " PM "  3%     -57.4%      15404 " PM "  2%  "
	    "fsmark.time.involuntary_context_switches",
	    "fsmark.time.involuntary_context_switches", 36122, 3.5, 15404, 2.5,
	    5);
	ROW("    138055 " PM " 18%     +33.4%     184128 " PM " 14%  "
	    "cpuidle..usage",
	    "cpuidle..usage", 138055, 18.4, 184128, 14.2, 3);
	ROW("      3930            +7.8%       4235 " PM "  3%  "
	    "vmstat.procs.r",
	    "vmstat.procs.r", 3930, 1.5, 4235, 3.1, 3);
	ROW("  27370126           -11.7%   24170828        "
	    "will-it-scale.104.processes",
	    "will-it-scale.104.processes", 27370126, 0.1, 24170828, 0.2, 3);
	ROW("      7072 " PM "  2%     -92.2%     554.83        "
	    "aim7.jobs-per-min",
	    "aim7.jobs-per-min", 7072, 2.9, 554.83, 1.0, 3);
	ROW("  83270128           +37.5%  1.145e+08        "
	    "aim7.time.file_system_outputs",
	    "aim7.time.file_system_outputs", 83270128, 0.5, 114496426, 0.5, 3);
}

static void
test_big_changes_and_stddevs(void)
{
	ROW("      0.19 " PM "160%  +61380.1%     116.81 " PM "185%  "
	    "perf-sched.x",
	    "perf-sched.x", 0.19, 160.5, 116.8122, 185.5, 3);
	ROW("      0.20 " PM "153%  +2.1e+05%     418.07 " PM "203%  "
	    "perf-sched.y",
	    "perf-sched.y", 0.20, 153.2, 418.07, 203.9, 3);
}

static void
test_absolute_change_for_percentages(void)
{
	ROW("      0.36 " PM "  2%      -0.0        0.33        "
	    "mpstat.cpu.all.irq%",
	    "mpstat.cpu.all.irq%", 0.36, 2.5, 0.33, 1, 3);
	ROW("      0.37 " PM "  6%      +1.9        2.25 " PM "  5%  "
	    "mpstat.cpu.all.soft%",
	    "mpstat.cpu.all.soft%", 0.37, 6.2, 2.25, 5.1, 3);
}

static void
test_single_run_has_no_stddev_cell(void)
{
	struct compare_result r = result(100, 50, 200, 50, 1);
	char *got = row("fsmark.files_per_sec", r);

	CHECK_STR(got, "    100.00          +100.0%     200.00        "
		       "fsmark.files_per_sec\n");
	free(got);
}

static void
test_zero_base(void)
{
	struct compare_result r = result(0, 0, 5, 0, 3);
	char *got = row("vmstat.io.bo", r);

	/* LKP divides by 1e-100: a huge change, never NaN. */
	CHECK(strstr(got, "nan") == NULL && strstr(got, "inf") == NULL);
	CHECK(strstr(got, "+5e+102%") != NULL);
	free(got);
}

static void
test_header(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	table_print_header(fp, "f2ffc48de2017c69e0e0e0e0e0e0e0e0e0e0e0e0",
			   "ee5eda8ea59546af2e8f192c060e0e0e0e0e0e0e");
	fclose(fp);
	CHECK_STR(buf, "f2ffc48de2017c69 ee5eda8ea59546af2e8f192c060 \n"
		       "---------------- --------------------------- \n"
		       "         %stddev     %change         %stddev\n"
		       "             \\          |                \\  \n");
	free(buf);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_rows_as_in_0day_mails),
		TAP_CASE(test_big_changes_and_stddevs),
		TAP_CASE(test_absolute_change_for_percentages),
		TAP_CASE(test_single_run_has_no_stddev_cell),
		TAP_CASE(test_zero_base),
		TAP_CASE(test_header),
		{NULL, NULL}};

	return tap_run(cases);
}
