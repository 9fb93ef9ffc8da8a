/*
 * decide.h: what the daemon makes of a pair's comparison (DESIGN.md
 * section 7): the pair is final, or it gets more runs first.  A KPI that
 * is inconclusive asks for more runs on both sides, doubling, up to the
 * most runs per side; only then is the verdict final.  Monitor metrics
 * never decide anything (docs/statistics.md).
 */
#ifndef ROBOT_DECIDE_H
#define ROBOT_DECIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/analysis/comparison.h"

enum decide_outcome {
	DECIDE_FINAL,
	DECIDE_MORE, /* queue runs until each side has decision.runs */
};

/* The pair's verdict, from its KPIs' (worst first). */
enum decide_verdict {
	DECIDE_REGRESSION,   /* a KPI regressed */
	DECIDE_IMPROVEMENT,  /* a KPI improved, none regressed */
	DECIDE_INCONCLUSIVE, /* a KPI stayed inconclusive at the cap */
	DECIDE_UNCHANGED,    /* every KPI unchanged */
	DECIDE_NO_KPI,       /* nothing to decide on */
};

struct decision {
	enum decide_outcome outcome;
	enum decide_verdict verdict;
	int runs;        /* DECIDE_MORE: the runs per side to have in all */
	const char *kpi; /* the KPI that decided (borrowed), or NULL */
};

/*
 * Decides on c, whose sides were asked runs runs each so far, with at
 * most max_runs per side.
 */
void decide(const struct comparison *c, int runs, int max_runs,
	    struct decision *d);
const char *decide_verdict_name(enum decide_verdict v);

/*
 * When d is final and inconclusive (its KPI could not be decided within
 * max_runs per side), what the lab's operators should hear about the
 * box's noise, in buf: "dd.write_bytes_per_sec varies by +-38% between
 * identical runs; a 2% change would need about 1400 runs a side (the
 * cap is 10)", from the noisier side's spread and opt's minimum effect
 * and alpha.  False (buf empty) otherwise.
 */
bool decide_noise_note(const struct comparison *c, const struct decision *d,
		       const struct compare_options *opt, int max_runs,
		       char *buf, size_t len);

#endif
