/*
 * decide.c: final or more runs.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "robot/analysis/decide.h"
#include "robot/analysis/stats.h"
#include "robot/core/banned.h"

/* How bad a KPI verdict is for the pair: lower is worse. */
static int
rank(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_REGRESSION:
		return 0;
	case COMPARE_IMPROVEMENT:
		return 1;
	case COMPARE_INCONCLUSIVE:
		return 2;
	case COMPARE_CHANGED: /* a KPI has a direction: not seen */
	case COMPARE_UNCHANGED:
		return 3;
	}
	return 3;
}

void
decide(const struct comparison *c, int runs, int max_runs, double promising,
       struct decision *d)
{
	int best = 4;
	bool unsure = false, every = false, near = false;

	d->outcome = DECIDE_FINAL;
	d->verdict = DECIDE_NO_KPI;
	d->runs = runs;
	d->kpi = NULL;
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		int r;

		if (!m->kpi)
			continue;
		r = rank(m->r.verdict);
		/* A change below the floor that the cap cannot show
		 * unchanged: more runs would only cost the lab. */
		if (m->r.verdict == COMPARE_INCONCLUSIVE &&
		    !decide_futile(&m->r, max_runs)) {
			unsure = true;
			every = every || m->r.history == COMPARE_HISTORY_USED;
			near = near || compare_p_value(&m->r) < promising;
		}
		if (r < best) {
			best = r;
			d->kpi = m->name;
		}
	}
	d->verdict = best == 0   ? DECIDE_REGRESSION
		     : best == 1 ? DECIDE_IMPROVEMENT
		     : best == 2 ? DECIDE_INCONCLUSIVE
		     : best == 3 ? DECIDE_UNCHANGED
				 : DECIDE_NO_KPI;
	/* Any unsure KPI asks for more runs: the verdicts of all are final
	 * together. */
	if (unsure && runs < max_runs) {
		d->outcome = DECIDE_MORE;
		d->runs = every ? runs + 1 : decide_next_look(runs, max_runs);
	} else if (near && runs < decide_promising_runs(max_runs)) {
		d->outcome = DECIDE_MORE;
		d->runs = decide_promising_runs(max_runs);
	}
}

int
decide_promising_runs(int max_runs)
{
	return max_runs + (max_runs + 1) / 2;
}

int
decide_next_look(int runs, int max_runs)
{
	int look = 3;

	while (look <= runs && look < INT_MAX / 2)
		look = look * 3 / 2 + (look * 3 % 2 != 0);
	return look < max_runs ? look : max_runs > runs ? max_runs : runs + 1;
}

/* The power family of spending functions (Kim and DeMets): the share
 * spent by information t, t^rho. */
static double
spent(double t, double rho)
{
	t = t < 1 ? t : 1;
	return pow(t, rho);
}

/* The planned look below runs, or 0. */
static int
look_before(int runs)
{
	int before = 0;

	for (int look = 3; look < runs; look = decide_next_look(look, INT_MAX))
		before = look;
	return before;
}

double
decide_look_alpha(int runs, int before, int max_runs, double alpha)
{
	double first = alpha * DECIDE_FIRST_SHARE, rest = alpha - first;

	if (max_runs < 1)
		return alpha;
	/* the promising look: the cap's level */
	if (runs > max_runs)
		return decide_look_alpha(max_runs, max_runs - 1, max_runs,
					 alpha);
	/* Looked at as many before (runs asked again): the plan's share. */
	if (before < 0 || before >= runs)
		before = look_before(runs);
	return (before == 0 ? first : 0) +
	       rest * (spent((double)runs / max_runs, 3) -
		       spent((double)before / max_runs, 3));
}

double
decide_resolution_pct(const struct compare_result *r, int max_runs)
{
	double z;

	if (r->history != COMPARE_HISTORY_USED || !r->logs || !(r->se > 0) ||
	    r->base.n < 2 || max_runs < 1)
		return NAN;
	z = stats_norm_quantile(1 - DECIDE_ALPHA_KNOWN / 2) +
	    stats_norm_quantile(DECIDE_POWER);
	return 100 * expm1(z * r->se * sqrt((double)r->base.n / max_runs));
}

