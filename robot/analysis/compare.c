/*
 * compare.c: one metric, two sets of runs.
 *
 * The robust method works on log values when every value is positive
 * (run-to-run noise of throughputs and times is multiplicative, and the
 * log makes a 10% drop and a 10% rise the same size), else on the values.
 * It answers in three ways:
 *
 *   changed     Welch's t test rejects "no change" at alpha (0.005: at
 *               most one false alarm in 200 unchanged metrics) and the
 *               estimated change is at least the floor (2%, or the
 *               metric's own);
 *   unchanged   the two one-sided tests (TOST) at equiv_alpha show the
 *               change lies within +-floor;
 *   inconclusive  neither: too few or too noisy runs.  runs_needed says
 *               how many runs per side would likely settle it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/compare.h"
#include "robot/analysis/lkpfloor.h"
#include "robot/analysis/lkpstat.h"
#include "robot/core/banned.h"

void
compare_options_init(struct compare_options *opt)
{
	opt->method = COMPARE_ROBUST;
	opt->min_effect_pct = 2;
	opt->alpha = 0.003;
	opt->equiv_alpha = 0.05;
	opt->trim = 0.1;
	opt->max_runs = 30;
}

const char *
compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_REGRESSION:
		return "regression";
	case COMPARE_IMPROVEMENT:
		return "improvement";
	case COMPARE_CHANGED:
		return "changed";
	case COMPARE_UNCHANGED:
		return "unchanged";
	case COMPARE_INCONCLUSIVE:
		return "inconclusive";
	}
	return "?";
}

const char *
compare_method_name(enum compare_method m)
{
	return m == COMPARE_LKP ? "lkp" : "robust";
}

bool
compare_verdict_is_change(enum compare_verdict v)
{
	return v == COMPARE_REGRESSION || v == COMPARE_IMPROVEMENT ||
	       v == COMPARE_CHANGED;
}

static enum compare_verdict
change_verdict(int direction, double change)
{
	if (direction == 0)
		return COMPARE_CHANGED;
	return direction * change > 0 ? COMPARE_IMPROVEMENT
				      : COMPARE_REGRESSION;
}

/*
 * The trimmed mean of n values (g = trim * n cut off each end, but never
 * below 2 left) and their winsorized variance (n - 1 denominator); *h is
 * the count left.  Sorts v.
 */
static void
trimmed(double *v, size_t n, double trim, double *mean, double *wvar, size_t *h)
{
	size_t g = (size_t)floor(trim * (double)n);
	double sum = 0, m, sq = 0;

	if (n < 2 * g + 2)
		g = n >= 2 ? (n - 2) / 2 : 0;
	stats_sort(v, n);
	for (size_t i = g; i < n - g; i++)
		sum += v[i];
	*h = n - 2 * g;
	*mean = sum / (double)*h;
	/* Winsorize: the g smallest become v[g], the g largest v[n-g-1]. */
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i < g ? g : i >= n - g ? n - g - 1 : i];
	m = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double x = v[i < g ? g : i >= n - g ? n - g - 1 : i] - m;

		sq += x * x;
	}
	*wvar = n > 1 ? sq / (double)(n - 1) : 0;
}

/* Runs per side for a z test of the given size to pass with 80% power. */
static int
runs_for(double sd, double distance, double alpha_one_sided, int max)
{
	double z = stats_norm_quantile(1 - alpha_one_sided) +
		   stats_norm_quantile(0.8);
	double n;

	if (!(distance > 0))
		return -1;
	n = 2 * sd * sd * z * z / (distance * distance);
	if (!(n <= max))
		return -1;
	return n < 2 ? 2 : (int)ceil(n);
}

static void
robust(const double *base, size_t nb, const double *head, size_t nh,
       const struct compare_options *opt, const struct direction *dir,
       struct compare_result *r)
{
	double floor_pct = dir->floor_pct > opt->min_effect_pct
				   ? dir->floor_pct
				   : opt->min_effect_pct;
	double xb[256], xh[256], *bx = xb, *hx = xh;
	double mb, vb, mh, vh, d, se, df, t, margin, sd, scale;
	size_t hb, hh; /* values left after trimming */
	bool logs = true;
	size_t nmin = nb < nh ? nb : nh;

	for (size_t i = 0; i < nb && logs; i++)
		logs = base[i] > 0;
	for (size_t i = 0; i < nh && logs; i++)
		logs = head[i] > 0;
	if (nb > 256 || nh > 256) {
		bx = malloc(nb * sizeof *bx);
		hx = malloc(nh * sizeof *hx);
		if (bx == NULL || hx == NULL)
			abort();
	}
	for (size_t i = 0; i < nb; i++)
		bx[i] = logs ? log(base[i]) : base[i];
	for (size_t i = 0; i < nh; i++)
		hx[i] = logs ? log(head[i]) : head[i];
	trimmed(bx, nb, opt->trim, &mb, &vb, &hb);
	trimmed(hx, nh, opt->trim, &mh, &vh, &hh);
	if (bx != xb) {
		free(bx);
		free(hx);
	}
	d = mh - mb;
	/* On the log scale the floor is ln(1 + floor); on the value scale
	 * it is a share of the base mean. */
	scale = logs ? 1 : fabs(r->base.mean);
	margin = logs ? log1p(floor_pct / 100) : floor_pct / 100 * scale;
	r->effect_pct =
		logs ? 100 * expm1(d) : (scale > 0 ? 100 * d / scale : 0);

