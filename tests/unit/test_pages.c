/*
 * test_pages.c: what the pages share (web/pages/page.h) rendered from a
 * comparison as robotd stores it: LKP's table with each row's verdict,
 * the KPI's history note, what moved with it, the notes, and the runs
 * compared.  The markup is held against tests/data/page-comparison.html,
 * written from the renderer that read the JSON by its keys: the typed
 * renderer must print the same bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/comparison.h"
#include "robot/analysis/direction.h"
#include "robot/core/buf.h"
#include "tap.h"
#include "web/pages/page.h"

/* A comparison of 8 rounds: the KPI 8% slower with one round's base run
 * 30% low (left out on its history's noise), a monitor that moved with
 * it, one that did not, and a metric only the base has. */
static json_t *
comparison(void)
{
	static double kb[] = {100, 100, 100, 70, 100, 101, 99, 100},
		      kh[] = {92, 93, 91, 92, 94, 90, 92, 93},
		      mb[] = {10, 11, 10, 10, 11, 10, 10, 11},
		      mh[] = {20, 21, 20, 20, 21, 20, 20, 21},
		      sb[] = {5, 5, 5, 5, 5, 5, 5, 5},
		      sh[] = {5, 5, 5, 5, 5, 5, 5, 5};
	struct direction_table *dt = direction_table_new();
	struct compare_prior prior = {"dd.write_bytes_per_sec", 0.0032, 30};
	struct compare_options opt;
	struct comparison_side bs = {"7e5035bd9ef7cc41", 8, 0, 0},
			       hs = {"fba414b38fdacaeeb526affa2c1", 8, 1, 0};
	struct comparison_column cols[] = {
		{"dd.write_bytes_per_sec", kb, 8, kh, 8},
		{"vmstat.cpu.sy", mb, 8, mh, 8},
		{"vmstat.cpu.us", sb, 8, sh, 8},
	};
	struct comparison *c;
	json_t *j;

	compare_options_init(&opt);
	opt.paired = true;
	opt.priors = &prior;
	opt.npriors = 1;
	c = comparison_of_columns("dd-write/x/rt", &bs, &hs, cols, 3, &opt, dt,
				  "dd.");
	j = comparison_to_json(c, false);
	comparison_free(c);
	direction_table_free(dt);
	return j;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

static void
test_comparison_markup(void)
{
	json_t *j = comparison();
	struct comparison *c = comparison_from_json(j);
	struct buf b;
	char *want;

	CHECK(c != NULL);
	buf_init(&b);
	page_comparison(&b, c);
	buf_adds(&b, "\n<p>");
	page_runs(&b, c);
	buf_adds(&b, "</p>\n");
	if (getenv("TEST_PAGES_WRITE") != NULL) {
		FILE *f = fopen(getenv("TEST_PAGES_WRITE"), "w");

		if (f != NULL) {
			fputs(b.data, f);
			fclose(f);
		}
	}
	{
		char path[4096];

		snprintf(path, sizeof path,
			 "%s/tests/data/page-comparison.html",
			 tap_source_dir());
		want = slurp(path);
	}
	CHECK(want != NULL);
	if (want != NULL && strcmp(want, b.data) != 0)
		tap_diag("got:\n%s", b.data);
	CHECK(want != NULL && strcmp(want, b.data) == 0);
	free(want);
	buf_release(&b);
	comparison_free(c);
	json_decref(j);
}

/* A comparison whose JSON does not decode is an empty table and no
 * runs: no crash. */
static void
test_comparison_sparse(void)
{
	json_t *j = json_loads("{\"metrics\": [{\"metric\": \"dd.x\", "
			       "\"kpi\": true}]}",
			       0, NULL);
	struct comparison *c = comparison_from_json(j);
	struct buf b;

	CHECK(c == NULL);
	buf_init(&b);
	page_comparison(&b, c);
	page_runs(&b, c);
	CHECK(strstr(b.data, "<table class=\"lkp\">") != NULL);
	CHECK(strstr(b.data, "0 runs a side") != NULL);
	buf_release(&b);
	json_decref(j);
}

/* A series' link: its '/' kept in the path, what a path cannot hold
 * escaped ('%' of a matrix value such as "dirty_ratio=10%", ':', '='),
 * its name as text. */
static void
test_series_link(void)
{
	struct buf b;

	char *s;

	buf_init(&b);
	page_series(&b, "dd-write/1M-10%-x:y=z/lab");
	s = buf_detach(&b);
	CHECK_STR(s, "<a href=\"/series/dd-write/1M-10%25-x%3Ay%3Dz/lab\">"
		     "dd-write/1M-10%-x:y=z/lab</a>");
	free(s);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_comparison_markup),
		TAP_CASE(test_comparison_sparse),
		TAP_CASE(test_series_link),
		{NULL, NULL},
	};

	return tap_run(cases);
}
