/*
 * decide.c: final or more runs.
 */
#include <stdbool.h>
#include <stddef.h>

#include "robot/analysis/decide.h"
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
decide(const struct comparison *c, int runs, int max_runs, struct decision *d)
{
	int best = 4;
	bool unsure = false;

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
		unsure = unsure || m->r.verdict == COMPARE_INCONCLUSIVE;
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
		d->runs = runs * 2 < max_runs ? runs * 2 : max_runs;
		if (d->runs <= runs)
			d->runs = runs + 1;
	}
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
