/*
 * bisect.c: the bisections' driver, one bisection at a time, as a state
 * machine driven by bisect_drive():
 *
 *   IDLE      --(woken, or the 5 s timer)----------------> CLAIMING
 *   CLAIMING  --(no step has its answer)-----------------> IDLE
 *   CLAIMING  --(a step answered, not yet decided)-------> MARKING
 *   CLAIMING  --(a step decided before a robotd died)----> LISTING
 *   CLAIMING  --(a midpoint too noisy to tell)-----------> MORE
 *   MORE      --(more runs queued, or stale)-------------> CLAIMING
 *   MORE      --(none of its pairs was the bisection's)--> MARKING
 *   MARKING   --(stored; the bisection ended, or stale)--> CLAIMING
 *   MARKING   --(stored; it goes on)---------------------> LISTING
 *   LISTING   --(git named the next midpoint)------------> STEPPING
 *   LISTING   --(nothing left to test)-------------------> MARKING (end)
 *   STEPPING  --(stored)---------------------------------> CLAIMING
 *   any       --(the database or git failed)-------------> IDLE (the
 *                           claim runs out and is taken again)
 *
 * The runs of a step and their comparison are analysis' (analysis.c):
 * a step's pairs are ordinary pairs, more runs and all.  The claim is
 * the database's (robot_bisect_next()), with a count that makes the
 * stores of a robotd that lost it change nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "robot/analysis/bisectstep.h"
#include "robot/core/log.h"
#include "robot/core/name.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/bisect.h"
#include "robot/daemon/proc.h"
#include "robot/daemon/resolve.h"
#include "robot/core/banned.h"

#define BISECT_TICK     5          /* seconds between looks */
#define BISECT_LIST_MAX (8u << 20) /* of git's listing */

enum bisect_state {
	BISECT_IDLE,
	BISECT_CLAIMING,
	BISECT_MORE,
	BISECT_MARKING,
	BISECT_LISTING,
	BISECT_STEPPING,
};

struct bisect {
	enum bisect_state state;
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	struct event *timer;
	bool again, stopped;
	json_t *claim; /* the bisection in hand (robot_bisect_next()) */
	long long id;
	int claims;
	struct proc *proc;
	bool no_more; /* the claim's step can get no more runs */
};

static void bisect_drive(struct bisect *b);

static const char *
bisect_state_name(enum bisect_state s)
{
	switch (s) {
	case BISECT_IDLE:
		return "idle";
	case BISECT_CLAIMING:
		return "claiming";
	case BISECT_MORE:
		return "more";
	case BISECT_MARKING:
		return "marking";
	case BISECT_LISTING:
		return "listing";
	case BISECT_STEPPING:
		return "stepping";
	}
	return "?";
}

static void
bisect_set_state(struct bisect *b, enum bisect_state s)
{
	log_debug("bisect: %s -> %s", bisect_state_name(b->state),
		  bisect_state_name(s));
	b->state = s;
}

static void
bisect_drop(struct bisect *b)
{
	json_decref(b->claim);
	b->claim = NULL;
}

/* After a failure: idle, the claim left to run out. */
static void
bisect_fail(struct bisect *b, const char *what)
{
	log_warnx("bisection %lld: %s (tried again when its claim runs out)",
		  b->id, what);
	bisect_drop(b);
	bisect_set_state(b, BISECT_IDLE);
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The verdict entry of kpi in a pair's KPIs ([{kpi, verdict, change_pct,
 * p_value}]), or NULL. */
static json_t *
kpi_entry(json_t *pair, const char *kpi)
{
	json_t *k;
	size_t i;

	if (kpi == NULL)
		return NULL;
	json_array_foreach(json_object_get(pair, "kpis"), i, k)
	{
		if (str(k, "kpi") != NULL && strcmp(str(k, "kpi"), kpi) == 0)
			return k;
	}
	return NULL;
}

