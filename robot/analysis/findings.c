/*
 * findings.c: a KPI's verdict at a later head against what its branch
 * found before (findings.h).
 */
#include <math.h>

#include "robot/analysis/findings.h"
#include "robot/core/banned.h"

bool
finding_recovered(const struct finding_open *r, enum compare_verdict v,
		  bool change_defined, double change_pct)
{
	double sign;

	if (v == COMPARE_UNCHANGED || v == COMPARE_IMPROVEMENT)
		return true;
	if (!change_defined || !r->change_defined)
		return false;
	sign = r->change_pct > 0 ? 1 : r->change_pct < 0 ? -1 : 0;
	return sign * change_pct < fabs(r->change_pct) / 2;
}

enum finding_action
finding_decide(const struct finding_open *open, enum compare_verdict v,
	       bool change_defined, double change_pct)
{
	bool found = v == COMPARE_REGRESSION || v == COMPARE_IMPROVEMENT;

	if (open != NULL && open->regression &&
	    finding_recovered(open, v, change_defined, change_pct))
		return FINDING_FIXED;
	if (open != NULL && found &&
	    open->regression == (v == COMPARE_REGRESSION))
		return FINDING_STILL;
	return found ? FINDING_NEW : FINDING_NONE;
}

const char *
finding_action_name(enum finding_action a)
{
	switch (a) {
	case FINDING_NONE:
		return "none";
	case FINDING_NEW:
		return "new";
	case FINDING_STILL:
		return "still";
	case FINDING_FIXED:
		return "fixed";
	}
	return "?";
}
