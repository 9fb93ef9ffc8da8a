/*
 * sysctl.h: LKP's sysctl settings ("sysctl: {sc_dirty_ratio: 10}"): each
 * LKP name's /proc/sys path, and which of them the robot applies.
 */
#ifndef ROBOT_SYSCTL_H
#define ROBOT_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>

/* The path under /proc/sys of an LKP setting ("vm/dirty_ratio"), or NULL
 * for a name LKP does not have. */
const char *sysctl_path(const char *name);
/* The i-th of LKP's names, or NULL past the last. */
const char *sysctl_name(size_t i);
/* Whether robot-box applies (and restores) the setting. */
bool sysctl_applies(const char *name);
/* The i-th tunable robot-box saves and restores ("vm/dirty_ratio"), or
 * NULL past the last. */
const char *sysctl_tunable(size_t i);
/* LKP's name of a /proc/sys path ("vm/dirty_ratio": "sc_dirty_ratio"). */
const char *sysctl_name_of_path(const char *path);
/* LKP's name of a setting written the kernel's way ("vm.dirty_ratio":
 * "sc_dirty_ratio"), or NULL. */
const char *sysctl_of_dotted(const char *key);
/*
 * The monitor metrics that are computed from the tunable at path
 * ("vm/dirty_bytes"): a change of the tunable changes them, which is not
 * a finding.  A NULL-ended list (empty for most).
 */
const char *const *sysctl_followers(const char *path);
/* The LKP name closest to a misspelt one, or NULL. */
const char *sysctl_suggest(const char *word);

#endif
