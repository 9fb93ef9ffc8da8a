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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/compare.h"
#include "robot/analysis/lkpfloor.h"
#include "robot/analysis/lkpstat.h"
#include "robot/core/xmalloc.h"
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
	opt->paired = false;
	opt->priors = NULL;
	opt->npriors = 0;
	opt->guard = COMPARE_GUARD;
	opt->prior_weight = COMPARE_PRIOR_WEIGHT;
	opt->screen = COMPARE_SCREEN;
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

const char *
compare_history_name(enum compare_history h)
{
	switch (h) {
	case COMPARE_HISTORY_NONE:
		return "none";
	case COMPARE_HISTORY_USED:
		return "used";
	case COMPARE_HISTORY_NOISIER:
		return "noisier";
	}
	return "?";
}

bool
compare_history_note(const struct compare_result *r, char *buf, size_t len)
{
	/* a run's spread, in percent, from a round's difference's variance */
	double own = 100 * sqrt(r->noise_var / 2),
	       prior = 100 * sqrt(r->prior_var / 2);

	buf[0] = '\0';
	if (r->history == COMPARE_HISTORY_NOISIER && r->prior_var > 0)
		snprintf(buf, len,
			 "noisier than its history (x%.1f): decided on its own "
			 "runs",
			 sqrt(r->noise_var / r->prior_var));
	else if (r->history == COMPARE_HISTORY_USED)
		snprintf(buf, len,
			 "its noise weighed with its history's: a run "
			 "\xc2\xb1%.2g%% (%.0f degrees of freedom; its own "
			 "\xc2\xb1%.2g%%)",
			 prior, r->prior_df, own);
	return buf[0] != '\0';
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
 * The trimmed mean of n sorted values (g = trim * n cut off each end, but
 * never below 2 left), of their logs when logs, and their winsorized
 * variance (n - 1 denominator); *h is the count left.  Only the values
 * kept are transformed: the winsorized ones are the kept ends.
 */
static void
trimmed(const double *v, size_t n, bool logs, double trim, double *mean,
	double *wvar, size_t *h)
{
	size_t g = (size_t)floor(trim * (double)n);
	double x[256], *own = NULL, *t = x, sum = 0, m, sq = 0;

	if (n < 2 * g + 2)
		g = n >= 2 ? (n - 2) / 2 : 0;
	if (n > 256)
		t = own = xreallocarray(NULL, n, sizeof *own);
	for (size_t i = g; i < n - g; i++)
		t[i] = logs ? log(v[i]) : v[i];
	for (size_t i = g; i < n - g; i++)
		sum += t[i];
	*h = n - 2 * g;
	*mean = sum / (double)*h;
	/* Winsorize: the g smallest become t[g], the g largest t[n-g-1]. */
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += t[i < g ? g : i >= n - g ? n - g - 1 : i];
	m = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = t[i < g ? g : i >= n - g ? n - g - 1 : i] - m;

		sq += d * d;
	}
	*wvar = n > 1 ? sq / (double)(n - 1) : 0;
	free(own);
}

/*
 * Whether P(T > t) < a for Student's t with df degrees of freedom,
 * computing the tail only when the answer depends on it: the quantile
 * q(df) with P(T > q) = a falls as df grows, so q(ceil df) < q(df) <=
 * q(floor df) bound it, and the bounds of the df of ten runs a side are
 * a few bisections once per thread.  Past QUANTILE_DF, the normal
 * quantile is the lower bound.
 */
#define QUANTILE_DF 256

struct quantiles {
	double a;                  /* the tail they are of */
	double q[QUANTILE_DF + 1]; /* q[k]: P(T > q[k]) = a with k df */
	bool known[QUANTILE_DF + 1];
	double z; /* the normal's */
};

static __thread struct quantiles quantile_cache[2];

