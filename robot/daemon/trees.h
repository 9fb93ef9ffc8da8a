/*
 * trees.h: the trees robotd follows (DESIGN.md section 7).  A tree is a
 * git repository: a URL, the branches to watch (globs), the base ref a
 * branch is measured against (a ref, or a glob of tags: the newest), the
 * job files run on each new head, the box groups, the runs per side, the
 * most runs per side analysis may ask for, and the poll interval.
 *
 * robotd keeps a bare mirror of each in STATE-DIR/trees/NAME.git and
 * fetches it every poll interval with git, a child process read from the
 * event loop (robot/daemon/proc.h: a fetch that hangs is killed after
 * tree_fetch_timeout and retried with backoff; one robotd fetches a tree
 * at a time).  It records the new commits (never walking the history it
 * knows), the heads, and queues the tree's jobs for each new head and
 * its base (the merge-base with the base ref), newest heads first; a
 * head that a force-push dropped has its queued runs cancelled.
 */
#ifndef ROBOT_TREES_H
#define ROBOT_TREES_H

#include <stdbool.h>

#include <event2/event.h>
#include <jansson.h>

#include "robot/daemon/drain.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct trees;

/* A worker of d: a tree due is fetched every second it is looked at. */
struct trees *trees_new(struct drain *d, struct event_base *base,
			struct store *store, const struct settings *set);
void trees_free(struct trees *t);

/*
 * Checks a tree as `robot tree add` sends it ({name, url, branches,
 * base_ref, jobs: [{name, text}], tbox_groups, runs, max_runs, poll});
 * with partial (`robot tree set`), only the members given besides the
 * name.  Fills the defaults of a new tree in.  NULL, or the problem with
 * one detail per fault.
 */
struct problem *trees_check(json_t *tree, bool partial);

#endif
