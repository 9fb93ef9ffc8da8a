/*
 * janitor.h: robotd's periodic sweep (STYLE.md rule 9: exact deadlines
 * on timers, loose checks in one sweep).  Once a second it sends leases
 * past their deadline back to the queue; one sweep at a time.
 */
#ifndef ROBOT_JANITOR_H
#define ROBOT_JANITOR_H

#include <event2/event.h>

#include "robot/daemon/store.h"

struct janitor;

struct janitor *janitor_new(struct event_base *base, struct store *store);
void janitor_free(struct janitor *j);

#endif
