/*
 * boxes.h: the store's boxes (sql/functions/boxes.sql).
 */
#ifndef ROBOT_STORE_BOXES_H
#define ROBOT_STORE_BOXES_H

#include "robot/core/view.h"
#include "robot/daemon/store.h"

/* A box (re)registers; its leases from before go back, each a failure
 * of the box (broken after broken_after in a row).  Its state. */
void store_register(struct store *s, const char *box, const char *group,
		    const char *facts, int broken_after, store_text_cb cb,
		    void *arg);
/* A box's facts as it registered them (robot-box's boxconf.c writes
 * them; robotd's lab.c checks them before they are stored), as a report
 * reads them: any may be absent (cpus 0, memory NAN). */
struct store_box_facts {
	long long cpus;
	double memory; /* bytes */
	const char *cpu_model, *kernel, *proc_version;
	const char **disks;
	size_t ndisks;
};
extern const struct view_type store_box_facts_view;
/* A box's page (robot_box()): its record, facts, newest 20 runs and
 * the lab's notes that name it; NULL when there is no such box
 * (store_box_view). */
void store_box(struct store *s, const char *name, store_text_cb cb, void *arg);
struct store_box_run {
	long long id;
	const char *state, *series, *commit, *error, *updated;
};
struct store_box_note {
	const char *series, *message, *created;
};
struct store_box {
	const char *name, *tbox_group, *state; /* state: suspect, revoked */
	const char *suspect, *revoked, *last_seen, *registered, *power_cycled;
	long long failures;
	struct store_box_facts facts;
	struct store_box_run *runs; /* newest first */
	size_t nruns;
	struct store_box_note *notes;
	size_t nnotes;
};
extern const struct view_type store_box_view;
/* A broken or suspect box back to idle: its state. */
void store_reset(struct store *s, const char *box, store_text_cb cb, void *arg);
/* A box out of the lab, by whom (robot_box_revoke()): {box, tokens,
 * leases}; 404 for a box robotd never knew. */
void store_box_revoke(struct store *s, const char *box, const char *by,
		      store_text_cb cb, void *arg);
/* A reference run given to a box idle for long. */
struct store_reference_run {
	const char *box, *series, *commit;
	long long job;
};
struct store_reference_runs {
	struct store_reference_run *runs;
	size_t nruns;
};
typedef void (*store_reference_cb)(const struct store_reference_runs *r,
				   const struct problem *p, void *arg);
/* Each box idle for every seconds (0: none) gets a reference run of its
 * canary (robot_reference_due()). */
void store_reference_due(struct store *s, int every, store_reference_cb cb,
			 void *arg);
/* A box's canary: a base's KPI on it, its newest runs' values and their
 * results' ids, oldest first. */
struct store_canary {
	const char *series, *commit, *kpi;
	double *values;
	size_t nvalues;
	long long *ids;
	size_t nids;
};
struct store_canary_claim {
	const char *box;
	long long checked; /* the results up to this id were seen before */
	struct store_canary *canaries;
	size_t ncanaries;
};
typedef void (*store_canary_cb)(const struct store_canary_claim *c,
				const struct problem *p, void *arg);
/* The next box whose canary has new runs, claimed (robot_canary_next()),
 * or NULL. */
void store_canary_next(struct store *s, store_canary_cb cb, void *arg);
/* Box changed under us since its result since: suspect (no work, its
 * pairs' rounds on it since then measured again), a note for the
 * operators with message.  The pairs measured again, as text. */
void store_box_suspect(struct store *s, const char *box, long long since,
		       const char *kpi, const char *series, const char *message,
		       store_text_cb cb, void *arg);

/* A box silent since its lease expired mid-run. */
struct store_silent_box {
	const char *box, *series;
	long long lease;
};
struct store_silent_boxes {
	struct store_silent_box *boxes;
	size_t nboxes;
};
typedef void (*store_silent_cb)(const struct store_silent_boxes *s,
				const struct problem *p, void *arg);
/* The boxes silent since their lease expired mid-run, grace seconds ago
 * or more, and not yet power-cycled, marked, with a lab note each
 * (robot_power_cycle_due()). */
void store_power_cycle_due(struct store *s, int grace, store_silent_cb cb,
			   void *arg);

#endif
