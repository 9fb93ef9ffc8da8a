/*
 * test_changes.c: change points of histories whose truth is known
 * (drawn with a fixed seed), and the edges of the method.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/changes.h"
#include "robot/analysis/rng.h"
#include "tap.h"

#define MAXN 1000
#define MAXR 5

static struct rng rng;

static double
gauss(void)
{
	return rng_gauss(&rng);
}

struct hist {
	size_t n;
	double v[MAXN][MAXR];
	struct changes_point pts[MAXN];
};

static struct hist H;

/* n points of runs values each: level 1000, times each step's factor
 * from its point on, with log-normal noise of sd noise. */
static void
make(size_t n, size_t runs, double noise, const size_t *at,
     const double *factor, size_t nsteps)
{
	double level = 1000;

	H.n = n;
	for (size_t k = 0, s = 0; k < n; k++) {
		while (s < nsteps && at[s] == k)
			level *= factor[s++];
		for (size_t j = 0; j < runs; j++)
			H.v[k][j] = level * exp(noise * gauss());
		H.pts[k].commit = NULL;
		H.pts[k].v = H.v[k];
		H.pts[k].n = runs;
	}
}

static size_t
find(struct change_point **cp)
{
	struct changes_options opt;

	changes_options_init(&opt);
	return changes_find(H.pts, H.n, &opt, cp);
}

/* A 10% step in 3% noise is found where it is, with its size. */
static void
test_one_step(void)
{
	static const size_t at[] = {80};
	static const double f[] = {0.9};
	struct change_point *cp;
	size_t n;

	rng_seed(&rng, 1);
	make(200, 3, 0.03, at, f, 1);
	n = find(&cp);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK(cp[0].index >= 79 && cp[0].index <= 81);
		CHECK_DBL(cp[0].change_pct, -10, 1);
		CHECK_DBL(cp[0].effect_pct, -10, 1);
		CHECK(cp[0].p < 1e-6);
		CHECK_INT(cp[0].from, 0);
		CHECK_INT(cp[0].to, 200);
		CHECK_INT(cp[0].nbefore, 3 * cp[0].index);
		CHECK_INT(cp[0].nafter, 3 * (200 - cp[0].index));
		CHECK_DBL(cp[0].before, 1000, 10);
		CHECK_DBL(cp[0].after, 900, 10);
	}
	free(cp);
}

/* Three steps, up and down, each found within two points, and the
 * segments chain. */
static void
test_three_steps(void)
{
	static const size_t at[] = {50, 120, 200};
	static const double f[] = {1.08, 0.85, 1.12};
	struct change_point *cp;
	size_t n;

	rng_seed(&rng, 2);
	make(300, 2, 0.02, at, f, 3);
	n = find(&cp);
	CHECK_INT(n, 3);
	for (size_t i = 0; i < n && n == 3; i++) {
		CHECK(cp[i].index + 2 >= at[i] && cp[i].index <= at[i] + 2);
		CHECK_DBL(cp[i].change_pct, 100 * (f[i] - 1), 1.5);
		CHECK_INT(cp[i].from, i > 0 ? cp[i - 1].index : 0);
		CHECK_INT(cp[i].to, i < 2 ? cp[i + 1].index : 300);
	}
	free(cp);
}

/* Histories without a change: at alpha 0.001 per segment, 300 of them
 * (60,000 points) give at most 3 false change points (0.3 expected). */
static void
test_no_change(void)
{
	size_t false_cps = 0;

	rng_seed(&rng, 3);
	for (int i = 0; i < 300; i++) {
		struct change_point *cp;

		make(200, 1 + (size_t)i % 5, 0.05, NULL, NULL, 0);
		false_cps += find(&cp);
		free(cp);
	}
	tap_diag("%zu false change points in 60,000 points", false_cps);
	CHECK(false_cps <= 3);
}

/* Outliers and heavy skew make no change point: ranks see one wild
 * run as one rank.  The same history's means would: a run 100 times
 * the level moves a segment's mean by half.  (A chance one, anywhere,
 * is the test's alpha: 0.1 expected in the 100.) */
static void
test_outliers_and_skew(void)
{
	size_t false_cps = 0, near = 0;

	rng_seed(&rng, 4);
	for (int i = 0; i < 100; i++) {
		struct change_point *cp;
		size_t n;

		make(150, 3, 0.02, NULL, NULL, 0);
		for (int k = 0; k < 3; k++)
			H.v[100 + 10 * k][k] *= 100; /* three wild runs */
		for (size_t k = 0; k < H.n; k++)
			for (size_t j = 0; j < 3; j++) /* skewed: cubed */
				H.v[k][j] = pow(H.v[k][j] / 1000, 3) * 1000;
		n = find(&cp);
		false_cps += n;
		for (size_t c = 0; c < n; c++)
			near += cp[c].index >= 95 && cp[c].index <= 125;
		free(cp);
	}
	CHECK_INT(near, 0);
	CHECK(false_cps <= 2);
}

