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
 * The looks at a pair's data (docs/statistics.md, "Extra runs"): 3, 5,
 * 8, 12, 18, 27, ... runs a side (rounds), each about 1.5 times the
 * last, up to max_runs, which is the last look; and after every round
 * from the first look on while a KPI's noise is known from its history
 * (compare_prior: its test then has the degrees of freedom to decide at
 * any round, where a test of a few rounds' own noise has too few).  A
 * KPI's false-alarm budget (DECIDE_ALPHA) is spent across the looks:
 * the first look gets DECIDE_FIRST_SHARE of it, whatever else, so that
 * a change many times its noise is decided at once (the early answer);
 * the rest is spent by alpha * t^3 at t = runs / max_runs, little at the
 * first looks, where a t test has few degrees of freedom to win with.
 * By the last look the whole budget is spent, and a KPI's false alarms
 * over every look stay within it (the union bound; what the looks share
 * makes them fewer).  DECIDE_ALPHA is below the 0.5% a KPI's false
 * alarms may reach because the test of rounds, which pools its noise
 * when the rounds do not differ (compare.c), runs above its nominal
 * level by about a fifth.  A pair whose every KPI's noise is known from
 * its history has DECIDE_ALPHA_KNOWN: its test, on many degrees of
 * freedom, holds its level, and the union bound over its many looks is
 * loose (measured: 0.08% false alarms); what the larger budget must
 * cover is a pair noisier than its history that the guard lets through
 * (bench/sim_loop: 0.35% false alarms over all pairs when one pair in
 * five is twice as noisy as its history, 1.4% of those pairs).
 */
#define DECIDE_ALPHA       0.003
#define DECIDE_ALPHA_KNOWN 0.005
#define DECIDE_FIRST_SHARE (1.0 / 6)

/*
 * A KPI whose noise is known from its history stops when its change is
 * shown smaller than the least change its cap could find: when the
 * change estimated, DECIDE_FUTILE_Z standard errors out, is still below
 * the change a test at DECIDE_ALPHA_KNOWN finds with DECIDE_POWER at max_runs
 * rounds (the pair's resolution).  More rounds would most likely end
 * inconclusive at the cap, at twice the cost.  1.4: at 1.25 a 10% change
 * at 5% noise was found in 89.4% of pairs where boxes drift and step
 * (bench/sim_loop --prior 30 --offset 3 --drift 0.2 --step 30:-20), at
 * 1.5 the runs a side over a lab's 1,000 innocent and 300 slower pairs
 * were 6.03 there; at 1.4, 90.1% and 5.91 (91.7% and 5.78 without the
 * boxes' faults).
 */
#define DECIDE_FUTILE_Z 1.4
#define DECIDE_POWER    0.9

/*
 * The promising zone (Chen, DeMets and Lan 2004; Mehta and Pocock
 * 2011): a KPI still inconclusive at the cap, not futile, whose p there
 * is below DECIDE_PROMISING_P gets one look more, at
 * decide_promising_runs() rounds, tested at the level of the cap's own
 * look (decide_look_alpha() past the cap).  A slowdown the plan almost
 * found is most of those: at 5% noise with a history, 92.0% of 10%
 * slowdowns found became 95.8%, in the lab of outliers 81.7% 89.1%;
 * an innocent pair seldom reaches the cap that close to the line, and
 * one look more, at the same level, raised no false alarms measured
 * (bench/sim_loop, docs/statistics.md "The promising look").
 */
#define DECIDE_PROMISING_P 0.02
/* The rounds of the look past the cap of max_runs: half as many more. */
int decide_promising_runs(int max_runs);

/* The first planned look above runs, or max_runs. */
int decide_next_look(int runs, int max_runs);
/* The share of alpha spent at the look with runs a side after the look
 * at before (0: this is the first), of at most max_runs.  A look with no
 * more runs than the last (runs asked again) gets the share the plan
 * gives it; the promising look past the cap, the cap's share (after
 * the round before it). */
double decide_look_alpha(int runs, int before, int max_runs, double alpha);
/* Whether r is inconclusive only because the runs cannot show a change
 * below its floor unchanged, and could not within max_runs a side even
 * were there no change at all (the noise alone decides, not the change
 * the few runs so far happen to show); or, its noise known from its
 * history, its change is shown below the pair's resolution at max_runs
 * (DECIDE_FUTILE_Z): no runs are worth asking for. */
bool decide_futile(const struct compare_result *r, int max_runs);
/* Which of decide_futile()'s rules holds of r. */
enum decide_futility {
	DECIDE_NOT_FUTILE,
	DECIDE_FUTILE_FLOOR,      /* below the floor, too noisy to show it */
	DECIDE_FUTILE_RESOLUTION, /* shown below the pair's resolution */
};
enum decide_futility decide_futility(const struct compare_result *r,
				     int max_runs);
/* The pair's resolution (see DECIDE_FUTILE_Z) of r at max_runs rounds,
 * in percent of the base; NAN when r's noise is not known from its
 * history. */
double decide_resolution_pct(const struct compare_result *r, int max_runs);

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
 * most max_runs per side: more runs go to the next look (one more round
 * when an unsure KPI's noise is known from its history, else the next
 * planned look), unless every inconclusive KPI is futile
 * (decide_futile()).  At the cap, an unsure KPI whose p is below
 * promising (DECIDE_PROMISING_P; 0: never, as for a bisection's pairs)
 * asks for the promising look, at decide_promising_runs().  The
 * comparison was made at decide_look_alpha() of this look.
 */
void decide(const struct comparison *c, int runs, int max_runs,
	    double promising, struct decision *d);
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