static struct quantiles *
quantiles_of(double a)
{
	struct quantiles *c = &quantile_cache[0];

	if (c->a != a) {
		c = &quantile_cache[1];
		if (c->a != a) {
			/* the older one goes */
			quantile_cache[1] = quantile_cache[0];
			c = &quantile_cache[0];
			memset(c, 0, sizeof *c);
			c->a = a;
			c->z = stats_norm_quantile(1 - a);
		}
	}
	return c;
}

/* q(k), by bisection on the tail (to 1e-12; the bounds allow 1e-9). */
static double
quantile_at(struct quantiles *c, size_t k)
{
	double lo, hi;

	if (c->known[k])
		return c->q[k];
	lo = c->z;
	hi = lo + 1;
	while (stats_t_sf(hi, (double)k) > c->a)
		hi *= 2;
	while (hi - lo > 1e-12 * hi) {
		double mid = (lo + hi) / 2;

		if (stats_t_sf(mid, (double)k) > c->a)
			lo = mid;
		else
			hi = mid;
	}
	c->known[k] = true;
	return c->q[k] = (lo + hi) / 2;
}

static bool
tail_below(double t, double df, double a)
{
	struct quantiles *c = quantiles_of(a);
	double f = floor(df);

	if (!(a > 0 && a < 0.5) || !(df >= 1))
		return stats_t_sf(t, df) < a;
	if (t <= c->z)
		return false; /* t's tail is heavier than the normal's */
	if (f < QUANTILE_DF) {
		if (t > quantile_at(c, (size_t)f) + 1e-9)
			return true;
		if (t <= quantile_at(c, (size_t)f + 1) - 1e-9)
			return false;
	}
	return stats_t_sf(t, df) < a;
}

/* Runs per side for a z test of the given size to pass with 80% power. */
static int
runs_for(double sd, double distance, double alpha_one_sided, int max)
{
	/* The quantiles of the two alphas last asked, once per thread
	 * (the significance test's and the equivalence test's). */
	static __thread double alphas[2] = {-1, -1}, zs[2];
	double z, n;

	if (alphas[0] != alpha_one_sided) {
		if (alphas[1] != alpha_one_sided) {
			alphas[1] = alpha_one_sided;
			zs[1] = stats_norm_quantile(1 - alpha_one_sided) +
				stats_norm_quantile(0.8);
		}
		/* the one asked goes first */
		z = zs[1];
		zs[1] = zs[0];
		alphas[1] = alphas[0];
		zs[0] = z;
		alphas[0] = alpha_one_sided;
	}
	z = zs[0];
	if (!(distance > 0))
		return -1;
	n = 2 * sd * sd * z * z / (distance * distance);
	if (!(n <= max))
		return -1;
	return n < 2 ? 2 : (int)ceil(n);
}

/* ln(1 + floor), of the floor last asked (the same for most metrics). */
static double
log_floor(double floor_pct)
{
	static __thread double last = -1, value;

	if (floor_pct != last) {
		last = floor_pct;
		value = log1p(floor_pct / 100);
	}
	return value;
}

/* What a test of "no change" rests on: the estimated change d (of the
 * logs, or of the values), its standard error and degrees of freedom,
 * and the spread of one run (for the runs a side a verdict would need). */
struct estimate {
	bool logs;
	double d, se, df, sd;
	size_t nmin;    /* runs on the smaller side, or rounds */
	double own_var; /* in rounds: a round's difference's, by itself */
	double own_df;
	enum compare_history history;
	double prior_var; /* the prior's, when there was one */
	double prior_df;  /* the history's weighed in (compare_prior) */
	size_t dropped;   /* rounds left out by screen() */
	bool screen_due;  /* screen(): one round to leave out, later */
};

static double weigh(double v, double *df, const struct compare_prior *prior,
		    const struct compare_options *opt, struct estimate *e);
static bool moderate_ok(double v, double df, const struct compare_prior *p,
			double level);

/* What a side of n runs, h left after trimming, gives its mean's
 * variance of a run's (winsorized) variance: Yuen's (n - 1) / (h (h -
 * 1)), 1 / n when nothing is trimmed, 1 for one run. */
