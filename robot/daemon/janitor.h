/*
 * janitor.h: robotd's periodic sweep (STYLE.md rule 9: exact deadlines
 * on timers, loose checks in one sweep).  Once a second it brings back
 * deadlines further off than the lease time, sends leases past their
 * deadline back to the queue and makes ready the pairs left
 * waiting for runs that have all ended; one sweep at a time.  A worker
 * of the drain engine whose claim is the whole sweep.
 */
#ifndef ROBOT_JANITOR_H
#define ROBOT_JANITOR_H

#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct janitor;

/* set: live (its lease_seconds bounds a lease's deadline). */
struct janitor *janitor_new(struct drain *d, struct store *store,
			    const struct settings *set);
void janitor_free(struct janitor *j);

#endif
