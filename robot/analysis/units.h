/*
 * units.h: what a metric counts, as its name says, and a value with an
 * SI prefix and that unit, for people ("1.23 GB/s"): the pages' charts
 * and a report's KPI lines.
 */
#ifndef ROBOT_UNITS_H
#define ROBOT_UNITS_H

#include <stddef.h>

/* "B/s" for *bytes_per_sec*, "/s" for another *per_sec*, "s" for
 * *elapsed_time*; the monitors': "%" for *.util and vmstat.cpu.*, "ms"
 * for names ending in "await", "kB/s" for those ending in "kB/s", "/s"
 * for those ending in another "/s" and for vmstat.io and vmstat.system;
 * else "". */
const char *unit_of(const char *metric);
/* v with an SI prefix and unit: "1.23 GB/s", "512 k", "500 ms", "69.9/s"
 * (a rate's "/s" attached); "?" when v is not finite.  "%" takes no
 * prefix ("12.5%"), and below 1 only a time takes one ("250 µs", but
 * "0.2/s"); "ms", "kB/s" and "kB" (the kernel's, of 1024 bytes) are
 * given in s, B/s and B ("1.2 MB/s"). */
void unit_si(char *buf, size_t len, double v, const char *unit);
/* The unit unit_si() writes a value of unit in: "B/s" for "kB/s", "s"
 * for "ms", "B" for "kB"; else unit (an axis's title says it). */
const char *unit_shown(const char *unit);

#endif
