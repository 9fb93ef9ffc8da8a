/*
 * test_shape.c: the shape of per-second series whose truth is known:
 * the seeds' unlink oscillation (a 20 s square wave between 80k and 20k)
 * and others, against steady, drifting and noisy series with none.
 */
#include <math.h>
#include <stdlib.h>

#include "robot/analysis/shape.h"
#include "robot/analysis/rng.h"
#include "tap.h"

static struct rng rng;

static double
uniform(void)
{
	return rng_uniform(&rng);
}

static double
gauss(void)
{
	return rng_gauss(&rng);
}

/* The seeds' unlink run: "a very regular peak/trough pattern with a
 * period of about 20s, where the peak is about 80k unlinks/s, and the
 * trough is around 20k", with 3k of noise, over 3 minutes. */
static void
test_square_wave(void)
{
	double v[180];
	struct shape s;

	rng_seed(&rng, 1);
	for (size_t i = 0; i < 180; i++)
		v[i] = (i % 20 < 10 ? 80000 : 20000) + 3000 * gauss();
	shape_of(v, 180, &s);
	CHECK(s.periodic);
	CHECK_DBL(s.period, 20, 1);
	CHECK(s.strength > 0.8);
	CHECK_DBL(s.peak, 80000, 6000);
	CHECK_DBL(s.trough, 20000, 6000);
}

/* Other periods and shapes: a sine of 7 s, a sawtooth of 30 s over a
 * rising trend (writeback's period on a slowly filling disk), and a
 * period that is not a whole number of seconds (12.5). */
static void
test_other_periods(void)
{
	double v[240];
	struct shape s;

	rng_seed(&rng, 2);
	for (size_t i = 0; i < 120; i++)
		v[i] = 100 + 30 * sin(2 * M_PI * (double)i / 7) + 5 * gauss();
	shape_of(v, 120, &s);
	CHECK(s.periodic);
	CHECK_DBL(s.period, 7, 0.5);

	for (size_t i = 0; i < 240; i++)
		v[i] = 1000 + 2 * (double)i + 300 * (double)(i % 30) / 30 +
		       20 * gauss();
	shape_of(v, 240, &s);
	CHECK(s.periodic);
	CHECK_DBL(s.period, 30, 1);

	for (size_t i = 0; i < 200; i++)
		v[i] = 500 + 100 * sin(2 * M_PI * (double)i / 12.5) +
		       10 * gauss();
	shape_of(v, 200, &s);
	CHECK(s.periodic);
	CHECK_DBL(s.period, 12.5, 0.5);
}

/* No period: a steady series with noise (1,000 of them, none may have
 * one), heavy-tailed noise, a straight drift, a random walk, a single
 * step, and series too short or constant.  The peak and trough of a
 * steady one are near its level. */
static void
test_no_period(void)
{
	double v[300];
	struct shape s;
	size_t periodic = 0;

	rng_seed(&rng, 3);
	for (int t = 0; t < 1000; t++) {
		size_t n = 30 + (size_t)t % 270;

		for (size_t i = 0; i < n; i++)
			v[i] = 50000 + 2500 * gauss();
		shape_of(v, n, &s);
		periodic += s.periodic;
	}
	CHECK_INT(periodic, 0);
	shape_of(v, 299, &s);
	CHECK_DBL(s.peak, 50000 + 2500 * 1.75, 1500);
	CHECK_DBL(s.trough, 50000 - 2500 * 1.75, 1500);

	periodic = 0;
	for (int t = 0; t < 200; t++) {
		for (size_t i = 0; i < 120; i++) /* Cauchy-like tails */
			v[i] = 1000 + 50 * tan(M_PI * (uniform() - 0.5));
		shape_of(v, 120, &s);
		periodic += s.periodic;
	}
	CHECK_INT(periodic, 0);

	for (size_t i = 0; i < 120; i++)
		v[i] = 1000 + 10 * (double)i + gauss();
	shape_of(v, 120, &s);
	CHECK(!s.periodic);

	periodic = 0;
	for (int t = 0; t < 200; t++) {
		v[0] = 1000;
		for (size_t i = 1; i < 120; i++)
			v[i] = v[i - 1] + 10 * gauss();
		shape_of(v, 120, &s);
		periodic += s.periodic;
	}
	tap_diag("random walks with a period: %zu of 200", periodic);
	CHECK(periodic <= 4);

	for (size_t i = 0; i < 120; i++)
		v[i] = (i < 60 ? 1000 : 600) + 5 * gauss();
	shape_of(v, 120, &s);
	CHECK(!s.periodic);

	for (size_t i = 0; i < 7; i++)
		v[i] = i % 2 ? 10 : 90;
	shape_of(v, 7, &s);
	CHECK(!s.periodic); /* fewer than SHAPE_PERIOD_MIN_SAMPLES */
	CHECK_DBL(s.peak, 90, 0);
	CHECK_DBL(s.trough, 10, 0);

	for (size_t i = 0; i < 50; i++)
		v[i] = 42;
	shape_of(v, 50, &s);
	CHECK(!s.periodic);
	CHECK_DBL(s.peak, 42, 0);
	CHECK_DBL(s.trough, 42, 0);
	shape_of(v, 1, &s);
	CHECK_DBL(s.peak, 42, 0);
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_square_wave),
		TAP_CASE(test_other_periods),
		TAP_CASE(test_no_period),
		{NULL, NULL},
	};

	return tap_run(cases);
}
