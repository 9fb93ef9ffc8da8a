/*
 * sim_bound.c: the fewest runs a side that any plan of looks can reach
 * with a test of a pair's own runs, in the best case: normal noise on
 * the log scale (sim_loop's lab without its faults), no trimming, no
 * floor, no equivalence test, a look after every round, and each plan's
 * level found by simulation so that its false alarms over all its looks
 * are exactly the target, not a budget spent by a rule that must hold
 * for any cap.  robotd's loop (sim_loop) cannot do better than the test
 * it uses does here; this says how far a target such as "a 10% change at
 * 5% noise found in 90% of pairs, at most 8 runs a side on average, at
 * most 0.5% false alarms" is from what a test can do.
 *
 * Three tests of one pair of n rounds:
 *   paired  the rounds' differences, n - 1 degrees of freedom: what
 *           stays valid when boxes stand apart or drift;
 *   pooled  both sides' noise, 2n - 2: valid only when the rounds differ
 *           in nothing (robotd pools when they seem not to);
 *   known   the noise known exactly (a z test): what a history that
 *           matched the pair's noise would give.
 * A plan: a look at every round from first to max, at the look of n
 * rounds the level a * (n / max)^rho (rho 0 is Pocock's, the same at
 * every look; larger spends less at the early looks), a found so that
 * the false alarms (a change either way, on a pair of one commit against
 * itself) over all looks are alpha.  For each test and cap, the plan
 * with the fewest runs a side on average (over the pairs with a change,
 * found or not: those not found run to the cap) among those that find
 * the change in at least the power asked, and the single look at the cap.
 *
 * Usage: sim_bound [--pairs N] [--seed S] [--noise PCT] [--shift PCT]
 *                  [--alpha A] [--power P]
 * Defaults: 100000 pairs of each kind, 5% noise, a 10% slowdown, alpha
 * 0.005, power 0.9.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/stats.h"

#define MAX_ROUNDS 16
#define FIRST_LOOK 3

enum test { TEST_PAIRED, TEST_POOLED, TEST_KNOWN };

static const char *test_names[] = {"paired", "pooled", "known"};

static unsigned short xs[3];

static double
normal(void)
{
	double u = erand48(xs), v = erand48(xs);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/*
 * The two-sided p-values of P pairs after each round 1..MAX_ROUNDS
 * (p[i * MAX_ROUNDS + n - 1], NAN after one round), negative when the
 * change went the other way (the head faster).  One run's noise is 1;
 * the head is slower by eff of it.
 */
