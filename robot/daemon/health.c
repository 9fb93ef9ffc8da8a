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

#include <jansson.h>

#include "robot/analysis/decide.h"
#include "robot/core/log.h"
#include "robot/core/num.h"
#include "robot/core/rjson.h"
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
health_read(struct health *h, json_t *j)
{
	const char *box = rjson_get_str(j, "box");
	json_int_t checked = json_integer_value(json_object_get(j, "checked"));
	json_t *c;
	size_t i;

	if (box == NULL)
		return false;
	json_array_foreach(json_object_get(j, "canaries"), i, c)
	{
		json_t *vals = json_object_get(c, "values");
		json_t *ids = json_object_get(c, "ids");
		size_t n = json_array_size(vals);
		double *v = xcalloc(n + 1, sizeof *v);
		struct compare_result r;
		size_t from, at = 0;
		char *msg, pct[NUM_PCT_MAX];
		bool moved;

		for (size_t k = 0; k < n; k++)
			v[k] = json_number_value(json_array_get(vals, k));
		for (from = 0;
		     from < json_array_size(ids) &&
		     json_integer_value(json_array_get(ids, from)) <= checked;
		     from++)
			;
		moved = json_array_size(ids) == n &&
			decide_canary(v, n, from, &r, &at);
		free(v);
		if (!moved)
			continue;
		msg = xasprintf(
			"box %s changed: %d runs in a row of %s at %.12s moved "
			"%s from its %zu before (%s, p %.2g), with no "
			"change "
			"of commit; it takes no work until robot box reset %s",
			box, DECIDE_CANARY_RECENT, rjson_get_str(c, "series"),
			rjson_get_str(c, "commit"),
			num_pct(pct, sizeof pct, r.effect_pct, "?"), r.base.n,
			rjson_get_str(c, "kpi"), r.p_value, box);
		log_warnx("health: %s", msg);
		h->box = xstrdup(box);
		store_box_suspect(
			h->store, box,
			(long long)json_integer_value(json_array_get(ids, at)),
			rjson_get_str(c, "kpi"), rjson_get_str(c, "series"),
			msg, health_on_suspect, h);
		free(msg);
		return true;
	}
	return false;
}

static void
health_on_canaries(const char *text, const struct problem *p, void *arg)
{
	struct health *h = arg;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	bool asked = j != NULL && health_read(h, j);

	if (p != NULL)
		log_warnx("health: cannot read the canaries: %s", p->message);
	if (!asked) {
		if (j != NULL)
			drain_wake(h->w); /* another box may be due */
		drain_claimed(h->w, NULL, 0, p != NULL);
	}
	json_decref(j);
}

static void
health_on_reference(const char *text, const struct problem *p, void *arg)
{
	struct health *h = arg;
	json_t *j = text ? json_loads(text, 0, NULL) : NULL, *r;
	size_t i;

	if (p != NULL) {
		/* the database failed: no canary either, this time */
		log_warnx("health: cannot give idle boxes their reference "
			  "runs: %s",
			  p->message);
		drain_claimed(h->w, NULL, 0, true);
		return;
	}
	json_array_foreach(j, i, r)
	{
		log_info("health: box %s idle for %ds: a reference run of %s "
			 "at %.12s (job %lld)",
			 rjson_get_str(r, "box"), h->set->reference_every,
			 rjson_get_str(r, "series"), rjson_get_str(r, "commit"),
			 (long long)json_integer_value(
				 json_object_get(r, "job")));
	}
	json_decref(j);
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
