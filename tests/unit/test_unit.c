/*
 * test_unit.c: LKP's units.
 */
#include <string.h>

#include "jobs/unit.h"
#include "tap.h"

static uint64_t
size_of(const char *s)
{
	uint64_t v = 0;

	return unit_size(s, &v) == NULL ? v : 0;
}

static void
test_sizes_are_powers_of_1024(void)
{
	CHECK_INT(size_of("4K"), 4096);
	CHECK_INT(size_of("4k"), 4096);
	CHECK_INT(size_of("4M"), 4 << 20);
	CHECK_INT(size_of("60G"), 60ULL << 30);
	CHECK_INT(size_of("1T"), 1ULL << 40);
	CHECK_INT(size_of("9B"), 9);
	CHECK_INT(size_of("4096"), 4096);
	CHECK_INT(size_of("4KB"), 4096);
	CHECK_INT(size_of("4KiB"), 4096);
	CHECK_INT(size_of("1.5G"), 3ULL << 29);
}

static void
test_bad_sizes(void)
{
	uint64_t v;

	CHECK(unit_size("0", &v) != NULL);
	CHECK(unit_size("0G", &v) != NULL);
	CHECK_STR(unit_size("-4K", &v), "must be more than zero");
	CHECK(unit_size("4Q", &v) != NULL);
	CHECK(unit_size("G", &v) != NULL);
	CHECK(unit_size("4 K", &v) != NULL);
	CHECK(unit_size("0.3B", &v) != NULL);
	CHECK(unit_size("99999999E", &v) != NULL);
	CHECK(unit_size("", &v) != NULL);
}

static void
test_counts_with_suffixes(void)
{
	static const char *const threads[] = {"t", "dd", "%", NULL};
	const char *used = NULL;
	uint64_t n = 0;

	CHECK(unit_count("32t", threads, &n, &used) == NULL);
	CHECK_INT(n, 32);
	CHECK_STR(used, "t");
	CHECK(unit_count("2dd", threads, &n, &used) == NULL);
	CHECK_STR(used, "dd");
	CHECK(unit_count("50%", threads, &n, &used) == NULL);
	CHECK_STR(used, "%");
	CHECK(unit_count("7", threads, &n, &used) == NULL);
	CHECK_STR(used, "");
	CHECK(unit_count("0t", threads, &n, NULL) != NULL);
	CHECK(unit_count("1.5t", threads, &n, NULL) != NULL);
	CHECK(unit_count("3x", threads, &n, NULL) != NULL);
	CHECK(unit_count("-1", threads, &n, NULL) != NULL);
}

static void
test_durations(void)
{
	double s = 0;

	CHECK(unit_duration("5m", &s) == NULL);
	CHECK_DBL(s, 300, 0);
	CHECK(unit_duration("30s", &s) == NULL);
	CHECK_DBL(s, 30, 0);
	CHECK(unit_duration("300", &s) == NULL);
	CHECK_DBL(s, 300, 0);
	CHECK(unit_duration("1h", &s) == NULL);
	CHECK_DBL(s, 3600, 0);
	CHECK(unit_duration("2d", &s) == NULL);
	CHECK(unit_duration("0s", &s) != NULL);
	CHECK(unit_duration("5w", &s) != NULL);
	CHECK(unit_duration("400d", &s) != NULL);
}

static void
test_uint_zero(void)
{
	uint64_t n = 1;

	CHECK(unit_uint_zero("0", &n) == NULL);
	CHECK_INT(n, 0);
	CHECK(unit_uint_zero("40", &n) == NULL);
	CHECK_INT(n, 40);
	CHECK(unit_uint_zero("-1", &n) != NULL);
	CHECK(unit_uint_zero("4k", &n) != NULL);
	CHECK(unit_uint_zero("99999999999999999999999", &n) != NULL);
}

static void
test_format_size(void)
{
	char out[32];

	unit_format_size(60ULL << 30, out, sizeof out);
	CHECK_STR(out, "60G");
	unit_format_size(4096, out, sizeof out);
	CHECK_STR(out, "4K");
	unit_format_size(9, out, sizeof out);
	CHECK_STR(out, "9B");
	unit_format_size(1536, out, sizeof out);
	CHECK_STR(out, "1536B");
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_sizes_are_powers_of_1024),
		TAP_CASE(test_bad_sizes),
		TAP_CASE(test_counts_with_suffixes),
		TAP_CASE(test_durations),
		TAP_CASE(test_uint_zero),
		TAP_CASE(test_format_size),
		{NULL, NULL}};

	return tap_run(cases);
}
