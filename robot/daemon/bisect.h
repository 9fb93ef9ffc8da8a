/*
 * bisect.h: robotd bisects a regression to its first bad commit
 * (DESIGN.md section 7, docs/bisect.md).  A bisection's state is in the
 * database (sql/functions/bisect.sql); this drives the bisections whose step
 * has its answer: it classifies the step (robot/analysis/bisectstep.h),
 * asks the tree's mirror for the next midpoint (`git rev-list
 * --bisect-all`) and stores the next step, whose runs and comparisons
 * are the analysis' ordinary work.
 */
#ifndef ROBOT_BISECT_H
#define ROBOT_BISECT_H

#include <event2/event.h>
#include <jansson.h>

#include "robot/daemon/drain.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/settings.h"
#include "robot/daemon/store.h"

struct bisect;

/* A worker of d, woken by ":bisect" (a bisection's step may have its
 * answer). */
struct bisect *bisect_new(struct drain *d, struct event_base *base,
			  struct store *store, const struct settings *set);
void bisect_free(struct bisect *b);

/*
 * Starts a bisection for by from req ({"regression": ID} or {"series",
 * "good", "bad", "tree", "kpi"}; the commits are resolved in the tree's
 * mirror): cb gets the bisection's JSON text, or the problem (400 with
 * every fault of req).  cb runs from the loop, never inside the call.
 */
void bisect_start(struct bisect *b, json_t *req, const char *by,
		  store_text_cb cb, void *arg);

#endif
