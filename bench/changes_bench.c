/*
 * changes_bench.c: the change points robot finds in histories whose
 * truth is known, beside a plain reference and the "no change point"
 * answer.
 *
 * Each history has 100 to 400 points with 1 to 5 runs each (one count
 * for the whole history), log-normal noise of 1% to 10% (one level for
 * the whole history), and 1% of its runs outliers 1.3 to 3 times off.
 * Half the histories have 1 to 4 planted steps of 2% to 20% (up or
 * down, at least 10 points apart and from either end); the other half
 * none.  Sizes and levels are drawn uniformly.
 *
 * Scoring is TCPDBench's (van den Burg and Williams 2020): a found
 * change point matches a planted one within 5 points, each at most
 * once; the first point counts as a change point in both sets;
 * precision, recall and F1 per history, averaged over the histories.
 * The histories without a change give the false change points per
 * 1,000 points.
 *
 * The reference is what one writes first: binary segmentation of the
 * runs with Welch's t test at the split of the largest |t|, Bonferroni
 * over the splits at 1%, 3 points a segment at least.
 *
 * Last, the time of one history of 1,000 points of 3 runs, without a
 * change and with one (robotd scans such a history as a point comes).
 *
 * Usage: changes_bench [--histories N] [--seed S] [--alpha A]
 *                      [--min-effect P] [--outliers SHARE]
 *                      [--min-segment N]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/analysis/changes.h"
#include "robot/analysis/rng.h"
#include "robot/analysis/stats.h"

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

static int
uniform_int(int lo, int hi)
{
	return lo + (int)(uniform() * (hi - lo + 1));
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define MAXPOINTS 1000
#define MAXRUNS   5
#define MAXSTEPS  4
#define MARGIN    5

struct history {
	size_t n, runs;
	double noise;
	size_t truth[MAXSTEPS]; /* the planted steps' indexes */
	double size[MAXSTEPS];  /* their sizes, in % */
	size_t ntruth;
	double v[MAXPOINTS][MAXRUNS];
	struct changes_point pts[MAXPOINTS];
};

static int
size_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/* Share of the runs that are outliers. */
static double outliers = 0.01;

/* A history of n points (0: 100 to 400) of runs runs each (0: 1 to
 * MAXRUNS), with steps or without. */
static void
make_history(struct history *h, size_t n, size_t runs, bool steps)
{
	double level = 1000, s;

	h->n = n > 0 ? n : (size_t)uniform_int(100, 400);
	h->runs = runs > 0 ? runs : (size_t)uniform_int(1, MAXRUNS);
	h->noise = 0.01 + 0.09 * uniform();
	h->ntruth = 0;
	if (steps) {
		size_t want = (size_t)uniform_int(1, MAXSTEPS);

		while (h->ntruth < want) {
			size_t at = (size_t)uniform_int(10, (int)h->n - 10);
			bool near = false;

			for (size_t i = 0; i < h->ntruth; i++)
				if (at < h->truth[i] + 10 &&
				    h->truth[i] < at + 10)
					near = true;
			if (!near)
				h->truth[h->ntruth++] = at;
		}
		qsort(h->truth, h->ntruth, sizeof *h->truth, size_cmp);
		for (size_t i = 0; i < h->ntruth; i++)
			h->size[i] = (2 + 18 * uniform()) *
				     (uniform() < 0.5 ? -1 : 1);
	}
	s = sqrt(log1p(h->noise * h->noise));
	for (size_t k = 0, t = 0; k < h->n; k++) {
		while (t < h->ntruth && h->truth[t] == k)
			level *= 1 + h->size[t++] / 100;
		for (size_t j = 0; j < h->runs; j++) {
			double x = level * exp(s * gauss() - s * s / 2);

			if (uniform() < outliers) {
				double f = 1.3 + 1.7 * uniform();

				x = uniform() < 0.5 ? x * f : x / f;
			}
			h->v[k][j] = x;
		}
		h->pts[k].commit = NULL;
		h->pts[k].v = h->v[k];
		h->pts[k].n = h->runs;
	}
}

/* TCPDBench's matching: how many of want[] have a distinct one of
 * got[] within MARGIN (nearest first). */
static size_t
matched(const size_t *want, size_t nwant, const size_t *got, size_t ngot)
{
	bool used[MAXPOINTS + 1] = {false};
	size_t tp = 0;

	for (size_t i = 0; i < nwant; i++) {
		size_t best = ngot, dist = MARGIN + 1;

		for (size_t j = 0; j < ngot; j++) {
			size_t d = want[i] > got[j] ? want[i] - got[j]
						    : got[j] - want[i];

			if (!used[j] && d < dist) {
				dist = d;
				best = j;
			}
		}
		if (best < ngot) {
			used[best] = true;
			tp++;
		}
	}
	return tp;
}

