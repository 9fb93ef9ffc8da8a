/*
 * lab.c: leases and the long-poll, and the boxes' other calls.
 *
 * A lease request is a waiter, a state machine:
 *
 *   CLAIMING --(a job)------------------------------> DONE (answered)
 *   CLAIMING --(none, deadline passed or stopping)--> DONE (no work)
 *   CLAIMING --(none, a notification raced it)------> CLAIMING
 *   CLAIMING --(none)-------------------------------> WAITING
 *   WAITING  --(woken)------------------------------> CLAIMING
 *   WAITING  --(deadline, stopping, box gone)-------> DONE
 *   CLAIMING --(box gone)---------------------------> ABANDONED
 *   ABANDONED --(claim back; a job is released)-----> DONE
 *
 * NOTIFY robot_jobs '<group>' (sent by robot_submit() and by leases that
 * go back to the queue, from any robotd on the database) wakes the oldest
 * waiting box of the group.  When its claim gets a job, the next waiting
 * box of the group is woken, and so on until a claim comes back empty:
 * a submit of n jobs wakes about n boxes, not every box of the lab.  A
 * claim that raced a notification (it was in flight when the
 * notification came) is tried again, so no wake-up is lost.  A waiter
 * learns its group from its first claim; only waiting ones (which know
 * it) are woken.
 *
 * A waiter that is DONE leaves the list at once and is freed after the
 * loop iteration (the reaper), never inside its own callbacks.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include "robot/analysis/result.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/lab.h"
#include "robot/core/banned.h"

enum waiter_state {
	WAITER_CLAIMING,  /* a claim runs for it */
	WAITER_WAITING,   /* nothing found: waits to be woken */
	WAITER_ABANDONED, /* its box hung up while a claim ran */
	WAITER_DONE,      /* answered or abandoned; freed soon */
};

struct lab_wait {
	struct lab *lab;
	char *box;
	char *group; /* from the first claim; set when WAITING */
	enum waiter_state state;
	double deadline;   /* CLOCK_MONOTONIC seconds */
	unsigned long gen; /* lab->gen when its claim started */
	lab_cb cb;
	void *arg;
	struct event *timer;
	TAILQ_ENTRY(lab_wait) entry; /* in lab->waiters, then lab->dead */
};

TAILQ_HEAD(waiter_list, lab_wait);

struct lab {
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	struct waiter_list waiters; /* oldest first */
	struct waiter_list dead;    /* DONE, to be freed */
	struct event *reaper;
	size_t nwaiters;
	/* bumped by every notification, so that a claim that raced one is
	 * tried again */
	unsigned long gen;
	bool stopping;
	unsigned long long leases_granted, uploads;
};

static void waiter_claim(struct lab_wait *w);

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *
waiter_state_name(enum waiter_state s)
{
	switch (s) {
	case WAITER_CLAIMING:
		return "claiming";
	case WAITER_WAITING:
		return "waiting";
	case WAITER_ABANDONED:
		return "abandoned";
	case WAITER_DONE:
		return "done";
	}
	return "?";
}

static void
waiter_set_state(struct lab_wait *w, enum waiter_state s)
{
	struct lab *lab = w->lab;

	log_debug("lease request of box %s: %s -> %s", w->box,
		  waiter_state_name(w->state), waiter_state_name(s));
	w->state = s;
	if (s != WAITER_DONE)
		return;
	TAILQ_REMOVE(&lab->waiters, w, entry);
	lab->nwaiters--;
	evtimer_del(w->timer);
	TAILQ_INSERT_TAIL(&lab->dead, w, entry);
	event_active(lab->reaper, 0, 0);
}

static void
lab_on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct lab *lab = arg;
	struct lab_wait *w;

	(void)fd;
	(void)what;
	while ((w = TAILQ_FIRST(&lab->dead)) != NULL) {
		TAILQ_REMOVE(&lab->dead, w, entry);
		event_free(w->timer);
		free(w->box);
		free(w->group);
		free(w);
	}
}

/* Answers the box and ends the waiter. */
static void
waiter_answer(struct lab_wait *w, json_t *lease, const struct problem *p)
{
	w->cb(lease, p, w->arg);
	waiter_set_state(w, WAITER_DONE);
}

/* Wakes the oldest waiting box of group. */
static void
lab_wake(struct lab *lab, const char *group)
{
	struct lab_wait *w;

	TAILQ_FOREACH(w, &lab->waiters, entry)
	{
		if (w->state == WAITER_WAITING &&
		    strcmp(w->group, group) == 0) {
			waiter_claim(w);
			return;
		}
	}
}

static void
lab_on_release(const char *text, const struct problem *p, void *arg)
{
	(void)text;
	(void)arg;
	if (p != NULL)
		log_warnx("cannot release a lease: %s (it will expire)",
			  p->message);
}

