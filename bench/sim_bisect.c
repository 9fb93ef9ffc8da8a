/*
 * sim_bisect.c: bisection steps as robotd decides them
 * (bisect_test(), robot/analysis/bisectstep.h), on simulated runs whose
 * truth is known, and whole bisections of a linear range.
 *
 * A run's value is 100 x (1 - change if its commit is bad) x the
 * box's drift (a share per run, compounding; rounds cancel it) x
 * exp(noise x N(0, 1)), and with probability --outliers P it is off by
 * a factor F more (--outliers P:F).  The series' history is DF degrees
 * of freedom of its noise (--prior DF, 0: none: the ends' rounds alone
 * tell the noise).  A step starts with --first rounds of the good end,
 * the midpoint and the bad end, one more at each look, up to --max; the
 * bisection's ends have 3 rounds of their own (their pair's).
 *
 *   steps      each step's midpoint like good or like bad (half each),
 *              (confirms: the confirm step's commit like its parent or
 *              changed as the ends did),
 *              or --between X of the way: how often it is told wrong,
 *              rounds per step (the midpoint's runs), and how many end
 *              at the most runs.
 *   bisect N   bisections of N commits, the first bad one anywhere, git's
 *              midpoint each step (the middle of what is left), and the
 *              confirm step against its parent: how often the first bad
 *              commit is found, runs per tested commit (its own, and
 *              all of a step's with the ends), runs per bisection.
 *
 * Usage: sim_bisect [steps | confirms | bisect N] [--count C] [--seed S]
 *                   [--noise PCT] [--change PCT] [--outliers P:F]
 *                   [--drift PCT] [--prior DF] [--first R] [--max R]
 *                   [--between X] [--noisier K]
 *
 * --noisier K: the midpoint's runs (the tested commit's) are K times as
 * noisy as the ends' (a commit that makes the job noisier).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/bisectstep.h"
#include "robot/analysis/rng.h"

struct lab {
	double noise, change, out_p, out_f, drift, between;
	double noisier; /* the midpoint's noise, times the ends' */
	int prior, first, max;
	bool confirm; /* steps: confirm steps instead of midpoints */
	double runs;  /* the box's runs so far (its drift) */
	struct rng rng;
};

/* One run of a commit that is bad (1), good (0), or in between, with
 * its noise times k. */
static double
run(struct lab *l, double badness, double k)
{
	double v = 100 * (1 - l->change * badness) * pow(1 + l->drift, l->runs);

	l->runs++;
	v *= exp(k * l->noise * rng_gauss(&l->rng));
	if (rng_uniform(&l->rng) < l->out_p)
		v *= l->out_f;
	return v;
}

/* A round of the commits of badness g, m, b (NAN: not run), in a random
 * order. */
