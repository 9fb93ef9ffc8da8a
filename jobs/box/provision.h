/*
 * provision.h: putting a commit on the box before a run.  The box's hook
 * is run as "HOOK TREE COMMIT" (a real lab installs and boots that
 * kernel; the demo tree applies vm.* tunables); what it prints as
 * "key: value" lines is recorded, with the kernel the box runs, in the
 * result document's "provision".
 *
 * A hook that exits with PROVISION_JOB_FAULT says the commit itself is
 * wrong (it does not exist, it does not build): the run fails as the
 * job's fault, and robotd does not count it against the box.  Any other
 * failure is the box's.
 */
#ifndef ROBOT_PROVISION_H
#define ROBOT_PROVISION_H

#include <jansson.h>

#include "jobs/box/boxconf.h"

#define PROVISION_JOB_FAULT 2

/*
 * Provisions commit of tree (either may be NULL).  Returns what the box
 * runs, or NULL with *err and *job_fault (whether the hook blamed the
 * commit).  The hook's output is added to outputs as "provision".
 *
 * With job and result (a box whose hook runs the job, hook_runs_job),
 * the hook is run as "HOOK TREE COMMIT JOB RESULT": it runs the atomic
 * job in the file job where the commit runs (a VM with the commit's
 * kernel) and writes that run's result document to the file result.
 */
json_t *provision_run(const struct boxconf *bc, const char *tree,
		      const char *commit, const char *job, const char *result,
		      const char *rundir, json_t *outputs, char **err,
		      bool *job_fault);

/*
 * With hook_after, runs the hook after a run as "HOOK --after TREE
 * COMMIT" (the kernel hook's kexec back end returns to the known-good
 * kernel), at most hook_timeout, its output to the log.  The run's
 * result stands whatever it does: false (said in the log) when it
 * failed.  Without hook_after, nothing and true.
 */
bool provision_after(const struct boxconf *bc, const char *tree,
		     const char *commit);

#endif