static double
yuen_share(size_t n, size_t h)
{
	return h >= 2 ? (n - 1.0) / ((double)h * (h - 1.0)) : 1.0 / (double)n;
}

/* Yuen's test of two sides, on the values of each side sorted: Welch's
 * on trimmed means with winsorized variances (Welch's itself when
 * nothing is trimmed).  With a prior (compare_prior), the two sides'
 * pooled noise of a run, as a round's difference's (twice it), is
 * weighed with it as rounds' is (weigh()): under no change both sides
 * are runs of one commit.  False when one run on each side leaves
 * nothing to test. */
static bool
two_sides(const double *base, size_t nb, const double *head, size_t nh,
	  const struct compare_options *opt, const struct compare_prior *prior,
	  struct estimate *e)
{
	double mb, vb, mh, vh;
	size_t hb, hh; /* values left after trimming */

	e->logs = base[0] > 0 && head[0] > 0;
	e->nmin = nb < nh ? nb : nh;
	trimmed(base, nb, e->logs, opt->trim, &mb, &vb, &hb);
	trimmed(head, nh, e->logs, opt->trim, &mh, &vh, &hh);
	e->d = mh - mb;
	if (nb == 1 && nh == 1)
		return false;
	if (e->logs && prior != NULL && hb + hh > 2) {
		double df = (double)(hb + hh - 2);
		double v = ((hb - 1.0) * vb + (hh - 1.0) * vh) / df;

		e->own_var = 2 * v;
		e->own_df = df;
		v = weigh(2 * v, &df, prior, opt, e) / 2;
		e->se = sqrt(v * (yuen_share(nb, hb) + yuen_share(nh, hh)));
		e->df = df;
		e->sd = sqrt(v);
		return true;
	}
	if (nb >= 2 && nh >= 2) {
		double vbn = (nb - 1) * vb / (hb * (hb - 1.0));
		double vhn = (nh - 1) * vh / (hh * (hh - 1.0));

		e->se = sqrt(vbn + vhn);
		e->df = (vbn + vhn) * (vbn + vhn) /
			(vbn * vbn / (hb - 1) + vhn * vhn / (hh - 1));
		e->sd = sqrt((vb + vh) / 2);
	} else {
		/* One run on one side: its variance is the other side's. */
		double v = nb >= 2 ? vb : vh;

		e->se = sqrt(v * (1.0 / nb + 1.0 / nh));
		e->df = (double)(nb + nh - 2);
		e->sd = sqrt(v);
	}
	return true;
}

/* The guard: whether a pair's own noise v (df) may be weighed with its
 * history's: not when it is above the history's beyond chance, that is
 * when as large a ratio of its variance to the prior's is less likely
 * than the guard's level under the prior (a predictive F test, one-sided:
 * a pair quieter than its history is weighed with it, which only makes
 * its test more careful). */
static bool
moderate_ok(double v, double df, const struct compare_prior *p, double level)
{
	if (!(df > 0))
		return true;
	return stats_f_sf(v / p->var, df, p->df) >= level;
}

/* A pair's own noise v of a round's difference (on *df degrees of
 * freedom) weighed with its history's prior when the guard lets it: a
 * moderated t (Smyth's), the prior weighing at most prior_weight times
 * the pair's own; *df grows by what it weighed.  What became of the
 * prior goes in e.  Returns the variance to test on. */
static double
weigh(double v, double *df, const struct compare_prior *prior,
      const struct compare_options *opt, struct estimate *e)
{
	double d0;

	if (prior == NULL || !(prior->var > 0) || !(prior->df > 0))
		return v;
	e->prior_var = prior->var;
	if (!moderate_ok(v, *df, prior, opt->guard)) {
		e->history = COMPARE_HISTORY_NOISIER;
		return v;
	}
	d0 = prior->df;
	if (opt->prior_weight > 0 && d0 > opt->prior_weight * *df)
		d0 = opt->prior_weight * *df;
	v = (d0 * prior->var + *df * v) / (d0 + *df);
	*df += d0;
	e->prior_df = d0;
	e->history = COMPARE_HISTORY_USED;
	return v;
}

