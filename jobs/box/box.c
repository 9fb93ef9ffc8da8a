/*
 * box.c: what robot-box's commands share: the work directory's lock,
 * the cleanup of what a killed run left, the box configuration, root.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/box/box.h"
#include "jobs/box/cgroup.h"
#include "jobs/box/storage.h"
#include "jobs/box/tunables.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/*
 * One robot-box at a time per work directory: runs change global state
 * (loop devices, mounts, vm.* tunables).  The lock is held until exit.
 */
bool
box_lock_workdir(const struct boxconf *bc)
{
	char *path;
	int fd;

	mkdir(bc->workdir, 0755);
	path = xasprintf("%s/lock", bc->workdir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1) {
		log_warn("cannot open '%s'", path);
		free(path);
		return false;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		log_warnx("another robot-box is working in '%s' (%s is locked)",
			  bc->workdir, path);
		free(path);
		close(fd);
		return false;
	}
	free(path);
	return true; /* fd stays open: the lock lasts until exit */
}

/* Undoes what a killed run left; returns how many things. */
int
box_cleanup_leftovers(const struct boxconf *bc)
{
	char *saved = xasprintf("%s/sysctl.saved", bc->workdir);
	/* The processes first: one still writing keeps its mount busy. */
	int p = cgroup_clear(bc), n = storage_cleanup(bc),
	    t = tunables_restore_file(saved);

	if (t > 0)
		log_info("cleanup: restored %d vm.* setting%s", t,
			 t == 1 ? "" : "s");
	free(saved);
	return (p > 0 ? p : 0) + n + t;
}

bool
box_load_config(const char *path, struct boxconf *bc)
{
	struct errlist el;
	bool ok;

	errlist_init(&el);
	ok = boxconf_load(path, bc, &el);
	errlist_print(&el, stderr);
	errlist_release(&el);
	if (!ok)
		boxconf_release(bc);
	return ok;
}

bool
box_need_root(const char *what)
{
	if (geteuid() == 0)
		return true;
	log_warnx("robot-box %s needs root: it sets up loop devices, "
		  "filesystems and vm.* tunables",
		  what);
	return false;
}
