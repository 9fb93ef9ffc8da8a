/*
 * units.h: what a metric counts, as its name says, and a value with an
 * SI prefix and that unit, for people ("1.23 GB/s"): the pages' charts
 * and a report's KPI lines.
 */
#ifndef ROBOT_UNITS_H
#define ROBOT_UNITS_H

#include <stddef.h>

/* "B/s" for *bytes_per_sec*, "/s" for another *per_sec*, "s" for
 * *elapsed_time*; else "". */
const char *unit_of(const char *metric);
/* v with an SI prefix and unit: "1.23 GB/s", "512 k", "0.5 ms"; "?" when
 * v is not finite. */
void unit_si(char *buf, size_t len, double v, const char *unit);

#endif
