/*
 * health.c: the boxes' health (health.h).  Its claim is the whole of
 * it, once a tick or when a run is stored:
 *
 *   IDLE      --(tick)-------------------------> REFERENCING
 *   REFERENCING --(idle boxes given a reference
 *                  run, or none)----------------> CLAIMING
 *   CLAIMING  --(no box due)--------------------> IDLE
 *   CLAIMING  --(a box's canaries, none moved)--> CLAIMING (the next box)
 *             --(one moved)---------------------> SUSPECTING
 *   SUSPECTING --(stored)-----------------------> CLAIMING (the next box)
 *   SUSPECTING --(the database failed)----------> IDLE
 *
 * REFERENCING and CLAIMING are both the engine's CLAIMING: one claim
 * asks for the reference runs, then reads a canary.  The canary's
 * arithmetic is decide_canary()'s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/decide.h"
#include "robot/core/log.h"
#include "robot/core/num.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/health.h"
#include "robot/daemon/store/boxes.h"
#include "robot/core/banned.h"

struct health {
	struct store *store;
	const struct settings *set;
	struct drain_worker *w;
	char *box; /* SUSPECTING: of this box */
};

static void
health_on_suspect(const char *text, const struct problem *p, void *arg)
{
	struct health *h = arg;

	if (p != NULL)
		log_warnx("health: cannot mark box %s suspect: %s (read "
			  "again when it runs)",
			  h->box, p->message);
	else
		log_info("health: box %s is suspect; %s pair%s measured again "
			 "on other boxes",
			 h->box, text ? text : "0",
			 text && strcmp(text, "1") == 0 ? "" : "s");
	free(h->box);
	h->box = NULL;
	if (p == NULL)
		drain_wake(h->w); /* another box may be due */
	drain_claimed(h->w, NULL, 0, p != NULL);
}

/* Reads a box's canaries; the first that moved makes it suspect.
 * True when that was asked of the store (it ends the claim). */
static bool
health_read(struct health *h, const struct store_canary_claim *j)
{
	for (size_t i = 0; j->box != NULL && i < j->ncanaries; i++) {
		const struct store_canary *c = &j->canaries[i];
		struct compare_result r;
		size_t from, at = 0;
		char *msg, pct[NUM_PCT_MAX];

		for (from = 0; from < c->nids && c->ids[from] <= j->checked;
		     from++)
			;
		if (c->nids != c->nvalues ||
		    !decide_canary(c->values, c->nvalues, from, &r, &at))
			continue;
		msg = xasprintf(
			"box %s changed: %d runs in a row of %s at %.12s moved "
			"%s from its %zu before (%s, p %.2g), with no "
			"change "
			"of commit; it takes no work until robot box reset %s",
			j->box, DECIDE_CANARY_RECENT, c->series, c->commit,
			num_pct(pct, sizeof pct, r.effect_pct, "?"), r.base.n,
			c->kpi, r.p_value, j->box);
		log_warnx("health: %s", msg);
		h->box = xstrdup(j->box);
		store_box_suspect(h->store, j->box, c->ids[at], c->kpi,
				  c->series, msg, health_on_suspect, h);
		free(msg);
		return true;
	}
	return false;
}

static void
health_on_canaries(const struct store_canary_claim *c, const struct problem *p,
		   void *arg)
{
	struct health *h = arg;
	bool asked = c != NULL && health_read(h, c);

	if (p != NULL)
		log_warnx("health: cannot read the canaries: %s", p->message);
	if (!asked) {
		if (c != NULL)
			drain_wake(h->w); /* another box may be due */
		drain_claimed(h->w, NULL, 0, p != NULL);
	}
}

static void
health_on_reference(const struct store_reference_runs *r,
		    const struct problem *p, void *arg)
{
	struct health *h = arg;

	if (p != NULL) {
		/* the database failed: no canary either, this time */
		log_warnx("health: cannot give idle boxes their reference "
			  "runs: %s",
			  p->message);
		drain_claimed(h->w, NULL, 0, true);
		return;
	}
	for (size_t i = 0; r != NULL && i < r->nruns; i++)
		log_info("health: box %s idle for %ds: a reference run of %s "
			 "at %.12s (job %lld)",
			 r->runs[i].box, h->set->reference_every,
			 r->runs[i].series, r->runs[i].commit, r->runs[i].job);
	store_canary_next(h->store, health_on_canaries, h);
}

static void
health_claim(struct drain_worker *w, int n)
{
	struct health *h = drain_ctx(w);

	(void)n;
	store_reference_due(h->store, h->set->reference_every,
			    health_on_reference, h);
}

static const struct drain_ops health_ops = {
	.name = "health",
	.topic = ":health",
	.tick = 5,
	.slots = 1,
	.batch = 1,
	.claim = health_claim,
};

struct health *
health_new(struct drain *d, struct store *store, const struct settings *set)
{
	struct health *h = xcalloc(1, sizeof *h);

	h->store = store;
	h->set = set;
	h->w = drain_add(d, &health_ops, h);
	return h;
}

void
health_free(struct health *h)
{
	if (h == NULL)
		return;
	free(h->box);
	free(h);
}
