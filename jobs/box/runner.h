/*
 * runner.h: one run of one atomic job on this box, from provisioning to
 * the result document:
 *
 *   save the vm.* tunables -> apply the job's sysctl -> provision the
 *   commit (the hook) -> make the disks and filesystems -> drop the
 *   caches -> run the workload with the monitors, once a second ->
 *   collect the numbers -> tear everything down and restore the tunables
 *
 * Any failure becomes data: a result with status "failed" and an error
 * saying what happened, after the same teardown.  SIGINT, SIGTERM or
 * SIGHUP stop the run ("incomplete"), also after the teardown.
 */
#ifndef ROBOT_RUNNER_H
#define ROBOT_RUNNER_H

#include <jansson.h>

#include "jobs/box/boxconf.h"
#include "jobs/jobfile.h"

struct runner_request {
	const struct boxconf *bc;
	const struct atomic_job *aj;
	const char *commit; /* NULL: none */
	const char *tree;   /* NULL: the box's */
	int run;            /* 1-based, of runs */
	int runs;
	const char *label; /* "[2/6]" for progress lines */
};

/* The result document of the run (never NULL). */
json_t *runner_run(const struct runner_request *rq);

#endif
