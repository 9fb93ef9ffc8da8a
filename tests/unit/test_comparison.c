/*
 * test_comparison.c: a comparison's JSON, as the writer writes it.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "robot/analysis/comparison.h"
#include "robot/analysis/table.h"
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

/* LKP's table of a comparison read back from its JSON (robot compare
 * --series, from robotd's stored one) is the table robotd printed from
 * the comparison itself (the mail's): integer means whose running mean
 * fell an ulp short printed one less before the JSON's rounding. */
static char *
text_of(const struct comparison *c, bool moved)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	CHECK(fp != NULL);
	if (moved)
		table_print_moved(fp, c);
	table_print(fp, c, false);
	fclose(fp);
	return text;
}

static char *
table_of(const struct comparison *c)
{
	return text_of(c, false);
}

static void
test_table_of_json_is_the_table(void)
{
	static double a[] = {1244679, 1244736, 1244676, 1244731, 1244654,
			     1244680, 1244667, 1244691, 1244682, 1244694},
		      b[] = {1785386, 1785361, 1785326, 1785375, 1785312,
			     1785315, 1785308, 1785338, 1785364, 1785335};
	struct direction_table *dt = direction_table_new();
	struct compare_options opt;
	struct comparison_side bs = {"7e5035bd9ef7cc41", 10, 0, 0},
			       hs = {"fba414b38fdacaeeb526affa2c1", 10, 0, 0};
	struct comparison_column cols[] = {
		{"proc-vmstat.pgfree", a, 10, b, 10},
		{"dd.write_bytes_per_sec", a, 10, b, 10},
	};
	struct comparison *c, *back;
	json_t *j;
	char *mine, *read;

	compare_options_init(&opt);
	c = comparison_of_columns("dd-write/x/rt", &bs, &hs, cols, 2, &opt, dt,
				  "dd.");
	j = written(c, false, -1);
	back = comparison_from_json(j);
	CHECK(back != NULL);
	mine = table_of(c);
	read = back != NULL ? table_of(back) : NULL;
	CHECK(strstr(mine, "   1244689 ") != NULL);
	if (!CHECK(read != NULL && strcmp(mine, read) == 0))
		tap_diag("from the comparison:\n%s\nfrom its JSON:\n%s", mine,
			 read ? read : "(none)");
	free(mine);
	free(read);
	comparison_free(back);
	json_decref(j);
	comparison_free(c);
	direction_table_free(dt);
}

/* The dd KPI of n rounds, base a and head b, compared with 30 degrees
 * of freedom of history (a round's difference's variance 0.0032). */
static struct comparison *
rounds_with_history(const double *a, const double *b, size_t n)
{
	struct direction_table *dt = direction_table_new();
	struct compare_prior prior = {"dd.write_bytes_per_sec", 0.0032, 30};
	struct compare_options opt;
	struct comparison_side bs = {"7e5035bd9ef7cc41", n, 0, 0},
			       hs = {"fba414b38fdacaeeb526affa2c1", n, 0, 0};
	struct comparison_column cols[] = {
		{"dd.write_bytes_per_sec", a, n, b, n},
	};
	struct comparison *c;

	compare_options_init(&opt);
	opt.paired = true;
	opt.priors = &prior;
	opt.npriors = 1;
	c = comparison_of_columns("dd-write/x/rt", &bs, &hs, cols, 1, &opt, dt,
				  "dd.");
	direction_table_free(dt);
	return c;
}

/* A KPI's round left out by the rounds' screen (compare.c) says so: a
 * note, and rounds_dropped in its JSON, read back. */
static void
test_rounds_dropped_noted(void)
{
	static const double a[] = {100, 100, 100, 70, 100, 100, 100, 100},
			    b[] = {92, 93, 91, 92, 94, 90, 92, 93};
	struct comparison *c = rounds_with_history(a, b, 8), *back;
	json_t *j, *m;

	CHECK_INT((int)c->metrics[0].r.rounds_dropped, 1);
	CHECK_INT((int)c->nnotes, 1);
	CHECK(c->nnotes == 1 &&
	      strcmp(c->notes[0], "dd.write_bytes_per_sec: 1 of 8 rounds left "
				  "out, an outlier run in each (more than 5 "
				  "sd from the rounds' median)") == 0);
	j = written(c, false, -1);
	m = json_array_get(json_object_get(j, "metrics"), 0);
	CHECK_INT((int)json_integer_value(json_object_get(m, "rounds_dropped")),
		  1);
	back = comparison_from_json(j);
	CHECK(back != NULL && back->metrics[0].r.rounds_dropped == 1);
	comparison_free(back);
	json_decref(j);
	comparison_free(c);
}

/* A round due to be left out (too few rounds for the screen yet) says
 * so: a note, and screen_due in its JSON, read back. */
