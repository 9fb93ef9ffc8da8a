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
