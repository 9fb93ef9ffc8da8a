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

/* A metric of a hand-made comparison: means, stddevs (absolute), verdict. */
static struct comparison_metric
metric(const char *name, double b, double bsd, double h, double hsd,
       enum compare_verdict v)
{
	struct comparison_metric m;

	memset(&m, 0, sizeof m);
	m.name = name;
	m.r.base.n = m.r.head.n = 5;
	m.r.base.mean = b;
	m.r.base.stddev = bsd;
	m.r.head.mean = h;
	m.r.head.stddev = hsd;
	m.r.change_pct = 100 * (h - b) / b;
	m.r.change_defined = true;
	m.r.verdict = v;
	return m;
}

static char *
moved(const struct comparison *c, size_t *rows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	*rows = table_print_moved(fp, c);
	fclose(fp);
	return buf;
}

/* The ten monitors that moved most against their noise, grouped by kind;
 * not the workload's own metrics, not the KPI, not what did not change. */
static void
test_what_moved(void)
{
	struct comparison_metric m[] = {
		/* the workload's and the KPI: never */
		metric("dd.write_bytes_per_sec", 100, 1, 10, 1,
		       COMPARE_REGRESSION),
		metric("dd.disks.write_bytes_per_sec", 100, 1, 10, 1,
		       COMPARE_REGRESSION),
		/* not final, or not moved */
		metric("meminfo.Active", 100, 1, 50, 1, COMPARE_INCONCLUSIVE),
		metric("meminfo.Mlocked", 100, 1, 100, 1, COMPARE_CHANGED),
		/* 12 more that moved: 10 rows */
		metric("proc-vmstat.nr_dirty_threshold", 2354094, 0, 256, 0,
		       COMPARE_CHANGED), /* no noise */
		metric("meminfo.Dirty", 400000, 4000, 2000, 200,
		       COMPARE_CHANGED), /* 141x */
		/* two that move alike with a row: under it */
		metric("proc-vmstat.nr_dirty_background_threshold", 588004, 0,
		       128, 0, COMPARE_CHANGED),
		metric("proc-vmstat.nr_dirty", 100000, 1000, 500, 50,
		       COMPARE_CHANGED),
		metric("meminfo.Inactive(file)", 527925, 40000, 357691, 30000,
		       COMPARE_CHANGED), /* 4.8x */
		metric("iostat.loop0.avgqu-sz", 31, 3, 0.03, 0.003,
		       COMPARE_CHANGED), /* 15x */
		metric("iostat.loop0.w/s", 2467, 400, 124, 10,
		       COMPARE_CHANGED), /* 8.3x */
		metric("vmstat.cpu.wa", 2, 0.5, 45, 5,
		       COMPARE_CHANGED), /* 12x */
		metric("vmstat.system.cs", 11000, 3000, 4400, 3000,
		       COMPARE_CHANGED), /* 2.2x: the 11th */
		metric("perf-profile.calltrace.cycles-pp.balance_dirty_pages."
		       "balance_dirty_pages_ratelimited_flags.generic_perform_"
		       "write",
		       1.5, 0.1, 30.2, 1.5, COMPARE_CHANGED), /* 27x */
		metric("perf-profile.self.cycles-pp.io_schedule", 0.5, 0.05,
		       8.5, 0.5, COMPARE_CHANGED), /* 23x */
		metric("latency_stats.sum.balance_dirty_pages", 100, 20, 5000,
		       800, COMPARE_CHANGED),                        /* 8.7x */
		metric("kmsg.oom", 1, 0.5, 3, 0.5, COMPARE_CHANGED), /* 4x */
		metric("vmstat.procs.b", 1, 1, 2, 1, COMPARE_CHANGED), /* 1x */
	};
	struct comparison c;
	size_t rows;
	char *got;

	memset(&c, 0, sizeof c);
	m[0].kpi = true;
	c.metrics = m;
	c.nmetrics = sizeof m / sizeof m[0];
	got = moved(&c, &rows);
	CHECK_INT(rows, 10);
	CHECK_STR(
		got,
		"what moved with it (10 of 14 changed monitors, by change "
		"against their noise):\n"
		"  profile  "
		"perf-profile.calltrace.cycles-pp.balance_dirty_pages."
		"balance_dirty_pages_ratelimited_flags.generic_perform_write\n"
		"                                                     +28.7    "
		"  "
		"27x  changed\n"
		"           perf-profile.self.cycles-pp.io_schedule\n"
		"                                                      +8.0    "
		"  "
		"23x  changed\n"
		/* (both without noise: by name) */
		"  memory   proc-vmstat.nr_dirty_background_threshold\n"
		"                                                   -100.0% "
		"no noise  changed\n"
		"           alike: proc-vmstat.nr_dirty_threshold\n"
		"           meminfo.Dirty                             -99.5%   "
		"  "
		"141x  changed\n"
		"           alike: proc-vmstat.nr_dirty\n"
		"           meminfo.Inactive(file)                    -32.2%   "
		"    "
		"5x  changed\n"
		"  I/O      iostat.loop0.avgqu-sz                     -99.9%   "
		"   "
		"15x  changed\n"
		"           iostat.loop0.w/s                          -95.0%   "
		"    "
		"8x  changed\n"
		"  CPU      vmstat.cpu.wa                           +2150.0%   "
		"   "
		"12x  changed\n"
		"           latency_stats.sum.balance_dirty_pages   +4900.0%   "
		"    "
		"9x  changed\n"
		"  other    kmsg.oom                                 +200.0%   "
		"    "
		"4x  changed\n");
	free(got);
	/* none moved: nothing said */
	c.nmetrics = 4;
	got = moved(&c, &rows);
	CHECK_INT(rows, 0);
	CHECK_STR(got, "");
	free(got);
	CHECK(table_metric_kind("dd.time.elapsed_time") == NULL);
	CHECK_STR(table_metric_kind("perf-stat.ps.cpu-cycles"), "profile");
	CHECK_STR(table_metric_kind("sched_debug.cpu.nr_switches"), "CPU");
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
		TAP_CASE(test_what_moved),
		{NULL, NULL}};

	return tap_run(cases);
}
