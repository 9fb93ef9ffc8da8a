/*
 * cgroup.h: every process of a box's job in one place, so that a killed
 * robot-box leaves none behind.
 *
 * With cgroup v2, robot-box moves itself into MOUNT/robot-box/NAME (NAME
 * the box's name) before it runs a job, and every process of the job (the
 * workloads, and their own children: fs_mark's workers) is born there.
 * `robot-box cleanup`, and `run` and `serve` before they start, kill what
 * is left in it and wait until it is empty, then unmount.  Without cgroup
 * v2 (say so once), each child's process group is recorded in
 * WORKDIR/children instead, and killed; a child's own children that left
 * its group escape that.
 */
#ifndef ROBOT_CGROUP_H
#define ROBOT_CGROUP_H

#include <stdbool.h>

#include "jobs/box/boxconf.h"

/* Puts this process (and so its children to come) in the box's cgroup,
 * or records its children's groups; false when neither can be done. */
bool cgroup_join(const struct boxconf *bc);
/*
 * Kills every process left of the box's jobs (not this process) and
 * waits, up to a minute, until they are gone.  Returns how many there
 * were, or -1 when some would not die.
 */
int cgroup_clear(const struct boxconf *bc);

#endif
