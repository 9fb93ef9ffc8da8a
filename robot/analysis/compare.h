/*
 * compare.h: the comparison of one metric between two sets of runs, the
 * base and the head, by one of two methods:
 *
 * - COMPARE_ROBUST (the default): Yuen's t test on log values with a
 *   known false-alarm rate per metric (alpha), a minimum effect, and an
 *   equivalence test (TOST) that says "unchanged" only when the change is
 *   shown to be small; on the differences within each round when the
 *   sides are rounds (opt->paired).  docs/statistics.md has the method and its
 *   measured error rates.
 * - COMPARE_LKP: LKP's changed-stat rule (lkpstat.h), for compatibility.
 *
 * The descriptive part (mean, population stddev, min, max, %change) is
 * the same for both and is what LKP's table shows.
 */
#ifndef ROBOT_COMPARE_H
#define ROBOT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "robot/analysis/direction.h"
#include "robot/analysis/stats.h"

enum compare_method {
	COMPARE_ROBUST,
	COMPARE_LKP,
};

enum compare_verdict {
	COMPARE_REGRESSION, /* changed for the worse (metric has a direction) */
	COMPARE_IMPROVEMENT,  /* changed for the better */
	COMPARE_CHANGED,      /* changed; the metric has no better direction */
	COMPARE_UNCHANGED,    /* shown to have changed less than the floor */
	COMPARE_INCONCLUSIVE, /* too few or too noisy runs to say */
};

/* A floor (min_effect_pct) is at least 0 and below this. */
#define COMPARE_EFFECT_LIMIT 1000

/* A metric's noise as its series' history shows it (robotd: the KPI's
 * rounds in the series' earlier pairs, noise_fit()): s0^2, the variance
 * of one round's difference of logs, with its degrees of freedom d0.  A
 * comparison in rounds weighs it with the pair's own (a moderated t),
 * unless the pair's own noise is implausibly large under it (the guard:
 * then the pair is decided on its own noise). */
struct compare_prior {
	const char *metric;
	double var, df;
};

/* What a comparison made of its metric's history. */
enum compare_history {
	COMPARE_HISTORY_NONE,    /* none given, or not rounds, or values not
				    all positive: its own noise */
	COMPARE_HISTORY_USED,    /* its own noise weighed with the history's */
	COMPARE_HISTORY_NOISIER, /* its own noise is above the history's
				    beyond chance: decided on its own */
};

/* The guard's level: a pair whose own noise is this unlikely (or less)
 * under its history's, as large or larger, is decided on its own noise
 * (docs/statistics.md, "Noise from history"). */
#define COMPARE_GUARD 0.2
/* A prior weighs at most this many times a pair's own degrees of
 * freedom: a pair noisier than its history that the guard lets through
 * (a few rounds cannot show their noise) is not decided by the history
 * alone (docs/statistics.md). */
#define COMPARE_PRIOR_WEIGHT 2
/* In rounds, a round whose difference lies this many of its sd off the
 * rounds' median had an outlier run in it, and is left out of the test
 * (Gaussian noise puts one round in 1.7 million that far). */
#define COMPARE_SCREEN 5
/* ... from this many rounds on: a pair twice as noisy as its history
 * whose widest round is left out may look quiet enough to weigh the
 * history (docs/statistics.md: from 4 rounds on, the false alarms of a
 * lab with one such pair in five rose from 0.26% to 0.38%; from 6,
 * 0.34%). */
#define COMPARE_SCREEN_FROM 6

struct compare_options {
	enum compare_method method;
	double min_effect_pct; /* smallest change that counts; default 2 */
	double alpha;          /* false alarms per metric; default 0.003 */
	double equiv_alpha;    /* of the equivalence test; default 0.05 */
	double trim;           /* share trimmed off each end (Yuen); 0.1 */
	int max_runs;          /* most runs per side worth asking for; 30 */
	bool paired;           /* the sides are rounds: base[i] and head[i]
				  ran back to back on one box (nb == nh);
				  the change is read within each round */
	const struct compare_prior *priors; /* paired: noise known */
	size_t npriors;
	double guard;        /* of the priors: COMPARE_GUARD */
	double prior_weight; /* a prior weighs at most this many times the
				pair's own degrees of freedom
				(COMPARE_PRIOR_WEIGHT); 0: no cap */
	double screen;       /* in rounds: COMPARE_SCREEN; 0: none left out */
};