/* The KPI that regressed most between the ends, or NULL. */
static const char *
worst_kpi(json_t *pair)
{
	json_t *k;
	size_t i;
	const char *best = NULL;
	double most = -1;

	json_array_foreach(json_object_get(pair, "kpis"), i, k)
	{
		double c = json_number_value(json_object_get(k, "change_pct"));

		if (str(k, "verdict") != NULL &&
		    strcmp(str(k, "verdict"), "regression") == 0 &&
		    fabs(c) > most) {
			most = fabs(c);
			best = str(k, "kpi");
		}
	}
	return best;
}

static void
side_of(json_t *pair, const char *kpi, struct bisect_side *s)
{
	json_t *k = kpi_entry(pair, kpi), *c = json_object_get(k, "change_pct");

	s->pair_verdict = str(pair, "verdict");
	s->verdict = str(k, "verdict");
	s->change_pct = json_is_number(c) ? json_number_value(c) : NAN;
	s->runs = (int)json_integer_value(json_object_get(pair, "runs"));
}

/* "-83.8% (p 2e-05, 3 runs a side)" of side s. */
static void
side_text(char *buf, size_t len, json_t *pair, const char *kpi)
{
	json_t *k = kpi_entry(pair, kpi);
	json_t *c = json_object_get(k, "change_pct");
	json_t *pv = json_object_get(k, "p_value");
	char p[32] = "";

	if (json_is_number(pv))
		snprintf(p, sizeof p, "p %.2g, ", json_number_value(pv));
	if (json_is_number(c))
		snprintf(buf, len, "%+.1f%% (%s%lld runs a side)",
			 json_number_value(c), p,
			 (long long)json_integer_value(
				 json_object_get(pair, "runs")));
	else
		snprintf(buf, len, "%s",
			 str(pair, "verdict") != NULL ? str(pair, "verdict")
						      : "not compared");
}

static void bisect_on_marked(const char *text, const struct problem *p,
			     void *arg);
static void bisect_decide(struct bisect *b);

/* Stores the step's verdict (and, with end_state, the end). */
static void
bisect_mark(struct bisect *b, const char *verdict, const char *reason,
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
	bisect_set_state(b, BISECT_MARKING);
	store_bisect_mark(b->store, b->id, b->claims, text, bisect_on_marked,
			  b);
	free(text);
}

static void
bisect_on_more(const char *text, const struct problem *p, void *arg)
{
	struct bisect *b = arg;

	if (p != NULL) {
		bisect_fail(b, p->message);
		return;
	}
	if (text != NULL && strcmp(text, "0") == 0) {
		/* The step's pairs are not the bisection's own (a head's,
		 * reused): they get no runs from it.  Decided as they are. */
		b->no_more = true;
		bisect_decide(b);
		return;
	}
	bisect_drop(b);
	bisect_set_state(b, BISECT_CLAIMING);
	bisect_drive(b);
}

/*
 * Asks for more runs for the step in hand (its comparisons had have ok
 * runs a side and cannot tell: why), doubling up to the bisection's
 * most; false at the cap.
 */
static bool
bisect_more(struct bisect *b, int have, const char *why)
{
	int cap =
		(int)json_integer_value(json_object_get(b->claim, "max_runs"));
	int want = have * 2 < cap ? have * 2 : cap;

	if (want <= have || b->no_more)
		return false;
	log_info("bisection %lld: %.12s is unsure (%s): more runs, to %d",
		 b->id, str(json_object_get(b->claim, "step"), "commit"), why,
		 want);
	bisect_set_state(b, BISECT_MORE);
	store_bisect_more(b->store, b->id, b->claims, want, bisect_on_more, b);
	return true;
}

/* Whether pair's verdict of kpi is inconclusive. */
static bool
inconclusive(json_t *pair, const char *kpi)
{
	json_t *k = kpi_entry(pair, kpi);

	return k != NULL && str(k, "verdict") != NULL &&
	       strcmp(str(k, "verdict"), "inconclusive") == 0;
}

