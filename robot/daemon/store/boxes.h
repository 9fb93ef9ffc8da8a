/*
 * boxes.h: the store's boxes (sql/functions/boxes.sql).
 */
#ifndef ROBOT_STORE_BOXES_H
#define ROBOT_STORE_BOXES_H

#include "robot/daemon/store.h"

/* A box (re)registers; its leases from before go back, each a failure
 * of the box (broken after broken_after in a row).  Its state. */
void store_register(struct store *s, const char *box, const char *group,
		    const char *facts, int broken_after, store_text_cb cb,
		    void *arg);
/* A broken or suspect box back to idle: its state. */
void store_reset(struct store *s, const char *box, store_text_cb cb, void *arg);
/* Each box idle for every seconds (0: none) gets a reference run of its
 * canary: robot_reference_due()'s JSON ([{box, series, commit, job}]). */
void store_reference_due(struct store *s, int every, store_text_cb cb,
			 void *arg);
/* The next box whose canary has new runs, claimed: robot_canary_next()'s
 * JSON ({box, canaries: [{series, commit, kpi, values}]}), or NULL. */
void store_canary_next(struct store *s, store_text_cb cb, void *arg);
/* Box changed under us since its result since: suspect (no work, its
 * pairs' rounds on it since then measured again), a note for the
 * operators with message.  The pairs measured again, as text. */
void store_box_suspect(struct store *s, const char *box, long long since,
		       const char *kpi, const char *series, const char *message,
		       store_text_cb cb, void *arg);

/* The boxes silent since their lease expired mid-run, grace seconds ago
 * or more, and not yet power-cycled, marked, with a lab note each:
 * robot_power_cycle_due()'s JSON ([{box, series, lease}]). */
void store_power_cycle_due(struct store *s, int grace, store_text_cb cb,
			   void *arg);

#endif
