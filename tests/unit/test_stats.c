/*
 * test_stats.c: descriptive statistics and Student's t.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/stats.h"
#include "tap.h"

/* A stable sort to hold stats_sort() to: -0 and +0 compare equal and
 * keep their order. */
static void
reference_sort(double *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;

		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* The sort against a stable one, bit for bit: every size to 70 and some
 * large ones, in orders that break naive sorts (sorted, reversed, all
 * equal, few distinct values, organ pipe, negatives and both zeros). */
static void
test_sort(void)
{
	static const size_t sizes[] = {1000, 1001, 4096, 20000};
	static const double odd[] = {-0.0, 0.0, -1.5, 1e300, -1e-300};
	unsigned seed = 7;
	size_t bad = 0;

	for (size_t k = 0; k < 70 + sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = k < 70 ? k : sizes[k - 70];
		double *v = malloc((n + 1) * sizeof *v);
		double *w = malloc((n + 1) * sizeof *w);

		for (int order = 0; order < 7; order++) {
			for (size_t i = 0; i < n; i++)
				v[i] = order == 0   ? rand_r(&seed) / 7.0
				       : order == 1 ? (double)i
				       : order == 2 ? (double)(n - i)
				       : order == 3 ? 42
				       : order == 4 ? rand_r(&seed) % 3
				       : order == 5
					       ? (double)(i < n / 2 ? i : n - i)
					       : odd[rand_r(&seed) % 5];
			memcpy(w, v, n * sizeof *v);
			stats_sort(v, n);
			reference_sort(w, n);
			if (n > 0 && memcmp(v, w, n * sizeof *v) != 0 &&
			    bad++ < 3)
				tap_diag("%zu values in order %d: not sorted",
					 n, order);
		}
		free(v);
		free(w);
	}
	CHECK_INT(bad, 0);
}

/* Two sides at once are each what one side alone gives, bit for bit. */
static void
test_summarize_two_is_one_and_one(void)
{
	unsigned seed = 3;
	size_t bad = 0;

	for (size_t na = 1; na < 80; na += 3)
		for (size_t nb = 1; nb < 80; nb += 5) {
			double a[80], b[80], sa[80], sb[80], s1[80];
			struct stats_summary x, y, x1, y1;

			for (size_t i = 0; i < na; i++)
				a[i] = rand_r(&seed) / 3.0;
			for (size_t i = 0; i < nb; i++)
				b[i] = -rand_r(&seed) / 7.0;
			stats_summarize_two(a, na, sa, &x, b, nb, sb, &y);
			stats_summarize(a, na, s1, &x1);
			stats_summarize(b, nb, NULL, &y1);
			if ((memcmp(&x, &x1, sizeof x) != 0 ||
			     memcmp(&y, &y1, sizeof y) != 0 ||
			     memcmp(sa, s1, na * sizeof *sa) != 0) &&
			    bad++ < 3)
				tap_diag("%zu and %zu values differ", na, nb);
		}
	CHECK_INT(bad, 0);
}

static void
test_summary_population_stddev_upper_median(void)
{
	const double v[] = {4, 1, 3, 2};
	struct stats_summary s;

	stats_summarize(v, 4, NULL, &s);
	CHECK_INT(s.n, 4);
	CHECK_DBL(s.mean, 2.5, 1e-12);
	CHECK_DBL(s.stddev, sqrt(1.25), 1e-12); /* population */
	CHECK_DBL(s.min, 1, 0);
	CHECK_DBL(s.max, 4, 0);
	CHECK_DBL(s.median, 3, 0); /* sorted[n / 2], LKP's upper median */
}

static void
test_summary_large_and_huge(void)
{
	double v[100], big[2] = {1.5e308, 1.7e308};
	struct stats_summary s;

	for (int i = 0; i < 100; i++)
		v[i] = 100 - i;
	stats_summarize(v, 100, NULL, &s);
	CHECK_DBL(s.median, 51, 0);
	CHECK_DBL(s.mean, 50.5, 1e-12);
	stats_summarize(big, 2, NULL, &s);
	CHECK(isfinite(s.mean)); /* no overflow in the sum */
	CHECK_DBL(s.mean, 1.6e308, 1e294);
}

/* The mean of integers whose mean is an integer is that integer: LKP's
 * table truncates it ("%d"), so one ulp below prints one less (a running
 * mean of these ten gave 1244688.9999999998). */
static void
test_mean_is_exact(void)
{
	const double v[] = {1244679, 1244736, 1244676, 1244731, 1244654,
			    1244680, 1244667, 1244691, 1244682, 1244694};
	const double w[] = {1785386, 1785361, 1785326, 1785375, 1785312,
			    1785315, 1785308, 1785338, 1785364, 1785335};
	struct stats_summary s, t;
	double sv[10], sw[10], m, var;

	stats_summarize(v, 10, NULL, &s);
	CHECK(s.mean == 1244689);
	stats_summarize_two(v, 10, sv, &s, w, 10, sw, &t);
	CHECK(s.mean == 1244689);
	CHECK(t.mean == 1785342);
	stats_mean_var(w, 10, &m, &var);
	CHECK(m == 1785342);
	/* n copies of one value: that value, no spread (a sum over n gave
	 * 0.09999999999999999 for three 0.1s) */
	{
		const double c[] = {0.1, 0.1, 0.1};

		stats_summarize(c, 3, NULL, &s);
		CHECK(s.mean == 0.1);
		CHECK(s.stddev == 0);
		stats_mean_var(c, 3, &m, &var);
		CHECK(m == 0.1 && var == 0);
	}
}

static void
test_mean_var(void)
{
	const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	double m, var;

	stats_mean_var(v, 8, &m, &var);
	CHECK_DBL(m, 5, 1e-12);
	CHECK_DBL(var, 32.0 / 7, 1e-12);
	stats_mean_var(v, 1, &m, &var);
	CHECK_DBL(var, 0, 0);
}

static void
test_t_distribution(void)
{
	/* Textbook critical values. */
	CHECK_DBL(stats_t_sf(12.706, 1), 0.025, 1e-5);
	CHECK_DBL(stats_t_sf(2.7764451, 4), 0.025, 1e-7);
	CHECK_DBL(stats_t_sf(2.228, 10), 0.025, 1e-5);
	CHECK_DBL(stats_t_sf(3.169, 10), 0.005, 1e-5);
	CHECK_DBL(stats_t_sf(1.960, 1e6), 0.025, 1e-5);
	CHECK_DBL(stats_t_sf(0, 3), 0.5, 1e-12);
	CHECK_DBL(stats_t_sf(-2.7764451, 4), 0.975, 1e-7);
	CHECK_DBL(stats_t_sf(INFINITY, 4), 0, 0);
	/* Fractional df (Welch), against numerical integration. */
	CHECK_DBL(stats_t_sf(2.5, 2.7), 0.0485397096, 1e-8);
}

static void
test_incbeta(void)
{
	CHECK_DBL(stats_incbeta(1, 1, 0.3), 0.3, 1e-12);
	CHECK_DBL(stats_incbeta(2, 3, 0.4), 0.5248, 1e-10);
	CHECK_DBL(stats_incbeta(5, 5, 0.5), 0.5, 1e-12);
	CHECK_DBL(stats_incbeta(2, 2, 0), 0, 0);
	CHECK_DBL(stats_incbeta(2, 2, 1), 1, 0);
}

static void
test_norm_quantile(void)
{
	CHECK_DBL(stats_norm_quantile(0.975), 1.959963984540054, 1e-9);
	CHECK_DBL(stats_norm_quantile(0.5), 0, 1e-12);
	CHECK_DBL(stats_norm_quantile(0.001), -3.090232306167813, 1e-9);
	CHECK_DBL(stats_norm_quantile(0.8), 0.8416212335729143, 1e-9);
}

/* F's tail against tables' 5% points, with an infinite denominator
 * too (a chi-square over its degrees of freedom); the digamma and
 * trigamma functions at known values. */
static void
test_f_and_gammas(void)
{
	CHECK_DBL(stats_f_sf(3.3158, 2, 30), 0.05, 2e-5);
	CHECK_DBL(stats_f_sf(3.3258, 5, 10), 0.05, 2e-5);
	CHECK_DBL(stats_f_sf(5.9915 / 2, 2, INFINITY), 0.05, 2e-5);
	CHECK_DBL(stats_f_sf(18.307 / 10, 10, INFINITY), 0.05, 2e-5);
	CHECK_DBL(stats_f_sf(2.0, 3, 1e9), stats_f_sf(2.0, 3, INFINITY), 1e-6);
	CHECK_DBL(stats_f_sf(0, 3, 3), 1, 0);
	CHECK_DBL(stats_f_sf(INFINITY, 3, 3), 0, 0);
	CHECK_DBL(stats_digamma(1), -0.5772156649015329, 1e-12);
	CHECK_DBL(stats_digamma(0.5), -1.9635100260214235, 1e-12);
	CHECK_DBL(stats_digamma(10), 2.251752589066721, 1e-12);
	CHECK_DBL(stats_trigamma(1), 1.6449340668482264, 1e-12);
	CHECK_DBL(stats_trigamma(0.5), 4.934802200544679, 1e-12);
	CHECK_DBL(stats_trigamma(10), 0.10516633568168575, 1e-12);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_sort),
		TAP_CASE(test_summarize_two_is_one_and_one),
		TAP_CASE(test_summary_population_stddev_upper_median),
		TAP_CASE(test_summary_large_and_huge),
		TAP_CASE(test_mean_var),
		TAP_CASE(test_mean_is_exact),
		TAP_CASE(test_t_distribution),
		TAP_CASE(test_incbeta),
		TAP_CASE(test_norm_quantile),
		TAP_CASE(test_f_and_gammas),
		{NULL, NULL}};

	return tap_run(cases);
}
