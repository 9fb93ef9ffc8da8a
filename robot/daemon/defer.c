/*
 * defer.c: calls after the loop iteration (defer.h).
 */
#include <stdlib.h>

#include <event2/event.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/problem.h"
#include "robot/core/banned.h"

struct later {
	void (*fn)(void *);
	void *arg;
	struct later *next;
};

static void
defer_on_once(evutil_socket_t fd, short what, void *arg)
{
	struct later *l = arg;

	(void)fd;
	(void)what;
	l->fn(l->arg);
	free(l);
}

void
defer(struct event_base *base, void (*fn)(void *), void *arg)
{
	static const struct timeval now = {0, 0};
	struct later *l = xmalloc(sizeof *l);

	*l = (struct later){fn, arg, NULL};
	if (event_base_once(base, -1, EV_TIMEOUT, defer_on_once, l, &now) == -1)
		fatalx("cannot defer a call");
}

struct refusal {
	struct problem *p;
	void (*cb)(const char *, const struct problem *, void *);
	void *arg;
};

static void
refusal_answer(void *arg)
{
	struct refusal *r = arg;

	r->cb(NULL, r->p, r->arg);
	problem_free(r->p);
	free(r);
}

void
defer_problem(struct event_base *base, struct problem *p,
	      void (*cb)(const char *, const struct problem *, void *),
	      void *arg)
{
	struct refusal *r = xmalloc(sizeof *r);

	*r = (struct refusal){p, cb, arg};
	defer(base, refusal_answer, r);
}

struct defer_list {
	struct event *ev;
	struct later *first, **last; /* in the order they came */
};

/* Runs the calls waiting, those they add too. */
static void
defer_list_run(struct defer_list *d)
{
	struct later *l;

	while ((l = d->first) != NULL) {
		d->first = l->next;
		if (d->first == NULL)
			d->last = &d->first;
		l->fn(l->arg);
		free(l);
	}
}

static void
defer_on_list(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	defer_list_run(arg);
}

struct defer_list *
defer_list_new(struct event_base *base)
{
	struct defer_list *d = xcalloc(1, sizeof *d);

	d->last = &d->first;
	d->ev = event_new(base, -1, 0, defer_on_list, d);
	if (d->ev == NULL)
		fatalx("cannot make an event");
	return d;
}

void
defer_add(struct defer_list *d, void (*fn)(void *), void *arg)
{
	struct later *l = xmalloc(sizeof *l);

	*l = (struct later){fn, arg, NULL};
	*d->last = l;
	d->last = &l->next;
	event_active(d->ev, EV_TIMEOUT, 0);
}

void
defer_list_free(struct defer_list *d)
{
	if (d == NULL)
		return;
	defer_list_run(d);
	event_free(d->ev);
	free(d);
}