static void
waiter_on_claim(const struct store_claim *c, const struct problem *p, void *arg)
{
	struct lab_wait *w = arg;
	struct lab *lab = w->lab;

	if (w->state == WAITER_ABANDONED) {
		if (c != NULL && c->lease != 0) {
			log_info("box %s hung up: lease %lld released", w->box,
				 c->lease);
			store_release(lab->store, c->lease, lab_on_release,
				      NULL);
		}
		waiter_set_state(w, WAITER_DONE);
		return;
	}
	if (p != NULL) {
		waiter_answer(w, NULL, p);
		return;
	}
	if (w->group == NULL && c->group != NULL)
		w->group = xstrdup(c->group);
	if (c->lease != 0) {
		json_error_t jerr;
		json_t *lease = json_loads(c->json, 0, &jerr);

		if (lease == NULL)
			fatalx("robot_claim gave a lease that is not JSON: %s",
			       jerr.text);
		lab->leases_granted++;
		waiter_answer(w, lease, NULL);
		/* There may be more work: pass the wake-up on. */
		if (c->group != NULL)
			lab_wake(lab, c->group);
		return;
	}
	if (w->gen != lab->gen && !lab->stopping) {
		waiter_claim(w);
		return;
	}
	if (now_mono() >= w->deadline || lab->stopping || w->group == NULL) {
		waiter_answer(w, NULL, NULL);
		return;
	}
	waiter_set_state(w, WAITER_WAITING);
}

static void
waiter_claim(struct lab_wait *w)
{
	waiter_set_state(w, WAITER_CLAIMING);
	w->gen = w->lab->gen;
	store_claim(w->lab->store, w->box, w->lab->set->lease_seconds,
		    waiter_on_claim, w);
}

static void
waiter_on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct lab_wait *w = arg;

	(void)fd;
	(void)what;
	/* A claim in flight sees the deadline when it comes back. */
	if (w->state == WAITER_WAITING)
		waiter_answer(w, NULL, NULL);
}

struct lab_wait *
lab_lease(struct lab *lab, const char *box, int wait, lab_cb cb, void *arg)
{
	struct lab_wait *w = xcalloc(1, sizeof *w);
	struct timeval tv = {wait, 0};

	w->lab = lab;
	w->box = xstrdup(box);
	w->cb = cb;
	w->arg = arg;
	w->state = WAITER_CLAIMING;
	w->deadline = now_mono() + wait;
	w->timer = evtimer_new(lab->base, waiter_on_timeout, w);
	if (wait > 0)
		evtimer_add(w->timer, &tv);
	TAILQ_INSERT_TAIL(&lab->waiters, w, entry);
	lab->nwaiters++;
	waiter_claim(w);
	return w;
}

void
lab_lease_cancel(struct lab_wait *w)
{
	if (w->state == WAITER_CLAIMING)
		waiter_set_state(w, WAITER_ABANDONED);
	else if (w->state == WAITER_WAITING)
		waiter_set_state(w, WAITER_DONE);
}

void
lab_on_notify(struct lab *lab, const char *group)
{
	const char **groups = NULL;
	size_t n = 0;
	struct lab_wait *w;

	lab->gen++;
	if (group != NULL) {
		lab_wake(lab, group);
		return;
	}
	/* After a reconnect: wake the oldest waiting box of each group.
	 * The groups are gathered first: a woken box no longer waits. */
	TAILQ_FOREACH(w, &lab->waiters, entry)
	{
		bool seen = false;

		if (w->state != WAITER_WAITING)
			continue;
		for (size_t i = 0; i < n && !seen; i++)
			seen = strcmp(groups[i], w->group) == 0;
		if (!seen) {
			groups = xreallocarray(groups, n + 1, sizeof *groups);
			groups[n++] = w->group;
		}
	}
	for (size_t i = 0; i < n; i++)
		lab_wake(lab, groups[i]);
	free(groups);
}

struct lab *
lab_new(struct event_base *base, struct store *store,
	const struct settings *set)
{
	struct lab *lab = xcalloc(1, sizeof *lab);

	lab->base = base;
	lab->store = store;
	lab->set = set;
	TAILQ_INIT(&lab->waiters);
	TAILQ_INIT(&lab->dead);
	lab->reaper = event_new(base, -1, 0, lab_on_reap, lab);
	return lab;
}

void
lab_quiesce(struct lab *lab)
{
	struct lab_wait *w, *next;

	lab->stopping = true;
	for (w = TAILQ_FIRST(&lab->waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->state == WAITER_WAITING)
			waiter_answer(w, NULL, NULL);
	}
}

void
lab_free(struct lab *lab)
{
	struct problem *p;
	struct lab_wait *w;

	if (lab == NULL)
		return;
	p = problem_new(PROBLEM_UNAVAILABLE, NULL, "robotd is stopping");
	while ((w = TAILQ_FIRST(&lab->waiters)) != NULL) {
		if (w->state == WAITER_ABANDONED)
			waiter_set_state(w, WAITER_DONE);
		else
			waiter_answer(w, NULL, p);
	}
	problem_free(p);
	lab_on_reap(-1, 0, lab);
	event_free(lab->reaper);
	free(lab);
}

