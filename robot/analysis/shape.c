/*
 * shape.c: the shape of a per-second series (shape.h).
 *
 * The autocorrelation is estimated at each lag k from the n - k pairs
 * it has (r(k) = mean of x[i] x[i + k] over the variance), so that a
 * long lag is not shrunk towards 0 by the pairs it lacks; white noise
 * gives |r| below about 3 / sqrt(n - k), far under the 0.5 a period
 * needs for the series of a minute or more robot runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/shape.h"
#include "robot/analysis/stats.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* What a period's autocorrelation must reach, and how low it must have
 * swung before. */
#define SHAPE_PEAK  0.5
#define SHAPE_SWING -0.2
/* A peak must stand this many of its standard errors (1 / sqrt(pairs))
 * above 0. */
#define SHAPE_CHANCE 4.0

static int
dbl_cmp(const void *x, const void *y)
{
	double a = **(double *const *)x, b = **(double *const *)y;

	return a < b ? -1 : a > b;
}

/* Replaces the n values of x by their ranks (midranks for ties),
 * centred on 0. */
static void
ranks(double *x, size_t n)
{
	double **p = xreallocarray(NULL, n, sizeof *p);
	double *r = xreallocarray(NULL, n, sizeof *r);

	for (size_t i = 0; i < n; i++)
		p[i] = &x[i];
	qsort(p, n, sizeof *p, dbl_cmp);
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;

		while (e < n && *p[e] == *p[i])
			e++;
		for (size_t q = i; q < e; q++)
			r[p[q] - x] =
				(double)(i + e - 1) / 2 - (double)(n - 1) / 2;
		i = e;
	}
	memcpy(x, r, n * sizeof *x);
	free(r);
	free(p);
}

/* The tenths' means. */
static void
tenths(const double *v, size_t n, struct shape *out)
{
	double *s = xreallocarray(NULL, n, sizeof *s), hi = 0, lo = 0;
	size_t g = n / 10 > 0 ? n / 10 : 1;

	memcpy(s, v, n * sizeof *s);
	stats_sort(s, n);
	for (size_t i = 0; i < g; i++) {
		lo += s[i];
		hi += s[n - 1 - i];
	}
	out->trough = lo / (double)g;
	out->peak = hi / (double)g;
	free(s);
}

/* The period (above), or false. */
static bool
period(const double *v, size_t n, double *lag, double *strength)
{
	double *x = xreallocarray(NULL, n, sizeof *x);
	double *r = xreallocarray(NULL, n / 3 + 2, sizeof *r);
	double sx = 0, st = 0, stt = 0, sxt = 0, var = 0, low = 0;
	size_t third = n / 3, best = 0, lowest = 0, k;
	bool crossed = false, found = false;

	/* Take out the least-squares line. */
	for (size_t i = 0; i < n; i++) {
		sx += v[i];
		st += (double)i;
		stt += (double)i * (double)i;
		sxt += (double)i * v[i];
	}
	double den = (double)n * stt - st * st;
	double slope = den != 0 ? ((double)n * sxt - st * sx) / den : 0;
	double icpt = (sx - slope * st) / (double)n;

	for (size_t i = 0; i < n; i++)
		x[i] = v[i] - (icpt + slope * (double)i);
	/* Ranks of what is left: two outliers k apart would else make a
	 * lag k of their own. */
	ranks(x, n);
	for (size_t i = 0; i < n; i++)
		var += x[i] * x[i];
	var /= (double)n;
	if (!(var > 0) || !isfinite(var))
		goto out;
	for (k = 1; k <= third + 1 && k < n; k++) {
		double s = 0;

		for (size_t i = 0; i + k < n; i++)
			s += x[i] * x[k + i];
		r[k] = s / (double)(n - k) / var;
	}
	/* The highest lag of the first positive lobe after the swing: a
	 * later lobe is a multiple of the period. */
	for (k = 1; k <= third; k++) {
		if (r[k] < low && best == 0) {
			low = r[k];
			lowest = k;
		}
		if (r[k] < 0) {
			if (best != 0)
				break; /* the lobe ended */
			crossed = true;
		} else if (crossed && low <= SHAPE_SWING &&
			   (best == 0 || r[k] > r[best]))
			best = k;
	}
	/* The swing's bottom comes half way to the peak in an
	 * oscillation; and the peak stands above what the lag's pairs
	 * would give by chance. */
	if (best == 0 || r[best] < SHAPE_PEAK ||
	    r[best] < SHAPE_CHANCE / sqrt((double)(n - best)) ||
	    (double)lowest < 0.3 * (double)best ||
	    (double)lowest > 0.7 * (double)best)
		goto out;
	/* A peak at the last lag looked at (three periods seen: a random
	 * walk, detrended, looks like one or two slow swings) may be the
	 * slope of one beyond: take it only when it falls after. */
	if (best == third && !(best + 1 < n && r[best + 1] < r[best]))
		goto out;
	*lag = (double)best;
	*strength = r[best] < 1 ? r[best] : 1;
	if (best >= 2 && best + 1 < n) {
		double a = r[best - 1], b = r[best], c = r[best + 1];
		double d = a - 2 * b + c;

		if (d < 0)
			*lag += 0.5 * (a - c) / d;
	}
	found = true;
out:
	free(r);
	free(x);
	return found;
}

void
shape_of(const double *v, size_t n, struct shape *out)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return;
	tenths(v, n, out);
	if (n >= SHAPE_PERIOD_MIN_SAMPLES)
		out->periodic = period(v, n, &out->period, &out->strength);
}
