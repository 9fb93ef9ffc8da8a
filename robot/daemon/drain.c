/*
 * drain.c: the engine of robotd's background work (drain.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/store.h"
#include "robot/core/banned.h"

enum drain_state {
	DRAIN_IDLE,
	DRAIN_CLAIMING,
	DRAIN_RECLAIM,
	DRAIN_WAITING,
	DRAIN_STOPPED,
};
static const char *const drain_states[] = {
	[DRAIN_IDLE] = "idle",       [DRAIN_CLAIMING] = "claiming",
	[DRAIN_RECLAIM] = "reclaim", [DRAIN_WAITING] = "waiting",
	[DRAIN_STOPPED] = "stopped",
};
static const struct fsm drain_fsm =
	FSM("drain worker", drain_states, DRAIN_STOPPED);

struct drain_worker {
	struct drain *d;
	const struct drain_ops *ops;
	void *ctx;
	enum drain_state state;
	int asked;   /* works the claim under way asked for */
	void **hand; /* the works in hand (ops->slots of them) */
	size_t nhand;
	double next_tick; /* when the tick looks next */
	struct drain_worker *next;
};

/* A work ended, to free after the loop iteration. */
struct drain {
	struct event_base *base;
	struct store *store; /* claims only while it is up */
	struct drain_worker *workers;
	struct event *tick;       /* the one timer */
	struct defer_list *later; /* the ended works, freed after the
				   * loop iteration */
	bool stopped;
};

static void
drain_set_state(struct drain_worker *w, enum drain_state s)
{
	FSM_SET(&drain_fsm, w->state, s, "%s", w->ops->name);
}

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t
room(const struct drain_worker *w)
{
	return (size_t)w->ops->slots - w->nhand;
}

/* Claims what there is room for. */
static void
drain_claim(struct drain_worker *w)
{
	size_t n = room(w);

	if (w->ops->batch > 0 && (size_t)w->ops->batch < n)
		n = (size_t)w->ops->batch;
	w->asked = (int)n;
	drain_set_state(w, DRAIN_CLAIMING);
	w->ops->claim(w, w->asked);
}

void
drain_wake(struct drain_worker *w)
{
	switch (w->state) {
	case DRAIN_IDLE:
		/* A database down: the next tick, or its reconnect, wakes
		 * it again. */
		if (w->d->store != NULL && !store_up(w->d->store))
			return;
		if (room(w) > 0)
			drain_claim(w);
		else
			drain_set_state(w, DRAIN_WAITING);
		return;
	case DRAIN_CLAIMING:
		drain_set_state(w, DRAIN_RECLAIM);
		return;
	case DRAIN_RECLAIM:
	case DRAIN_WAITING:
	case DRAIN_STOPPED:
		return;
	}
}

bool
drain_notify(struct drain *d, const char *payload)
{
	bool took = false;

	for (struct drain_worker *w = d->workers; w != NULL; w = w->next)
		if (payload == NULL || (w->ops->topic != NULL &&
					strcmp(w->ops->topic, payload) == 0)) {
			drain_wake(w);
			took = true;
		}
	return took;
}

static void
drain_on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct drain *d = arg;
	double now = now_mono();

	(void)fd;
	(void)what;
	for (struct drain_worker *w = d->workers; w != NULL; w = w->next) {
		if (now < w->next_tick)
			continue;
		w->next_tick = now + w->ops->tick;
		drain_wake(w);
	}
}

/* Frees work after this loop iteration. */
static void
drain_bury(struct drain_worker *w, void *work)
{
	defer_add(w->d->later, w->ops->free, work);
}

void
drain_claimed(struct drain_worker *w, void *const *works, size_t got,
	      bool failed)
{
	bool woken = w->state == DRAIN_RECLAIM;

	if (w->state == DRAIN_STOPPED || w->d->stopped) {
		/* Left to their claims running out. */
		for (size_t i = 0; i < got; i++)
			drain_bury(w, works[i]);
		return;
	}
	if (got > room(w))
		fatalx("%s: %zu works came for %zu slots", w->ops->name, got,
		       room(w));
	for (size_t i = 0; i < got; i++)
		w->hand[w->nhand++] = works[i];
	if (failed || (!woken && (int)got < w->asked))
		drain_set_state(w, DRAIN_IDLE);
	else if (room(w) > 0)
		drain_claim(w);
	else
		drain_set_state(w, DRAIN_WAITING);
	/* Started after the state is settled: a work may end at once. */
	for (size_t i = 0; i < got; i++)
		w->ops->start(w, works[i]);
}

void
drain_claimed_one(struct drain_worker *w, void *work, const struct problem *p)
{
	if (p != NULL)
		log_warnx("%s: cannot claim: %s", w->ops->name, p->message);
	if (work == NULL)
		drain_claimed(w, NULL, 0, p != NULL);
	else
		drain_claimed(w, (void *const *)&work, 1, false);
}

void
drain_done(struct drain_worker *w, void *work)
{
	size_t i;

	for (i = 0; i < w->nhand && w->hand[i] != work; i++)
		;
	if (i == w->nhand)
		fatalx("%s: a work ended that was not in hand", w->ops->name);
	w->hand[i] = w->hand[--w->nhand];
	drain_bury(w, work);
	if ((w->state == DRAIN_WAITING ||
	     (w->state == DRAIN_IDLE && w->ops->look_after_each)) &&
	    (w->d->store == NULL || store_up(w->d->store)))
		drain_claim(w);
	else if (w->state == DRAIN_WAITING)
		drain_set_state(w, DRAIN_IDLE);
}

size_t
drain_in_hand(const struct drain_worker *w)
{
	return w->nhand;
}

struct drain *
drain_new(struct event_base *base, struct store *store)
{
	struct drain *d = xcalloc(1, sizeof *d);
	struct timeval tv = {1, 0};

	d->base = base;
	d->store = store;
	d->tick = event_new(base, -1, EV_PERSIST, drain_on_tick, d);
	d->later = defer_list_new(base);
	event_add(d->tick, &tv);
	return d;
}

struct drain_worker *
drain_add(struct drain *d, const struct drain_ops *ops, void *ctx)
{
	struct drain_worker *w = xcalloc(1, sizeof *w), **at = &d->workers;

	w->d = d;
	w->ops = ops;
	w->ctx = ctx;
	drain_set_state(w, DRAIN_IDLE);
	w->hand = xcalloc((size_t)ops->slots, sizeof *w->hand);
	w->next_tick = now_mono() + ops->tick;
	while (*at != NULL)
		at = &(*at)->next;
	*at = w;
	return w;
}

void *
drain_ctx(const struct drain_worker *w)
{
	return w->ctx;
}

struct event_base *
drain_base(const struct drain_worker *w)
{
	return w->d->base;
}

void
drain_stop(struct drain *d)
{
	d->stopped = true;
	event_del(d->tick);
	for (struct drain_worker *w = d->workers; w != NULL; w = w->next) {
		drain_set_state(w, DRAIN_STOPPED);
		if (w->ops->stop != NULL)
			w->ops->stop(w);
	}
}

void
drain_free(struct drain *d)
{
	if (d == NULL)
		return;
	defer_list_free(d->later);
	while (d->workers != NULL) {
		struct drain_worker *w = d->workers;

		d->workers = w->next;
		for (size_t i = 0; i < w->nhand; i++)
			w->ops->free(w->hand[i]);
		free(w->hand);
		free(w);
	}
	event_free(d->tick);
	free(d);
}
