/*
 * test_units.c: a metric's unit, and its values as people read them
 * (issue 55: bytes without "B", meminfo's kB shown as a count, svctm
 * without its ms, "69.9 /s", an all-zero rate's axis in negatives, a
 * "(kB/s)" axis with B/s ticks).
 */
#include <string.h>

#include "robot/analysis/units.h"
#include "tap.h"

static const char *
si(double v, const char *unit)
{
	static char buf[64];

	unit_si(buf, sizeof buf, v, unit);
	return buf;
}

static void
test_units_of_metrics(void)
{
	CHECK_STR(unit_of("dd.write_bytes_per_sec"), "B/s");
	CHECK_STR(unit_of("dd.bytes"), "B");
	CHECK_STR(unit_of("fsmark.files_per_sec"), "/s");
	CHECK_STR(unit_of("meminfo.Active"), "kB");
	CHECK_STR(unit_of("meminfo.HugePages_Total"), "");
	CHECK_STR(unit_of("vmstat.memory.cache"), "kB");
	CHECK_STR(unit_of("iostat.loop0.svctm"), "ms");
	CHECK_STR(unit_of("iostat.loop0.w_await"), "ms");
	CHECK_STR(unit_of("iostat.loop0.wkB/s"), "kB/s");
	CHECK_STR(unit_of("proc-vmstat.nr_free_pages"), "");
}

static void
test_values_with_units(void)
{
	CHECK_STR(si(24.2e9, "B"), "24.2 GB");
	CHECK_STR(si(1290000, "kB"), "1.32 GB"); /* 1,290,000 KiB */
	CHECK_STR(si(0.50373, "ms"), "504 µs");
	CHECK_STR(si(69.9, "/s"), "69.9/s");
	CHECK_STR(si(1234, "/s"), "1.23k/s");
	CHECK_STR(si(4.79e9, "B/s"), "4.79 GB/s");
	CHECK_STR(si(12, ""), "12");
	CHECK_STR(si(21416600, ""), "21.4 M");
	/* what the ticks are in, for an axis's title */
	CHECK_STR(unit_shown("kB/s"), "B/s");
	CHECK_STR(unit_shown("ms"), "s");
	CHECK_STR(unit_shown("kB"), "B");
	CHECK_STR(unit_shown("/s"), "/s");
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_units_of_metrics),
		TAP_CASE(test_values_with_units),
		{NULL, NULL}};

	return tap_run(cases);
}
