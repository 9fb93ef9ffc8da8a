/*
 * bisectstep.h: the arithmetic of a bisection (docs/bisect.md), apart
 * from the daemon that drives it: what a midpoint's two comparisons say
 * of it, and which commit git's answer makes the next midpoint.
 */
#ifndef ROBOT_BISECTSTEP_H
#define ROBOT_BISECTSTEP_H

#include <stdbool.h>
#include <stddef.h>

/* One comparison of a midpoint with an end, on the bisection's KPI. */
struct bisect_side {
	const char *pair_verdict; /* the pair's: "failed" when a side had
				   * no ok run; NULL when not analysed */
	const char *verdict;      /* the KPI's: regression, unchanged, ...;
				   * NULL when the pair has no such KPI */
	double change_pct;        /* the KPI's change; NAN when none */
	int runs;                 /* ok runs per side */
};

enum bisect_class {
	BISECT_GOOD,   /* like the good end */
	BISECT_BAD,    /* like the bad end */
	BISECT_SKIP,   /* not run, or like both: git bisect skip */
	BISECT_UNSURE, /* too noisy to tell: more runs, or skipped at the cap */
};

/*
 * Classifies midpoint M from (good, M) and (M, bad), for a bisection of
 * change ("regression", or "improvement": the verdict the ends show):
 * like bad when M changed so from good and not further to bad, like good
 * when bad changed so from M and M not from good; with no such change
 * either way, the end it is shown unchanged from; when both changed (the
 * change came in steps), the end it is nearer.  Unsure when a comparison
 * is inconclusive and none of that says; skipped when M has no ok run,
 * or is shown unchanged from both.  reason gets why, for the step's
 * record.
 */
enum bisect_class bisect_classify(const struct bisect_side *good,
				  const struct bisect_side *bad,
				  const char *change, char *reason, size_t len);
/* "regressed" or "improved": what a change did, for people. */
const char *bisect_changed(const char *change);
const char *bisect_class_name(enum bisect_class c);

/*
 * A step decided on its runs (docs/bisect.md, "How"): between "like
 * good" and "like bad", with the ends' difference as the effect, by a
 * sequential probability ratio test (Wald's) of the step's rounds, each
 * round's change read within it.  A round of the good end, the midpoint
 * and the bad end gives m - (g + b) / 2, whose mean is -D/2 like good
 * and +D/2 like bad (D = b - g, of the logs when every value is
 * positive); a round of two of them gives their difference.  A confirm
 * step's rounds of the parent and the first bad commit give c - p, 0
 * like the parent, D changed.  Each round's likelihood is Student's t
 * with BISECT_NU degrees of freedom (a round that an outlier run threw
 * off cannot decide by itself), its scale the noise of a round's
 * difference pooled from the series' history, the ends' rounds and the
 * step's own (the step's own alone when it is above the others beyond
 * chance, compare.h's guard); a round whose ends' change, or whose
 * change of the midpoint, lies BISECT_SCREEN spreads off what either
 * likeness says is left out (a run of it was an outlier).  The
 * step is decided when the likelihood ratio passes BISECT_LLR either
 * way (Wald's bounds: at most about 1% wrong each way) and the scale is
 * known on BISECT_MIN_DF degrees of freedom, and at the most runs by the
 * likelier end; a commit is skipped only when it cannot be measured.
 */
#define BISECT_LLR    5.293 /* log(199) */
#define BISECT_NU     6
#define BISECT_SCREEN 5
#define BISECT_MIN_DF 4 /* the scale's, before anything is decided */
/* A step's own rounds noisier than its series' at this level (a
 * predictive F test, as compare.h's COMPARE_GUARD) are decided on their
 * own noise: lower than a pair's guard, since a step is no finding (its
 * end is confirmed), and at 0.2 the guard's false firings made a step
 * 7.8 rounds where 7.5 (bench/sim_bisect). */
#define BISECT_GUARD 0.05
/* Until the step's own rounds can show their noise (one round of each
 * kind: no degrees of freedom for the guard), they are read as this many
 * times as noisy as the scale says: a midpoint that makes the job noisier
 * is not decided on one round by its series' quieter history (a first
 * run 9% off at 3% noise, with a history of 1%, was called "like good"
 * at odds of 289:1).  A change far beyond the noise (the quickstart's
 * -93%) is still decided on one round. */
#define BISECT_UNSEEN 3

/* One round's values of the step's commits: NAN where the round did
 * not run that commit.  A confirm step has its parent as good, its
 * commit as mid and no bad. */
struct bisect_round {
	double good, mid, bad;
};

struct bisect_test {
	enum bisect_class verdict; /* GOOD, BAD, or UNSURE: more rounds */
	double llr;                /* log likelihood ratio, bad to good */
	double position;           /* where the midpoint lies: 0 good, 1 bad */
	double change_pct;         /* the ends' change, as measured */
	double spread_pct;         /* a run's spread, as the scale has it */
	size_t used;               /* rounds that decided */
	size_t dropped;            /* rounds left out (an outlier run) */
	bool noisier; /* its own rounds' noise is above the others' beyond
			 chance: decided on it alone */
	bool logs;
};

/*
 * Tests a step: its rounds r[0..n) (for a confirm step, confirm), the
 * rounds of the bisection's ends (good and bad: the ends' pair's and the
 * midpoints'; NAN mid) ends[0..nends), for the ends' change D, and the
 * series' noise history as the variance of a round's difference with
 * its degrees of freedom (prior_df 0: none).  at_cap: the step can get
 * no more rounds, so it is decided by the likelier end.  reason gets
 * why, for the step's record.  UNSURE also when nothing can be read
 * (no round with the midpoint, or no change between the ends), with
 * used 0.
 */
void bisect_test(const struct bisect_round *r, size_t n,
		 const struct bisect_round *ends, size_t nends, bool confirm,
		 double prior_var, double prior_df, bool at_cap,
		 struct bisect_test *out, char *reason, size_t len);

enum bisect_next {
	BISECT_MID,         /* test commit next */
	BISECT_FIRST_BAD,   /* the bad end is the first bad commit: confirm
			     * it against parent */
	BISECT_ALL_SKIPPED, /* the first bad commit is one of skipped[] or
			     * the bad end */
	BISECT_NONE,        /* git listed no commit */
};

struct bisect_pick {
	enum bisect_next next;
	char commit[41];   /* BISECT_MID: the midpoint */
	char parent[41];   /* BISECT_FIRST_BAD: the bad end's first parent
			   * ("" for a root commit) */
	size_t candidates; /* commits that may be the first bad one */
	char *left;        /* BISECT_ALL_SKIPPED: "sha10, sha10, ...";
			    * the caller frees it */
};

/*
 * Picks from `git rev-list --bisect-all --parents BAD --not GOOD...`'s
 * text out (lines "SHA [PARENT...] ([REFS, ]dist=N)", the best
 * midpoint first): the first commit that is neither bad nor one of
 * skipped[0..nskipped).  False when out is not such a listing.
 */
bool bisect_pick(const char *out, const char *bad, const char *const *skipped,
		 size_t nskipped, struct bisect_pick *p);

#endif
