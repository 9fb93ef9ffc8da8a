/*
 * perfmon.h: LKP's perf-profile and perf-stat monitors, as perf children
 * beside the workload: "perf record -a -g" or "perf stat -a -I", started
 * after the job's delay and stopped (SIGINT) after its duration or when
 * the workload ends; then folded into perf-profile.* or perf-stat.*
 * stats (perfparse.h).
 *
 * The job's options (docs/box.md), as LKP's:
 *
 *   perf-profile: {delay: 1, duration: 30, freq: 100, events: cycles:pp}
 *   perf-stat: {delay: 1, duration: 30, interval: 1, events: "a,b"}
 *
 * A monitor that cannot run (no perf on the box, an event the kernel
 * does not have, a workload over before the delay) leaves a warning for
 * the result document, and the run goes on without it.
 *
 *   WAITING --delay--> RECORDING --duration or stop--> STOPPED
 *   STOPPED --finish--> DONE           any step --fault--> FAILED
 */
#ifndef ROBOT_PERFMON_H
#define ROBOT_PERFMON_H

#include <stdbool.h>

#include "jobs/box/child.h"
#include "jobs/box/metrics.h"
#include "robot/core/node.h"

enum perfmon_state {
	PERFMON_WAITING,
	PERFMON_RECORDING,
	PERFMON_STOPPED,
	PERFMON_DONE,
	PERFMON_FAILED,
};

struct perfmon {
	const char *kind; /* "perf-profile" or "perf-stat" */
	enum perfmon_state state;
	const char *perf; /* the program (the box's "perf:") */
	char *data;       /* perf record's data, or perf stat's output */
	char *log;        /* perf's stderr */
	char *freq;
	char *events;
	char *interval_ms;
	double delay;    /* seconds after the workload started */
	double duration; /* seconds; 0: until the workload ends */
	double started;  /* when it began recording (child_now()) */
	double recorded; /* seconds it recorded */
	double cpu;      /* CPU seconds perf used recording */
	struct child c;
	char *warning; /* why it failed, for the result document */
};

/* perf-profile's samples a second on each CPU unless the job says: at
 * 800 Hz, dd on this VM lost 5% of its rate; at 100 Hz nothing
 * measurable (docs/box.md, bench/perf_profile_cost.sh). */
#define PERFMON_FREQ "100"

/* The monitors robot-box runs, NULL-terminated: PERFMON_KINDS of them. */
#define PERFMON_KINDS 2
extern const char *const perfmon_kinds[PERFMON_KINDS + 1];

/* Whether the job asks for monitor kind. */
bool perfmon_wanted(const struct node *job, const char *kind);
/* Reads the job's options; a bad one fails it (with its warning). */
void perfmon_init(struct perfmon *pm, const char *kind, const struct node *job,
		  const char *perf, const char *rundir);
/* Once a second, with the seconds since the workload started: starts
 * perf after the delay, notices it ending early, stops it after the
 * duration. */
void perfmon_tick(struct perfmon *pm, double elapsed);
/* The workload ended: stops perf. */
void perfmon_stop(struct perfmon *pm);
/* Folds what perf recorded into m (perf-profile.*, perf-stat.*). */
void perfmon_finish(struct perfmon *pm, struct metrics *m);
void perfmon_release(struct perfmon *pm);

#endif