struct compare_result {
	struct stats_summary base;
	struct stats_summary head;
	double change_pct;   /* 100 * (head - base) / base of the means */
	bool change_defined; /* false when the base mean is 0 and head not */
	double p_value;      /* of the test; NAN when none was made (or,
			      * from compare_metric_lazy(), not needed) */
	double t_stat, df;   /* the test's statistic; df 0 when none */
	double effect_pct;   /* the change the verdict rests on (geometric) */
	int direction;       /* +1, -1 or 0, from the direction table */
	enum compare_verdict verdict;
	/* For inconclusive verdicts: runs per side that would likely settle
	 * it (0 if none are needed, -1 if more runs are unlikely to help). */
	int runs_needed;
	bool within_floor;  /* inconclusive: the change estimated is below
			       the floor (more runs could only show it
			       unchanged) */
	int runs_if_none;   /* within_floor: the runs per side that would
			       show it unchanged were there no change at
			       all (the noise alone); -1 beyond max_runs */
	const char *reason; /* why, for inconclusive and unchanged; static */
	double noise_var;   /* in rounds, of logs: the variance of one
			       round's difference the pair's own runs show
			       (a compare_prior's var); 0 else */
	double noise_df;    /* its degrees of freedom */
	enum compare_history history; /* what became of its prior */
	double prior_var;             /* the prior's s0^2, when there was one */
	double prior_df;              /* the history's weighed in; 0: none */
	double se; /* the standard error of the change the test rests on
		      (of logs, or of values); 0: none */
	bool logs; /* that change is of the logs */
	size_t rounds_dropped; /* rounds left out, an outlier run in each
				  (COMPARE_SCREEN) */
	bool screen_due;       /* one round lies as far off, too few rounds
				  yet to leave it out (COMPARE_SCREEN_FROM):
				  its noise is not the pair's */
	double resolution_pct; /* the pair's resolution at its cap, set by
				  who decides (decide_resolution_pct());
				  NAN: none */
};

/* Fills opt with the defaults. */
void compare_options_init(struct compare_options *opt);
/*
 * Compares nb base values with nh head values (all finite, nb and nh at
 * least 1) of the metric name.  dir is its direction (direction_lookup()).
 */
void compare_metric(const char *name, const double *base, size_t nb,
		    const double *head, size_t nh,
		    const struct compare_options *opt,
		    const struct direction *dir, struct compare_result *out);
/*
 * compare_metric() for the thousands of metrics of one comparison, most
 * of them never shown: the p-value is computed only where the verdict
 * needs it (else p_value is NAN with t_stat and df kept, and
 * compare_p_value() gives it).  The same verdict and figures.
 */
void compare_metric_lazy(const char *name, const double *base, size_t nb,
			 const double *head, size_t nh,
			 const struct compare_options *opt,
			 const struct direction *dir,
			 struct compare_result *out);
/* The p-value of r, computed now if compare_metric_lazy() did not. */
double compare_p_value(const struct compare_result *r);
const char *compare_verdict_name(enum compare_verdict v);
const char *compare_method_name(enum compare_method m);
const char *compare_history_name(enum compare_history h);
/* What r made of its history, for people, in buf: "noisier than its
 * history (x2.3): decided on its own runs", or "its noise weighed with
 * its history's: a run +-3.1% (30 degrees of freedom; its own +-2.9%)";
 * false (buf empty) when it had none. */
bool compare_history_note(const struct compare_result *r, char *buf,
			  size_t len);
/* Whether a verdict is a change (a regression, improvement or changed). */
bool compare_verdict_is_change(enum compare_verdict v);

#endif