void
lab_stats(const struct lab *lab, struct lab_stats *st)
{
	st->waiting = lab->nwaiters;
	st->leases_granted = lab->leases_granted;
	st->uploads = lab->uploads;
}

/* The other calls: one query each, its answer as a small object. */

struct lab_call {
	struct lab *lab;
	lab_cb cb;
	void *arg;
	const char *key; /* of the answer: {key: the query's value} */
};

static struct lab_call *
lab_call_new(struct lab *lab, const char *key, lab_cb cb, void *arg)
{
	struct lab_call *c = xcalloc(1, sizeof *c);

	c->lab = lab;
	c->key = key;
	c->cb = cb;
	c->arg = arg;
	return c;
}

/* Answers {key: text}. */
static void
lab_on_value(const char *text, const struct problem *p, void *arg)
{
	struct lab_call *c = arg;

	c->cb(p == NULL ? json_pack("{s:s}", c->key, text) : NULL, p, c->arg);
	free(c);
}

static void
register_on_state(const char *text, const struct problem *p, void *arg)
{
	struct lab_call *c = arg;
	int lease = c->lab->set->lease_seconds;

	c->cb(p == NULL ? json_pack("{s:s, s:i, s:i, s:i}", "state", text,
				    "lease_seconds", lease, "heartbeat_seconds",
				    lease / 4 > 0 ? lease / 4 : 1,
				    "long_poll_seconds", c->lab->set->long_poll)
			: NULL,
	      p, c->arg);
	free(c);
}

void
lab_register(struct lab *lab, const char *box, const char *facts, size_t len,
	     lab_cb cb, void *arg)
{
	json_error_t jerr;
	json_t *j = json_loadb(facts, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *group = j ? rjson_get_str(j, "tbox_group") : NULL;
	struct problem *p;
	char *s;

	if (j == NULL || !json_is_object(j) || group == NULL ||
	    group[0] == '\0') {
		p = j == NULL ? problem_new(PROBLEM_INVALID, NULL,
					    "the facts are not JSON: line "
					    "%d: %s",
					    jerr.line, jerr.text)
			      : problem_new(PROBLEM_INVALID, NULL,
					    "the facts are a JSON object with "
					    "a tbox_group");
		cb(NULL, p, arg);
		problem_free(p);
		json_decref(j);
		return;
	}
	s = rjson_dumps(j, JSON_COMPACT);
	log_info("box %s registers (%s)", box, group);
	store_register(lab->store, box, group, s, register_on_state,
		       lab_call_new(lab, "state", cb, arg));
	free(s);
	json_decref(j);
}

void
lab_heartbeat(struct lab *lab, long long lease, const char *box, lab_cb cb,
	      void *arg)
{
	store_heartbeat(lab->store, lease, box, lab->set->lease_seconds,
			lab_on_value, lab_call_new(lab, "deadline", cb, arg));
}

static void
upload_on_outcome(const char *text, const struct problem *p, void *arg)
{
	struct lab_call *c = arg;

	if (p == NULL && strcmp(text, "stored") == 0)
		c->lab->uploads++;
	lab_on_value(text, p, arg);
}

void
lab_upload(struct lab *lab, long long lease, const char *box, const char *doc,
	   size_t len, lab_cb cb, void *arg)
{
	json_error_t jerr;
	json_t *j = json_loadb(doc, len, JSON_REJECT_DUPLICATES, &jerr);
	struct store_upload u;
	struct problem *p;
	struct errlist el;
	struct result res;

	if (j == NULL) {
		p = problem_new(PROBLEM_INVALID, NULL,
				"the result document is not JSON: line %d: %s",
				jerr.line, jerr.text);
		cb(NULL, p, arg);
		problem_free(p);
		return;
	}
	errlist_init(&el);
	if (!result_parse("upload", j, &res, &el)) {
		p = problem_new(PROBLEM_INVALID, errlist_to_json(&el, false),
				"the result document is invalid");
		cb(NULL, p, arg);
		problem_free(p);
		errlist_release(&el);
		json_decref(j);
		return;
	}
	errlist_release(&el);
	u = (struct store_upload){lease,
				  box,
				  res.key,
				  result_status_name(res.status),
				  res.error,
				  doc, /* as sent: its key order is kept */
				  lab->set->broken_after};
	store_upload(lab->store, &u, upload_on_outcome,
		     lab_call_new(lab, "result", cb, arg));
	result_release(&res);
	json_decref(j);
}

void
lab_reset(struct lab *lab, const char *box, const char *by, lab_cb cb,
	  void *arg)
{
	log_info("%s resets box %s", by, box);
	store_reset(lab->store, box, lab_on_value,
		    lab_call_new(lab, "state", cb, arg));
}
