/*
 * bisect.c: the bisections' driver, a worker of the drain engine
 * (drain.h), one bisection in hand at a time.  The engine claims a
 * bisection whose step has its answer (robot_bisect_next(), decoded:
 * store/bisect.h); each is a state machine driven from its answers:
 *
 *   DECIDING  --(a step answered, not yet decided)-------> MARKING
 *   DECIDING  --(a step decided before a robotd died)----> LISTING
 *   DECIDING  --(a midpoint too noisy to tell)-----------> MORE
 *   MORE      --(more runs queued, or stale)-------------> ended
 *   MORE      --(none of its pairs was the bisection's)--> MARKING
 *   MARKING   --(stored; the bisection ended, or stale)--> ended
 *   MARKING   --(stored; it goes on)---------------------> LISTING
 *   LISTING   --(git named the next midpoint)------------> STEPPING
 *   LISTING   --(nothing left to test)-------------------> MARKING (end)
 *   LISTING   --(the listing is over BISECT_LIST_MAX)----> LISTING (git's
 *                           one best midpoint: --bisect-vars)
 *   STEPPING  --(stored)---------------------------------> ended
 *   any       --(the database or git failed)-------------> ended (the
 *                           claim runs out and is taken again)
 *
 * An ended bisection makes the engine claim the next.  The runs of a
 * step and their comparison are analysis' (analysis.c): a step's pairs
 * are ordinary pairs, more runs and all.  The claim is the database's,
 * with a count that makes the stores of a robotd that lost it change
 * nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "robot/analysis/bisectstep.h"
#include "robot/analysis/noise.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/name.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/bisect.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/proc.h"
#include "robot/daemon/resolve.h"
#include "robot/daemon/store/bisect.h"
#include "robot/core/banned.h"

#define BISECT_TICK     5          /* seconds between looks */
#define BISECT_LIST_MAX (8u << 20) /* of git's listing */

enum step_state {
	STEP_DECIDING,
	STEP_MORE,
	STEP_MARKING,
	STEP_LISTING,
	STEP_STEPPING,
};
static const char *const step_states[] = {
	[STEP_DECIDING] = "deciding", [STEP_MORE] = "more",
	[STEP_MARKING] = "marking",   [STEP_LISTING] = "listing",
	[STEP_STEPPING] = "stepping",
};
static const struct fsm step_fsm =
	FSM("bisection step", step_states, STEP_STEPPING);

struct bisect {
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	struct drain_worker *w;
	struct walk *walk; /* the bisection in hand, or NULL */
};

/* A bisection in hand: its claim and where its step is. */
struct walk {
	enum step_state state;
	struct bisect *b;
	struct store_bisect_claim *c;
	struct proc *proc; /* LISTING: git rev-list */
	bool no_more;      /* the claim's step can get no more runs */
};

static void
walk_set_state(struct walk *k, enum step_state s)
{
	FSM_SET(&step_fsm, k->state, s, "bisection %lld", k->c->id);
}

static void
walk_free(void *arg)
{
	struct walk *k = arg;

	if (k->proc != NULL)
		proc_cancel(k->proc);
	store_bisect_claim_free(k->c);
	free(k);
}

/* The bisection in hand ended: the engine claims the next. */
static void
walk_end(struct walk *k)
{
	k->b->walk = NULL;
	drain_done(k->b->w, k);
}

/* After a failure: the claim left to run out. */
static void
walk_fail(struct walk *k, const char *what)
{
	log_warnx("bisection %lld: %s (tried again when its claim runs out)",
		  k->c->id, what);
	walk_end(k);
}

/* The KPI that changed most (change: the verdict looked for) between
 * the ends, or NULL. */
static const char *
worst_kpi(const struct store_bisect_pair *pair, const char *change)
{
	const char *best = NULL;
	double most = -1;

	for (size_t i = 0; i < pair->nkpis; i++) {
		const struct store_bisect_kpi *k = &pair->kpis[i];
		double c = k->change_defined ? k->change_pct : 0;

		if (k->verdict != NULL && strcmp(k->verdict, change) == 0 &&
		    fabs(c) > most) {
			most = fabs(c);
			best = k->kpi;
		}
	}
	return best;
}