/* Precision, recall and F1 of got[] against the truth, each set with
 * the first point added. */
static void
score(const struct history *h, const size_t *found, size_t nfound, double *p,
      double *r, double *f)
{
	size_t want[MAXSTEPS + 1], got[MAXPOINTS + 1], nw = 0, ng = 0;

	want[nw++] = 0;
	for (size_t i = 0; i < h->ntruth; i++)
		want[nw++] = h->truth[i];
	got[ng++] = 0;
	for (size_t i = 0; i < nfound; i++)
		if (found[i] != 0)
			got[ng++] = found[i];
	*p = (double)matched(want, nw, got, ng) / (double)ng;
	*r = (double)matched(want, nw, got, ng) / (double)nw;
	*f = *p + *r > 0 ? 2 * *p * *r / (*p + *r) : 0;
}

/* The reference: binary segmentation with Welch's t (above). */
static size_t
reference(const struct history *h, size_t *found)
{
	size_t stack[2 * MAXPOINTS][2], depth = 0, nfound = 0;

	stack[depth][0] = 0;
	stack[depth++][1] = h->n;
	while (depth > 0) {
		size_t a = stack[depth - 1][0], b = stack[depth - 1][1];
		size_t best = 0, nsplits = 0;
		double bt = 0, bdf = 1;

		depth--;
		for (size_t k = a + 3; k + 3 <= b; k++) {
			double s1 = 0, q1 = 0, s2 = 0, q2 = 0;
			double n1 = (double)((k - a) * h->runs);
			double n2 = (double)((b - k) * h->runs);

			if (n1 < 2 || n2 < 2)
				continue;
			for (size_t i = a; i < b; i++)
				for (size_t j = 0; j < h->runs; j++) {
					double x = h->v[i][j];

					if (i < k) {
						s1 += x;
						q1 += x * x;
					} else {
						s2 += x;
						q2 += x * x;
					}
				}
			double m1 = s1 / n1, m2 = s2 / n2;
			double v1 = (q1 - n1 * m1 * m1) / (n1 - 1);
			double v2 = (q2 - n2 * m2 * m2) / (n2 - 1);
			double se = v1 / n1 + v2 / n2;

			nsplits++;
			if (!(se > 0))
				continue;
			double t = fabs(m1 - m2) / sqrt(se);
			double df = se * se /
				    (v1 * v1 / (n1 * n1 * (n1 - 1)) +
				     v2 * v2 / (n2 * n2 * (n2 - 1)));

			if (t > bt) {
				bt = t;
				bdf = df;
				best = k;
			}
		}
		if (best == 0 ||
		    2 * stats_t_sf(bt, bdf) * (double)nsplits > 0.01)
			continue;
		found[nfound++] = best;
		stack[depth][0] = a;
		stack[depth++][1] = best;
		stack[depth][0] = best;
		stack[depth++][1] = b;
	}
	qsort(found, nfound, sizeof *found, size_cmp);
	return nfound;
}

/* The bucket of step t: its size against the noise of one point's
 * mean, below 1, 1 to 2, 2 to 4, 4 and above. */
static int
bucket_of(const struct history *h, size_t t)
{
	double ratio =
		fabs(h->size[t]) / 100 / (h->noise / sqrt((double)h->runs));

	return ratio < 1 ? 0 : ratio < 2 ? 1 : ratio < 4 ? 2 : 3;
}

struct tally {
	double p, r, f; /* sums over the histories with steps */
	double fall;    /* F1 summed over every history */
	long nsteps;    /* histories with steps */
	long nall;      /* every history */
	long false_cps; /* change points found where none is */
	long null_points;
	double seconds;
	double slowest; /* the most seconds one history took */
};

static void
tally_add(struct tally *t, const struct history *h, const size_t *found,
	  size_t nfound, double seconds)
{
	double p, r, f;

	score(h, found, nfound, &p, &r, &f);
	t->fall += f;
	t->nall++;
	t->seconds += seconds;
	if (seconds > t->slowest)
		t->slowest = seconds;
	if (h->ntruth > 0) {
		t->p += p;
		t->r += r;
		t->f += f;
		t->nsteps++;
	} else {
		t->false_cps += (long)nfound;
		t->null_points += (long)h->n;
	}
}

static void
tally_print(const char *name, const struct tally *t)
{
	printf("%-26s %9.3f %7.3f %7.3f %9.3f %12.4f %8.3f %8.2f\n", name,
	       t->p / (double)t->nsteps, t->r / (double)t->nsteps,
	       t->f / (double)t->nsteps, t->fall / (double)t->nall,
	       1000.0 * (double)t->false_cps / (double)t->null_points,
	       1000 * t->seconds / (double)t->nall, 1000 * t->slowest);
}