static struct bisect_round
round_of(struct lab *l, double g, double m, double b)
{
	double in[3] = {g, m, b}, out[3] = {NAN, NAN, NAN};
	int order[3] = {0, 1, 2};

	for (int i = 2; i > 0; i--) {
		int j = (int)rng_below(&l->rng, (size_t)i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < 3; i++)
		if (isfinite(in[order[i]]))
			out[order[i]] = run(l, in[order[i]],
					    order[i] == 1 ? l->noisier : 1);
	return (struct bisect_round){out[0], out[1], out[2]};
}

/* The history's noise: prior degrees of freedom of a round's
 * difference. */
static double
prior_var(struct lab *l)
{
	double s = 0;

	for (int i = 0; i < l->prior; i++) {
		double z = l->noise * (rng_gauss(&l->rng) - rng_gauss(&l->rng));

		s += z * z;
	}
	return l->prior > 0 ? s / l->prior : 0;
}

/* One step of a midpoint of badness m (or a confirm step of a commit of
 * badness m against a good parent) to its verdict: the rounds it took.
 * A midpoint's rounds of the ends are added to ends (*nends of them, at
 * most 500), as robotd reads them for the next steps. */
static enum bisect_class
step(struct lab *l, double m, bool confirm, struct bisect_round *ends,
     size_t *nends, int *rounds)
{
	struct bisect_round r[256];
	struct bisect_test t;
	double pv = prior_var(l);
	char why[512];
	int n = 0;

	for (;;) {
		int want = n == 0 ? l->first : n + 1;

		while (n < want)
			r[n++] = confirm ? round_of(l, 0, m, NAN)
					 : round_of(l, 0, m, 1);
		bisect_test(r, (size_t)n, ends, *nends, confirm, pv, l->prior,
			    n >= l->max, &t, why, sizeof why);
		if (t.verdict != BISECT_UNSURE || n >= l->max)
			break;
	}
	for (int i = 0; i < n && !confirm && *nends < 500; i++)
		ends[(*nends)++] =
			(struct bisect_round){r[i].good, NAN, r[i].bad};
	*rounds = n;
	return t.verdict;
}

static void
ends_of(struct lab *l, struct bisect_round *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		e[i] = round_of(l, 0, NAN, 1);
}

static void
steps(struct lab *l, long count)
{
	long wrong = 0, rounds = 0, capped = 0;

	for (long i = 0; i < count; i++) {
		struct bisect_round e[512];
		double m = l->between >= 0 ? l->between : (double)(i % 2);
		enum bisect_class want = m > 0.5 ? BISECT_BAD : BISECT_GOOD;
		size_t ne = 3;
		int n;

		ends_of(l, e, 3);
		wrong += step(l, m, l->confirm, e, &ne, &n) != want;
		rounds += n;
		capped += n >= l->max;
	}
	printf("steps: %.2f%% told wrong, %.2f rounds a step (%.2f runs of "
	       "the midpoint, %.2f in all), %.1f%% at the most runs\n",
	       100.0 * wrong / count, (double)rounds / count,
	       (double)rounds / count, 3.0 * rounds / count,
	       100.0 * capped / count);
}

static void
bisections(struct lab *l, long count, int commits)
{
	long found = 0, tested = 0, own = 0, all = 0, wrong_end = 0;

	for (long i = 0; i < count; i++) {
		/* commits 1..commits; the first bad one is culprit; 0 is
		 * the good end, commits the bad end */
		int culprit = 1 + (int)rng_below(&l->rng, (size_t)commits);
		int good = 0, bad = commits, n;
		struct bisect_round e[512];
		size_t ne = 3;

		ends_of(l, e, 3);
		while (bad - good > 1) {
			int mid = (good + bad) / 2;
			enum bisect_class c =
				step(l, mid >= culprit, false, e, &ne, &n);

			tested++;
			own += n;
			all += 3 * n;
			if (c == BISECT_BAD)
				bad = mid;
			else
				good = mid;
		}
		/* confirm bad against its parent */
		{
			enum bisect_class c =
				step(l, bad >= culprit, true, e, &ne, &n);

			tested++;
			own += n;
			all += 2 * n;
			if (c == BISECT_BAD && bad == culprit)
				found++;
			else if (c != BISECT_BAD)
				wrong_end++;
		}
	}
	printf("bisections of %d commits: %.1f%% found the first bad commit "
	       "(%.1f%% unconfirmed), %.2f runs per tested commit (%.2f with "
	       "the ends' runs in its rounds), %.1f runs a bisection\n",
	       commits, 100.0 * found / count, 100.0 * wrong_end / count,
	       (double)own / tested, (double)all / tested, (double)all / count);
}

int
main(int argc, char **argv)
{
	struct lab l = {0.04, 0.08, 0, 1, 0, -1, 1, 30, 1, 14, false, 0, {{0}}};
	long count = 20000, seed = 1;
	int commits = 0, i = 1;

	if (argc > 1 && strcmp(argv[1], "steps") == 0)
		i = 2;
	else if (argc > 1 && strcmp(argv[1], "confirms") == 0) {
		l.confirm = true;
		i = 2;
	} else if (argc > 2 && strcmp(argv[1], "bisect") == 0) {
		commits = atoi(argv[2]);
		count = 2000;
		i = 3;
	}
	for (; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];

		if (strcmp(o, "--count") == 0)
			count = atol(v);
		else if (strcmp(o, "--seed") == 0)
			seed = atol(v);
		else if (strcmp(o, "--noise") == 0)
			l.noise = atof(v) / 100;
		else if (strcmp(o, "--change") == 0)
			l.change = atof(v) / 100;
		else if (strcmp(o, "--drift") == 0)
			l.drift = atof(v) / 100;
		else if (strcmp(o, "--prior") == 0)
			l.prior = atoi(v);
		else if (strcmp(o, "--first") == 0)
			l.first = atoi(v);
		else if (strcmp(o, "--max") == 0)
			l.max = atoi(v);
		else if (strcmp(o, "--noisier") == 0)
			l.noisier = atof(v);
		else if (strcmp(o, "--between") == 0)
			l.between = atof(v);
		else if (strcmp(o, "--outliers") == 0 &&
			 sscanf(v, "%lf:%lf", &l.out_p, &l.out_f) == 2)
			continue;
		else {
			fprintf(stderr, "sim_bisect: bad option %s\n", o);
			return 2;
		}
	}
	if (count < 1 || l.first < 1 || !(l.noisier > 0) || l.max < l.first ||
	    l.max > 250 || (commits != 0 && (commits < 2 || commits > 1000))) {
		fprintf(stderr, "sim_bisect: bad figures\n");
		return 2;
	}
	rng_seed(&l.rng, (uint64_t)seed);
	printf("%.1f%% noise, a %.1f%% change, outliers %.1f%% x%.2f, drift "
	       "%.2f%% a run; history of %d degrees of freedom; rounds from "
	       "%d to %d; the tested commit's noise x%.1f\n",
	       100 * l.noise, 100 * l.change, 100 * l.out_p, l.out_f,
	       100 * l.drift, l.prior, l.first, l.max, l.noisier);
	if (commits > 0)
		bisections(&l, count, commits);
	else
		steps(&l, count);
	return 0;
}