static void
simulate(enum test t, long pairs, double eff, double *p)
{
	for (long i = 0; i < pairs; i++) {
		double sb = 0, sbb = 0, sh = 0, shh = 0, sd = 0, sdd = 0;

		for (int n = 1; n <= MAX_ROUNDS; n++) {
			double b = normal(), h = normal() - eff, z, df, q;

			sb += b, sbb += b * b;
			sh += h, shh += h * h;
			sd += h - b, sdd += (h - b) * (h - b);
			if (t == TEST_KNOWN) {
				z = (sd / n) / sqrt(2.0 / n);
				q = erfc(fabs(z) / M_SQRT2);
			} else if (n == 1) {
				p[i * MAX_ROUNDS] = NAN;
				continue;
			} else if (t == TEST_PAIRED) {
				double v = (sdd - sd * sd / n) / (n - 1);

				z = (sd / n) / sqrt(v / n);
				df = n - 1;
				q = 2 * stats_t_sf(fabs(z), df);
			} else {
				double v = (sbb - sb * sb / n + shh -
					    sh * sh / n) /
					   (2.0 * n - 2);

				z = (sd / n) / sqrt(2 * v / n);
				df = 2.0 * n - 2;
				q = 2 * stats_t_sf(fabs(z), df);
			}
			p[i * MAX_ROUNDS + n - 1] = z < 0 ? q : -q;
		}
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct plan {
	int first, max;
	double rho, level; /* the level at the cap */
	double found, runs;
};

/* The level of the plan's looks at which the null pairs' false alarms
 * are alpha, and what it finds of the pairs with a change. */
static void
plan_measure(struct plan *pl, const double *p0, const double *p1, long pairs,
	     double alpha, double *r)
{
	long found = 0, runs = 0, k;

	/* A pair is a false alarm at level a when p / w < a at a look,
	 * w = (n / max)^rho: a is the alpha-quantile of its smallest. */
	for (long i = 0; i < pairs; i++) {
		r[i] = INFINITY;
		for (int n = pl->first; n <= pl->max; n++) {
			double q = fabs(p0[i * MAX_ROUNDS + n - 1]) /
				   pow((double)n / pl->max, pl->rho);

			if (q < r[i])
				r[i] = q;
		}
	}
	qsort(r, (size_t)pairs, sizeof *r, cmp_double);
	k = (long)(alpha * pairs);
	pl->level = k > 0 ? r[k - 1] : r[0] / 2;
	for (long i = 0; i < pairs; i++) {
		int stop = pl->max;

		for (int n = pl->first; n <= pl->max; n++) {
			double q = p1[i * MAX_ROUNDS + n - 1];
			double a =
				pl->level * pow((double)n / pl->max, pl->rho);

			if (fabs(q) <= a) {
				found += q > 0;
				stop = n;
				break;
			}
		}
		runs += stop;
	}
	pl->found = (double)found / pairs;
	pl->runs = (double)runs / pairs;
}

int
main(int argc, char **argv)
{
	static const double rhos[] = {0, 0.5, 1, 1.5, 2, 3};
	long pairs = 100000, seed = 1;
	double noise = 0.05, shift = 0.10, alpha = 0.005, power = 0.9;
	double *p0, *p1, *r, eff;

	for (int i = 1; i < argc; i += 2) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (strcmp(o, "--pairs") == 0)
			pairs = atol(v);
		else if (strcmp(o, "--seed") == 0)
			seed = atol(v);
		else if (strcmp(o, "--noise") == 0)
			noise = atof(v) / 100;
		else if (strcmp(o, "--shift") == 0)
			shift = atof(v) / 100;
		else if (strcmp(o, "--alpha") == 0)
			alpha = atof(v);
		else if (strcmp(o, "--power") == 0)
			power = atof(v);
		else {
			fprintf(stderr, "sim_bound: bad option %s\n", o);
			return 2;
		}
	}
	if (pairs < 100 || !(noise > 0) || !(shift > 0 && shift < 1) ||
	    !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1)) {
		fprintf(stderr, "sim_bound: bad figures\n");
		return 2;
	}
	eff = -log(1 - shift) / noise;
	p0 = calloc((size_t)pairs * MAX_ROUNDS, sizeof *p0);
	p1 = calloc((size_t)pairs * MAX_ROUNDS, sizeof *p1);
	r = calloc((size_t)pairs, sizeof *r);
	if (p0 == NULL || p1 == NULL || r == NULL) {
		fprintf(stderr, "sim_bound: out of memory\n");
		return 1;
	}
	printf("%ld pairs of each kind; %.1f%% noise, a %.0f%% slowdown; "
	       "false alarms %.2f%% over all looks; found in at least "
	       "%.0f%%\n",
	       pairs, 100 * noise, 100 * shift, 100 * alpha, 100 * power);
	printf("%12s %-27s   %s\n", "", "the best plan", "one look at the cap");
	printf("%-7s %4s %6s %5s %7s %6s   %7s %6s\n", "test", "cap", "first",
	       "rho", "found", "runs", "found", "runs");
	for (int t = TEST_PAIRED; t <= TEST_KNOWN; t++) {
		xs[0] = (unsigned short)seed;
		xs[1] = (unsigned short)(seed >> 16);
		xs[2] = 0x330e;
		simulate((enum test)t, pairs, 0, p0);
		simulate((enum test)t, pairs, eff, p1);
		for (int max = 6; max <= MAX_ROUNDS; max++) {
			struct plan best = {0, 0, 0, 0, 0, 0}, one;

			for (int first = FIRST_LOOK; first <= max; first++) {
				for (size_t k = 0;
				     k < sizeof rhos / sizeof *rhos; k++) {
					struct plan pl = {first, max, rhos[k],
							  0,     0,   0};

					plan_measure(&pl, p0, p1, pairs, alpha,
						     r);
					if (pl.found >= power &&
					    (best.max == 0 ||
					     pl.runs < best.runs))
						best = pl;
				}
			}
			one = (struct plan){max, max, 0, 0, 0, 0};
			plan_measure(&one, p0, p1, pairs, alpha, r);
			if (best.max == 0)
				printf("%-7s %4d %27s", test_names[t], max,
				       "(none finds enough)");
			else
				printf("%-7s %4d %6d %5.1f %6.1f%% %6.2f",
				       test_names[t], max, best.first, best.rho,
				       100 * best.found, best.runs);
			printf("   %6.1f%% %6d\n", 100 * one.found, one.max);
		}
	}
	free(p0);
	free(p1);
	free(r);
	return 0;
}
