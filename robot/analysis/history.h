/*
 * history.h: a history file, as `robot changes FILE` reads it: one
 * series' values along its commits, in commit order.
 *
 * CSV: "commit,value" lines; several lines of one commit are its runs
 * (the commit's place is where it first appears); the first line may
 * be a header; blank lines and lines starting with '#' are skipped.
 * JSON: [{"commit": "...", "values": [number, ...]}, ...].  A file is
 * JSON when its first byte that is not blank is '['.
 */
#ifndef ROBOT_HISTORY_H
#define ROBOT_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "robot/analysis/changes.h"
#include "robot/core/errlist.h"

struct history {
	struct changes_point *pts; /* in commit order; each commit and v
				      owned */
	int *lines;                /* the line each point starts on */
	size_t n;
	size_t runs; /* values, over every point */
};

/*
 * Reads the history in data (len bytes) of the file name.  Every
 * problem is added to el as "name:line: message"; returns false when
 * there was one (h is then empty).  Release h either way.
 */
bool history_load(struct history *h, const char *name, const char *data,
		  size_t len, struct errlist *el)
	__attribute__((warn_unused_result));
void history_release(struct history *h);
/*
 * The history robotd's series history holds: commits is its array of
 * {"commit": sha, "vals": [number, ...]}, oldest first; a commit
 * without a finite value is left out.  Release h.
 */
void history_from_json(struct history *h, const json_t *commits);
/*
 * The change points cp[0..n) of h as JSON (robot changes --json, and
 * robotd's API): a new array of {"index", "commit", "change_pct" (null
 * when the mean before is 0), "p", "effect_pct", "before" and "after"
 * ({"from", "to", "runs", "mean"})}.
 */
json_t *history_changes_json(const struct history *h,
			     const struct change_point *cp, size_t n);

#endif