static void
side_of(const struct store_bisect_pair *pair, const char *kpi,
	struct bisect_side *s)
{
	const struct store_bisect_kpi *k = store_bisect_pair_kpi(pair, kpi);

	s->pair_verdict = pair->verdict;
	s->verdict = k ? k->verdict : NULL;
	s->change_pct = k != NULL && k->change_defined ? k->change_pct : NAN;
	s->runs = pair->runs;
}

/* "-83.8% (p 2e-05, 3 runs a side)" of pair's kpi. */
static void
side_text(char *buf, size_t len, const struct store_bisect_pair *pair,
	  const char *kpi)
{
	const struct store_bisect_kpi *k = store_bisect_pair_kpi(pair, kpi);
	char p[32] = "", pct[NUM_PCT_MAX];

	if (k != NULL && k->p_defined)
		snprintf(p, sizeof p, "p %.2g, ", k->p_value);
	if (k != NULL && k->change_defined)
		snprintf(buf, len, "%s (%s%d runs a side)",
			 num_pct(pct, sizeof pct, k->change_pct, "?"), p,
			 pair->runs);
	else
		snprintf(buf, len, "%s",
			 pair->verdict != NULL ? pair->verdict
					       : "not compared");
}

/* The verdict of pair's kpi ("not compared" when it has none). */
static const char *
kpi_verdict(const struct store_bisect_pair *pair, const char *kpi,
	    const char *none)
{
	const struct store_bisect_kpi *k = store_bisect_pair_kpi(pair, kpi);

	return k != NULL && k->verdict != NULL ? k->verdict : none;
}

static bool
kpi_is(const struct store_bisect_pair *pair, const char *kpi,
       const char *verdict)
{
	return strcmp(kpi_verdict(pair, kpi, ""), verdict) == 0;
}

static void walk_on_marked(const struct store_bisect_marked *m,
			   const struct problem *p, void *arg);
static void walk_decide(struct walk *k);
static void walk_list(struct walk *k, bool vars);

/* Stores the step's verdict (and, with end_state, the end). */
static void
walk_mark(struct walk *k, const char *verdict, const char *reason,
	  const char *kpi, const char *end_state, const char *first_bad,
	  const char *end_reason)
{
	json_t *m = json_pack("{s:s?, s:s?, s:s?}", "verdict", verdict,
			      "reason", reason, "kpi", kpi);
	char *text;

	if (end_state != NULL)
		json_object_set_new(m, "end",
				    json_pack("{s:s, s:s?, s:s}", "state",
					      end_state, "first_bad", first_bad,
					      "reason", end_reason));
	text = rjson_dumps(m, JSON_COMPACT);
	json_decref(m);
	walk_set_state(k, STEP_MARKING);
	store_bisect_mark(k->b->store, k->c, text, walk_on_marked, k);
	free(text);
}

static void
walk_on_more(const char *text, const struct problem *p, void *arg)
{
	struct walk *k = arg;

	if (p != NULL) {
		walk_fail(k, p->message);
		return;
	}
	if (text != NULL && strcmp(text, "0") == 0) {
		/* The step's pairs are not the bisection's own (a head's,
		 * reused): they get no runs from it.  Decided as they are. */
		k->no_more = true;
		walk_set_state(k, STEP_DECIDING);
		walk_decide(k);
		return;
	}
	walk_end(k);
}

/*
 * Asks for more runs for the step in hand (its comparisons had have ok
 * runs a side and cannot tell: why), to want, at most the bisection's
 * most; false at the cap.
 */
static bool
walk_more(struct walk *k, int have, int want, const char *why)
{
	int cap = k->c->max_runs;

	if (want > cap)
		want = cap;
	if (want <= have || k->no_more)
		return false;
	log_info("bisection %lld: %.12s is unsure (%s): more runs, to %d",
		 k->c->id, k->c->step.commit, why, want);
	walk_set_state(k, STEP_MORE);
	store_bisect_more(k->b->store, k->c->id, k->c->claims, want,
			  walk_on_more, k);
	return true;
}

