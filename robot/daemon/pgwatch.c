/*
 * pgwatch.c: the embedded database's supervisor, a state machine driven
 * by a one-second timer (pgwatch_drive()):
 *
 *   UP        --(the postmaster is gone)------> DOWN
 *   DOWN      --(it runs again, started by someone else)--> UP
 *   DOWN      --(its backoff passed)----------> STARTING (pg_ctl start)
 *   STARTING  --(pg_ctl says it runs)---------> UP (the backoff resets)
 *   STARTING  --(pg_ctl failed)---------------> DOWN (the backoff doubles)
 *
 * pg_ctl runs in a child process (pgembed_restart()), reaped here with
 * WNOHANG: a start can take seconds, the loop never waits for it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/pgembed.h"
#include "robot/daemon/pgwatch.h"
#include "robot/core/banned.h"

#define PGWATCH_BACKOFF_MAX 60

enum pgwatch_state {
	PGWATCH_UP,
	PGWATCH_DOWN,
	PGWATCH_STARTING,
};
static const char *const pgwatch_states[] = {
	[PGWATCH_UP] = "up",
	[PGWATCH_DOWN] = "down",
	[PGWATCH_STARTING] = "starting",
};
static const struct fsm pgwatch_fsm =
	FSM("embedded database", pgwatch_states, PGWATCH_STARTING);

struct pgwatch {
	enum pgwatch_state state;
	char *state_dir;
	struct event *timer;
	pid_t child;    /* STARTING: pg_ctl's process */
	int backoff;    /* DOWN: seconds between tries */
	time_t next;    /* DOWN: when to try again */
	time_t down_at; /* when it was found gone */
};

static void
pgwatch_set_state(struct pgwatch *w, enum pgwatch_state s)
{
	FSM_SET(&pgwatch_fsm, w->state, s, "embedded database");
}

static time_t
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* STARTING: whether pg_ctl is done, and how it went. */
static void
pgwatch_reap(struct pgwatch *w)
{
	int status = 0;
	pid_t child = w->child, r = waitpid(child, &status, WNOHANG);

	if (r == 0 || (r == -1 && errno == EINTR))
		return;
	w->child = -1;
	if (r == child && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		log_info("restarted the embedded database (it was down %lld s)",
			 (long long)(now_mono() - w->down_at));
		w->backoff = 1;
		pgwatch_set_state(w, PGWATCH_UP);
		return;
	}
	log_warnx("cannot restart the embedded database (see '%s/pg/"
		  "server.log'); next try in %d s",
		  w->state_dir, w->backoff);
	w->next = now_mono() + w->backoff;
	w->backoff = w->backoff * 2 < PGWATCH_BACKOFF_MAX ? w->backoff * 2
							  : PGWATCH_BACKOFF_MAX;
	pgwatch_set_state(w, PGWATCH_DOWN);
}

static void
pgwatch_drive(struct pgwatch *w)
{
	switch (w->state) {
	case PGWATCH_UP:
		if (pgembed_alive(w->state_dir))
			return;
		log_warnx("the embedded database stopped; starting it again");
		w->down_at = now_mono();
		w->next = w->down_at;
		pgwatch_set_state(w, PGWATCH_DOWN);
		/* FALLTHROUGH */
	case PGWATCH_DOWN:
		if (pgembed_alive(w->state_dir)) {
			/* Someone else started it (an operator's pg_ctl). */
			log_info("the embedded database runs again");
			w->backoff = 1;
			pgwatch_set_state(w, PGWATCH_UP);
			return;
		}
		if (now_mono() < w->next)
			return;
		if ((w->child = pgembed_restart(w->state_dir)) == -1) {
			log_warn("cannot start pg_ctl");
			w->next = now_mono() + w->backoff;
			return;
		}
		pgwatch_set_state(w, PGWATCH_STARTING);
		return;
	case PGWATCH_STARTING:
		pgwatch_reap(w);
		return;
	}
}

static void
pgwatch_on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	pgwatch_drive(arg);
}

struct pgwatch *
pgwatch_new(struct event_base *base, const char *state_dir)
{
	struct pgwatch *w = xcalloc(1, sizeof *w);
	struct timeval tv = {1, 0};

	pgwatch_set_state(w, PGWATCH_UP);
	w->state_dir = xstrdup(state_dir);
	w->child = -1;
	w->backoff = 1;
	w->timer = event_new(base, -1, EV_PERSIST, pgwatch_on_timer, w);
	event_add(w->timer, &tv);
	return w;
}

void
pgwatch_free(struct pgwatch *w)
{
	if (w == NULL)
		return;
	if (w->child > 0)
		while (waitpid(w->child, NULL, 0) == -1 && errno == EINTR)
			;
	event_free(w->timer);
	free(w->state_dir);
	free(w);
}
