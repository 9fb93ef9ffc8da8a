/*
 * box.h: what robot-box's commands share.
 */
#ifndef ROBOT_BOX_H
#define ROBOT_BOX_H

#include <stdbool.h>

#include "jobs/box/boxconf.h"

/*
 * One robot-box at a time per work directory: runs change global state
 * (loop devices, mounts, vm.* tunables).  The lock is held until exit.
 */
bool box_lock_workdir(const struct boxconf *bc);
/* Undoes what a killed run left; returns how many things. */
int box_cleanup_leftovers(const struct boxconf *bc);
/* Loads the box configuration at path (NULL: the defaults); prints its
 * problems and returns false (bc released) when it is invalid. */
bool box_load_config(const char *path, struct boxconf *bc);
/* Whether we are root; says why it is needed when not. */
bool box_need_root(const char *what);

#endif
