/*
 * test_comparison.c: a comparison's JSON, as the writer writes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/analysis/comparison.h"
#include "tap.h"

static struct comparison *
sample(struct direction_table *dt)
{
	static double a[] = {100, 101, 99, 100.5}, b[] = {80, 81, 79, 80.5},
		      z[] = {0, 0, 0, 0};
	struct compare_options opt;
	struct comparison_side bs = {"a\"b", 4, 1, 0}, hs = {NULL, 4, 0, 2};
	struct comparison_column cols[] = {
		{"fsmark.files_per_sec", a, 4, b, 4},
		{"odd\"name\\x", a, 4, a, 4},
		{"zero", z, 4, b, 1},
	};

	compare_options_init(&opt);
	return comparison_of_columns("s/k/g", &bs, &hs, cols, 3, &opt, dt,
				     "fsmark.");
}

static json_t *
written(const struct comparison *c, bool all, int indent)
{
	struct buf b;
	json_t *j;

	buf_init(&b);
	CHECK(comparison_json(c, all, indent, &b, NULL));
	j = json_loadb(b.data, b.len, 0, NULL);
	if (!CHECK(j != NULL))
		tap_diag("not JSON: %.*s", (int)b.len, b.data);
	buf_release(&b);
	return j;
}

static void
test_compact_and_indented_are_one_json(void)
{
	struct direction_table *dt = direction_table_new();
	struct comparison *c = sample(dt);
	json_t *x = written(c, true, -1), *y = written(c, true, 6);
	json_t *m = json_object_get(x, "metrics");

	CHECK(json_equal(x, y));
	CHECK_STR(json_string_value(json_object_get(x, "base_commit")), "a\"b");
	CHECK(json_is_null(json_object_get(x, "head_commit")));
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(x, "head_runs"), "incomplete")),
		  2);
	CHECK_INT(json_array_size(m), 3);
	CHECK_STR(json_string_value(
			  json_object_get(json_array_get(m, 1), "metric")),
		  "odd\"name\\x");
	/* a base mean of 0: no %change, null and not NaN */
	CHECK(json_is_null(
		json_object_get(json_array_get(m, 2), "change_pct")));
	CHECK_INT(json_integer_value(json_object_get(
			  json_object_get(json_array_get(m, 2), "head"), "n")),
		  1);
	json_decref(x);
	json_decref(y);
	/* not all: the KPI and what changed, not the unchanged metric */
	x = written(c, false, -1);
	CHECK_INT(json_array_size(json_object_get(x, "metrics")), 2);
	CHECK_INT(json_integer_value(json_object_get(x, "compared")), 3);
	json_decref(x);
	comparison_free(c);
	direction_table_free(dt);
}

static void
test_stream_failure_is_told(void)
{
	struct direction_table *dt = direction_table_new();
	struct comparison *c = sample(dt);
	FILE *fp = fopen("/dev/full", "w");
	struct buf b;

	buf_init(&b);
	if (CHECK(fp != NULL)) {
		setvbuf(fp, NULL, _IONBF, 0);
		CHECK(!comparison_json(c, true, 6, &b, fp));
		fclose(fp);
	}
	CHECK_INT(b.len, 0);
	buf_release(&b);
	comparison_free(c);
	direction_table_free(dt);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_compact_and_indented_are_one_json),
		TAP_CASE(test_stream_failure_is_told),
		{NULL, NULL}};

	return tap_run(cases);
}