	if (nb == 1 && nh == 1) {
		r->verdict = COMPARE_INCONCLUSIVE;
		r->reason = "one run on each side";
		r->runs_needed = 3;
		return;
	}
	if (nb >= 2 && nh >= 2) {
		/* Yuen's test: Welch's on trimmed means, with winsorized
		 * variances (Welch's itself when nothing is trimmed). */
		double vbn = (nb - 1) * vb / (hb * (hb - 1.0));
		double vhn = (nh - 1) * vh / (hh * (hh - 1.0));

		se = sqrt(vbn + vhn);
		df = (vbn + vhn) * (vbn + vhn) /
		     (vbn * vbn / (hb - 1) + vhn * vhn / (hh - 1));
		sd = sqrt((vb + vh) / 2);
	} else {
		/* One run on one side: its variance is the other side's. */
		double v = nb >= 2 ? vb : vh;

		se = sqrt(v * (1.0 / nb + 1.0 / nh));
		df = (double)(nb + nh - 2);
		sd = sqrt(v);
	}
	if (se == 0 || !(df > 0)) {
		/* Both sides constant (or one run against a constant side). */
		if (d == 0) {
			r->p_value = 1;
			r->verdict = COMPARE_UNCHANGED;
			r->reason = "identical runs";
		} else if (fmax(fabs(r->base.max), fabs(r->head.max)) <
			   dir->abs_floor) {
			/* The floor holds with a single run too. */
			r->p_value = 0;
			r->verdict = COMPARE_UNCHANGED;
			r->reason = "below the metric's absolute floor";
		} else {
			r->p_value = 0;
			if (fabs(d) >= margin)
				r->verdict = change_verdict(r->direction, d);
			else {
				r->verdict = COMPARE_UNCHANGED;
				r->reason = "constant, below the floor";
			}
		}
		return;
	}
	t = d / se;
	r->p_value = 2 * stats_t_sf(fabs(t), df);
	if (r->p_value < opt->alpha && fabs(d) >= margin &&
	    fmax(fabs(r->base.max), fabs(r->head.max)) >= dir->abs_floor) {
		r->verdict = change_verdict(r->direction, d);
		return;
	}
	/* TOST: is the change within (-margin, +margin)? */
	if (stats_t_sf((d + margin) / se, df) < opt->equiv_alpha &&
	    stats_t_sf((margin - d) / se, df) < opt->equiv_alpha) {
		r->verdict = COMPARE_UNCHANGED;
		r->reason = "the change is within the floor";
		return;
	}
	if (fmax(fabs(r->base.max), fabs(r->head.max)) < dir->abs_floor &&
	    r->p_value < opt->alpha) {
		r->verdict = COMPARE_UNCHANGED;
		r->reason = "below the metric's absolute floor";
		return;
	}
	r->verdict = COMPARE_INCONCLUSIVE;
	if (fabs(d) >= margin) {
		r->reason = "a change, not yet significant";
		r->runs_needed =
			runs_for(sd, fabs(d), opt->alpha / 2, opt->max_runs);
	} else {
		r->reason = "too noisy to show it unchanged";
		r->runs_needed = runs_for(sd, margin - fabs(d),
					  opt->equiv_alpha, opt->max_runs);
	}
	if (r->runs_needed >= 0 && (size_t)r->runs_needed <= nmin)
		r->runs_needed = (int)nmin + 1;
}

/* The LKP method: lkpstat on this one metric (a is the head). */
static void
lkp(const char *name, const double *base, size_t nb, const double *head,
    size_t nh, const struct direction *dir, struct compare_result *r)
{
	struct lkpstat_options lo = {.more = true};
	struct lkpstat_stat a = {name, head, nh}, b = {name, base, nb};
	struct lkpstat_change *c;
	size_t n;

	(void)dir;
	/* LKP's floors apply whatever the number of runs on each side. */
	c = lkpstat_compare(&a, 1, &b, 1, &lo, lkpfloor_of, &n);
	if (n > 0) {
		r->verdict =
			change_verdict(r->direction, c[0].mean_a - c[0].mean_b);
	} else if (nb < 3 && nh < 3 && !lkpstat_is_function_stat(name)) {
		r->verdict = COMPARE_INCONCLUSIVE;
		r->reason = "LKP compares only with 3 runs on one side";
		r->runs_needed = 3;
	} else {
		r->verdict = COMPARE_UNCHANGED;
		r->reason = "LKP's rule sees no change";
	}
	lkpstat_changes_free(c, n);
}

void
compare_metric(const char *name, const double *base, size_t nb,
	       const double *head, size_t nh, const struct compare_options *opt,
	       const struct direction *dir, struct compare_result *r)
{
	memset(r, 0, sizeof *r);
	stats_summarize(base, nb, NULL, &r->base);
	stats_summarize(head, nh, NULL, &r->head);
	r->direction = dir->sign;
	r->p_value = NAN;
	if (r->base.mean != 0) {
		r->change_pct = 100 * (r->head.mean - r->base.mean) /
				fabs(r->base.mean);
		r->change_defined = true;
	} else {
		r->change_pct = 0;
		r->change_defined = r->head.mean == 0;
	}
	if (opt->method == COMPARE_LKP)
		lkp(name, base, nb, head, nh, dir, r);
	else
		robust(base, nb, head, nh, opt, dir, r);
}
