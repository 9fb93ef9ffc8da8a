/*
 * noise.h: a KPI's noise as its series' history shows it (DESIGN.md
 * section 6, "Noise from history"; docs/statistics.md).  Each earlier
 * pair measured in rounds showed the variance of a round's difference
 * (of the logs of the head's and the base's run) with its degrees of
 * freedom; noise_fit() makes of them a prior, the noise s0^2 a pair is
 * expected to show and how sure the history is of it (d0 degrees of
 * freedom), as limma fits one over many genes (Smyth 2004).  The pair is
 * then tested on its own variance weighed with the prior's (compare.c:
 * a moderated t), unless its own is implausibly large under the prior
 * (the guard, a predictive F test).
 */
#ifndef ROBOT_NOISE_H
#define ROBOT_NOISE_H

#include <stdbool.h>
#include <stddef.h>

/* One earlier pair's noise: the variance of one round's difference of
 * logs that its rounds showed, and its degrees of freedom. */
struct noise_obs {
	double var;
	double df;
};

/* What a history says of the noise. */
struct noise_prior {
	double var;     /* s0^2: of one round's difference of logs */
	double df;      /* d0: how many degrees of freedom it weighs */
	size_t pairs;   /* the earlier pairs it was fitted from */
	size_t dropped; /* pairs left out: their noise was not the
			   others' (noise_fit()) */
};

/* The most a prior weighs, however long its history: a series' noise
 * moves over weeks (kernels, firmware, the lab), so its older pairs say
 * less of today's than their count would. */
#define NOISE_DF_MAX 50
/* The least history a prior needs: one pair of three rounds, or three
 * runs of the base on a box (its canary).  A prior this short weighs
 * little (compare.h's COMPARE_PRIOR_WEIGHT caps it at twice the pair's
 * own degrees of freedom anyway); it gives a pair's first look of three
 * rounds a few more degrees of freedom, which is what lets a change many
 * times its noise be decided there. */
#define NOISE_DF_MIN 2
/* A pair whose noise is this unlikely under the others' (either way)
 * is left out of the fit: a box that was changing, a commit that made
 * the job noisier.  Small, because a noise that truly varies from pair
 * to pair has long tails of its own: at 0.001 a history drawn with d0 =
 * 6 lost 59 of 4,000 pairs and was fitted at d0 = 8.3, at 0.00001 it
 * lost 15 and was fitted at 7.0 (6.5 with none left out;
 * tests/unit/test_noise.c). */
#define NOISE_OUTLIER_P 0.00001

/*
 * Fits the prior of n earlier pairs o (any order), into *p: s0^2 and
 * d0 by Smyth's moments of the log variances, d0 capped at the history's
 * degrees of freedom in all and at NOISE_DF_MAX; when they spread no more
 * than their own degrees of freedom explain (d0 infinite: one noise), or
 * with fewer than three pairs, their pooled variance.  A pair whose variance is implausible under the pooled
 * variance of the others (an F test, two-sided, at NOISE_OUTLIER_P) is
 * left out first, once.  False when the history holds fewer than
 * NOISE_DF_MIN degrees of freedom (then there is no prior).
 */
bool noise_fit(const struct noise_obs *o, size_t n, struct noise_prior *p);

#endif
