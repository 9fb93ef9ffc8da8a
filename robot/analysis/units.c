/*
 * units.c: a metric's unit and a value with an SI prefix (units.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "robot/analysis/units.h"
#include "robot/core/banned.h"

/* Whether s ends with suffix. */
static bool
ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *
unit_of(const char *metric)
{
	/* A series' figures: its period, and how erratic it is (a
	 * ratio), whatever the series' own unit. */
	if (ends(metric, ".period_s"))
		return "s";
	if (ends(metric, ".cv"))
		return "";
	if (strstr(metric, "bytes_per_sec") != NULL)
		return "B/s";
	if (strstr(metric, "per_sec") != NULL)
		return "/s";
	if (strstr(metric, "elapsed_time") != NULL)
		return "s";
	if (strstr(metric, "bytes") != NULL)
		return "B";
	/* what the kernel gives in kB (KiB): /proc/meminfo's sizes (not
	 * its huge page counts), vmstat's memory columns */
	if ((strncmp(metric, "meminfo.", 8) == 0 &&
	     strncmp(metric, "meminfo.HugePages_", 18) != 0) ||
	    strncmp(metric, "vmstat.memory.", 14) == 0)
		return "kB";
	/* the monitors' (iostat -x, vmstat) */
	if (ends(metric, ".util") || strncmp(metric, "vmstat.cpu.", 11) == 0)
		return "%";
	if (ends(metric, "await") || ends(metric, ".svctm"))
		return "ms";
	if (ends(metric, "kB/s"))
		return "kB/s";
	if (ends(metric, "/s") || strncmp(metric, "vmstat.io.", 10) == 0 ||
	    strncmp(metric, "vmstat.system.", 14) == 0)
		return "/s";
	return "";
}

void
unit_si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const up[] = {"", "k", "M", "G", "T", "P", "E"};
	static const char *const down[] = {"", "m", "µ", "n", "p"};
	double a = fabs(v);
	const char *sep;
	int i = 0;

	if (unit == NULL)
		unit = "";
	if (!isfinite(v)) {
		snprintf(buf, len, "?");
		return;
	}
	/* A share takes no prefix ("500 m%"); a time in ms and kB/s are
	 * seconds and B/s with theirs ("1.2 MB/s", not "1.2 kkB/s"). */
	if (strcmp(unit, "%") == 0) {
		snprintf(buf, len, "%.3g%%", v);
		return;
	}
	if (strcmp(unit, "ms") == 0) {
		v /= 1000;
		unit = "s";
	} else if (strcmp(unit, "kB/s") == 0) {
		v *= 1000;
		unit = "B/s";
	} else if (strcmp(unit, "kB") == 0) {
		v *= 1024; /* the kernel's kB */
		unit = "B";
	}
	/* a rate takes its "/s" attached ("69.9/s", "1.23k/s") */
	sep = unit[0] == '/' || unit[0] == '\0' ? "" : " ";
	a = fabs(v);
	if (a >= 1000) {
		while (a >= 1000 && i < 6) {
			a /= 1000;
			v /= 1000;
			i++;
		}
		snprintf(buf, len, "%.3g%s%s%s", v, unit[0] == '/' ? "" : " ",
			 up[i], unit);
	} else if (a > 0 && a < 1 && strcmp(unit, "s") == 0) {
		/* (a time takes milli- and micro-; a rate or a count below
		 * 1 is written as it is: "0.2/s", not "200 m/s") */
		while (a < 1 && i < 4) {
			a *= 1000;
			v *= 1000;
			i++;
		}
		snprintf(buf, len, "%.3g%s%s%s", v, unit[0] == '/' ? "" : " ",
			 down[i], unit);
	} else {
		snprintf(buf, len, "%.3g%s%s", v, sep, unit);
	}
	/* "12 " without a unit: no trailing space. */
	len = strlen(buf);
	if (len > 0 && buf[len - 1] == ' ')
		buf[len - 1] = '\0';
}

const char *
unit_shown(const char *unit)
{
	if (unit == NULL)
		return "";
	if (strcmp(unit, "kB/s") == 0)
		return "B/s";
	if (strcmp(unit, "ms") == 0)
		return "s";
	if (strcmp(unit, "kB") == 0)
		return "B";
	return unit;
}
