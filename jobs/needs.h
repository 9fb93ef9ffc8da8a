/*
 * needs.h: what an atomic job needs of a box, and what a box has, so
 * that the scheduler hands a job only to a box that can run it and a
 * submit is refused when no box of the group can (DESIGN.md section 4).
 * Both are JSON objects; the rule that compares them is robot_unfit() in
 * sql/functions/jobs.sql, so that the claim query can apply it.
 *
 *   needs: {"ram": bytes of RAM disks, "hdd": n, "ssd": n, "fs": "xfs",
 *           "fs2": true, "md": true}          (absent keys: nothing)
 *   facts: {"cpus", "memory", "ram_disk_limit", "hdd", "ssd",
 *           "fs": ["btrfs", "ext4", "xfs"], "tbox_group"}
 */
#ifndef ROBOT_NEEDS_H
#define ROBOT_NEEDS_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "robot/core/node.h"

/* A disk parameter: 2LOOP_1G is n 2, kind "LOOP", size 1 GiB. */
struct needs_disk {
	unsigned long n;
	char kind[16]; /* BRD, LOOP, FILE, HDD, SSD */
	uint64_t size; /* 0 for partitions */
};

/* Parses spec; false when it is not of the form N<KIND>[_SIZE]. */
bool needs_parse_disk(const char *spec, struct needs_disk *d);
/* job[program] when it is a plain value ("fs: xfs"), or its option of
 * the same name; NULL when absent.  The caller frees it. */
char *needs_value(const struct node *job, const char *program);
json_t *needs_of_job(const struct node *job);
/*
 * Why robot cannot run an atomic job on any box (a program or setup it
 * does not do, pmem disks, LKP's multi-box roles, a sysctl it does not
 * restore), or NULL when it can.  The caller frees the reason.
 */
char *needs_unrunnable(const struct node *job);

#endif
