/*
 * health.h: the boxes' health (docs/statistics.md, "Box health"): a
 * worker of the drain engine that reads the canary of each box with new
 * runs (its runs of one series at one commit, in order) and marks a box
 * whose latest runs moved away from its earlier ones suspect
 * (robot_box_suspect()): the box changed, not the commit.  A box that
 * idles for the setting reference_every is first given a reference run
 * of its canary (robot_reference_due()), so that its canary goes on.
 */
#ifndef ROBOT_HEALTH_H
#define ROBOT_HEALTH_H

#include "robot/daemon/drain.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct health;

struct health *health_new(struct drain *d, struct store *store,
			  const struct settings *set);
void health_free(struct health *h);

#endif
