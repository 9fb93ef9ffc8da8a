/*
 * unit.h: the units of LKP job files.  Sizes are powers of 1024 ("4K",
 * "60G", "9B" is nine bytes); counts carry a suffix that says what they
 * count ("1x" iterations, "32t" threads, "2dd" dd per filesystem, "16d"
 * directories, "256fpd" files per directory); durations are seconds
 * unless suffixed ("30s", "5m", "1h", "2d"); "50%" is a share of CPUs.
 *
 * Each parser returns NULL on success, else a short reason for a message
 * (a static string).  Zero and negative values are refused: a caller that
 * allows zero says so with the _zero variant.
 */
#ifndef ROBOT_UNIT_H
#define ROBOT_UNIT_H

#include <stdbool.h>
#include <stdint.h>

const char *unit_size(const char *s, uint64_t *bytes);
/* A whole number with an optional suffix (any of the NULL-terminated list). */
const char *unit_count(const char *s, const char *const *suffixes, uint64_t *n,
		       const char **suffix_used);
const char *unit_duration(const char *s, double *seconds);
/* A non-negative whole number without unit. */
const char *unit_uint_zero(const char *s, uint64_t *n);
/* Formats bytes with the largest exact unit ("60G", "4K", "9B"). */
void unit_format_size(uint64_t bytes, char *out, int outlen);

#endif
