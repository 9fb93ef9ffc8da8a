/*
 * storage.h: the disks and filesystems of a run.
 *
 * A job's disk is NBRD_SIZE (brd where the kernel has it, else loop
 * devices on images in /dev/shm), NLOOP_SIZE (loop devices on images in
 * /dev/shm, RAM), NFILE_SIZE (loop devices on images in the work
 * directory, the box's disk), or NHDD / NSSD (the box's configured
 * partitions).  Each gets a fresh filesystem made with LKP's mkfs
 * options and is mounted on /fs/<device>, as LKP does (fs_mark wants
 * directory names of less than 40 bytes).
 *
 * Everything is undone by storage_teardown(), and what a killed run
 * left (mounts of the box's devices, loop devices on the box's images,
 * the images) by storage_cleanup().
 */
#ifndef ROBOT_STORAGE_H
#define ROBOT_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "jobs/box/boxconf.h"
#include "robot/core/node.h"

struct storage_dev {
	char *dev;   /* /dev/loop3, /dev/sdb1 */
	char *name;  /* loop3: the name in /proc/diskstats */
	char *image; /* the backing file, or NULL */
	char *mnt;   /* the mount point, or NULL */
	int loop_fd; /* held while attached, else -1 */
	bool mounted;
	bool dio; /* the loop device does direct I/O */
};

struct storage {
	char *backend; /* what the disks really are, for the result */
	char *fs;      /* xfs, ext4, btrfs, or NULL for none */
	uint64_t size; /* bytes per disk, 0 for partitions */
	struct storage_dev *devs;
	size_t n;
	char *image_dir; /* where the images are, or NULL */
	char *log_path;  /* mkfs and mount output */
};

/*
 * Makes the disks and filesystems job asks for.  On failure *err says
 * why (the caller frees it) and whatever was made is still in s, to be
 * torn down.  log_path collects the output of mkfs and mount.
 */
bool storage_setup(struct storage *s, const struct boxconf *bc,
		   const struct node *job, const char *log_path, char **err)
	__attribute__((warn_unused_result));
/* Unmounts, detaches and deletes everything in s; safe to call twice. */
void storage_teardown(struct storage *s);
/* What the result document records: backend, fs, devices, mounts. */
json_t *storage_json(const struct storage *s);
/* The mount points, for the workloads (borrowed; NULL-terminated). */
const char **storage_mounts(const struct storage *s);
/*
 * Removes what a killed run left under bc's work directory and image
 * directories.  Returns how many things it removed; logs what it did.
 */
int storage_cleanup(const struct boxconf *bc);
/* The image directory in RAM for a box: /dev/shm/robot-box-<name>. */
char *storage_ram_dir(const struct boxconf *bc);

#endif
