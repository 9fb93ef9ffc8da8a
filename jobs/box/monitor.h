/*
 * monitor.h: LKP's monitors, sampled every second while a workload runs:
 * the vmstat columns, iostat of the job's devices (from /proc/diskstats),
 * /proc/vmstat and /proc/meminfo.  Each sample goes into the run's
 * metrics; monitor_finish() reduces them as LKP does: rates and gauges to
 * their mean, /proc/vmstat event counters to last minus first.
 */
#ifndef ROBOT_MONITOR_H
#define ROBOT_MONITOR_H

#include <stdbool.h>
#include <stddef.h>

#include "jobs/box/metrics.h"
#include "jobs/box/procfs.h"

struct monitor {
	const char *root; /* "/proc" */
	char **disks;     /* device names to watch */
	size_t ndisks;
	struct procfs_snapshot first;
	struct procfs_snapshot prev;
	struct metrics *m; /* where samples go (borrowed) */
	double *vm_sum;    /* /proc/vmstat gauges: running sums */
	size_t vm_samples;
	double *mem_sum; /* /proc/meminfo: running sums */
	size_t mem_samples;
	double cpu_seconds; /* the monitor's own CPU use */
	size_t samples;
};

/* Takes the first snapshot.  False if /proc could not be read. */
bool monitor_start(struct monitor *mon, const char *root,
		   const char *const *disks, size_t ndisks, struct metrics *m);
/* Takes a snapshot and records the figures since the previous one. */
void monitor_sample(struct monitor *mon);
/* Adds the reductions of /proc/vmstat and /proc/meminfo to the metrics. */
void monitor_finish(struct monitor *mon);
void monitor_release(struct monitor *mon);

#endif
