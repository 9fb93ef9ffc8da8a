/*
 * lab.h: the boxes' side of robotd: registration, leases with their
 * long-poll, heartbeats, result uploads and an operator's reset.
 *
 * A lease request may wait (up to its wait seconds) for work: it is a
 * waiter, woken by a notification of new work in its box's group (from
 * any robotd on the database: lab_on_notify()).  The caller holds the
 * waiter until its callback has run, or cancels it when the box hangs
 * up; a job claimed for a cancelled waiter is released at once, its
 * attempt not counted.
 *
 * Every callback runs once, from the loop, and owns the answer it gets
 * (a JSON object to send back, or NULL); p (NULL on success) says why
 * there is none.
 */
#ifndef ROBOT_LAB_H
#define ROBOT_LAB_H

#include <stddef.h>

#include <event2/event.h>
#include <jansson.h>

#include "robot/daemon/problem.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"
#include "robot/daemon/worker.h"

struct lab;
struct lab_wait;

typedef void (*lab_cb)(json_t *answer, const struct problem *p, void *arg);

/* set is robotd's live settings (SIGHUP changes them in place); worker
 * reads result documents off the loop. */
struct lab *lab_new(struct event_base *base, struct store *store,
		    struct worker *worker, const struct settings *set);
/* Answers every waiter still there with PROBLEM_UNAVAILABLE. */
void lab_free(struct lab *lab);
/* robotd stops: waiting boxes are answered "no work" (NULL, NULL). */
void lab_quiesce(struct lab *lab);
/* New work in group (NULL: notifications may have been missed). */
void lab_on_notify(struct lab *lab, const char *group);

/*
 * The next job for box, waiting at most wait seconds for one: cb gets
 * the lease (a JSON object), or NULL and NULL when no work came.
 */
struct lab_wait *lab_lease(struct lab *lab, const char *box, int wait,
			   lab_cb cb, void *arg);
/* The box hung up: cb will not run. */
void lab_lease_cancel(struct lab_wait *w);

/* A box's facts (JSON text, checked: typed, in range, names that are
 * names): {"state", "lease_seconds", ...}. */
void lab_register(struct lab *lab, const char *box, const char *facts,
		  size_t len, lab_cb cb, void *arg);
/* {"deadline"} */
void lab_heartbeat(struct lab *lab, long long lease, const char *box, lab_cb cb,
		   void *arg);
/* A result document for box's lease: {"result": "stored"} or
 * "duplicate" or "requeued".  The lease is checked before the document
 * is read, which happens on the worker; doc (len bytes, NUL after) must
 * live until cb runs. */
void lab_upload(struct lab *lab, long long lease, const char *box,
		const char *doc, size_t len, lab_cb cb, void *arg);
/* An operator's reset of a broken box: {"state"}. */
void lab_reset(struct lab *lab, const char *box, const char *by, lab_cb cb,
	       void *arg);

struct lab_stats {
	size_t waiting;                    /* lease requests waiting here */
	unsigned long long leases_granted; /* by this robotd */
	unsigned long long uploads;        /* result documents stored */
};
void lab_stats(const struct lab *lab, struct lab_stats *st);

#endif