static int
runs_of(json_t *pair)
{
	return (int)json_integer_value(json_object_get(pair, "runs"));
}

/* Decides the step in hand of the claim. */
static void
bisect_decide(struct bisect *b)
{
	json_t *step = json_object_get(b->claim, "step");
	json_t *gp = json_object_get(step, "good_pair");
	json_t *bp = json_object_get(step, "bad_pair");
	const char *kind = str(step, "kind"), *commit = str(step, "commit");
	const char *kpi = str(b->claim, "kpi");
	char reason[512], t[128];

	if (strcmp(kind, "ends") == 0) {
		json_t *k;

		if (kpi == NULL)
			kpi = worst_kpi(gp);
		k = kpi_entry(gp, kpi);
		side_text(t, sizeof t, gp, kpi);
		if (k != NULL && str(k, "verdict") != NULL &&
		    strcmp(str(k, "verdict"), "regression") == 0) {
			snprintf(reason, sizeof reason,
				 "%s regressed from good to bad: %s", kpi, t);
			bisect_mark(b, "differ", reason, kpi, NULL, NULL, NULL);
		} else if (k == NULL &&
			   json_is_integer(
				   json_object_get(b->claim, "regression")) &&
			   json_object_get(gp, "kpis") != NULL &&
			   json_is_null(json_object_get(gp, "kpis"))) {
			/* A pair analysed before its KPIs were kept: its
			 * regression's record says that the ends differ. */
			bisect_mark(b, "differ", "the regression's comparison",
				    kpi, NULL, NULL, NULL);
		} else if (kpi == NULL) {
			snprintf(
				reason, sizeof reason,
				"the ends do not differ: no KPI regressed from "
				"good to bad (%s, %lld runs a side)",
				str(gp, "verdict") != NULL ? str(gp, "verdict")
							   : "not compared",
				(long long)json_integer_value(
					json_object_get(gp, "runs")));
			bisect_mark(b, "same", reason, kpi, "failed", NULL,
				    reason);
		} else if (inconclusive(gp, kpi) &&
			   bisect_more(b, runs_of(gp),
				       "the ends are "
				       "inconclusive")) {
			return;
		} else {
			snprintf(
				reason, sizeof reason,
				"the ends do not differ: %s is %s from good to "
				"bad, %s",
				kpi,
				k != NULL && str(k, "verdict") != NULL
					? str(k, "verdict")
					: "not measured",
				t);
			bisect_mark(b, "same", reason, kpi, "failed", NULL,
				    reason);
		}
	} else if (strcmp(kind, "mid") == 0) {
		struct bisect_side g, d;
		enum bisect_class c;
		json_t *errors = json_object_get(step, "errors");

		side_of(gp, kpi, &g);
		side_of(bp, kpi, &d);
		c = bisect_classify(&g, &d, reason, sizeof reason);
		if (c == BISECT_UNSURE) {
			size_t n = strlen(reason);

			if (bisect_more(b, g.runs > d.runs ? g.runs : d.runs,
					reason))
				return;
			snprintf(reason + n, sizeof reason - n,
				 ", inconclusive at the most runs");
			c = BISECT_SKIP;
		}
		if (c == BISECT_SKIP && json_array_size(errors) > 0) {
			size_t n = strlen(reason);

			snprintf(reason + n, sizeof reason - n, ": %s",
				 json_string_value(json_array_get(errors, 0)));
		}
		log_info("bisection %lld: %.12s is %s: %s", b->id, commit,
			 bisect_class_name(c), reason);
		bisect_mark(b, bisect_class_name(c), reason, NULL, NULL, NULL,
			    NULL);
	} else { /* confirm */
		json_t *k = kpi_entry(gp, kpi);
		char end[1024];

		side_text(t, sizeof t, gp, kpi);
		if (k != NULL && str(k, "verdict") != NULL &&
		    strcmp(str(k, "verdict"), "regression") == 0) {
			snprintf(reason, sizeof reason,
				 "%s regressed from its parent: %s", kpi, t);
			snprintf(end, sizeof end,
				 "%.12s is the first bad commit: %s %s against "
				 "its parent %.12s",
				 commit, kpi, t, str(step, "against"));
			bisect_mark(b, "confirmed", reason, NULL, "bisected",
				    commit, end);
		} else if (inconclusive(gp, kpi) &&
			   bisect_more(b, runs_of(gp),
				       "inconclusive against "
				       "its parent")) {
			return;
		} else {
			snprintf(reason, sizeof reason,
				 "%s is %s against its parent: %s", kpi,
				 k != NULL && str(k, "verdict") != NULL
					 ? str(k, "verdict")
					 : "not compared",
				 t);
			snprintf(
				end, sizeof end,
				"could not bisect: the last candidate %.12s "
				"does not differ from its parent %.12s (%s); "
				"the change may be spread over several commits",
				commit, str(step, "against"), reason);
			bisect_mark(b, "unconfirmed", reason, NULL, "failed",
				    NULL, end);
		}
	}
}