/* A step below the minimum effect is not a change point, however
 * sure; with the minimum below it, it is. */
static void
test_min_effect(void)
{
	static const size_t at[] = {100};
	static const double f[] = {1.01};
	struct changes_options opt;
	struct change_point *cp;

	rng_seed(&rng, 5);
	make(200, 5, 0.002, at, f, 1);
	changes_options_init(&opt);
	CHECK_INT(changes_find(H.pts, H.n, &opt, &cp), 0);
	CHECK(cp == NULL);
	opt.min_effect_pct = 0.5;
	CHECK_INT(changes_find(H.pts, H.n, &opt, &cp), 1);
	if (cp != NULL)
		CHECK_INT(cp[0].index, 100);
	free(cp);
}

/* Every run counts: a 4% step in 6% noise over 30 points a side is
 * found with 5 runs a point, and not from one run a point. */
static void
test_runs_count(void)
{
	static const size_t at[] = {30};
	static const double f[] = {1.04};
	struct change_point *cp;
	size_t found5 = 0, found1 = 0;

	rng_seed(&rng, 6);
	for (int i = 0; i < 20; i++) {
		make(60, 5, 0.06, at, f, 1);
		found5 += find(&cp) > 0;
		free(cp);
		make(60, 1, 0.06, at, f, 1);
		found1 += find(&cp) > 0;
		free(cp);
	}
	tap_diag("found in %zu of 20 with 5 runs, %zu with 1", found5, found1);
	CHECK(found5 >= 15);
	CHECK(found1 <= 5);
}

/* A creep of five 2% steps, each under a single pair's notice, is
 * found as a change of the level. */
static void
test_creep(void)
{
	static const size_t at[] = {40, 50, 60, 70, 80};
	static const double f[] = {0.98, 0.98, 0.98, 0.98, 0.98};
	struct change_point *cp;
	size_t n;
	double total = 0;

	rng_seed(&rng, 7);
	make(120, 3, 0.02, at, f, 5);
	n = find(&cp);
	CHECK(n >= 1);
	for (size_t i = 0; i < n; i++) {
		CHECK(cp[i].index >= 35 && cp[i].index <= 85);
		total += log1p(cp[i].change_pct / 100);
	}
	CHECK_DBL(100 * expm1(total), -9.6, 2.5);
	free(cp);
}

/* The edges: too short, all equal, values at or below 0, and the same
 * answer twice. */
static void
test_edges(void)
{
	static const size_t at[] = {20};
	static const double f[] = {2};
	struct change_point *cp, *cp2;
	size_t n, n2;

	CHECK_INT(changes_find(H.pts, 0, &(struct changes_options){0.001, 2, 3},
			       &cp),
		  0);
	rng_seed(&rng, 8);
	make(3, 3, 0.01, NULL, NULL, 0);
	CHECK_INT(find(&cp), 0); /* fewer than two segments' points */
	make(100, 3, 0, at, NULL, 0);
	CHECK_INT(find(&cp), 0); /* every value the same */

	/* Around 0, from -1 to 1: the effect is of the values */
	make(60, 3, 0.01, at, f, 1);
	for (size_t k = 0; k < H.n; k++)
		for (size_t j = 0; j < 3; j++)
			H.v[k][j] = H.v[k][j] / 1000 - 1.5;
	n = find(&cp);
	CHECK_INT(n, 1);
	if (n == 1) {
		CHECK_INT(cp[0].index, 20);
		CHECK(cp[0].effect_pct > 100);
	}
	free(cp);

	rng_seed(&rng, 9);
	make(400, 2, 0.05, (const size_t[]){100, 300},
	     (const double[]){1.03, 0.97}, 2);
	n = find(&cp);
	n2 = find(&cp2);
	CHECK_INT(n, n2);
	if (n == n2 && n > 0)
		CHECK(memcmp(cp, cp2, n * sizeof *cp) == 0);
	free(cp);
	free(cp2);
}

/* A step near the end of the history, 4 points from it, is found. */
static void
test_near_end(void)
{
	static const size_t at[] = {96};
	static const double f[] = {0.8};
	struct change_point *cp;
	size_t n;

	rng_seed(&rng, 10);
	make(100, 3, 0.02, at, f, 1);
	n = find(&cp);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_INT(cp[0].index, 96);
	free(cp);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_one_step),   TAP_CASE(test_three_steps),
		TAP_CASE(test_no_change),  TAP_CASE(test_outliers_and_skew),
		TAP_CASE(test_min_effect), TAP_CASE(test_runs_count),
		TAP_CASE(test_creep),      TAP_CASE(test_edges),
		TAP_CASE(test_near_end),   {NULL, NULL},
	};

	return tap_run(cases);
}
