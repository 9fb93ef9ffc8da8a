/*
 * test_lkpstat.c: LKP's own cases of its changed-stat rule
 * (../shared/fixtures/lkp/stats_changed_stats), every field checked.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/lkpstat.h"
#include "robot/core/docload.h"
#include "tap.h"

static double
num(const struct node *n)
{
	if (n == NULL || n->kind != NODE_SCALAR)
		return NAN;
	if (n->stype == NODE_INT)
		return (double)n->ival;
	if (n->stype == NODE_FLOAT)
		return n->fval;
	return NAN;
}

/* A matrix from the fixture's mapping of stat -> list of samples. */
static struct lkpstat_stat *
matrix(const struct node *m, size_t *n, double **store)
{
	struct lkpstat_stat *v = calloc(m->npairs + 1, sizeof *v);
	size_t total = 0, k = 0;

	for (size_t i = 0; i < m->npairs; i++)
		total += m->pairs[i].value->nitems;
	*store = calloc(total + 1, sizeof **store);
	for (size_t i = 0; i < m->npairs; i++) {
		const struct node *list = m->pairs[i].value;

		v[i].name = m->pairs[i].key;
		v[i].v = *store + k;
		v[i].n = list->nitems;
		for (size_t j = 0; j < list->nitems; j++)
			(*store)[k++] = num(list->items[j]);
	}
	*n = m->npairs;
	return v;
}

static bool
same_list(const double *got, size_t n, const struct node *want)
{
	if (want == NULL || want->nitems != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (fabs(got[i] - num(want->items[i])) > 1e-9 * fabs(got[i]))
			return false;
	return true;
}

static void
check_case(const char *path)
{
	struct lkpstat_options opt = {0};
	struct lkpstat_stat *a, *b;
	struct lkpstat_change *ch;
	struct node *docs, *doc, *o, *expected;
	double *sa, *sb;
	size_t na, nb, n, len;
	struct errlist el;
	char *text = tap_read_file(path, &len);

	errlist_init(&el);
	docs = text ? docload_yaml(path, text, len, &el) : NULL;
	free(text);
	if (!CHECK(docs != NULL))
		return;
	doc = docs->items[0];
	o = node_get(doc, "options");
	opt.more = node_get(o, "more") != NULL;
	opt.regression_only = node_get(o, "regression-only") != NULL;
	if (node_get(o, "gap") != NULL) {
		opt.has_gap = true;
		opt.gap = num(node_get(o, "gap"));
	}
	if (node_get(o, "variance") != NULL) {
		opt.has_variance = true;
		opt.variance = num(node_get(o, "variance"));
	}
	a = matrix(node_get(doc, "matrix_a"), &na, &sa);
	b = matrix(node_get(doc, "matrix_b"), &nb, &sb);
	ch = lkpstat_compare(a, na, b, nb, &opt, NULL, &n);
	expected = node_get(doc, "expected");
	if (!CHECK_INT(n, expected->npairs))
		tap_diag("%s", path);
	for (size_t i = 0; i < n && i < expected->npairs; i++) {
		const struct node *e = node_get(expected, ch[i].stat);
		const struct {
			const char *field;
			double got;
		} fields[] = {
			{"ratio", ch[i].ratio},
			{"delta", ch[i].delta},
			{"mean_a", ch[i].mean_a},
			{"mean_b", ch[i].mean_b},
			{"x", ch[i].x},
			{"y", ch[i].y},
			{"z", ch[i].z},
			{"min_a", ch[i].min_a},
			{"max_a", ch[i].max_a},
			{"min_b", ch[i].min_b},
			{"max_b", ch[i].max_b},
			{"max", ch[i].max},
			{"nr_run", (double)ch[i].nr_run},
		};

		if (!CHECK(e != NULL))
			continue;
		CHECK_STR(ch[i].interval, node_get(e, "interval")->text);
		for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
			double want = num(node_get(e, fields[f].field));

			if (!CHECK_DBL(fields[f].got, want,
				       1e-9 * fabs(want) + 1e-12))
				tap_diag("%s: %s", path, fields[f].field);
		}
		CHECK(same_list(ch[i].a, ch[i].na, node_get(e, "a")));
		CHECK(same_list(ch[i].b, ch[i].nb, node_get(e, "b")));
		CHECK_INT(ch[i].is_function_stat,
			  node_get(e, "is_function_stat")->bval);
		CHECK_INT(ch[i].is_latency, node_get(e, "is_latency")->bval);
		/* LKP writes its default gap_distance into the options when
		 * its default rule ran. */
		CHECK_INT(opt.gap_distance_set,
			  node_get(e, "gap_distance") != NULL);
	}
	lkpstat_changes_free(ch, n);
	free(a);
	free(b);
	free(sa);
	free(sb);
	node_free(docs);
	errlist_release(&el);
}