/* The step's KPI's noise as its series' history shows it: the variance
 * of a round's difference and its degrees of freedom, 0 for none. */
static void
kpi_prior(const struct store_bisect_claim *c, double *var, double *df)
{
	struct noise_prior p;

	*var = *df = 0;
	for (size_t i = 0; i < c->step.nnoise && c->kpi != NULL; i++)
		if (strcmp(c->step.noise[i].metric, c->kpi) == 0 &&
		    noise_fit(c->step.noise[i].obs, c->step.noise[i].nobs,
			      &p)) {
			*var = p.var;
			*df = p.df;
		}
}

/*
 * Tests the step in hand on its rounds (bisect_test()): GOOD or BAD with
 * why in reason, or UNSURE when more rounds were asked (the walk goes
 * on from them) or none could be read (reason says why).
 */
static enum bisect_class
walk_test(struct walk *k, bool confirm, char *reason, size_t len)
{
	const struct store_bisect_claim *c = k->c;
	int have = (int)c->step.nrounds;
	struct bisect_test t;
	double pv, pdf;
	bool cap = have >= c->max_runs || k->no_more;

	kpi_prior(c, &pv, &pdf);
	bisect_test(c->step.rounds, c->step.nrounds, c->step.ends,
		    c->step.nends, confirm, pv, pdf, cap, &t, reason, len);
	/* (no round read but for an outlier run in each: more rounds, as
	 * for a step that cannot tell yet) */
	if (t.verdict != BISECT_UNSURE || (t.used == 0 && t.dropped == 0))
		return t.verdict;
	/* one more round at a time: the test is sequential */
	if (walk_more(k, have, have + 1, reason))
		return BISECT_UNSURE;
	bisect_test(c->step.rounds, c->step.nrounds, c->step.ends,
		    c->step.nends, confirm, pv, pdf, true, &t, reason, len);
	return t.verdict;
}

/* Decides a step "ends": do the ends differ on the KPI? */
static void
decide_ends(struct walk *k)
{
	const struct store_bisect_pair *gp = &k->c->step.good;
	const char *change = k->c->change;
	const char *kpi = k->c->kpi ? k->c->kpi : worst_kpi(gp, change);
	const struct store_bisect_kpi *e = store_bisect_pair_kpi(gp, kpi);
	char reason[512], t[128];

	side_text(t, sizeof t, gp, kpi);
	if (kpi_is(gp, kpi, change)) {
		snprintf(reason, sizeof reason, "%s %s from good to bad: %s",
			 kpi, bisect_changed(change), t);
		walk_mark(k, "differ", reason, kpi, NULL, NULL, NULL);
	} else if (e == NULL && k->c->of_regression && gp->present &&
		   !gp->kpis_kept) {
		/* A pair analysed before its KPIs were kept: its
		 * regression's record says that the ends differ. */
		walk_mark(k, "differ", "the regression's comparison", kpi, NULL,
			  NULL, NULL);
	} else if (kpi == NULL && gp->verdict != NULL &&
		   strcmp(gp->verdict, "inconclusive") == 0 &&
		   walk_more(k, gp->runs, gp->runs * 2,
			     "the ends are inconclusive")) {
		/* No KPI changed yet, but one is unsure: a few rounds
		 * cannot show a change with the few degrees of freedom they
		 * have. */
		return;
	} else if (kpi == NULL) {
		snprintf(reason, sizeof reason,
			 "the ends do not differ: no KPI %s from good "
			 "to bad (%s, %d runs a side)",
			 bisect_changed(change),
			 gp->verdict != NULL ? gp->verdict : "not compared",
			 gp->runs);
		walk_mark(k, "same", reason, kpi, "failed", NULL, reason);
	} else if (kpi_is(gp, kpi, "inconclusive") &&
		   walk_more(k, gp->runs, gp->runs * 2,
			     "the ends are inconclusive")) {
		return;
	} else {
		snprintf(reason, sizeof reason,
			 "the ends do not differ: %s is %s from good to bad, "
			 "%s",
			 kpi, kpi_verdict(gp, kpi, "not measured"), t);
		walk_mark(k, "same", reason, kpi, "failed", NULL, reason);
	}
}

