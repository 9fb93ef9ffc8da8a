/*
 * pgwatch.h: the embedded database's supervisor.  Once a second it checks
 * that the postmaster lives; when it died, robotd starts it again (with a
 * backoff of 1 s doubling to 60 s, logged), without blocking the loop.
 * Meanwhile queries fail, the API answers 503 and /metrics says robot_up
 * 0; the database connections come back by themselves (db.c).
 */
#ifndef ROBOT_PGWATCH_H
#define ROBOT_PGWATCH_H

#include <event2/event.h>

struct pgwatch;

struct pgwatch *pgwatch_new(struct event_base *base, const char *state_dir);
/* Stops watching; a restart under way is waited for. */
void pgwatch_free(struct pgwatch *w);

#endif
