/*
 * test_str.c: string helpers.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/str.h"
#include "tap.h"

static void
test_printable_escapes_control_and_invalid_utf8(void)
{
	char *s = str_printable("a\nb\xff\xc3\xa9", 6, 80);

	CHECK_STR(s, "a\\x0ab\\xff\xc3\xa9");
	free(s);
}

static void
test_printable_cuts_long_input(void)
{
	char *s = str_printable("abcdefghij", 10, 4);

	CHECK_STR(s, "abcd...");
	free(s);
}

static void
test_utf8_validity(void)
{
	CHECK(str_utf8_valid("caf\xc3\xa9", 5));
	CHECK(!str_utf8_valid("\xc3", 1));
	CHECK(!str_utf8_valid("\xc0\x80", 2));     /* overlong NUL */
	CHECK(!str_utf8_valid("\xed\xa0\x80", 3)); /* a surrogate */
	CHECK(str_utf8_valid("\xf0\x9f\x98\x80", 4));
}

/* Invalid UTF-8 made valid: each bad byte (and a NUL) is U+FFFD; what
 * was valid stays. */
static void
test_utf8_fix(void)
{
	char *s = str_utf8_fix("caf\xe9 \xc3\xa9\xc3", 8);

	CHECK_STR(s, "caf\xef\xbf\xbd \xc3\xa9\xef\xbf\xbd");
	CHECK(str_utf8_valid(s, strlen(s)));
	free(s);
	s = str_utf8_fix("a\0b", 3);
	CHECK_STR(s, "a\xef\xbf\xbd"
		     "b");
	free(s);
	s = str_utf8_fix("", 0);
	CHECK_STR(s, "");
	free(s);
}

static void
test_edit_distance(void)
{
	CHECK_INT(str_edit_distance("fsmark", "fsmark"), 0);
	CHECK_INT(str_edit_distance("fsmrk", "fsmark"), 1);
	CHECK_INT(str_edit_distance("fsmakr", "fsmark"), 1); /* transposition */
	CHECK_INT(str_edit_distance("", "abc"), 3);
	CHECK_INT(str_edit_distance("NR_THREADS", "nr_threads"), 0);
}

static void
test_closest_only_for_likely_typos(void)
{
	static const char *const words[] = {"nr_threads", "filesize", "fs",
					    NULL};

	CHECK_STR(str_closest("nr_thread", words), "nr_threads");
	CHECK_STR(str_closest("filsize", words), "filesize");
	CHECK(str_closest("foo", words) == NULL);
	CHECK(str_closest("completely_different", words) == NULL);
}

static void
test_prefix_suffix(void)
{
	CHECK(str_has_prefix("sysctl.vm", "sysctl."));
	CHECK(!str_has_prefix("sys", "sysctl."));
	CHECK(str_has_suffix("job.yaml", ".yaml"));
	CHECK(!str_has_suffix("a", ".yaml"));
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_printable_escapes_control_and_invalid_utf8),
		TAP_CASE(test_printable_cuts_long_input),
		TAP_CASE(test_utf8_validity),
		TAP_CASE(test_utf8_fix),
		TAP_CASE(test_edit_distance),
		TAP_CASE(test_closest_only_for_likely_typos),
		TAP_CASE(test_prefix_suffix),
		{NULL, NULL}};

	return tap_run(cases);
}