static void
bisect_on_stepped(const char *text, const struct problem *p, void *arg)
{
	struct bisect *b = arg;

	(void)text; /* the bisection, or "stale": claim the next either way */
	if (p != NULL) {
		bisect_fail(b, p->message);
		return;
	}
	bisect_drop(b);
	bisect_set_state(b, BISECT_CLAIMING);
	bisect_drive(b);
}

static void
bisect_step(struct bisect *b, const char *kind, const char *commit,
	    const char *against, size_t candidates)
{
	json_t *s = json_pack("{s:s, s:s, s:s?, s:I}", "kind", kind, "commit",
			      commit, "against", against, "candidates",
			      (json_int_t)candidates);
	char *text = rjson_dumps(s, JSON_COMPACT);

	json_decref(s);
	log_info("bisection %lld: %s %.12s next (%zu commits left)", b->id,
		 strcmp(kind, "mid") == 0 ? "testing" : "confirming", commit,
		 candidates);
	bisect_set_state(b, BISECT_STEPPING);
	store_bisect_step(b->store, b->id, b->claims, text, bisect_on_stepped,
			  b);
	free(text);
}

static void
bisect_on_listed(int status, const char *out, size_t len, const char *err,
		 void *arg)
{
	struct bisect *b = arg;
	json_t *skipped = json_object_get(b->claim, "skipped"), *v;
	const char **skip = xcalloc(json_array_size(skipped) + 1, sizeof *skip);
	const char *bad = str(b->claim, "bad_now");
	struct bisect_pick pick;
	char why[1024];
	size_t i, n = 0;

	(void)len;
	b->proc = NULL;
	json_array_foreach(skipped, i, v)
	{
		skip[n++] = json_string_value(v);
	}
	if (status != 0 || !bisect_pick(out, bad, skip, n, &pick)) {
		snprintf(why, sizeof why, "git rev-list failed: %.200s",
			 status == -1 ? "it did not answer in time" : err);
		free(skip);
		bisect_fail(b, why);
		return;
	}
	free(skip);
	switch (pick.next) {
	case BISECT_MID:
		bisect_step(b, "mid", pick.commit, NULL, pick.candidates);
		break;
	case BISECT_FIRST_BAD:
		if (pick.parent[0] == '\0') {
			snprintf(why, sizeof why,
				 "could not bisect: %.12s, the first bad "
				 "commit, has no parent to confirm it against",
				 bad);
			bisect_mark(b, NULL, NULL, NULL, "failed", NULL, why);
		} else {
			bisect_step(b, "confirm", bad, pick.parent, 1);
		}
		break;
	case BISECT_ALL_SKIPPED:
		snprintf(why, sizeof why,
			 "could not bisect: every commit left was skipped; the "
			 "first bad commit is one of %s",
			 pick.left);
		bisect_mark(b, NULL, NULL, NULL, "failed", NULL, why);
		break;
	case BISECT_NONE:
		snprintf(why, sizeof why,
			 "could not bisect: git lists no commit between the "
			 "good commits and %.12s",
			 bad);
		bisect_mark(b, NULL, NULL, NULL, "failed", NULL, why);
		break;
	}
	free(pick.left);
}

