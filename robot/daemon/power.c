/*
 * power.c: power-cycling the boxes that do not come back (power.h).
 * Each work is one box:
 *
 *   (claimed) --(the command started)--> CYCLING --(it ended, or its
 *             time limit)--> (done)
 *
 * A command that cannot start, fails or runs past POWER_TIMEOUT is said
 * in the log; the box is not power-cycled again until it was heard from
 * (the store's mark), so a command that fails is not run in a loop.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/power.h"
#include "robot/daemon/proc.h"
#include "robot/daemon/store/boxes.h"
#include "robot/core/banned.h"

#define POWER_TIMEOUT 300 /* seconds for the lab's command */

struct power {
	struct store *store;
	const struct settings *set;
	struct drain_worker *w;
	time_t started;
};

struct power_work {
	struct power *p;
	char *box;
	char *series;
	struct proc *proc; /* CYCLING */
};

static void
power_work_free(void *arg)
{
	struct power_work *pw = arg;

	if (pw->proc != NULL)
		proc_cancel(pw->proc); /* robotd stops */
	free(pw->box);
	free(pw->series);
	free(pw);
}

static void
power_on_due(const struct store_silent_boxes *due, const struct problem *pr,
	     void *arg)
{
	struct drain_worker *w = arg;
	struct power_work **works = NULL;
	size_t n = 0;

	if (pr != NULL)
		log_warnx("power: cannot read the silent boxes: %s (tried "
			  "again next tick)",
			  pr->message);
	for (size_t i = 0; due != NULL && i < due->nboxes; i++) {
		const struct store_silent_box *v = &due->boxes[i];
		struct power_work *pw;

		if (v->box == NULL)
			continue;
		pw = xcalloc(1, sizeof *pw);
		pw->p = drain_ctx(w);
		pw->box = xstrdup(v->box);
		pw->series = xstrdup(v->series ? v->series : "?");
		works = xreallocarray(works, n + 1, sizeof *works);
		works[n++] = pw;
	}
	drain_claimed(w, (void *const *)works, n, pr != NULL);
	free(works);
}

static void
power_claim(struct drain_worker *w, int n)
{
	struct power *p = drain_ctx(w);

	(void)n;
	/* A robotd that was away finds every lease expired: its boxes
	 * get a lease's time and a long-poll to be heard from first. */
	if (p->set->power_cycle == NULL || p->set->power_cycle[0] == '\0' ||
	    time(NULL) - p->started <
		    p->set->lease_seconds + p->set->long_poll) {
		drain_claimed(w, NULL, 0, false);
		return;
	}
	/* The box gets one more lease's time to be heard from. */
	store_power_cycle_due(p->store, p->set->lease_seconds, power_on_due, w);
}

static void
power_on_exit(int status, const char *out, size_t outlen, const char *err,
	      void *arg)
{
	struct power_work *pw = arg;

	(void)out;
	(void)outlen;
	pw->proc = NULL;
	if (status == 0)
		log_info("power: box %s power-cycled (power_cycle ended "
			 "well); its run went back to the queue",
			 pw->box);
	else
		log_warnx("power: power_cycle of box %s %s%s%s", pw->box,
			  status < 0 ? "did not end in time or did not start"
				     : "failed",
			  err && err[0] ? ": " : "", err ? err : "");
	drain_done(pw->p->w, pw);
}

static void
power_start(struct drain_worker *w, void *work)
{
	struct power_work *pw = work;
	struct power *p = drain_ctx(w);
	char *argv[] = {"/bin/sh",     "-c",    p->set->power_cycle,
			"power_cycle", pw->box, NULL};

	log_warnx("power: box %s went silent in the middle of a run of %s "
		  "(its lease expired): running power_cycle",
		  pw->box, pw->series);
	pw->proc = proc_run(drain_base(w), argv, NULL, POWER_TIMEOUT, 4096,
			    power_on_exit, pw);
}

static const struct drain_ops power_ops = {
	.name = "power",
	.tick = 2,
	.slots = 4,
	.batch = 0,
	.claim = power_claim,
	.start = power_start,
	.free = power_work_free,
};

struct power *
power_new(struct drain *d, struct store *store, const struct settings *set)
{
	struct power *p = xcalloc(1, sizeof *p);

	p->store = store;
	p->set = set;
	p->started = time(NULL);
	p->w = drain_add(d, &power_ops, p);
	return p;
}

void
power_free(struct power *p)
{
	free(p);
}
