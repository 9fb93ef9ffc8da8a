/*
 * tunables.h: the vm.* settings of a run.  Before anything changes them
 * (the provisioning hook, the job's sysctl program), every vm.* tunable
 * the robot knows is saved to a state file; after the run, or after a
 * crash through robot-box cleanup, the ones that changed are written
 * back.
 */
#ifndef ROBOT_TUNABLES_H
#define ROBOT_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/core/node.h"

struct tunables {
	char **names; /* "vm.dirty_ratio" */
	char **values;
	size_t n;
	char *state_path; /* where they were saved */
};

/* The value of a setting now ("10"); NULL if it cannot be read. */
char *tunables_read(const char *name);
/* Saves every known vm.* tunable, to memory and to state_path. */
bool tunables_save(struct tunables *t, const char *state_path, char **err)
	__attribute__((warn_unused_result));
/*
 * Applies a job's sysctl mapping ({"sc_dirty_ratio": 10}, LKP's names);
 * records what was set in applied.  False with *err at the first one
 * that fails or that the robot does not restore.
 */
bool tunables_apply(const struct node *settings, json_t *applied, char **err)
	__attribute__((warn_unused_result));
/* Writes back what changed and removes the state file. */
void tunables_restore(struct tunables *t);
/* Restores from a state file left by a killed run; the count restored. */
int tunables_restore_file(const char *state_path);
void tunables_release(struct tunables *t);

/* Writes back dirty pages and drops the page cache, dentries and inodes
 * (a cold start for the next measurement); failures are not fatal. */
void tunables_drop_caches(void);

#endif