static void
test_screen_due_noted(void)
{
	static const double a[] = {100, 100, 75},
			    b[] = {88.4, 89.3, 90.2}; /* 92 e^-0.04, -0.03,
							 -0.02 */
	struct comparison *c = rounds_with_history(a, b, 3), *back;
	json_t *j, *m;

	CHECK(c->metrics[0].r.screen_due);
	CHECK(c->nnotes == 1 &&
	      strcmp(c->notes[0], "dd.write_bytes_per_sec: a round lies more "
				  "than 5 sd from the rounds' median, an "
				  "outlier run: it is left out from 6 rounds "
				  "on") == 0);
	j = written(c, false, -1);
	m = json_array_get(json_object_get(j, "metrics"), 0);
	CHECK(json_is_true(json_object_get(m, "screen_due")));
	back = comparison_from_json(j);
	CHECK(back != NULL && back->metrics[0].r.screen_due);
	comparison_free(back);
	json_decref(j);
	comparison_free(c);
}

/* The runs compared, round by round, written and read back in both
 * forms; a malformed list is none (issue 55: a figure leads to its
 * runs). */
static void
test_round_runs(void)
{
	static const long long runs[][2] = {{11, 12}, {14, 13}, {15, 16}};
	struct direction_table *dt = direction_table_new();
	struct comparison *c = sample(dt), *back;
	json_t *j;

	comparison_set_round_runs(c, runs, 3);
	for (int indent = -1; indent <= 2; indent += 3) {
		j = written(c, false, indent);
		back = comparison_from_json(j);
		CHECK(back != NULL && back->nround_runs == 3 &&
		      back->round_runs[1][0] == 14 &&
		      back->round_runs[1][1] == 13 &&
		      back->round_runs[2][1] == 16);
		comparison_free(back);
		json_decref(j);
	}
	comparison_set_round_runs(c, NULL, 0);
	j = written(c, false, -1);
	CHECK(json_object_get(j, "round_runs") == NULL);
	json_object_set_new(j, "round_runs", json_pack("[[i,i],[i]]", 1, 2, 3));
	back = comparison_from_json(j);
	CHECK(back != NULL && back->nround_runs == 0 &&
	      back->round_runs == NULL);
	comparison_free(back);
	json_decref(j);
	comparison_free(c);
	direction_table_free(dt);
}

/* A value of kind k around level x (deterministic: rand_r). */
static double
draw(unsigned *seed, int k, double x)
{
	double u = (double)rand_r(seed) / RAND_MAX;

	switch (k) {
	case 0: /* a small count */
		return (double)(rand_r(seed) % 12);
	case 1: /* a large count */
		return floor(x * (0.97 + 0.06 * u));
	case 2: /* a rate with two decimals */
		return round(x * (0.97 + 0.06 * u) * 100) / 100;
	default: /* a real */
		return x * (0.9 + 0.2 * u);
	}
}

/*
 * robot compare --series prints the comparison robotd stored as JSON;
 * the mail holds the text robotd printed from the comparison itself.
 * They are one text for any values: many random comparisons of counts,
 * rates and reals, with a metric and its copy in other units (kB and
 * pages, as meminfo.Dirty and proc-vmstat.nr_dirty) among them.
 */
static void
test_report_of_json_is_the_report(void)
{
	struct direction_table *dt = direction_table_new();
	struct compare_options opt;
	unsigned seed = 20261205;
	int bad = 0;

	compare_options_init(&opt);
	for (int t = 0; t < 3000; t++) {
		enum { NCOL = 8, NMAX = 10 };
		static const char *const names[NCOL] = {
			"dd.write_bytes_per_sec", "meminfo.Dirty",
			"proc-vmstat.nr_dirty",   "vmstat.system.cs",
			"iostat.loop0.wkB/s",     "proc-vmstat.pgfree",
			"meminfo.Active",         "cpu.idle%"};
		double v[NCOL][2][NMAX];
		struct comparison_column cols[NCOL];
		struct comparison_side bs = {"7e5035bd9ef7cc41", 0, 0, 0},
				       hs = {"fba414b38fdacaeeb526", 0, 0, 0};
		size_t n = 3 + (size_t)(rand_r(&seed) % 8);
		struct comparison *c, *back;
		json_t *j;
		char *mine, *read;

		bs.runs = hs.runs = n;
		for (int i = 0; i < NCOL; i++) {
			int k = i == 2 ? 1 : rand_r(&seed) % 4;
			double x = pow(10, 1 + rand_r(&seed) % 9),
			       f = i == 0 || i == 2
					   ? 1
					   : 0.5 + (rand_r(&seed) % 10) / 10.0;

			for (size_t r = 0; r < n; r++) {
				v[i][0][r] = draw(&seed, k, x);
				v[i][1][r] = draw(&seed, k, x * f);
			}
			cols[i] = (struct comparison_column){names[i], v[i][0],
							     n, v[i][1], n};
		}
		/* meminfo.Dirty is nr_dirty in kB: 4 times the pages */
		for (size_t r = 0; r < n; r++) {
			v[1][0][r] = 4 * v[2][0][r];
			v[1][1][r] = 4 * v[2][1][r];
		}
		c = comparison_of_columns("dd-write/x/rt", &bs, &hs, cols, NCOL,
					  &opt, dt, "dd.");
		j = written(c, false, -1);
		back = comparison_from_json(j);
		mine = text_of(c, true);
		read = back != NULL ? text_of(back, true) : NULL;
		if (read == NULL || strcmp(mine, read) != 0) {
			if (bad++ == 0)
				tap_diag("case %d, from the comparison:\n%s\n"
					 "from its JSON:\n%s",
					 t, mine, read ? read : "(none)");
		}
		free(mine);
		free(read);
		comparison_free(back);
		json_decref(j);
		comparison_free(c);
	}
	if (!CHECK_INT(bad, 0))
		tap_diag("%d of 3000 comparisons read back differently", bad);
	direction_table_free(dt);
}

