/*
 * cgroup.c: a box's job processes kept together (cgroup.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobs/box/cgroup.h"
#include "jobs/box/child.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define CGROUP_WAIT 60 /* seconds killed processes may take to go */

/* Where cgroup v2 is mounted ("/sys/fs/cgroup", or ".../unified" on a
 * hybrid system), or NULL. */
static char *
cgroup_mount(void)
{
	FILE *fp = fopen("/proc/self/mounts", "r");
	char line[4096], *found = NULL;

	if (fp == NULL)
		return NULL;
	while (found == NULL && fgets(line, sizeof line, fp) != NULL) {
		char *save = NULL, *dev = strtok_r(line, " ", &save);
		char *dir = dev ? strtok_r(NULL, " ", &save) : NULL;
		char *type = dir ? strtok_r(NULL, " ", &save) : NULL;

		if (type != NULL && strcmp(type, "cgroup2") == 0)
			found = xstrdup(dir);
	}
	fclose(fp);
	return found;
}

/* The box's cgroup: MOUNT/robot-box/NAME, or NULL without cgroup v2. */
static char *
cgroup_dir(const struct boxconf *bc)
{
	char *m = cgroup_mount(), *d;

	if (m == NULL)
		return NULL;
	d = xasprintf("%s/robot-box/%s", m, bc->name);
	free(m);
	return d;
}

static bool
write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	bool ok;

	if (fp == NULL)
		return false;
	ok = fputs(text, fp) >= 0;
	return fclose(fp) == 0 && ok;
}

static char *
groups_file(const struct boxconf *bc)
{
	return xasprintf("%s/children", bc->workdir);
}

bool
cgroup_join(const struct boxconf *bc)
{
	static bool said;
	char *dir = cgroup_dir(bc), *procs, pid[32];
	bool ok = false;

	if (dir != NULL) {
		char *parent = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));

		if ((mkdir(parent, 0755) == 0 || errno == EEXIST) &&
		    (mkdir(dir, 0755) == 0 || errno == EEXIST)) {
			procs = xasprintf("%s/cgroup.procs", dir);
			snprintf(pid, sizeof pid, "%d\n", (int)getpid());
			ok = write_text(procs, pid);
			free(procs);
		}
		free(parent);
	}
	if (!ok) {
		char *file = groups_file(bc);

		if (!said)
			log_info("no cgroup v2 to join%s%s: a killed run's "
				 "processes are found by their process "
				 "groups instead (their own children may "
				 "escape)",
				 dir ? " at " : "", dir ? dir : "");
		said = true;
		child_record_groups(file);
		free(file);
	}
	free(dir);
	return true;
}

/* The processes listed in a cgroup.procs other than this one. */
static int
live_procs(const char *procs)
{
	FILE *fp = fopen(procs, "r");
	int n = 0, pid;

	if (fp == NULL)
		return 0;
	while (fscanf(fp, "%d", &pid) == 1)
		n += pid != (int)getpid();
	fclose(fp);
	return n;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Kills what is in the box's cgroup; the number, or -1. */
static int
clear_cgroup(const char *dir)
{
	char *procs = xasprintf("%s/cgroup.procs", dir);
	char *killf = xasprintf("%s/cgroup.kill", dir);
	int n = live_procs(procs), left = n;

	if (n > 0) {
		/* cgroup.kill (Linux 5.14) kills them all at once; else
		 * one by one, until none is left. */
		if (!write_text(killf, "1\n")) {
			FILE *fp = fopen(procs, "r");
			int pid;

			while (fp != NULL && fscanf(fp, "%d", &pid) == 1)
				if (pid != (int)getpid())
					kill(pid, SIGKILL);
			if (fp != NULL)
				fclose(fp);
		}
		for (int i = 0;
		     i < CGROUP_WAIT * 10 && (left = live_procs(procs)) > 0;
		     i++)
			sleep_ms(100);
	}
	free(procs);
	free(killf);
	return left > 0 ? -1 : n;
}

/* Kills the process groups recorded in the groups file; the number of
 * groups still alive, or -1. */
static int
clear_groups(const char *file)
{
	FILE *fp = fopen(file, "r");
	int n = 0, left = 0, g;

	if (fp == NULL)
		return 0;
	while (fscanf(fp, "%d", &g) == 1)
		if (g > 1 && kill(-g, SIGKILL) == 0)
			n++;
	for (int i = 0; n > 0 && i < CGROUP_WAIT * 10; i++) {
		rewind(fp);
		left = 0;
		while (fscanf(fp, "%d", &g) == 1)
			left += g > 1 && kill(-g, 0) == 0;
		if (left == 0)
			break;
		sleep_ms(100);
	}
	fclose(fp);
	if (left == 0)
		unlink(file);
	return left > 0 ? -1 : n;
}

int
cgroup_clear(const struct boxconf *bc)
{
	char *dir = cgroup_dir(bc), *file = groups_file(bc);
	int a = 0, b = clear_groups(file);

	if (dir != NULL)
		a = clear_cgroup(dir);
	if (a > 0 || b > 0)
		log_info("cleanup: killed %d process%s a killed run left",
			 a + b, a + b == 1 ? "" : "es");
	if (a < 0 || b < 0)
		log_warnx("cleanup: processes of a killed run would not die "
			  "within %d s (%s)",
			  CGROUP_WAIT, dir ? dir : file);
	free(dir);
	free(file);
	return a < 0 || b < 0 ? -1 : a + b;
}
