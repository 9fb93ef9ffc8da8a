/*
 * test_name.c: the name checker, and the URI check before MHD parses a
 * request (both take outside input as it comes).
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/name.h"
#include "tap.h"
#include "web/uri.h"

static void
test_labels(void)
{
	CHECK(name_ok(NAME_LABEL, "lab"));
	CHECK(name_ok(NAME_LABEL, "lkp-skl-2sp2.x_y+1"));
	CHECK_STR(name_check(NAME_LABEL, "", 0), "is empty");
	CHECK_STR(name_check(NAME_LABEL, "a\nb", 3),
		  "holds a control character");
	CHECK_STR(name_check(NAME_LABEL, "a\0b", 3),
		  "holds a control character");
	CHECK_STR(name_check(NAME_LABEL, "\x1b]0;x\a", 6),
		  "holds a control character");
	CHECK_STR(name_check(NAME_LABEL, "caf\xc3\xa9", 5),
		  "holds a character outside ASCII");
	CHECK_STR(name_check(NAME_LABEL, ".x", 2), "starts with '.'");
	CHECK(!name_ok(NAME_LABEL, "../.."));
	CHECK_STR(name_check(NAME_LABEL, "a..b", 4), "holds '..'");
	CHECK_STR(name_check(NAME_LABEL, "-rf", 3), "starts with '-'");
	CHECK_STR(name_check(NAME_LABEL, "a/b", 3),
		  "holds a character a name cannot hold");
	CHECK_STR(name_check(NAME_LABEL, "a b", 3),
		  "holds a character a name cannot hold");
	CHECK(!name_ok(NAME_LABEL, NULL));
}

static void
test_lengths(void)
{
	char s[1024];

	memset(s, 'a', sizeof s);
	CHECK(name_check(NAME_LABEL, s, NAME_LABEL_MAX) == NULL);
	CHECK_STR(name_check(NAME_LABEL, s, NAME_LABEL_MAX + 1), "is too long");
	CHECK(name_check(NAME_COMMIT, s, NAME_COMMIT_MAX) == NULL);
	CHECK_STR(name_check(NAME_COMMIT, s, NAME_COMMIT_MAX + 1),
		  "is too long");
	CHECK(name_check(NAME_SERIES, s, NAME_SERIES_MAX) == NULL);
	CHECK(name_check(NAME_SERIES, s, NAME_SERIES_MAX + 1) != NULL);
	CHECK(name_check(NAME_METRIC, s, NAME_METRIC_MAX) == NULL);
	CHECK(name_check(NAME_METRIC, s, NAME_METRIC_MAX + 1) != NULL);
}

static void
test_other_kinds(void)
{
	CHECK(name_ok(NAME_COMMIT, "v6.8-rc1"));
	CHECK(name_ok(NAME_COMMIT, "origin/master~2^"));
	CHECK(!name_ok(NAME_COMMIT, "../../etc"));
	CHECK(!name_ok(NAME_COMMIT, "a b"));
	CHECK(name_ok(NAME_SERIES, "dd-write/1LOOP_64M-ext4-bs=1M:x%2F/lab"));
	CHECK(!name_ok(NAME_SERIES, "a\tb"));
	CHECK(name_ok(NAME_METRIC, "dd.write_bytes_per_sec"));
	CHECK(name_ok(NAME_METRIC, "iostat.sda.r/s"));
	CHECK(name_ok(NAME_METRIC, ".starts.with.dot"));
	CHECK_STR(name_check(NAME_METRIC, "a b", 3), "holds a space");
	CHECK(!name_ok(NAME_METRIC, "a\x7f"));
	CHECK(!name_ok(NAME_METRIC, ""));
}

static void
test_uri(void)
{
	char *why, uri[URI_MAX_LEN + 64];

	CHECK_INT(uri_check("/api/jobs?tbox_group=lab&commit=a1", &why), 0);
	CHECK(why == NULL);
	CHECK_INT(uri_check("/api/status%00/x", &why), 400);
	CHECK_STR(why, "the path holds a NUL or a control character");
	free(why);
	CHECK_INT(uri_check("/api/jobs?tbox_group=lab&commit=a%0ab", &why),
		  400);
	CHECK_STR(why, "the query argument commit holds a NUL or a control "
		       "character");
	free(why);
	CHECK_INT(uri_check("/api/jobs?tbox_group=%1b%5b2J", &why), 400);
	CHECK_STR(why, "the query argument tbox_group holds a NUL or a "
		       "control character");
	free(why);
	CHECK_INT(uri_check("/x?a%00=1", &why), 400);
	CHECK_STR(why, "a query argument's name holds a NUL or a control "
		       "character");
	free(why);
	/* "%" at the very end, "%4", "%zz": not control characters. */
	CHECK_INT(uri_check("/x?a=%", &why), 0);
	CHECK_INT(uri_check("/x?a=%4", &why), 0);
	CHECK_INT(uri_check("/x?a=%zz", &why), 0);
	CHECK_INT(uri_check("/x?a=%7F", &why), 400);
	free(why);

	strcpy(uri, "/api/jobs?a=1");
	for (int i = 0; i < URI_MAX_ARGS; i++)
		strcat(uri, "&b=2");
	CHECK_INT(uri_check(uri, &why), 414);
	CHECK_STR(why, "more than 128 query arguments");
	free(why);
	memset(uri, 'a', sizeof uri - 1);
	uri[0] = '/';
	uri[sizeof uri - 1] = '\0';
	CHECK_INT(uri_check(uri, &why), 414);
	CHECK_STR(why, "the URI is longer than 8192 bytes");
	free(why);
}

int
main(void)
{
	static const struct tap_case cases[] = {TAP_CASE(test_labels),
						TAP_CASE(test_lengths),
						TAP_CASE(test_other_kinds),
						TAP_CASE(test_uri),
						{NULL, NULL}};

	return tap_run(cases);
}