/* Decides a step "mid": is the midpoint like good, like bad, or
 * neither?  On its rounds when it has any (walk_test()), else on its two
 * pairs' verdicts (a midpoint measured before, outside rounds with the
 * ends). */
static void
decide_mid(struct walk *k)
{
	struct bisect_side g, d;
	enum bisect_class c;
	char reason[512];
	bool failed;

	side_of(&k->c->step.good, k->c->kpi, &g);
	side_of(&k->c->step.bad, k->c->kpi, &d);
	c = bisect_classify(&g, &d, k->c->change, reason, sizeof reason);
	failed = g.pair_verdict != NULL && d.pair_verdict != NULL &&
		 (strcmp(g.pair_verdict, "failed") == 0 ||
		  strcmp(d.pair_verdict, "failed") == 0);
	if (!failed && k->c->step.nrounds > 0) {
		c = walk_test(k, false, reason, sizeof reason);
		if (c == BISECT_UNSURE && k->state == STEP_MORE)
			return;
		if (c == BISECT_UNSURE)
			c = BISECT_SKIP; /* no round could be read */
	} else if (c == BISECT_UNSURE) {
		size_t n = strlen(reason);

		/* More runs for the side with the fewest: the other may be
		 * a head's pair, measured to the cap before the bisection
		 * (the quickstart's innocent commit), which gets no runs
		 * from it (robot_bisect_more() asks only its own pairs
		 * that have fewer). */
		if (walk_more(k, g.runs < d.runs ? g.runs : d.runs,
			      2 * (g.runs < d.runs ? g.runs : d.runs), reason))
			return;
		snprintf(reason + n, sizeof reason - n,
			 ", inconclusive at the most runs");
		c = BISECT_SKIP;
	}
	if (c == BISECT_SKIP && k->c->step.error != NULL) {
		size_t n = strlen(reason);

		snprintf(reason + n, sizeof reason - n, ": %s",
			 k->c->step.error);
	}
	log_info("bisection %lld: %.12s is %s: %s", k->c->id, k->c->step.commit,
		 bisect_class_name(c), reason);
	walk_mark(k, bisect_class_name(c), reason, NULL, NULL, NULL, NULL);
}

/* Decides a step "confirm": does the first bad commit differ from its
 * parent as the ends do?  On its rounds (walk_test()): like its parent,
 * it does not; changed as the ends did, it does once its pair's own
 * verdict says so too (the figures its report gives are that pair's),
 * with more rounds while that pair is inconclusive, and on the test
 * alone at the most runs.  Without rounds, on its pair's verdict. */
static void
decide_confirm(struct walk *k)
{
	const struct store_bisect_pair *gp = &k->c->step.good;
	const char *kpi = k->c->kpi, *commit = k->c->step.commit;
	const char *against = k->c->step.against ? k->c->step.against : "";
	char reason[512], t[128], end[1024];
	enum bisect_class c = BISECT_UNSURE;
	bool tested = false;

	side_text(t, sizeof t, gp, kpi);
	if (k->c->step.nrounds > 0 && kpi != NULL &&
	    !(gp->verdict != NULL && strcmp(gp->verdict, "failed") == 0)) {
		c = walk_test(k, true, reason, sizeof reason);
		if (c == BISECT_UNSURE && k->state == STEP_MORE)
			return;
		tested = c != BISECT_UNSURE;
		if (c == BISECT_BAD && !kpi_is(gp, kpi, k->c->change) &&
		    walk_more(k, (int)k->c->step.nrounds,
			      (int)k->c->step.nrounds + 1,
			      "changed as the ends did, its pair not yet a "
			      "verdict"))
			return;
	}
	if (c == BISECT_BAD || (!tested && kpi_is(gp, kpi, k->c->change))) {
		if (!tested)
			snprintf(reason, sizeof reason,
				 "%s %s from its parent: %s", kpi,
				 bisect_changed(k->c->change), t);
		snprintf(end, sizeof end,
			 "%.12s is the first bad commit: %s against its "
			 "parent %.12s",
			 commit, t, against);
		walk_mark(k, "confirmed", reason, NULL, "bisected", commit,
			  end);
	} else if (!tested && kpi_is(gp, kpi, "inconclusive") &&
		   walk_more(k, gp->runs, gp->runs * 2,
			     "inconclusive against its parent")) {
		return;
	} else {
		if (!tested)
			snprintf(reason, sizeof reason,
				 "%s is %s against its parent: %s", kpi,
				 kpi_verdict(gp, kpi, "not compared"), t);
		snprintf(end, sizeof end,
			 "could not bisect: the last candidate %.12s does not "
			 "differ from its parent %.12s (%s); the change may be "
			 "spread over several commits",
			 commit, against, reason);
		walk_mark(k, "unconfirmed", reason, NULL, "failed", NULL, end);
	}
}

