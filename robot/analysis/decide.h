/*
 * decide.h: what the daemon makes of a pair's comparison (DESIGN.md
 * section 7): the pair is final, or it gets more runs first.  A KPI that
 * is inconclusive asks for more runs on both sides (more rounds), to the
 * next planned look, up to the most runs per side; only then is the
 * verdict final.  Monitor metrics
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
 * The planned looks at a pair's data (docs/statistics.md, "Extra runs"):
 * 3, 5, 8, 12, 18, 27, ... runs a side (rounds), each about 1.5 times
 * the last, up to max_runs, which is the last look.  A KPI's false-alarm
 * budget (DECIDE_ALPHA) is spent across them: the look at runs, after a
 * look at before (0 for the first), gets what the spending function
 * alpha * t^3 at t = runs / max_runs adds from before to runs (little
 * at the first looks, where a t test has few degrees of freedom to win
 * with); by the last look the whole budget is spent, and a KPI's false
 * alarms over every look stay within it (the union bound; what the
 * looks share makes them fewer).  DECIDE_ALPHA is below the 0.5% a
 * KPI's false alarms may reach because the test of rounds, which pools
 * its noise when the rounds do not differ (compare.c), runs above its
 * nominal level by about a fifth (bench/sim_loop.c).
 */
#define DECIDE_ALPHA 0.003

/*
 * A KPI whose noise were known from its series' history (compare_prior)
 * would be tested with as many more degrees of freedom, which makes its
 * early looks worth something: its budget DECIDE_ALPHA_KNOWN, spent as
 * alpha * t^2.  Measured (bench/sim_loop --prior 30): false alarms 0.22%
 * per KPI, a 10% change at 5% noise found in 94.5% of pairs at 7.7 runs
 * a side; but a pair twice as noisy as its history (--noise 10
 * --history 5) then has 7% false alarms, which no test of its few
 * rounds' own noise against the history's prevents.  So robotd does not
 * use it (docs/statistics.md, "Extra runs").
 */
#define DECIDE_ALPHA_KNOWN 0.005

/* The first planned look above runs, or max_runs. */
int decide_next_look(int runs, int max_runs);
/* The share of alpha spent at the look with runs a side after the look
 * at before, of at most max_runs.  A look with no more runs than the
 * last (runs asked again) gets the share the plan gives it. */
double decide_look_alpha(int runs, int before, int max_runs, double alpha);
/* The same for a KPI whose noise is known: of DECIDE_ALPHA_KNOWN. */
double decide_look_alpha_known(int runs, int before, int max_runs);
/* Whether r is inconclusive only because the runs cannot show a change
 * below its floor unchanged, and could not within max_runs a side even
 * were there no change at all (the noise alone decides, not the change
 * the few runs so far happen to show): no runs are worth asking for. */
bool decide_futile(const struct compare_result *r, int max_runs);

/*
 * A box's canary (docs/statistics.md, "Box health"): its values of one
 * series' KPI at one commit, in the order it ran them (n of them), of
 * which those from v[from] on are new.  Whether DECIDE_CANARY_RECENT
 * runs in a row, ending at a new one, moved away from the (at least 5,
 * at most DECIDE_CANARY_BEFORE) just before them: the robust test of
 * the two, at DECIDE_CANARY_ALPHA, by at least DECIDE_CANARY_EFFECT
 * percent either way.  The commit did not change: the box did.  A short
 * window, so that a box's slow drift (which rounds cancel) is not taken
 * for a change.  The first that moved: *at gets the index of its first
 * run, r the comparison (the runs before as the base).
 */
#define DECIDE_CANARY_RECENT 3
#define DECIDE_CANARY_BEFORE 6
#define DECIDE_CANARY_ALPHA  0.0005
#define DECIDE_CANARY_EFFECT 5.0
bool decide_canary(const double *v, size_t n, size_t from,
		   struct compare_result *r, size_t *at);

/*
 * Decides on c, whose sides were asked runs runs each so far, with at
 * most max_runs per side: more runs go to the next planned look, unless
 * every inconclusive KPI is futile (decide_futile()).  The comparison
 * was made at decide_look_alpha() of this look.
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
