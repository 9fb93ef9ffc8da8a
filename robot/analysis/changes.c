/*
 * changes.c: the change points of a history (changes.h).
 *
 * One segment [a, b) of points is tested for a change as follows.  Its
 * runs' values are ranked together (midranks for ties), and at each
 * point boundary k that leaves min_segment points on either side the
 * Wilcoxon-Mann-Whitney statistic of [a, k) against [k, b) is
 * standardized: z_k = (R_k - n_k (N + 1) / 2) / sd_k, R_k the sum of
 * the ranks before k.  The split is the k of the largest |z_k|, and the
 * p-value is that of the largest: under no change every order of the
 * values is as likely, so the share of shuffles of the ranks whose
 * largest |z| reaches it is an exact p-value (a permutation test), for
 * any distribution of the noise.  Ranks make one outlier one rank, and
 * skewed noise the same as symmetric.
 *
 * The shuffles are the cost, so they are spent only where the answer is
 * in doubt: a split that Bonferroni's bound (the number of splits times
 * one z's normal tail, conservative for ranks) already makes significant
 * needs none, and the shuffles stop once 20 have reached the split's
 * |z| (Besag and Clifford's sequential p-value, which stays exact), so
 * a segment with no change costs a few dozen shuffles.
 *
 * Binary segmentation splits the history at every significant split
 * whose effect reaches the minimum, then each half, until no segment
 * holds one.  Its first splits are made against segments that hold
 * other changes, so a pruning pass tests each change point again
 * between its two neighbours, moves it to that test's split, and drops
 * the weakest one that no longer holds, until every one holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/changes.h"
#include "robot/analysis/rng.h"
#include "robot/analysis/stats.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* Shuffles that reach the split's |z| before the test stops. */
#define CHANGES_HITS 20
/* Share trimmed off each end for the effect. */
#define CHANGES_TRIM 0.2

struct ranked {
	double v;
	size_t i;
};

struct hist {
	const struct changes_point *pts;
	size_t n;
	const struct changes_options *opt;
	size_t *start;         /* point k's runs: flat[start[k] ..
				   start[k + 1]) */
	double *flat;          /* every run's value, in point order */
	bool positive;         /* every value above 0 (logs apply) */
	struct ranked *sorted; /* scratch: a segment's values, sorted */
	double *rank;          /* scratch: their midranks, in order */
	double *perm;          /* scratch: the ranks shuffled */
	double *sd;            /* scratch: sd_k by point, 0 if no split */
	double *tmp;           /* scratch: one side's values */
	struct rng rng;        /* the shuffles' */
};

/* One segment's test. */
struct split {
	bool found;        /* a split could be made */
	size_t at;         /* the split: the first point after it */
	double z;          /* its |z| */
	double p;          /* the largest |z|'s p-value */
	double effect_pct; /* the change at it */
};

void
changes_options_init(struct changes_options *opt)
{
	opt->alpha = 0.001;
	opt->min_effect_pct = 2;
	opt->min_segment = 2;
}

static int
ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The trimmed mean of the values flat[lo .. hi), of their logs when
 * logs. */
static double
trimmed_mean(struct hist *h, size_t lo, size_t hi, bool logs)
{
	size_t n = hi - lo, g = (size_t)floor(CHANGES_TRIM * (double)n);
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		h->tmp[i] = logs ? log(h->flat[lo + i]) : h->flat[lo + i];
	stats_sort(h->tmp, n);
	for (size_t i = g; i < n - g; i++)
		sum += h->tmp[i];
	return sum / (double)(n - 2 * g);
}

/* The change from [a, at) to [at, b), in percent. */
static double
effect(struct hist *h, size_t a, size_t at, size_t b)
{
	double l = trimmed_mean(h, h->start[a], h->start[at], h->positive);
	double r = trimmed_mean(h, h->start[at], h->start[b], h->positive);

	if (h->positive)
		return 100 * expm1(r - l);
	if (l == 0)
		return r == 0 ? 0 : copysign(INFINITY, r);
	return 100 * (r - l) / fabs(l);
}

/* The midranks of the segment's values into h->rank; returns the
 * variance's correction for ties, 1 - sum(t^3 - t) / (N^3 - N). */
static double
rank_segment(struct hist *h, size_t base, size_t N)
{
	double ties = 0;

	for (size_t j = 0; j < N; j++) {
		h->sorted[j].v = h->flat[base + j];
		h->sorted[j].i = j;
	}
	qsort(h->sorted, N, sizeof *h->sorted, ranked_cmp);
	for (size_t j = 0; j < N;) {
		size_t e = j + 1;

		while (e < N && h->sorted[e].v == h->sorted[j].v)
			e++;
		double mid = (double)(j + 1 + e) / 2, t = (double)(e - j);

		for (size_t q = j; q < e; q++)
			h->rank[h->sorted[q].i] = mid;
		ties += t * t * t - t;
		j = e;
	}
	return 1 - ties / ((double)N * N * N - (double)N);
}