/* Asks the tree's mirror for the commits left, best midpoint first. */
static void
bisect_list(struct bisect *b)
{
	json_t *goods = json_object_get(b->claim, "goods"), *g;
	char *mirror = settings_mirror(b->set, str(b->claim, "tree"));
	size_t i, n = 0, ngoods = json_array_size(goods);
	char **argv = xcalloc(ngoods + 10, sizeof *argv);

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = mirror;
	argv[n++] = "rev-list";
	argv[n++] = "--bisect-all";
	argv[n++] = "--parents";
	argv[n++] = (char *)str(b->claim, "bad_now");
	argv[n++] = "--not";
	json_array_foreach(goods, i, g)
	{
		argv[n++] = (char *)json_string_value(g);
	}
	argv[n] = NULL;
	bisect_set_state(b, BISECT_LISTING);
	b->proc = proc_run(b->base, argv, b->set->tree_fetch_timeout,
			   BISECT_LIST_MAX, bisect_on_listed, b);
	free(argv);
	free(mirror);
}

static void
bisect_on_marked(const char *text, const struct problem *p, void *arg)
{
	struct bisect *b = arg;
	json_t *j;

	if (p != NULL) {
		bisect_fail(b, p->message);
		return;
	}
	if (text == NULL || strcmp(text, "\"stale\"") == 0 ||
	    (j = json_loads(text, 0, NULL)) == NULL) {
		bisect_drop(b);
		bisect_set_state(b, BISECT_CLAIMING);
		bisect_drive(b);
		return;
	}
	if (strcmp(str(j, "state"), "running") != 0) {
		log_info("bisection %lld %s: %s", b->id, str(j, "state"),
			 str(j, "reason") != NULL ? str(j, "reason") : "");
		json_decref(j);
		bisect_drop(b);
		bisect_set_state(b, BISECT_CLAIMING);
		bisect_drive(b);
		return;
	}
	/* The known good, bad and skipped commits as the mark left them. */
	json_object_set(b->claim, "goods", json_object_get(j, "goods"));
	json_object_set(b->claim, "bad_now", json_object_get(j, "bad_now"));
	json_object_set(b->claim, "skipped", json_object_get(j, "skipped"));
	json_object_set(b->claim, "kpi", json_object_get(j, "kpi"));
	json_decref(j);
	bisect_list(b);
}

static void
bisect_on_claimed(const char *text, const struct problem *p, void *arg)
{
	struct bisect *b = arg;
	json_t *step;

	if (p != NULL || text == NULL) {
		if (p != NULL)
			log_warnx("bisect: cannot claim a bisection: %s",
				  p->message);
		bisect_set_state(b, BISECT_IDLE);
		if (p == NULL && b->again) {
			b->again = false;
			bisect_drive(b);
		}
		return;
	}
	if ((b->claim = json_loads(text, 0, NULL)) == NULL ||
	    !json_is_object(step = json_object_get(b->claim, "step")) ||
	    str(step, "kind") == NULL || str(b->claim, "tree") == NULL ||
	    str(b->claim, "bad_now") == NULL) {
		bisect_fail(b, "a claim that robotd cannot read");
		return;
	}
	b->id = json_integer_value(json_object_get(b->claim, "id"));
	b->claims =
		(int)json_integer_value(json_object_get(b->claim, "claims"));
	b->no_more = false;
	if (str(step, "verdict") != NULL)
		bisect_list(b); /* decided by a robotd that died since */
	else
		bisect_decide(b);
}

