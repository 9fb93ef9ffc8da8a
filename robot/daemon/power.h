/*
 * power.h: boxes that do not come back (docs/robotd.md, "Boxes that do
 * not come back").  A worker of the drain engine: once a tick it asks
 * the store for the boxes silent since their lease expired in the middle
 * of a run (robot_power_cycle_due(): marked, a lab note each), and runs
 * the lab's power_cycle command (a setting) on each, its name as $1.
 * Without the setting it claims nothing.
 */
#ifndef ROBOT_POWER_H
#define ROBOT_POWER_H

#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct power;

/* set: live (its power_cycle is read at each claim). */
struct power *power_new(struct drain *d, struct store *store,
			const struct settings *set);
void power_free(struct power *p);

#endif