/* The metric named name in c, or NULL. */
static const struct comparison_metric *
metric_of(const struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (strcmp(c->metrics[i].name, name) == 0)
			return &c->metrics[i];
	return NULL;
}

static bool
has_note(const struct comparison *c, const char *part)
{
	for (size_t i = 0; i < c->nnotes; i++)
		if (strstr(c->notes[i], part) != NULL)
			return true;
	return false;
}

/*
 * A profile row is left out of a run where its share was under the box's
 * floor: there it was about 0, not unknown.  A row in 3 of 5 base runs
 * and in 1 of 5 head runs is compared as 0 where it is missing (not as
 * three values against one "without noise"), and a row in the head runs
 * only (a function that appeared) is compared, not left out.  Other
 * metrics missing from runs stay as they are.
 */
static void
test_profile_rows_missing_are_zero(void)
{
	static double three[] = {0.15, 0.15, 0.15}, one[] = {0.22},
		      five[] = {9.5, 10.1, 9.8, 10.4, 9.9},
		      few[] = {100, 101, 99};
	struct direction_table *dt = direction_table_new();
	struct compare_options opt;
	struct comparison_side bs = {"b", 5, 0, 0}, hs = {"h", 5, 0, 0};
	struct comparison_column cols[] = {
		{"perf-profile.children.cycles-pp.folio_mark_accessed", three,
		 3, one, 1},
		{"perf-profile.children.cycles-pp.balance_dirty_pages", NULL, 0,
		 five, 5},
		{"vmstat.system.cs", few, 3, few, 3},
	};
	const struct comparison_metric *m;
	struct comparison *c;

	compare_options_init(&opt);
	c = comparison_of_columns("dd-write/x/rt", &bs, &hs, cols, 3, &opt, dt,
				  "dd.");
	m = metric_of(c, cols[0].name);
	if (CHECK(m != NULL)) {
		CHECK(m->r.base.n == 5 && m->r.head.n == 5);
		CHECK(fabs(m->r.base.mean - 0.09) < 1e-9);
		CHECK(fabs(m->r.head.mean - 0.044) < 1e-9);
		CHECK(m->r.base.stddev > 0 && m->r.head.stddev > 0);
	}
	m = metric_of(c, cols[1].name);
	if (CHECK(m != NULL)) {
		CHECK(m->r.base.n == 5 && m->r.base.mean == 0);
		CHECK(compare_verdict_is_change(m->r.verdict));
	}
	CHECK(!has_note(c, "perf-profile"));
	CHECK(has_note(c, "vmstat.system.cs is in 3 of 5 base"));
	comparison_free(c);
	/* Compared in rounds, a missing value's round is not known: the
	 * rows stay as they are. */
	opt.paired = true;
	c = comparison_of_columns("dd-write/x/rt", &bs, &hs, cols, 3, &opt, dt,
				  "dd.");
	m = metric_of(c, cols[0].name);
	CHECK(m != NULL && m->r.base.n == 3 && m->r.head.n == 1);
	comparison_free(c);
	direction_table_free(dt);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_compact_and_indented_are_one_json),
		TAP_CASE(test_stream_failure_is_told),
		TAP_CASE(test_table_of_json_is_the_table),
		TAP_CASE(test_rounds_dropped_noted),
		TAP_CASE(test_screen_due_noted),
		TAP_CASE(test_round_runs),
		TAP_CASE(test_report_of_json_is_the_report),
		TAP_CASE(test_profile_rows_missing_are_zero),
		{NULL, NULL}};

	return tap_run(cases);
}
