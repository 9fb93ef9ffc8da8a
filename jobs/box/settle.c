/*
 * settle.c: waiting for a quiet machine, from /proc/stat's CPU lines.
 */
#include <time.h>
#include <unistd.h>

#include "jobs/box/procfs.h"
#include "jobs/box/settle.h"
#include "robot/core/banned.h"

/* The jiffies of every CPU state, and of the idle ones (idle, iowait). */
static bool
cpu_now(unsigned long long *total, unsigned long long *idle)
{
	struct procfs_snapshot s = {0};
	bool ok = procfs_snapshot_take(&s, "/proc", NULL, 0);

	*total = *idle = 0;
	for (int i = 0; i < 8 && ok; i++)
		*total += s.cpu[i];
	*idle = s.cpu[3] + s.cpu[4];
	procfs_snapshot_release(&s);
	return ok && *total > 0;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
settle_wait(double max, struct settle *s)
{
	struct timespec step = {0, SETTLE_STEP_MS * 1000000L};
	unsigned long long t0, i0, t1, i1;
	double start = now();
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int calm = 0;

	s->waited = 0;
	s->busy = 0;
	s->quiet = true;
	if (ncpus < 1 || !cpu_now(&t0, &i0))
		return;
	for (;;) {
		double dt, di;

		nanosleep(&step, NULL);
		if (!cpu_now(&t1, &i1) || t1 <= t0)
			return;
		/* the busy share of every CPU's jiffies, in CPUs */
		dt = (double)(t1 - t0);
		di = (double)(i1 - i0);
		s->busy = (dt - di) / dt * (double)ncpus;
		t0 = t1;
		i0 = i1;
		s->waited = now() - start;
		calm = s->busy < SETTLE_BUSY ? calm + 1 : 0;
		if (calm * SETTLE_STEP_MS >= SETTLE_QUIET_MS) {
			s->quiet = true;
			return;
		}
		if (s->waited >= max) {
			s->quiet = false;
			return;
		}
	}
}