/* The largest |z_k| of the ranks r (in point order) over the splits
 * with sd[k - a] > 0; stops early, once one reaches stop. */
static double
largest_z(const struct hist *h, const double *r, size_t a, size_t b, double mu,
	  double stop, size_t *at)
{
	double best = -1, sum = 0;
	size_t base = h->start[a];

	for (size_t k = a; k + 1 < b; k++) {
		for (size_t j = h->start[k]; j < h->start[k + 1]; j++)
			sum += r[j - base];

		double sd = h->sd[k + 1 - a];

		if (sd > 0) {
			double nl = (double)(h->start[k + 1] - base);
			double z = fabs(sum - nl * mu) / sd;

			if (z > best) {
				best = z;
				*at = k + 1;
				if (z >= stop)
					return z;
			}
		}
	}
	return best;
}

/* Tests the segment [a, b) for a change (above). */
static void
split_test(struct hist *h, size_t a, size_t b, struct split *s)
{
	const struct changes_options *opt = h->opt;
	size_t m = opt->min_segment > 0 ? opt->min_segment : 1;
	size_t base = h->start[a], N = h->start[b] - base, nsplits = 0;
	double tiefac, mu;

	memset(s, 0, sizeof *s);
	if (b - a < 2 * m || N < 4)
		return;
	tiefac = rank_segment(h, base, N);
	if (!(tiefac > 1e-12))
		return; /* every value the same */
	mu = (double)(N + 1) / 2;
	for (size_t k = a; k <= b; k++) {
		double nl = (double)(h->start[k] - base), nr = (double)N - nl;

		h->sd[k - a] = 0;
		if (k >= a + m && k + m <= b && nl >= 2 && nr >= 2) {
			h->sd[k - a] =
				sqrt(nl * nr * (double)(N + 1) / 12 * tiefac);
			nsplits++;
		}
	}
	if (nsplits == 0)
		return;
	s->found = true;
	s->z = largest_z(h, h->rank, a, b, mu, INFINITY, &s->at);
	s->effect_pct = effect(h, a, s->at, b);

	double bound = (double)nsplits * erfc(s->z / M_SQRT2);

	s->p = bound < 1 ? bound : 1;
	if (s->p <= opt->alpha)
		return;

	/* Enough shuffles to find p below alpha with one of them reaching
	 * |z| by chance. */
	size_t most = (size_t)ceil(2 / opt->alpha), hits = 0, l;
	size_t ignored;
	double reach = s->z * (1 - 1e-12);

	rng_seed(&h->rng, ((uint64_t)a << 40) ^ ((uint64_t)b << 20) ^ N);
	memcpy(h->perm, h->rank, N * sizeof *h->perm);
	for (l = 1; l <= most; l++) {
		for (size_t j = N - 1; j > 0; j--) {
			size_t q = rng_below(&h->rng, j + 1);
			double t = h->perm[j];

			h->perm[j] = h->perm[q];
			h->perm[q] = t;
		}
		if (largest_z(h, h->perm, a, b, mu, reach, &ignored) >= reach &&
		    ++hits == CHANGES_HITS)
			break;
	}
	double p = l <= most ? (double)hits / (double)l
			     : (double)(hits + 1) / (double)(most + 1);

	if (p < s->p)
		s->p = p;
}

/* Whether the test found a change that counts. */
static bool
holds(const struct hist *h, const struct split *s)
{
	return s->found && s->p <= h->opt->alpha &&
	       fabs(s->effect_pct) >= h->opt->min_effect_pct;
}

static int
size_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/* Binary segmentation: the change points of [0, n), unordered, into
 * cps; returns how many. */
static size_t
segment(struct hist *h, size_t *cps)
{
	size_t(*stack)[2] = xreallocarray(NULL, h->n + 1, sizeof *stack);
	size_t depth = 0, ncps = 0;

	stack[depth][0] = 0;
	stack[depth++][1] = h->n;
	while (depth > 0) {
		size_t a = stack[depth - 1][0], b = stack[depth - 1][1];
		struct split s;

		depth--;
		split_test(h, a, b, &s);
		if (!holds(h, &s))
			continue;
		cps[ncps++] = s.at;
		stack[depth][0] = a;
		stack[depth++][1] = s.at;
		stack[depth][0] = s.at;
		stack[depth++][1] = b;
	}
	free(stack);
	qsort(cps, ncps, sizeof *cps, size_cmp);
	return ncps;
}