/*
 * Leaves out each of the n rounds whose difference dif[i] lies further
 * than k_sd of the prior's sd of a round's difference from the rounds'
 * median: a round with an outlier run in it (a box's hiccup, a run 30%
 * low), which would else be most of a few rounds' noise and hide a
 * change ten times the noise, or make one.  Without a prior nothing is
 * left out (a few rounds' own scale, from their MAD, is too uncertain:
 * it left out honest rounds and doubled the false alarms, measured);
 * nothing before COMPARE_SCREEN_FROM rounds, nor more than a quarter of
 * them.  Before COMPARE_SCREEN_FROM, *due is set when one round lies
 * that far (the screen would leave it out a few rounds later).  dif and
 * mid (each round's mean) are compacted; the count kept is returned.
 */
static size_t
screen(double *dif, double *mid, size_t n, const struct compare_prior *prior,
       double k_sd, double guard, bool *due)
{
	double x[128], *own = NULL, *t = x, med, lim;
	size_t k = 0;

	*due = false;
	if (n < 3 || !(k_sd > 0) || prior == NULL || !(prior->df > 0) ||
	    !(prior->var > 0))
		return n;
	if (n > 128)
		t = own = xreallocarray(NULL, n, sizeof *own);
	memcpy(t, dif, n * sizeof *t);
	med = stats_median(t, n);
	free(own);
	lim = k_sd * sqrt(prior->var);
	for (size_t i = 0; i < n; i++)
		if (fabs(dif[i] - med) > lim)
			k++;
	if (n < COMPARE_SCREEN_FROM) {
		double sum = 0, sq = 0, m;

		/* and only when the rounds left are as quiet as the history
		 * (the guard): a pair noisier throughout stops as before */
		for (size_t i = 0; k == 1 && i < n; i++)
			if (!(fabs(dif[i] - med) > lim))
				sum += dif[i];
		m = sum / (double)(n - 1);
		for (size_t i = 0; k == 1 && i < n; i++)
			if (!(fabs(dif[i] - med) > lim))
				sq += (dif[i] - m) * (dif[i] - m);
		*due = k == 1 && moderate_ok(sq / (double)(n - 2),
					     (double)(n - 2), prior, guard);
		return n;
	}
	if (k == 0 || k > n / 4)
		return n;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (!(fabs(dif[i] - med) > lim)) {
			dif[k] = dif[i];
			mid[k] = mid[i];
			k++;
		}
	return k;
}

/* rounds() on the n rounds' differences dif and means mid (both sorted
 * here). */
static bool
rounds_of(double *dif, double *mid, size_t n, bool logs,
	  const struct compare_options *opt, const struct compare_prior *prior,
	  struct estimate *e)
{
	double m, v, mm, vm;
	size_t h;

	stats_sort(dif, n);
	stats_sort(mid, n);
	trimmed(dif, n, false, opt->trim, &m, &v, &h);
	trimmed(mid, n, false, opt->trim, &mm, &vm, &h);
	e->d = m;
	if (n < 2)
		return false;
	/* Mean squares: within rounds v / 2, between rounds 2 vm. */
	if (2 * vm < v / 2) {
		double mb = 2 * vm, me = v / 2;

		v = mb + me; /* 2 sigma^2, from both */
		/* Satterthwaite's: 2h - 2 when the two agree, less as the
		 * rounds' mean square falls below the noise's */
		e->df = ((double)h - 1) * (mb + me) * (mb + me) /
			(mb * mb + me * me);
	} else {
		e->df = (double)h - 1;
	}
	if (logs) {
		e->own_var = v;
		e->own_df = e->df;
	}
	if (logs)
		v = weigh(v, &e->df, prior, opt, e);
	e->se = sqrt((n - 1) * v / (h * (h - 1.0)));
	/* a run's spread, as two sides of independent runs would have it */
	e->sd = sqrt(v / 2);
	return true;
}

