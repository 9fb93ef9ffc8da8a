/*
 * drain.h: one engine for robotd's background work.  A worker is a kind
 * of work claimed from the database (pairs to analyse, bisections,
 * trees to fetch, reports to build, mail to send, leases to expire):
 * a table of operations, and the state machine of each work in hand,
 * which is the worker's own.  The engine owns what they all share:
 *
 * - the claim loop: it claims when the worker is woken (its NOTIFY
 *   topic, or its tick) and there is room, and again while claims come
 *   back full or the worker was woken meanwhile;
 * - the one tick: a timer for all workers, each looked at every so many
 *   seconds when nothing woke it;
 * - the NOTIFY topics, a table: a payload wakes the worker that has it;
 * - deferred frees: a work that ended is freed after the loop iteration
 *   that ended it, never inside its own callback.
 *
 * A worker's claim loop:
 *
 *   IDLE      --(woken or ticked; room; the database up)--> CLAIMING
 *   IDLE      --(woken or ticked; no room)--------------> WAITING
 *   CLAIMING  --(woken)---------------------------------> RECLAIM
 *   CLAIMING  --(works; full, room left)----------------> CLAIMING
 *   CLAIMING  --(works; full, no room)------------------> WAITING
 *   CLAIMING  --(fewer than asked, or the database failed)--> IDLE
 *   RECLAIM   --(the answer; room)----------------------> CLAIMING
 *   RECLAIM   --(the answer; no room)-------------------> WAITING
 *   WAITING   --(a work ended)--------------------------> CLAIMING
 *   any       --(robotd stops)--------------------------> STOPPED
 *
 * With look_after_each, a work that ended also makes an IDLE worker
 * claim (the next may be due because of it).
 */
#ifndef ROBOT_DRAIN_H
#define ROBOT_DRAIN_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

struct drain;
struct drain_worker;
struct problem;
struct store;

struct drain_ops {
	const char *name;     /* for the log: "analysis" */
	const char *topic;    /* the NOTIFY payload that wakes it, or NULL */
	int tick;             /* seconds between looks when nothing woke it */
	int slots;            /* works in hand at once, at least 1 */
	int batch;            /* works one claim asks for, at most; 0: room */
	bool look_after_each; /* claim again whenever a work ends */
	/* Claims up to n works: answers once, later, by drain_claimed(). */
	void (*claim)(struct drain_worker *w, int n);
	/* A work came: drive it; it ends by drain_done(). */
	void (*start)(struct drain_worker *w, void *work);
	/* Frees a work (after drain_done()'s loop iteration, or one that
	 * came after robotd began to stop). */
	void (*free)(void *work);
	/* robotd stops: what the worker must end at once (children, open
	 * transfers), or NULL. */
	void (*stop)(struct drain_worker *w);
};

/* Claims run only while store is up (NULL: always). */
struct drain *drain_new(struct event_base *base, struct store *store);
/* Frees every worker and the works still in hand. */
void drain_free(struct drain *d);
/* A worker of ops (kept, not copied) with ctx, its own. */
struct drain_worker *drain_add(struct drain *d, const struct drain_ops *ops,
			       void *ctx);
void *drain_ctx(const struct drain_worker *w);
struct event_base *drain_base(const struct drain_worker *w);
/* Wakes the worker whose topic payload is (NULL: every worker); false
 * when no worker has it. */
bool drain_notify(struct drain *d, const char *payload);
void drain_wake(struct drain_worker *w);
/* The answer to a claim of n: works[0..got), got <= n; failed when the
 * database failed (the tick tries again). */
void drain_claimed(struct drain_worker *w, void *const *works, size_t got,
		   bool failed);
/* The answer to a claim of one: work (NULL: none came), or the
 * database's problem p, logged as "WHAT: cannot claim: ...". */
void drain_claimed_one(struct drain_worker *w, void *work,
		       const struct problem *p);
/* A work in hand ended: its slot is free; it is freed after this loop
 * iteration. */
void drain_done(struct drain_worker *w, void *work);
/* Works in hand. */
size_t drain_in_hand(const struct drain_worker *w);
/* robotd stops: nothing more is claimed or started. */
void drain_stop(struct drain *d);

#endif
