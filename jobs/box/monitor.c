/*
 * monitor.c: the once-a-second monitors.
 *
 * /proc/vmstat and /proc/meminfo have some 250 fields between them; they
 * are kept as running sums (and the first and last snapshots), not as
 * series, so that a long run does not grow its result document by
 * hundreds of numbers a second.  The vmstat columns and iostat figures
 * are series.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobs/box/monitor.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

static double
cpu_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
add_sample(const char *name, double value, void *arg)
{
	metrics_append(arg, name, value, true);
}

bool
monitor_start(struct monitor *mon, const char *root, const char *const *disks,
	      size_t ndisks, struct metrics *m)
{
	double c0 = cpu_time();
	bool ok;

	memset(mon, 0, sizeof *mon);
	mon->root = root;
	mon->m = m;
	mon->disks = xcalloc(ndisks + 1, sizeof *mon->disks);
	for (size_t i = 0; i < ndisks; i++)
		mon->disks[i] = xstrdup(disks[i]);
	mon->ndisks = ndisks;
	ok = procfs_snapshot_take(&mon->first, root,
				  (const char *const *)mon->disks, ndisks);
	procfs_snapshot_take(&mon->prev, root, (const char *const *)mon->disks,
			     ndisks);
	mon->prev.t = mon->first.t;
	mon->vm_sum = xcalloc(mon->first.nvmstat + 1, sizeof *mon->vm_sum);
	mon->mem_sum = xcalloc(mon->first.nmeminfo + 1, sizeof *mon->mem_sum);
	mon->cpu_seconds += cpu_time() - c0;
	return ok;
}

void
monitor_sample(struct monitor *mon)
{
	struct procfs_snapshot now;
	double c0 = cpu_time(), dt;

	if (!procfs_snapshot_take(&now, mon->root,
				  (const char *const *)mon->disks,
				  mon->ndisks)) {
		procfs_snapshot_release(&now);
		return;
	}
	dt = now.t - mon->prev.t;
	if (dt > 0.05) {
		procfs_vmstat_columns(&mon->prev, &now, add_sample, mon->m);
		for (size_t i = 0; i < now.ndisks && i < mon->prev.ndisks; i++)
			procfs_iostat(&mon->prev.disks[i], &now.disks[i], dt,
				      add_sample, mon->m);
		/* Fields are in the same order in every snapshot of a boot;
		 * count only those that line up. */
		if (now.nvmstat == mon->first.nvmstat) {
			for (size_t i = 0; i < now.nvmstat; i++)
				mon->vm_sum[i] += (double)now.vmstat[i].value;
			mon->vm_samples++;
		}
		if (now.nmeminfo == mon->first.nmeminfo) {
			for (size_t i = 0; i < now.nmeminfo; i++)
				mon->mem_sum[i] += (double)now.meminfo[i].value;
			mon->mem_samples++;
		}
		mon->samples++;
	}
	procfs_snapshot_release(&mon->prev);
	mon->prev = now;
	mon->cpu_seconds += cpu_time() - c0;
}

void
monitor_finish(struct monitor *mon)
{
	char name[256];

	for (size_t i = 0; i < mon->first.nvmstat; i++) {
		const struct procfs_kv *f = &mon->first.vmstat[i];
		unsigned long long last;
		double v;

		if (procfs_vmstat_is_counter(f->name)) {
			if (!procfs_vmstat_get(&mon->prev, f->name, &last))
				continue;
			v = last >= f->value ? (double)(last - f->value) : 0;
		} else if (mon->vm_samples > 0) {
			v = mon->vm_sum[i] / (double)mon->vm_samples;
		} else {
			v = (double)f->value;
		}
		snprintf(name, sizeof name, "proc-vmstat.%s", f->name);
		metrics_set(mon->m, name, v);
	}
	for (size_t i = 0; i < mon->first.nmeminfo; i++) {
		const struct procfs_kv *f = &mon->first.meminfo[i];
		double v = mon->mem_samples > 0
				   ? mon->mem_sum[i] / (double)mon->mem_samples
				   : (double)f->value;

		snprintf(name, sizeof name, "meminfo.%s", f->name);
		metrics_set(mon->m, name, v);
	}
}

void
monitor_release(struct monitor *mon)
{
	procfs_snapshot_release(&mon->first);
	procfs_snapshot_release(&mon->prev);
	for (size_t i = 0; i < mon->ndisks; i++)
		free(mon->disks[i]);
	free(mon->disks);
	free(mon->vm_sum);
	free(mon->mem_sum);
	memset(mon, 0, sizeof *mon);
}