/* Decides the step in hand of the claim. */
static void
walk_decide(struct walk *k)
{
	const char *kind = k->c->step.kind;

	if (strcmp(kind, "ends") == 0)
		decide_ends(k);
	else if (strcmp(kind, "mid") == 0)
		decide_mid(k);
	else
		decide_confirm(k);
}

static void
walk_on_stepped(const char *text, const struct problem *p, void *arg)
{
	struct walk *k = arg;

	(void)text; /* the bisection, or "stale": claim the next either way */
	if (p != NULL)
		walk_fail(k, p->message);
	else
		walk_end(k);
}

static void
walk_step(struct walk *k, const char *kind, const char *commit,
	  const char *against, size_t candidates)
{
	json_t *s = json_pack("{s:s, s:s, s:s?, s:I}", "kind", kind, "commit",
			      commit, "against", against, "candidates",
			      (json_int_t)candidates);
	char *text = rjson_dumps(s, JSON_COMPACT);

	json_decref(s);
	log_info("bisection %lld: %s %.12s next (%zu commit%s left)", k->c->id,
		 strcmp(kind, "mid") == 0 ? "testing" : "confirming", commit,
		 candidates, candidates == 1 ? "" : "s");
	walk_set_state(k, STEP_STEPPING);
	store_bisect_step(k->b->store, k->c->id, k->c->claims, text,
			  walk_on_stepped, k);
	free(text);
}

static void
walk_on_listed(int status, const char *out, size_t len, const char *err,
	       void *arg)
{
	struct walk *k = arg;
	const char *bad = k->c->bad_now;
	struct bisect_pick pick;
	char why[1024];

	k->proc = NULL;
	if (status == 0 && len >= BISECT_LIST_MAX) {
		/* Too many commits left to list them all (about 80,000):
		 * git's own best midpoint. */
		log_info("bisection %lld: over %u MiB of commits left: git's "
			 "midpoint",
			 k->c->id, BISECT_LIST_MAX >> 20);
		walk_list(k, true);
		return;
	}
	if (status != 0) {
		snprintf(why, sizeof why, "git rev-list failed: %.200s",
			 status == -1 ? "it did not answer in time"
			 : *err       ? err
				      : "no message");
		walk_fail(k, why);
		return;
	}
	if (!bisect_pick(out, bad, (const char *const *)k->c->skipped,
			 k->c->nskipped, &pick)) {
		snprintf(why, sizeof why,
			 "could not bisect: git's listing of the commits left "
			 "is not one robotd reads (%.80s)",
			 out);
		walk_mark(k, NULL, NULL, NULL, "failed", NULL, why);
		return;
	}
	switch (pick.next) {
	case BISECT_MID:
		walk_step(k, "mid", pick.commit, NULL, pick.candidates);
		break;
	case BISECT_FIRST_BAD:
		if (pick.parent[0] == '\0') {
			snprintf(why, sizeof why,
				 "could not bisect: %.12s, the first bad "
				 "commit, has no parent to confirm it against",
				 bad);
			walk_mark(k, NULL, NULL, NULL, "failed", NULL, why);
		} else {
			walk_step(k, "confirm", bad, pick.parent, 1);
		}
		break;
	case BISECT_ALL_SKIPPED:
		snprintf(why, sizeof why,
			 "could not bisect: every commit left was skipped; the "
			 "first bad commit is one of %s",
			 pick.left);
		walk_mark(k, NULL, NULL, NULL, "failed", NULL, why);
		break;
	case BISECT_NONE:
		snprintf(why, sizeof why,
			 "could not bisect: git lists no commit between the "
			 "good commits and %.12s",
			 bad);
		walk_mark(k, NULL, NULL, NULL, "failed", NULL, why);
		break;
	}
	free(pick.left);
}

