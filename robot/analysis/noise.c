/*
 * noise.c: a prior from a history of pairs' noise.
 *
 * Smyth's (2004) moments: for a variance s^2 on d degrees of freedom
 * drawn around s0^2 with prior degrees of freedom d0, e = log s^2 -
 * digamma(d / 2) + log(d / 2) has mean log s0^2 - digamma(d0 / 2) +
 * log(d0 / 2) and variance trigamma(d / 2) + trigamma(d0 / 2).  So the
 * spread of the e_i beyond what each one's own degrees of freedom give
 * is trigamma(d0 / 2): none left over means every pair has the same
 * noise (d0 infinite).
 */
#include <math.h>
#include <stdlib.h>

#include "robot/analysis/noise.h"
#include "robot/analysis/stats.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* x with trigamma(x) = y, y > 0 (trigamma falls from infinity to 0). */
static double
trigamma_inverse(double y)
{
	double lo = 1e-8, hi = 1e8;

	for (int i = 0; i < 200 && hi / lo > 1 + 1e-10; i++) {
		double mid = sqrt(lo * hi);

		if (stats_trigamma(mid) > y)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

static bool
usable(const struct noise_obs *o)
{
	return isfinite(o->var) && o->var > 0 && isfinite(o->df) && o->df > 0;
}

bool
noise_fit(const struct noise_obs *o, size_t n, struct noise_prior *p)
{
	double ss = 0, df = 0, sum = 0, sq = 0, tri = 0, pooled, spread;
	bool *out = xcalloc(n ? n : 1, sizeof *out);
	size_t k = 0;

	p->var = 0;
	p->df = 0;
	p->pairs = 0;
	p->dropped = 0;
	for (size_t i = 0; i < n; i++)
		if (usable(&o[i])) {
			ss += o[i].df * o[i].var;
			df += o[i].df;
		}
	/* A pair whose noise the others make implausible is left out:
	 * one box that was changing, a commit that made the job noisier. */
	for (size_t i = 0; i < n; i++) {
		double rest_df, rest, f, q;

		if (!usable(&o[i])) {
			out[i] = true;
			continue;
		}
		rest_df = df - o[i].df;
		if (!(rest_df >= NOISE_DF_MIN))
			continue;
		rest = (ss - o[i].df * o[i].var) / rest_df;
		f = o[i].var / rest;
		q = stats_f_sf(f, o[i].df, rest_df);
		if (q < NOISE_OUTLIER_P / 2 || 1 - q < NOISE_OUTLIER_P / 2) {
			out[i] = true;
			p->dropped++;
		}
	}
	ss = df = 0;
	for (size_t i = 0; i < n; i++) {
		double e;

		if (out[i])
			continue;
		ss += o[i].df * o[i].var;
		df += o[i].df;
		e = log(o[i].var) - stats_digamma(o[i].df / 2) +
		    log(o[i].df / 2);
		sum += e;
		sq += e * e;
		tri += stats_trigamma(o[i].df / 2);
		k++;
	}
	free(out);
	if (!(df >= NOISE_DF_MIN))
		return false;
	pooled = ss / df;
	p->pairs = k;
	p->var = pooled;
	p->df = df;
	if (k >= 3) {
		double mean = sum / (double)k;

		spread = (sq - sum * mean) / (double)(k - 1) - tri / (double)k;
		if (spread > 0) {
			double d0 = 2 * trigamma_inverse(spread);

			p->var =
				exp(mean + stats_digamma(d0 / 2) - log(d0 / 2));
			if (d0 < p->df)
				p->df = d0;
		}
		/* else they share one noise: their pooled variance is
		 * the best estimate of it */
	}
	if (p->df > NOISE_DF_MAX)
		p->df = NOISE_DF_MAX;
	return true;
}