/* The test of rounds: base[i] and head[i] were run back to back on one
 * box, so the change is read within each round (head less base, of the
 * logs when every value is positive), and what a box drifted or stood
 * off by between rounds cancels out.  A model with the round as a
 * block (a random effect), fitted as REML fits it: the differences give
 * the noise within a round (n - 1 degrees of freedom); when the rounds'
 * means spread no more than that noise explains, the rounds differ in
 * nothing and both halves of the runs estimate the noise (2n - 2
 * degrees of freedom: the power of two independent sides).  Trimmed
 * and winsorized as Yuen's test is (Tukey and McLaughlin's one-sample
 * form).  With a history, a round with an outlier run is left out
 * (screen()) when the rounds left are as quiet as the history says
 * (the guard): a pair noisier than its history throughout is decided on
 * all its rounds, on its own noise, as before (left out on the history's
 * scale, its widest rounds made it look quiet enough to weigh the
 * history: the false alarms among such pairs went from 1.1% to 1.9%,
 * measured).  False with one round. */
static bool
rounds(const double *base, const double *head, size_t n, bool logs,
       const struct compare_options *opt, const struct compare_prior *prior,
       struct estimate *e)
{
	double x[512], *own = NULL, *dif = x, *mid = x + 128, *sd = x + 256,
		       *sm = x + 384;
	bool ok;
	size_t k;

	e->logs = logs;
	e->nmin = n;
	if (n > 128) {
		own = xreallocarray(NULL, 4 * n, sizeof *own);
		dif = own;
		mid = own + n;
		sd = own + 2 * n;
		sm = own + 3 * n;
	}
	for (size_t i = 0; i < n; i++) {
		double b = logs ? log(base[i]) : base[i];
		double t = logs ? log(head[i]) : head[i];

		sd[i] = dif[i] = t - b;
		sm[i] = mid[i] = (t + b) / 2;
	}
	k = screen(sd, sm, n, logs ? prior : NULL, opt->screen, opt->guard,
		   &e->screen_due);
	if (k < n) {
		struct estimate s = *e;

		ok = rounds_of(sd, sm, k, logs, opt, prior, &s);
		if (s.history == COMPARE_HISTORY_USED) {
			*e = s;
			e->dropped = n - k;
			free(own);
			return ok;
		}
	}
	ok = rounds_of(dif, mid, n, logs, opt, prior, e);
	free(own);
	return ok;
}