static void
bisect_drive(struct bisect *b)
{
	if (b->stopped)
		return;
	switch (b->state) {
	case BISECT_IDLE:
		if (!store_up(b->store))
			return;
		bisect_set_state(b, BISECT_CLAIMING);
		/* FALLTHROUGH */
	case BISECT_CLAIMING:
		b->again = false;
		store_bisect_next(b->store, b->set->analysis_claim,
				  bisect_on_claimed, b);
		return;
	case BISECT_MORE:
	case BISECT_MARKING:
	case BISECT_LISTING:
	case BISECT_STEPPING:
		b->again = true;
		return;
	}
}

static void
bisect_on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	bisect_wake(arg);
}

struct bisect *
bisect_new(struct event_base *base, struct store *store,
	   const struct settings *set)
{
	struct bisect *b = xcalloc(1, sizeof *b);
	struct timeval tv = {BISECT_TICK, 0};

	b->state = BISECT_IDLE;
	b->base = base;
	b->store = store;
	b->set = set;
	b->timer = event_new(base, -1, EV_PERSIST, bisect_on_timer, b);
	event_add(b->timer, &tv);
	return b;
}

void
bisect_wake(struct bisect *b)
{
	if (b->state == BISECT_IDLE)
		bisect_drive(b);
	else
		b->again = true;
}

void
bisect_stop(struct bisect *b)
{
	b->stopped = true;
	if (b->proc != NULL) {
		proc_cancel(b->proc);
		b->proc = NULL;
	}
}

void
bisect_free(struct bisect *b)
{
	if (b == NULL)
		return;
	event_free(b->timer);
	json_decref(b->claim);
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
start_free(struct start *s)
{
	json_decref(s->req);
	free(s->by);
	problem_free(s->fail);
	free(s);
}

static void
start_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct start *s = arg;

	s->state = START_DONE;
	if (p == NULL && text != NULL)
		log_info("%s starts bisection %s", s->by, text);
	s->cb(text, p, s->arg);
	start_free(s);
}

static void
start_store(struct start *s)
{
	char *text = rjson_dumps(s->req, JSON_COMPACT);

	s->state = START_STORING;
	store_bisect_start(s->b->store, text, s->by, start_on_stored, s);
	free(text);
}

static void
start_on_resolved(char *const *shas, const struct problem *p, void *arg)
{
	struct start *s = arg;

	if (p != NULL) {
		s->state = START_DONE;
		s->cb(NULL, p, s->arg);
		start_free(s);
		return;
	}
	json_object_set_new(s->req, "good", json_string(shas[0]));
	json_object_set_new(s->req, "bad", json_string(shas[1]));
	start_store(s);
}

static void
start_on_failed(evutil_socket_t fd, short what, void *arg)
{
	struct start *s = arg;

	(void)fd;
	(void)what;
	s->state = START_DONE;
	s->cb(NULL, s->fail, s->arg);
	start_free(s);
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
	static const struct timeval now = {0, 0};
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
		event_base_once(b->base, -1, EV_TIMEOUT, start_on_failed, s,
				&now);
		return;
	}
	json_decref(faults);
	if (json_object_get(s->req, "regression") != NULL) {
		start_store(s);
		return;
	}
	{
		const char *tree = str(s->req, "tree");
		const char *names[2] = {str(s->req, "good"),
					str(s->req, "bad")};
		char *mirror =
			tree != NULL ? settings_mirror(b->set, tree) : NULL;
		struct stat st;

		if (mirror != NULL && stat(mirror, &st) != 0) {
			s->fail = problem_new(PROBLEM_CONFLICT, NULL,
					      "tree %s has not been fetched "
					      "(robot tree show %s)",
					      tree, tree);
			free(mirror);
			event_base_once(b->base, -1, EV_TIMEOUT,
					start_on_failed, s, &now);
			return;
		}
		s->state = START_RESOLVING;
		resolve_start(b->base, tree, mirror, names, 2,
			      b->set->tree_fetch_timeout, start_on_resolved, s);
		free(mirror);
	}
}
