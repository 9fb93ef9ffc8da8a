/*
 * findings.h: what a final pair of a watched branch records of each KPI
 * (DESIGN.md section 7): a regression or improvement found, one found
 * before still there at this later head, or a regression fixed by it.
 * The daemon stores the decisions (robot_pair_done()); the rules are
 * here, beside decide.c.
 */
#ifndef ROBOT_ANALYSIS_FINDINGS_H
#define ROBOT_ANALYSIS_FINDINGS_H

#include <stdbool.h>

#include "robot/analysis/compare.h"

/* A finding recorded before on the branch, for the same series and KPI,
 * at an earlier head, and neither fixed nor invalid. */
struct finding_open {
	bool regression;     /* its kind: a regression, else an improvement */
	bool change_defined; /* change_pct is known */
	double change_pct;   /* its change from the base, in % */
};

enum finding_action {
	FINDING_NONE,  /* nothing to record */
	FINDING_NEW,   /* a regression or improvement found */
	FINDING_STILL, /* the open finding is still there, at this head */
	FINDING_FIXED, /* the open regression is fixed by this head */
};

/*
 * Whether a later head whose KPI has verdict v and change change_pct
 * (when change_defined) fixes regression r: it is unchanged or better,
 * or back within half of r's change from the base, whatever the test
 * says of it.  A -80% regression is fixed by a head at +20% or -35%, not
 * by one at -45%: a revert measured -14% by a box that drifted since the
 * base's runs is a fix, not "still there at -14%"; what is left is
 * another, smaller change, which a later head finds anew.
 */
bool finding_recovered(const struct finding_open *r, enum compare_verdict v,
		       bool change_defined, double change_pct);
/*
 * What a final pair records of one KPI with verdict v (change_pct when
 * change_defined), given open, the branch's open finding of that KPI
 * (NULL when there is none).
 */
enum finding_action finding_decide(const struct finding_open *open,
				   enum compare_verdict v, bool change_defined,
				   double change_pct);
const char *finding_action_name(enum finding_action a);

#endif
