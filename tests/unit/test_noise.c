/*
 * test_noise.c: a prior from a history of pairs' noise (noise_fit()),
 * on histories drawn with a known truth.
 */
#include <math.h>
#include <stdlib.h>

#include "robot/analysis/noise.h"
#include "robot/analysis/rng.h"
#include "tap.h"

/* A chi-square with k degrees of freedom. */
static double
chi2(struct rng *r, int k)
{
	double s = 0;

	for (int i = 0; i < k; i++) {
		double z = rng_gauss(r);

		s += z * z;
	}
	return s;
}

/* n pairs of df degrees of freedom each, their true variance var, or,
 * with d0 > 0, drawn around var as the model has it (var * d0 /
 * chi2(d0)). */
static struct noise_obs *
history(struct rng *r, size_t n, int df, double var, int d0)
{
	struct noise_obs *o = calloc(n, sizeof *o);

	for (size_t i = 0; i < n; i++) {
		double v = d0 > 0 ? var * d0 / chi2(r, d0) : var;

		o[i].df = df;
		o[i].var = v * chi2(r, df) / df;
	}
	return o;
}

/* The pooled variance of n pairs but the one at skip. */
static double
pooled(const struct noise_obs *o, size_t n, size_t skip)
{
	double ss = 0, df = 0;

	for (size_t i = 0; i < n; i++)
		if (i != skip) {
			ss += o[i].df * o[i].var;
			df += o[i].df;
		}
	return ss / df;
}

/* Pairs that all share one noise: its variance, on all their degrees of
 * freedom up to NOISE_DF_MAX. */
static void
test_same_noise(void)
{
	struct rng r;
	struct noise_prior p;
	struct noise_obs *o;

	rng_seed(&r, 1);
	o = history(&r, 10, 4, 0.0025, 0);
	CHECK(noise_fit(o, 10, &p));
	CHECK_INT(p.pairs, 10);
	CHECK_INT(p.dropped, 0);
	/* ten pairs' spread leaves some doubt that they share one noise */
	tap_diag("d0 %.2f, s0^2 %.5f", p.df, p.var);
	CHECK(p.df >= 10 && p.df <= 40);
	CHECK_DBL(p.var, pooled(o, 10, 10), 0.0005);
	free(o);
	o = history(&r, 200, 4, 0.0025, 0);
	CHECK(noise_fit(o, 200, &p));
	CHECK_DBL(p.df, NOISE_DF_MAX, 0);
	CHECK_DBL(p.var, 0.0025, 0.00015);
	free(o);
}

/* Pairs whose noise itself varies (d0 = 6): Smyth's moments find about
 * that many degrees of freedom, and the typical variance. */
static void
test_noise_that_varies(void)
{
	struct rng r;
	struct noise_prior p;
	struct noise_obs *o;

	rng_seed(&r, 2);
	o = history(&r, 4000, 4, 0.0025, 6);
	CHECK(noise_fit(o, 4000, &p));
	tap_diag("d0 %.2f, s0^2 %.5f, %zu dropped", p.df, p.var, p.dropped);
	CHECK_DBL(p.df, 6, 1.2);
	CHECK_DBL(p.var, 0.0025, 0.0002);
	free(o);
}

/* A pair a hundred times noisier than the rest is left out; one of them
 * alone cannot be told from the rest. */
static void
test_outlier_left_out(void)
{
	struct rng r;
	struct noise_prior p;
	struct noise_obs *o;

	rng_seed(&r, 3);
	o = history(&r, 12, 4, 0.0025, 0);
	o[5].var = 0.25;
	CHECK(noise_fit(o, 12, &p));
	CHECK_INT(p.dropped, 1);
	CHECK_INT(p.pairs, 11);
	CHECK_DBL(p.df, 44, 0);
	/* the others' (their draws average 0.0038) */
	CHECK_DBL(p.var, pooled(o, 12, 5), 0.0005);
	free(o);
}

/* Too little history is no prior; two pairs are pooled; what cannot be
 * a variance is left out. */
static void
test_little_history(void)
{
	struct noise_obs a[] = {{0.004, 1}, {0.002, 0.5}};
	struct noise_obs b[] = {{0.004, 2}, {0.001, 2}};
	struct noise_obs c[] = {{0.004, 4}, {NAN, 2}, {-1, 2}, {0.1, 0}};
	struct noise_prior p;

	CHECK(!noise_fit(a, 2, &p));
	CHECK(!noise_fit(NULL, 0, &p));
	CHECK(noise_fit(b, 2, &p));
	CHECK_DBL(p.var, 0.0025, 1e-15);
	CHECK_DBL(p.df, 4, 0);
	CHECK_INT(p.pairs, 2);
	CHECK(noise_fit(c, 4, &p));
	CHECK_INT(p.pairs, 1);
	CHECK_DBL(p.var, 0.004, 0);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_same_noise),
		TAP_CASE(test_noise_that_varies),
		TAP_CASE(test_outlier_left_out),
		TAP_CASE(test_little_history),
		{NULL, NULL}};

	return tap_run(cases);
}