/* git rev-list --bisect-vars' answer: its best midpoint of a range too
 * long to list, unless that is a commit skipped already (then the
 * bisection fails, once, saying so). */
static void
walk_on_vars(int status, const char *out, size_t len, const char *err,
	     void *arg)
{
	struct walk *k = arg;
	const char *rev = strstr(out, "bisect_rev='");
	const char *all = strstr(out, "bisect_all=");
	char commit[41], why[512];
	size_t n;

	(void)len;
	k->proc = NULL;
	if (status != 0 || rev == NULL || all == NULL ||
	    (n = strspn(rev + 12, "0123456789abcdef")) != 40) {
		snprintf(why, sizeof why,
			 "git rev-list --bisect-vars failed: %.200s",
			 status == -1 ? "it did not answer in time"
			 : *err       ? err
				      : "no midpoint");
		walk_fail(k, why);
		return;
	}
	memcpy(commit, rev + 12, 40);
	commit[40] = '\0';
	for (size_t i = 0; i < k->c->nskipped; i++)
		if (strcmp(k->c->skipped[i], commit) == 0) {
			snprintf(why, sizeof why,
				 "could not bisect: %lld commits are left, too "
				 "many to list, and git's midpoint %.12s was "
				 "skipped",
				 strtoll(all + 11, NULL, 10), commit);
			walk_mark(k, NULL, NULL, NULL, "failed", NULL, why);
			return;
		}
	walk_step(k, "mid", commit, NULL, (size_t)strtoull(all + 11, NULL, 10));
}

/* Asks the tree's mirror for the commits left, best midpoint first;
 * with vars, only git's best midpoint and how many are left (a range
 * too long to list: walk_on_vars()). */
static void
walk_list(struct walk *k, bool vars)
{
	char *mirror = settings_mirror(k->b->set, k->c->tree);
	size_t n = 0;
	char **argv = xcalloc(k->c->ngoods + 10, sizeof *argv);

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = mirror;
	argv[n++] = "rev-list";
	if (vars) {
		argv[n++] = "--bisect-vars";
	} else {
		argv[n++] = "--bisect-all";
		argv[n++] = "--parents";
	}
	argv[n++] = k->c->bad_now;
	argv[n++] = "--not";
	for (size_t i = 0; i < k->c->ngoods; i++)
		argv[n++] = k->c->goods[i];
	argv[n] = NULL;
	walk_set_state(k, STEP_LISTING);
	k->proc =
		proc_run(k->b->base, argv, NULL, k->b->set->tree_fetch_timeout,
			 vars ? 4096 : BISECT_LIST_MAX,
			 vars ? walk_on_vars : walk_on_listed, k);
	free(argv);
	free(mirror);
}

static void
walk_on_marked(const struct store_bisect_marked *m, const struct problem *p,
	       void *arg)
{
	struct walk *k = arg;

	if (p != NULL) {
		walk_fail(k, p->message);
		return;
	}
	if (m->stale) {
		walk_end(k);
		return;
	}
	if (!m->running) {
		log_info("bisection %lld %s: %s", k->c->id, m->state,
			 m->reason != NULL ? m->reason : "");
		walk_end(k);
		return;
	}
	/* The claim has the known good, bad and skipped commits as the
	 * mark left them. */
	walk_list(k, false);
}

