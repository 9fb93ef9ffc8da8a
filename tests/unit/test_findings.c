/*
 * test_findings.c: what a final pair of a branch records of a KPI, given
 * what the branch found before: a finding, one still there, a regression
 * fixed (and by how much a head must come back to fix it).
 */
#include <math.h>

#include "robot/analysis/findings.h"
#include "tap.h"

static const struct finding_open reg80 = {true, true, -80.0};
static const struct finding_open imp20 = {false, true, 20.0};

static enum finding_action
at(const struct finding_open *open, enum compare_verdict v, double change)
{
	return finding_decide(open, v, !isnan(change), change);
}

static void
test_nothing_open(void)
{
	CHECK_INT(at(NULL, COMPARE_REGRESSION, -10), FINDING_NEW);
	CHECK_INT(at(NULL, COMPARE_IMPROVEMENT, 10), FINDING_NEW);
	CHECK_INT(at(NULL, COMPARE_UNCHANGED, 0.5), FINDING_NONE);
	CHECK_INT(at(NULL, COMPARE_INCONCLUSIVE, -3), FINDING_NONE);
	CHECK_INT(at(NULL, COMPARE_CHANGED, -30), FINDING_NONE);
}

static void
test_still_there(void)
{
	CHECK_INT(at(&reg80, COMPARE_REGRESSION, -79), FINDING_STILL);
	/* worse still: the same regression */
	CHECK_INT(at(&reg80, COMPARE_REGRESSION, -95), FINDING_STILL);
	CHECK_INT(at(&imp20, COMPARE_IMPROVEMENT, 25), FINDING_STILL);
	/* an improvement that went away records nothing */
	CHECK_INT(at(&imp20, COMPARE_UNCHANGED, 0), FINDING_NONE);
	/* an improvement then a regression: a new finding of its own */
	CHECK_INT(at(&imp20, COMPARE_REGRESSION, -10), FINDING_NEW);
	/* an inconclusive head still far off tells nothing */
	CHECK_INT(at(&reg80, COMPARE_INCONCLUSIVE, -60), FINDING_NONE);
}

static void
test_fixed(void)
{
	CHECK_INT(at(&reg80, COMPARE_UNCHANGED, -1), FINDING_FIXED);
	CHECK_INT(at(&reg80, COMPARE_IMPROVEMENT, 20), FINDING_FIXED);
	/* back within half of -80%, whatever the test says: the drifting
	 * box's -14% revert of the reports test */
	CHECK_INT(at(&reg80, COMPARE_REGRESSION, -14), FINDING_FIXED);
	CHECK_INT(at(&reg80, COMPARE_INCONCLUSIVE, -35), FINDING_FIXED);
	/* -45% is not within half of -80% */
	CHECK_INT(at(&reg80, COMPARE_REGRESSION, -45), FINDING_STILL);
	CHECK_INT(at(&reg80, COMPARE_INCONCLUSIVE, -45), FINDING_NONE);
	/* without a change to compare, only the verdict fixes it */
	CHECK_INT(at(&reg80, COMPARE_INCONCLUSIVE, NAN), FINDING_NONE);
	CHECK_INT(at(&reg80, COMPARE_UNCHANGED, NAN), FINDING_FIXED);
}

static void
test_recovered_sign(void)
{
	/* a regression of a lower-is-better KPI: a positive change */
	struct finding_open up = {true, true, 40.0}, unknown = {true, false, 0};

	CHECK(finding_recovered(&up, COMPARE_REGRESSION, true, 15));
	CHECK(!finding_recovered(&up, COMPARE_REGRESSION, true, 25));
	CHECK(finding_recovered(&up, COMPARE_REGRESSION, true, -100));
	CHECK(!finding_recovered(&unknown, COMPARE_REGRESSION, true, 0));
	CHECK(finding_recovered(&unknown, COMPARE_IMPROVEMENT, true, 0));
	CHECK_STR(finding_action_name(FINDING_STILL), "still");
}

int
main(void)
{
	static const struct tap_case cases[] = {
		TAP_CASE(test_nothing_open),
		TAP_CASE(test_still_there),
		TAP_CASE(test_fixed),
		TAP_CASE(test_recovered_sign),
		{NULL, NULL},
	};

	return tap_run(cases);
}