/* The pruning pass (above) over the ordered cps; returns how many are
 * left, with their tests in tests. */
static size_t
prune(struct hist *h, size_t *cps, size_t ncps, struct split *tests)
{
	size_t(*around)[2] = xreallocarray(NULL, ncps + 1, sizeof *around);

	for (size_t i = 0; i < ncps; i++)
		around[i][0] = around[i][1] = 0; /* not tested yet */
	for (int round = 0; round < 100; round++) {
		size_t worst = ncps;
		bool moved = false;

		for (size_t i = 0; i < ncps; i++) {
			size_t a = i > 0 ? cps[i - 1] : 0;
			size_t b = i + 1 < ncps ? cps[i + 1] : h->n;

			if (around[i][0] != a || around[i][1] != b) {
				split_test(h, a, b, &tests[i]);
				around[i][0] = a;
				around[i][1] = b;
			}
			if (!holds(h, &tests[i]) &&
			    (worst == ncps || !tests[i].found ||
			     tests[i].p > tests[worst].p))
				worst = i;
		}
		if (worst < ncps) {
			ncps--;
			memmove(&cps[worst], &cps[worst + 1],
				(ncps - worst) * sizeof *cps);
			memmove(&tests[worst], &tests[worst + 1],
				(ncps - worst) * sizeof *tests);
			memmove(&around[worst], &around[worst + 1],
				(ncps - worst) * sizeof *around);
			continue;
		}
		for (size_t i = 0; i < ncps; i++)
			if (tests[i].at != cps[i]) {
				cps[i] = tests[i].at;
				moved = true;
			}
		if (!moved)
			break;
	}
	free(around);
	return ncps;
}

static double
mean_of(const struct hist *h, size_t a, size_t b)
{
	double sum = 0;

	for (size_t j = h->start[a]; j < h->start[b]; j++)
		sum += h->flat[j];
	return sum / (double)(h->start[b] - h->start[a]);
}

size_t
changes_find(const struct changes_point *pts, size_t n,
	     const struct changes_options *opt, struct change_point **out)
{
	struct hist h;
	size_t total = 0, *cps, ncps;
	struct split *tests;

	*out = NULL;
	memset(&h, 0, sizeof h);
	h.pts = pts;
	h.n = n;
	h.opt = opt;
	h.positive = true;
	h.start = xreallocarray(NULL, n + 1, sizeof *h.start);
	for (size_t k = 0; k < n; k++) {
		h.start[k] = total;
		total += pts[k].n;
	}
	h.start[n] = total;
	h.flat = xreallocarray(NULL, total + 1, sizeof *h.flat);
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < pts[k].n; j++) {
			h.flat[h.start[k] + j] = pts[k].v[j];
			if (!(pts[k].v[j] > 0))
				h.positive = false;
		}
	h.sorted = xreallocarray(NULL, total + 1, sizeof *h.sorted);
	h.rank = xreallocarray(NULL, total + 1, sizeof *h.rank);
	h.perm = xreallocarray(NULL, total + 1, sizeof *h.perm);
	h.tmp = xreallocarray(NULL, total + 1, sizeof *h.tmp);
	h.sd = xreallocarray(NULL, n + 1, sizeof *h.sd);
	cps = xreallocarray(NULL, n + 1, sizeof *cps);

	ncps = segment(&h, cps);
	tests = xreallocarray(NULL, ncps + 1, sizeof *tests);
	ncps = prune(&h, cps, ncps, tests);
	if (ncps > 0) {
		*out = xreallocarray(NULL, ncps, sizeof **out);
		for (size_t i = 0; i < ncps; i++) {
			struct change_point *c = &(*out)[i];

			c->index = cps[i];
			c->from = i > 0 ? cps[i - 1] : 0;
			c->to = i + 1 < ncps ? cps[i + 1] : n;
			c->nbefore = h.start[c->index] - h.start[c->from];
			c->nafter = h.start[c->to] - h.start[c->index];
			c->before = mean_of(&h, c->from, c->index);
			c->after = mean_of(&h, c->index, c->to);
			c->change_pct = c->before != 0
						? 100 * (c->after - c->before) /
							  fabs(c->before)
						: NAN;
			c->effect_pct = tests[i].effect_pct;
			c->p = tests[i].p;
		}
	}
	free(tests);
	free(cps);
	free(h.sd);
	free(h.tmp);
	free(h.perm);
	free(h.rank);
	free(h.sorted);
	free(h.flat);
	free(h.start);
	return ncps;
}