/* The engine's: a bisection claimed, whose step has its answer. */
static void
bisect_begin(struct drain_worker *w, void *work)
{
	struct walk *k = work;

	(void)w;
	k->b->walk = k;
	walk_set_state(k, STEP_DECIDING);
	if (k->c->step.verdict != NULL)
		walk_list(k, false); /* decided by a robotd that died since */
	else
		walk_decide(k);
}

static void
bisect_on_claimed(struct store_bisect_claim *c, const struct problem *p,
		  void *arg)
{
	struct bisect *b = arg;
	struct walk *k = NULL;

	if (c != NULL) {
		k = xcalloc(1, sizeof *k);
		k->b = b;
		k->c = c;
	}
	drain_claimed_one(b->w, k, p);
}

static void
bisect_claim(struct drain_worker *w, int n)
{
	struct bisect *b = drain_ctx(w);

	(void)n;
	store_bisect_next(b->store, b->set->analysis_claim, bisect_on_claimed,
			  b);
}

/* robotd stops: git is not waited for. */
static void
bisect_halt(struct drain_worker *w)
{
	struct bisect *b = drain_ctx(w);

	if (b->walk != NULL && b->walk->proc != NULL) {
		proc_cancel(b->walk->proc);
		b->walk->proc = NULL;
	}
}

static const struct drain_ops bisect_ops = {
	.name = "bisect",
	.topic = ":bisect",
	.tick = BISECT_TICK,
	.slots = 1,
	.batch = 1,
	.look_after_each = true,
	.claim = bisect_claim,
	.start = bisect_begin,
	.free = walk_free,
	.stop = bisect_halt,
};

struct bisect *
bisect_new(struct drain *d, struct event_base *base, struct store *store,
	   const struct settings *set)
{
	struct bisect *b = xcalloc(1, sizeof *b);

	b->base = base;
	b->store = store;
	b->set = set;
	b->w = drain_add(d, &bisect_ops, b);
	return b;
}

void
bisect_free(struct bisect *b)
{
	free(b);
}

/*
 * A bisection asked for, a state machine:
 *
 *   RESOLVING  the good and bad commits named, in the tree's mirror
 *   STORING    robot_bisect_start()
 *   DONE       answered (cb); freed
 */
enum start_state {
	START_RESOLVING,
	START_STORING,
	START_DONE,
};
static const char *const start_states[] = {
	[START_RESOLVING] = "resolving",
	[START_STORING] = "storing",
	[START_DONE] = "done",
};
static const struct fsm start_fsm =
	FSM("bisection asked", start_states, START_DONE);

struct start {
	enum start_state state;
	struct bisect *b;
	json_t *req;
	char *by;
	struct problem *fail;
	store_text_cb cb;
	void *arg;
};

static void
start_set_state(struct start *s, enum start_state st)
{
	FSM_SET(&start_fsm, s->state, st, "bisection asked by %s", s->by);
}

static void
start_free(void *arg)
{
	struct start *s = arg;

	json_decref(s->req);
	free(s->by);
	problem_free(s->fail);
	free(s);
}

static void
start_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct start *s = arg;

	start_set_state(s, START_DONE);
	if (p == NULL && text != NULL)
		log_info("%s starts bisection %s", s->by, text);
	s->cb(text, p, s->arg);
	defer(s->b->base, start_free, s);
}

static void
start_store(struct start *s)
{
	char *text = rjson_dumps(s->req, JSON_COMPACT);

	start_set_state(s, START_STORING);
	store_bisect_start(s->b->store, text, s->by, start_on_stored, s);
	free(text);
}

static void
start_on_resolved(char *const *shas, const struct problem *p, void *arg)
{
	struct start *s = arg;

	if (p != NULL) {
		start_set_state(s, START_DONE);
		s->cb(NULL, p, s->arg);
		defer(s->b->base, start_free, s);
		return;
	}
	json_object_set_new(s->req, "good", json_string(shas[0]));
	json_object_set_new(s->req, "bad", json_string(shas[1]));
	start_store(s);
}

