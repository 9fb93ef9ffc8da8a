/*
 * boxconf.h: a test box's configuration: who it is, where it works, what
 * disks and how much RAM its jobs may use, and how it provisions a
 * commit.  A YAML file (robot-box --config FILE); every key is optional
 * and the defaults suit running on one's own machine:
 *
 *   name: lab-xfs-1            # default: the host name
 *   tbox_group: lab-xfs        # default: the name
 *   workdir: /var/tmp/robot-box
 *   ram_disk_limit: 8G         # RAM for NBRD/NLOOP images; default half
 *                              # of MemTotal
 *   hdd_partitions: [/dev/sdb1, /dev/sdc1]   # for NHDD; default none
 *   ssd_partitions: []         # for NSSD
 *   hook: /usr/local/bin/provision   # run as "hook TREE COMMIT"
 *   hook_runs_job: no          # yes: the hook runs the job itself (in a
 *                              # VM it boots), "hook TREE COMMIT JOB
 *                              # RESULT"; docs/box.md
 *   hook_timeout: 10m          # the hook's time limit
 *   hook_after: no             # yes: after each run, "hook --after TREE
 *                              # COMMIT" (back to a known-good kernel)
 *   tree: linux                # the tree commits belong to
 *   timeout: 30m               # per atomic job, unless the job says
 *   perf: perf                 # the perf program, for perf-profile and
 *                              # perf-stat (default: perf in PATH)
 *   settle: 3s                 # before a run, wait at most this long for
 *                              # the rest of the machine to be quiet
 *                              # (settle.h); 0: do not wait
 */
#ifndef ROBOT_BOXCONF_H
#define ROBOT_BOXCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "robot/core/errlist.h"

struct boxconf {
	char *path; /* the file read, or NULL for defaults */
	char *name;
	char *tbox_group;
	char *workdir;
	char *hook;          /* NULL: no provisioning */
	bool hook_runs_job;  /* the hook runs the job and writes its result */
	double hook_timeout; /* seconds */
	bool hook_after;     /* "hook --after TREE COMMIT" after each run */
	char *tree;          /* NULL: none named */
	char *perf;          /* the perf program */
	uint64_t ram_limit;  /* bytes */
	char **hdd;          /* partitions for NHDD */
	size_t nhdd;
	char **ssd; /* partitions for NSSD */
	size_t nssd;
	double timeout;  /* seconds */
	double settle;   /* seconds to wait at most for a quiet machine */
	int cpus;        /* online CPUs (a fact, not configured) */
	uint64_t memory; /* MemTotal in bytes (a fact) */
};

/* Loads path (NULL: defaults only).  Returns false with errors in el. */
bool boxconf_load(const char *path, struct boxconf *c, struct errlist *el)
	__attribute__((warn_unused_result));
void boxconf_release(struct boxconf *c);
/* The longest text of a fact (cpu_model, kernel, proc_version, each
 * disk), and the most disks named. */
#define BOXCONF_FACT_TEXT  240
#define BOXCONF_FACT_DISKS 32

/* The facts robotd matches against jobs' needs (jobs/needs.h): CPUs,
 * memory, RAM-disk limit, partitions, the filesystems it can make; and
 * those a report shows of the machine: cpu_model, kernel (the release),
 * proc_version, disks (["vda: virtio_blk, 100G"]).  Those it cannot
 * read are absent. */
json_t *boxconf_facts(const struct boxconf *bc);

#endif