/* The robust method's verdict on the estimate e. */
static void
robust(const struct estimate *e, bool tested, const struct compare_options *opt,
       const struct direction *dir, bool lazy, struct compare_result *r)
{
	double floor_pct = dir->floor_pct > opt->min_effect_pct
				   ? dir->floor_pct
				   : opt->min_effect_pct;
	double d = e->d, se = e->se, df = e->df, t, margin, scale;
	bool significant;

	/* On the log scale the floor is ln(1 + floor); on the value scale
	 * it is a share of the base mean. */
	scale = e->logs ? 1 : fabs(r->base.mean);
	margin = e->logs ? log_floor(floor_pct) : floor_pct / 100 * scale;
	r->effect_pct =
		e->logs ? 100 * expm1(d) : (scale > 0 ? 100 * d / scale : 0);
	r->se = tested ? se : 0;
	r->logs = e->logs;

	if (!tested) {
		r->verdict = COMPARE_INCONCLUSIVE;
		r->reason = opt->paired ? "one round" : "one run on each side";
		r->runs_needed = 3;
		return;
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
	r->t_stat = t;
	r->df = df;
	/* p < alpha is P(T > |t|) < alpha / 2, exactly (halving is) */
	if (lazy)
		significant = tail_below(fabs(t), df, opt->alpha / 2);
	else {
		r->p_value = 2 * stats_t_sf(fabs(t), df);
		significant = r->p_value < opt->alpha;
	}
	if (significant && fabs(d) >= margin &&
	    fmax(fabs(r->base.max), fabs(r->head.max)) >= dir->abs_floor) {
		r->verdict = change_verdict(r->direction, d);
		return;
	}
	/* TOST: is the change within (-margin, +margin)? */
	if (tail_below((d + margin) / se, df, opt->equiv_alpha) &&
	    tail_below((margin - d) / se, df, opt->equiv_alpha)) {
		r->verdict = COMPARE_UNCHANGED;
		r->reason = "the change is within the floor";
		return;
	}
	if (fmax(fabs(r->base.max), fabs(r->head.max)) < dir->abs_floor &&
	    significant) {
		r->verdict = COMPARE_UNCHANGED;
		r->reason = "below the metric's absolute floor";
		return;
	}
	r->verdict = COMPARE_INCONCLUSIVE;
	if (fabs(d) >= margin) {
		r->reason = "a change, not yet significant";
		r->runs_needed =
			runs_for(e->sd, fabs(d), opt->alpha / 2, opt->max_runs);
	} else {
		r->reason = "too noisy to show it unchanged";
		r->within_floor = true;
		r->runs_needed = runs_for(e->sd, margin - fabs(d),
					  opt->equiv_alpha, opt->max_runs);
		r->runs_if_none = runs_for(e->sd, margin, opt->equiv_alpha,
					   opt->max_runs);
	}
	if (r->runs_needed >= 0 && (size_t)r->runs_needed <= e->nmin)
		r->runs_needed = (int)e->nmin + 1;
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

static void
compare(const char *name, const double *base, size_t nb, const double *head,
	size_t nh, const struct compare_options *opt,
	const struct direction *dir, bool lazy, struct compare_result *r)
{
	double sb[64], sh[64], *ob = NULL, *oh = NULL;
	double *bs = sb, *hs = sh;

	memset(r, 0, sizeof *r);
	r->resolution_pct = NAN;
	/* Each side sorted once: its summary, then the robust test. */
	if (nb > 64)
		bs = ob = xreallocarray(NULL, nb, sizeof *ob);
	if (nh > 64)
		hs = oh = xreallocarray(NULL, nh, sizeof *oh);
	stats_summarize_two(base, nb, bs, &r->base, head, nh, hs, &r->head);
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
	if (opt->method == COMPARE_LKP) {
		lkp(name, base, nb, head, nh, dir, r);
	} else {
		struct estimate e = {0};
		bool tested;

		const struct compare_prior *p = NULL;

		for (size_t i = 0; i < opt->npriors && p == NULL; i++)
			if (strcmp(opt->priors[i].metric, name) == 0)
				p = &opt->priors[i];
		if (opt->paired && nb == nh)
			tested = rounds(base, head, nb, bs[0] > 0 && hs[0] > 0,
					opt, p, &e);
		else
			tested = two_sides(bs, nb, hs, nh, opt, p, &e);
		r->noise_var = e.own_var;
		r->noise_df = e.own_df;
		r->history = e.history;
		r->prior_var = e.prior_var;
		r->prior_df = e.prior_df;
		r->rounds_dropped = e.dropped;
		r->screen_due = e.screen_due;
		robust(&e, tested, opt, dir, lazy, r);
	}
	free(ob);
	free(oh);
}

void
compare_metric(const char *name, const double *base, size_t nb,
	       const double *head, size_t nh, const struct compare_options *opt,
	       const struct direction *dir, struct compare_result *r)
{
	compare(name, base, nb, head, nh, opt, dir, false, r);
}

void
compare_metric_lazy(const char *name, const double *base, size_t nb,
		    const double *head, size_t nh,
		    const struct compare_options *opt,
		    const struct direction *dir, struct compare_result *r)
{
	compare(name, base, nb, head, nh, opt, dir, true, r);
}

double
compare_p_value(const struct compare_result *r)
{
	if (!isnan(r->p_value) || !(r->df > 0))
		return r->p_value;
	return 2 * stats_t_sf(fabs(r->t_stat), r->df);
}