/* A start refused before anything ran: answered from the loop. */
static void
start_refused(void *arg)
{
	struct start *s = arg;

	start_set_state(s, START_DONE);
	s->cb(NULL, s->fail, s->arg);
	defer(s->b->base, start_free, s);
}

/* Checks member key of req as a name of kind (optional unless need). */
static void
check_name(json_t *req, const char *key, enum name_kind kind, bool need,
	   json_t *faults)
{
	json_t *v = json_object_get(req, key);
	const char *why;

	if (v == NULL || json_is_null(v)) {
		if (need)
			json_array_append_new(
				faults, json_sprintf("%s is missing", key));
		json_object_del(req, key);
		return;
	}
	if (!json_is_string(v)) {
		json_array_append_new(faults,
				      json_sprintf("%s is a string", key));
		return;
	}
	why = name_check(kind, json_string_value(v), json_string_length(v));
	if (why != NULL)
		json_array_append_new(faults, json_sprintf("%s %s", key, why));
}

void
bisect_start(struct bisect *b, json_t *req, const char *by, store_text_cb cb,
	     void *arg)
{
	static const char *const known[] = {
		"regression", "series", "good", "bad", "tree", "kpi", NULL};
	struct start *s = xcalloc(1, sizeof *s);
	json_t *faults = json_array(), *v;
	const char *key;

	s->b = b;
	s->req = json_is_object(req) ? json_deep_copy(req) : json_object();
	s->by = xstrdup(by);
	s->cb = cb;
	s->arg = arg;
	if (!json_is_object(req))
		json_array_append_new(faults,
				      json_string("the body is a JSON object"));
	json_object_foreach(s->req, key, v)
	{
		bool ok = false;

		for (size_t i = 0; known[i] != NULL; i++)
			ok = ok || strcmp(key, known[i]) == 0;
		if (!ok) {
			char *q = str_printable(key, strlen(key), 60);

			json_array_append_new(
				faults, json_sprintf("unknown member '%s': "
						     "regression, or series, "
						     "good, bad, tree and kpi",
						     q));
			free(q);
		}
	}
	if ((v = json_object_get(s->req, "regression")) != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			json_array_append_new(
				faults,
				json_string("regression is a regression's id: "
					    "a positive integer"));
		if (json_object_size(s->req) > 1)
			json_array_append_new(
				faults,
				json_string("regression names the series and "
					    "the ends: give nothing else"));
	} else if (json_is_object(req)) {
		check_name(s->req, "series", NAME_SERIES, true, faults);
		check_name(s->req, "good", NAME_COMMIT, true, faults);
		check_name(s->req, "bad", NAME_COMMIT, true, faults);
		check_name(s->req, "tree", NAME_LABEL, false, faults);
		check_name(s->req, "kpi", NAME_METRIC, false, faults);
	}
	if (json_array_size(faults) > 0) {
		s->fail = problem_new(
			PROBLEM_INVALID, json_incref(faults), "%s",
			json_array_size(faults) == 1
				? json_string_value(json_array_get(faults, 0))
				: "the bisection cannot start");
		json_decref(faults);
		defer(b->base, start_refused, s);
		return;
	}
	json_decref(faults);
	if (json_object_get(s->req, "regression") != NULL) {
		start_store(s);
		return;
	}
	{
		const char *tree = rjson_get_str(s->req, "tree");
		const char *names[2] = {rjson_get_str(s->req, "good"),
					rjson_get_str(s->req, "bad")};
		char *mirror =
			tree != NULL ? settings_mirror(b->set, tree) : NULL;
		struct stat st;

		if (mirror != NULL && stat(mirror, &st) != 0) {
			s->fail = problem_new(PROBLEM_CONFLICT, NULL,
					      "tree %s has not been fetched "
					      "(robot tree show %s)",
					      tree, tree);
			free(mirror);
			defer(b->base, start_refused, s);
			return;
		}
		start_set_state(s, START_RESOLVING);
		resolve_start(b->base, tree, mirror, names, 2,
			      b->set->tree_fetch_timeout, start_on_resolved, s);
		free(mirror);
	}
}
