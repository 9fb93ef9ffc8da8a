/*
 * workloads.h: the benchmarks robot-box runs, as the rest of robot knows
 * them: each one's name (its program in a job file, jobs/catalog.c has
 * its options), the prefix of its metrics, and how the run page charts
 * its per-second series.  Its runner and its tool's parser are
 * jobs/box/<name>.c (a struct workload_ops of jobs/box/workload.h).
 * A new workload is that file, a row here and its catalog entry
 * (docs/architecture.md); test_workloads holds the three together.
 */
#ifndef ROBOT_WORKLOADS_H
#define ROBOT_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>

struct workload_kind {
	const char *name;   /* "dd" */
	const char *prefix; /* its metrics': "dd." */
	/* its per-second series name a device ("dd.loop0.write_bytes_per_
	 * sec"): one chart holds every device's */
	bool per_device;
	/* the chart the run page draws before the rest of the workload's
	 * (its group, as web/pages/run.c names them), or NULL */
	const char *first_chart;
};

/* Every workload, in the order the run page charts them; NULL name at
 * the end. */
extern const struct workload_kind workload_kinds[];

/* The workload of metric name (by its prefix), or NULL. */
const struct workload_kind *workload_of_metric(const char *name);
/* The workload called the len bytes at name, or NULL. */
const struct workload_kind *workload_named(const char *name, size_t len);

#endif