static void
test_lkp_cases(void)
{
	char dir[4096];
	struct dirent *de;
	int cases = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/fixtures/lkp/stats_changed_stats",
		 tap_shared_dir());
	if (!CHECK((d = opendir(dir)) != NULL))
		return;
	while ((de = readdir(d)) != NULL) {
		char path[8192];

		if (strstr(de->d_name, ".yaml") == NULL)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		tap_diag("case %s", de->d_name);
		check_case(path);
		cases++;
	}
	closedir(d);
	CHECK_INT(cases, 7);
}

static void
test_fewer_than_three_runs_not_compared(void)
{
	const double a[] = {10, 11}, b[] = {20, 21};
	struct lkpstat_stat sa = {"fsmark.files_per_sec", a, 2},
			    sb = {"fsmark.files_per_sec", b, 2};
	struct lkpstat_options opt = {.more = true};
	size_t n;
	struct lkpstat_change *c =
		lkpstat_compare(&sa, 1, &sb, 1, &opt, NULL, &n);

	CHECK_INT(n, 0);
	lkpstat_changes_free(c, n);
}

static void
test_upper_median_and_ranges(void)
{
	/* a's upper median 12 lies below b's min 13, and b's median 15
	 * above a's max 12.5: changed. */
	const double a[] = {10, 12.5, 12}, b[] = {13, 15, 16};
	struct lkpstat_stat sa = {"fsmark.files_per_sec", a, 3},
			    sb = {"fsmark.files_per_sec", b, 3};
	struct lkpstat_options opt = {.more = true};
	size_t n;
	struct lkpstat_change *c =
		lkpstat_compare(&sa, 1, &sb, 1, &opt, NULL, &n);

	if (CHECK_INT(n, 1)) {
		CHECK_DBL(c[0].mean_a, 12, 0);
		CHECK_DBL(c[0].mean_b, 15, 0);
	}
	lkpstat_changes_free(c, n);
	/* b's min below a's median: not changed (ranges may overlap as
	 * long as each median is outside the other side's range). */
	const double b2[] = {11.9, 15, 16};

	sb.v = b2;
	c = lkpstat_compare(&sa, 1, &sb, 1, &opt, NULL, &n);
	CHECK_INT(n, 0);
	lkpstat_changes_free(c, n);
}

static void
test_small_ratio_skipped(void)
{
	/* Separated, but only 0.5% apart: LKP's 1.01 ratio floor. */
	const double a[] = {1000, 1001, 1002}, b[] = {1005, 1006, 1007};
	struct lkpstat_stat sa = {"fsmark.files_per_sec", a, 3},
			    sb = {"fsmark.files_per_sec", b, 3};
	struct lkpstat_options opt = {.more = true};
	size_t n;
	struct lkpstat_change *c =
		lkpstat_compare(&sa, 1, &sb, 1, &opt, NULL, &n);

	CHECK_INT(n, 0);
	lkpstat_changes_free(c, n);
	/* 3% apart: a perf metric passes (1.01), another needs 1.05. */
	const double b3[] = {1030, 1031, 1032};

	sb.v = b3;
	c = lkpstat_compare(&sa, 1, &sb, 1, &opt, NULL, &n);
	CHECK_INT(n, 1);
	lkpstat_changes_free(c, n);
	sa.name = sb.name = "cpu.usage";
	c = lkpstat_compare(&sa, 1, &sb, 1, &opt, NULL, &n);
	CHECK_INT(n, 0);
	lkpstat_changes_free(c, n);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_lkp_cases),
		TAP_CASE(test_fewer_than_three_runs_not_compared),
		TAP_CASE(test_upper_median_and_ranges),
		TAP_CASE(test_small_ratio_skipped),
		{NULL, NULL}};

	return tap_run(cases);
}
