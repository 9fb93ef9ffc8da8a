/*
 * test_errlist.c: collected problems.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/errlist.h"
#include "tap.h"

static void
test_same_problem_kept_once(void)
{
	struct errlist el;

	errlist_init(&el);
	errlist_error(&el, "a.yaml", 3, "bad %s", "thing");
	errlist_error(&el, "a.yaml", 3, "bad %s", "thing");
	errlist_warning(&el, "a.yaml", 3, "bad %s", "thing");
	CHECK_INT(el.n, 2);
	CHECK_INT(el.nerrors, 1);
	CHECK_INT(el.nwarnings, 1);
	errlist_release(&el);
}

static void
test_sort_by_file_then_line_stable(void)
{
	struct errlist el;

	errlist_init(&el);
	errlist_error(&el, "b.yaml", 1, "b1");
	errlist_error(&el, "a.yaml", 9, "a9");
	errlist_error(&el, "a.yaml", 2, "a2-first");
	errlist_error(&el, "a.yaml", 2, "a2-second");
	errlist_sort(&el);
	CHECK_STR(el.v[0].message, "a2-first");
	CHECK_STR(el.v[1].message, "a2-second");
	CHECK_STR(el.v[2].message, "a9");
	CHECK_STR(el.v[3].message, "b1");
	errlist_release(&el);
}

static void
test_format(void)
{
	struct errlist el;
	char *s;

	errlist_init(&el);
	errlist_error(&el, "f.yaml", 7, "msg");
	errlist_warning(&el, "f.yaml", 0, "whole file");
	s = errlist_format(&el.v[0]);
	CHECK_STR(s, "f.yaml:7: msg");
	free(s);
	s = errlist_format(&el.v[1]);
	CHECK_STR(s, "f.yaml: warning: whole file");
	free(s);
	errlist_release(&el);
}

static void
test_json_errors_only_and_lossy(void)
{
	struct errlist el;
	json_t *j;

	errlist_init(&el);
	errlist_error(&el, "f.yaml", 1, "bad byte \xff here");
	errlist_warning(&el, "f.yaml", 2, "just a warning");
	j = errlist_to_json(&el, false);
	CHECK_INT(json_array_size(j), 1);
	CHECK(json_is_string(json_array_get(j, 0)));
	json_decref(j);
	j = errlist_to_json(&el, true);
	CHECK_INT(json_array_size(j), 2);
	json_decref(j);
	errlist_release(&el);
}

static void
test_append_moves_entries(void)
{
	struct errlist a, b;

	errlist_init(&a);
	errlist_init(&b);
	errlist_error(&a, "x", 1, "one");
	errlist_error(&b, "x", 2, "two");
	errlist_error(&b, "x", 1, "one");
	errlist_append(&a, &b);
	CHECK_INT(a.n, 2);
	CHECK_INT(b.n, 0);
	errlist_release(&a);
	errlist_release(&b);
}

/* An input of thousands of problems (a document of 8,000 unknown keys:
 * seconds of CPU, each problem compared with every one before it) keeps
 * the first ERRLIST_MAX and counts the rest, errors and warnings apart. */
static void
test_many_problems_kept_to_the_cap(void)
{
	struct errlist el, more;
	json_t *j;
	char buf[256];
	FILE *fp;

	errlist_init(&el);
	for (int i = 0; i < 10000; i++)
		errlist_error(&el, "big.json", i + 1, "unknown key \"k%d\"", i);
	errlist_warning(&el, "big.json", 1, "a warning past the cap");
	CHECK_INT(el.n, ERRLIST_MAX);
	CHECK_INT(el.nerrors, 10000);
	CHECK_INT(el.nwarnings, 1);
	CHECK_INT(el.more, 10001 - ERRLIST_MAX);
	CHECK_STR(el.v[ERRLIST_MAX - 1].message, "unknown key \"k99\"");
	j = errlist_to_json(&el, false);
	CHECK_INT(json_array_size(j), ERRLIST_MAX + 1);
	CHECK_STR(json_string_value(json_array_get(j, ERRLIST_MAX)),
		  "and 9900 more errors");
	json_decref(j);
	j = errlist_to_json(&el, true);
	CHECK_STR(json_string_value(json_array_get(j, ERRLIST_MAX)),
		  "and 9901 more problems");
	json_decref(j);
	fp = tmpfile();
	errlist_print(&el, fp);
	rewind(fp);
	for (int i = 0; i <= ERRLIST_MAX && fgets(buf, sizeof buf, fp); i++)
		;
	CHECK_STR(buf, "and 9901 more problems\n");
	fclose(fp);
	/* Appended, the counts past the cap go along. */
	errlist_init(&more);
	errlist_append(&more, &el);
	CHECK_INT(more.n, ERRLIST_MAX);
	CHECK_INT(more.nerrors, 10000);
	CHECK_INT(more.nwarnings, 1);
	CHECK_INT(more.more, 9901);
	errlist_release(&more);
	errlist_release(&el);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_same_problem_kept_once),
		TAP_CASE(test_sort_by_file_then_line_stable),
		TAP_CASE(test_format),
		TAP_CASE(test_json_errors_only_and_lossy),
		TAP_CASE(test_append_moves_entries),
		TAP_CASE(test_many_problems_kept_to_the_cap),
		{NULL, NULL}};

	return tap_run(cases);
}
