/*
 * janitor.c: the sweep.  IDLE -> SWEEPING when the timer fires and the
 * database is up; SWEEPING -> IDLE when the sweep's query answers.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/janitor.h"
#include "robot/core/banned.h"

enum janitor_state {
	JANITOR_IDLE,
	JANITOR_SWEEPING,
};

struct janitor {
	struct store *store;
	enum janitor_state state;
	struct event *timer;
};

static void
janitor_on_expired(const char *text, const struct problem *p, void *arg)
{
	struct janitor *j = arg;

	j->state = JANITOR_IDLE;
	if (p == NULL && text != NULL && atoi(text) > 0)
		log_info("%s lease%s expired: back to the queue", text,
			 strcmp(text, "1") == 0 ? "" : "s");
}

static void
janitor_on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct janitor *j = arg;

	(void)fd;
	(void)what;
	if (j->state != JANITOR_IDLE || !store_up(j->store))
		return;
	j->state = JANITOR_SWEEPING;
	store_expire(j->store, janitor_on_expired, j);
}

struct janitor *
janitor_new(struct event_base *base, struct store *store)
{
	struct janitor *j = xcalloc(1, sizeof *j);
	struct timeval tv = {1, 0};

	j->store = store;
	j->timer = event_new(base, -1, EV_PERSIST, janitor_on_timer, j);
	event_add(j->timer, &tv);
	return j;
}

void
janitor_free(struct janitor *j)
{
	if (j == NULL)
		return;
	event_free(j->timer);
	free(j);
}