enum decide_futility
decide_futility(const struct compare_result *r, int max_runs)
{
	double res;

	if (r->verdict != COMPARE_INCONCLUSIVE)
		return DECIDE_NOT_FUTILE;
	/* One round's outlier run is most of a few rounds' noise: the
	 * rounds the screen needs are worth more than stopping on it. */
	if (r->screen_due)
		return DECIDE_NOT_FUTILE;
	if (r->within_floor &&
	    (r->runs_if_none < 0 || r->runs_if_none > max_runs))
		return DECIDE_FUTILE_FLOOR;
	/* (on the log scale, where the test is) */
	res = decide_resolution_pct(r, max_runs);
	return isfinite(res) && r->effect_pct > -100 &&
			       fabs(log1p(r->effect_pct / 100)) +
					       DECIDE_FUTILE_Z * r->se <
				       log1p(res / 100)
		       ? DECIDE_FUTILE_RESOLUTION
		       : DECIDE_NOT_FUTILE;
}

bool
decide_futile(const struct compare_result *r, int max_runs)
{
	return decide_futility(r, max_runs) != DECIDE_NOT_FUTILE;
}

bool
decide_canary(const double *v, size_t n, size_t from, struct compare_result *r,
	      size_t *at)
{
	static const struct direction either = {0, 0, 0, NULL};
	struct compare_options opt;

	memset(r, 0, sizeof *r);
	compare_options_init(&opt);
	opt.alpha = DECIDE_CANARY_ALPHA;
	opt.min_effect_pct = DECIDE_CANARY_EFFECT;
	/* each window of RECENT runs ending at a new one */
	for (size_t end = from + 1 > DECIDE_CANARY_RECENT + 5
				  ? from + 1
				  : DECIDE_CANARY_RECENT + 5;
	     end <= n; end++) {
		size_t start = end - DECIDE_CANARY_RECENT;
		size_t before = start < DECIDE_CANARY_BEFORE
					? start
					: DECIDE_CANARY_BEFORE;

		compare_metric("canary", v + start - before, before, v + start,
			       DECIDE_CANARY_RECENT, &opt, &either, r);
		if (compare_verdict_is_change(r->verdict)) {
			*at = start;
			return true;
		}
	}
	return false;
}

/* The coefficient of variation of a side, in percent; NAN for none. */
static double
cv_pct(const struct stats_summary *s)
{
	if (s->n < 2 || !(s->mean != 0))
		return NAN;
	return 100 * s->stddev / fabs(s->mean);
}

bool
decide_noise_note(const struct comparison *c, const struct decision *d,
		  const struct compare_options *opt, int max_runs, char *buf,
		  size_t len)
{
	const struct comparison_metric *m = NULL;
	double cv, sd, effect, z, n;

	buf[0] = '\0';
	if (d->outcome != DECIDE_FINAL || d->verdict != DECIDE_INCONCLUSIVE ||
	    d->kpi == NULL)
		return false;
	for (size_t i = 0; i < c->nmetrics && m == NULL; i++)
		if (c->metrics[i].kpi &&
		    strcmp(c->metrics[i].name, d->kpi) == 0)
			m = &c->metrics[i];
	if (m == NULL)
		return false;
	cv = fmax(cv_pct(&m->r.base), cv_pct(&m->r.head));
	if (!isfinite(cv) || !(opt->min_effect_pct > 0))
		return false;
	/* Runs per side for a two-sided test at alpha with 80% power to
	 * tell the minimum effect, on the logs: sd ~ ln(1 + cv). */
	sd = log1p(cv / 100);
	effect = log1p(opt->min_effect_pct / 100);
	z = stats_norm_quantile(1 - opt->alpha / 2) + stats_norm_quantile(0.8);
	n = ceil(2 * sd * sd * z * z / (effect * effect));
	if (n > 1000)
		snprintf(buf, len,
			 "%s varied by \xc2\xb1%.0f%% between this pair's "
			 "runs of one commit; a %g%% change would need more "
			 "than 1000 runs a side (this pair's cap is %d)",
			 d->kpi, cv, opt->min_effect_pct, max_runs);
	else
		snprintf(buf, len,
			 "%s varied by \xc2\xb1%.0f%% between this pair's "
			 "runs of one commit; a %g%% change would need about "
			 "%.0f runs a side (this pair's cap is %d)",
			 d->kpi, cv, opt->min_effect_pct, n < 2 ? 2 : n,
			 max_runs);
	return true;
}

const char *
decide_verdict_name(enum decide_verdict v)
{
	switch (v) {
	case DECIDE_REGRESSION:
		return "regression";
	case DECIDE_IMPROVEMENT:
		return "improvement";
	case DECIDE_INCONCLUSIVE:
		return "inconclusive";
	case DECIDE_UNCHANGED:
		return "unchanged";
	case DECIDE_NO_KPI:
		return "no-kpi";
	}
	return "?";
}