int
main(int argc, char **argv)
{
	long histories = 2000;
	uint64_t seed = 1;
	struct changes_options opt;
	struct tally ours = {0}, ref = {0}, none = {0};
	/* Recall by the step's size against the noise, ours and the
	 * reference: below 1, 1 to 2, 2 to 4, 4 and above. */
	long bucket_n[4] = {0}, bucket_ours[4] = {0}, bucket_ref[4] = {0};
	struct history *h = malloc(sizeof *h);

	changes_options_init(&opt);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--histories") == 0 && i + 1 < argc)
			histories = atol(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--alpha") == 0 && i + 1 < argc)
			opt.alpha = atof(argv[++i]);
		else if (strcmp(argv[i], "--min-effect") == 0 && i + 1 < argc)
			opt.min_effect_pct = atof(argv[++i]);
		else if (strcmp(argv[i], "--min-segment") == 0 && i + 1 < argc)
			opt.min_segment = (size_t)atol(argv[++i]);
		else if (strcmp(argv[i], "--outliers") == 0 && i + 1 < argc)
			outliers = atof(argv[++i]);
		else {
			fprintf(stderr,
				"usage: changes_bench [--histories N] "
				"[--seed S] [--alpha A] [--min-effect P] "
				"[--outliers SHARE] [--min-segment N]\n");
			return 2;
		}
	}
	rng_seed(&rng, seed);
	for (long i = 0; i < histories; i++) {
		struct change_point *cp;
		size_t found[MAXPOINTS], nfound, nref;
		double t0, t1;

		make_history(h, 0, 0, i % 2 == 0);
		t0 = now();
		nfound = changes_find(h->pts, h->n, &opt, &cp);
		t1 = now();
		for (size_t j = 0; j < nfound; j++)
			found[j] = cp[j].index;
		free(cp);
		tally_add(&ours, h, found, nfound, t1 - t0);
		for (size_t t = 0; t < h->ntruth; t++) {
			bucket_n[bucket_of(h, t)]++;
			bucket_ours[bucket_of(h, t)] +=
				matched(&h->truth[t], 1, found, nfound) > 0;
		}

		t0 = now();
		nref = reference(h, found);
		t1 = now();
		tally_add(&ref, h, found, nref, t1 - t0);
		for (size_t t = 0; t < h->ntruth; t++)
			bucket_ref[bucket_of(h, t)] +=
				matched(&h->truth[t], 1, found, nref) > 0;
		tally_add(&none, h, found, 0, 0);
	}
	printf("%ld histories (%ld with 1 to %d steps, %ld without), "
	       "seed %llu, alpha %g, min effect %g%%, outliers %g%%\n\n",
	       histories, ours.nsteps, MAXSTEPS, histories - ours.nsteps,
	       (unsigned long long)seed, opt.alpha, opt.min_effect_pct,
	       100 * outliers);
	printf("%-26s %9s %7s %7s %9s %12s %8s %8s\n", "method", "precision",
	       "recall", "F1", "F1 (all)", "false/1000pt", "ms mean",
	       "ms most");
	tally_print("robot (changes.c)", &ours);
	tally_print("binseg + t (reference)", &ref);
	tally_print("no change point", &none);
	printf("\nrecall by step / noise of a point's mean:\n");
	static const char *const names[] = {"below 1", "1 to 2", "2 to 4",
					    "4 and above"};
	for (int b = 0; b < 4; b++)
		printf("  %-12s %6ld steps: robot %.3f, reference %.3f\n",
		       names[b], bucket_n[b],
		       bucket_n[b] ? (double)bucket_ours[b] / bucket_n[b] : 0,
		       bucket_n[b] ? (double)bucket_ref[b] / bucket_n[b] : 0);
	printf("\nfalse change points: %ld in %ld points without a change\n",
	       ours.false_cps, ours.null_points);
	for (int steps = 0; steps < 2; steps++) {
		double best = INFINITY;

		for (int rep = 0; rep < 20; rep++) {
			struct change_point *cp;
			double t0;

			make_history(h, 1000, 3, false);
			for (size_t k = 500; steps && k < 1000; k++)
				for (size_t j = 0; j < h->runs; j++)
					h->v[k][j] *= 1.05;
			t0 = now();
			changes_find(h->pts, h->n, &opt, &cp);
			if (now() - t0 < best)
				best = now() - t0;
			free(cp);
		}
		printf("1,000 points of 3 runs, %s: %.2f ms (the least of "
		       "20)\n",
		       steps ? "a 5% step at 500" : "no change", 1000 * best);
	}
	free(h);
	return 0;
}
