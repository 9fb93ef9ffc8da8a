/*
 * procfs.c: kernel counters and the figures between two readings.
 *
 * The formulas are those of procps' vmstat and sysstat's iostat -x (the
 * older column set that LKP names: rrqm/s wrqm/s r/s w/s rkB/s wkB/s
 * avgrq-sz avgqu-sz await r_await w_await svctm util).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobs/box/procfs.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

/* Prefixes of /proc/vmstat event counters (LKP's event-counter-prefixes). */
static const char *const counter_prefixes[] = {"allocstall",
					       "compact_",
					       "htlb_buddy_alloc_",
					       "kswapd_",
					       "nr_dirtied",
					       "nr_promoted",
					       "nr_promote_fail",
					       "nr_promote_isolate_fail",
					       "nr_promote_ratelimit",
					       "nr_vmscan_immediate_reclaim",
					       "nr_written",
					       "numa_",
					       "pageoutrun",
					       "pg",
					       "pswp",
					       "slabs_scanned",
					       "thp_",
					       "unevictable_pgs_",
					       "zone_reclaim_failed",
					       NULL};

bool
procfs_vmstat_is_counter(const char *name)
{
	for (size_t i = 0; counter_prefixes[i] != NULL; i++)
		if (str_has_prefix(name, counter_prefixes[i]))
			return true;
	return false;
}

bool
procfs_parse_stat(const char *text, struct procfs_snapshot *s)
{
	bool cpu = false;

	for (const char *l = text; l != NULL && *l != '\0';) {
		const char *nl = strchr(l, '\n');

		if (strncmp(l, "cpu ", 4) == 0) {
			cpu = sscanf(l + 4,
				     "%llu %llu %llu %llu %llu %llu %llu %llu",
				     &s->cpu[0], &s->cpu[1], &s->cpu[2],
				     &s->cpu[3], &s->cpu[4], &s->cpu[5],
				     &s->cpu[6], &s->cpu[7]) >= 4;
		} else if (strncmp(l, "ctxt ", 5) == 0) {
			s->ctxt = strtoull(l + 5, NULL, 10);
		} else if (strncmp(l, "intr ", 5) == 0) {
			s->intr = strtoull(l + 5, NULL, 10);
		} else if (strncmp(l, "procs_running ", 14) == 0) {
			s->procs_running = strtoull(l + 14, NULL, 10);
		} else if (strncmp(l, "procs_blocked ", 14) == 0) {
			s->procs_blocked = strtoull(l + 14, NULL, 10);
		}
		l = nl ? nl + 1 : NULL;
	}
	return cpu;
}

/* "name value [kB]" lines into a key-value list. */
static bool
parse_kv(const char *text, struct procfs_kv **v, size_t *n, bool colon)
{
	size_t cap = 0;

	for (const char *l = text; l != NULL && *l != '\0';) {
		const char *nl = strchr(l, '\n');
		const char *sep = colon ? strchr(l, ':') : strchr(l, ' ');
		char *end;
		unsigned long long val;

		if (sep != NULL && (nl == NULL || sep < nl) && sep > l) {
			val = strtoull(sep + 1, &end, 10);
			if (end != sep + 1) {
				if (*n == cap) {
					cap = cap ? cap * 2 : 256;
					*v = xreallocarray(*v, cap, sizeof **v);
				}
				(*v)[*n].name = xstrndup(l, (size_t)(sep - l));
				(*v)[*n].value = val;
				(*n)++;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return *n > 0;
}

bool
procfs_parse_vmstat(const char *text, struct procfs_snapshot *s)
{
	return parse_kv(text, &s->vmstat, &s->nvmstat, false);
}

bool
procfs_parse_meminfo(const char *text, struct procfs_snapshot *s)
{
	return parse_kv(text, &s->meminfo, &s->nmeminfo, true);
}

bool
procfs_parse_diskstats(const char *text, const char *const *names,
		       size_t nnames, struct procfs_snapshot *s)
{
	if (names != NULL) {
		s->disks = xcalloc(nnames + 1, sizeof *s->disks);
		s->ndisks = nnames;
		for (size_t i = 0; i < nnames; i++)
			snprintf(s->disks[i].name, sizeof s->disks[i].name,
				 "%s", names[i]);
	}
	for (const char *l = text; l != NULL && *l != '\0';) {
		const char *nl = strchr(l, '\n');
		struct procfs_disk d;
		unsigned major, minor;
		char name[sizeof d.name];

		memset(&d, 0, sizeof d);
		if (sscanf(l,
			   "%u %u %63s %llu %llu %llu %llu %llu %llu %llu "
			   "%llu %llu %llu %llu",
			   &major, &minor, name, &d.rd_ios, &d.rd_merges,
			   &d.rd_sectors, &d.rd_ticks, &d.wr_ios, &d.wr_merges,
			   &d.wr_sectors, &d.wr_ticks, &d.in_flight,
			   &d.io_ticks, &d.time_in_queue) == 14) {
			snprintf(d.name, sizeof d.name, "%s", name);
			if (names == NULL) {
				s->disks =
					xreallocarray(s->disks, s->ndisks + 1,
						      sizeof *s->disks);
				s->disks[s->ndisks++] = d;
			} else {
				for (size_t i = 0; i < nnames; i++)
					if (strcmp(names[i], name) == 0)
						s->disks[i] = d;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return true;
}

/* Reads a small /proc file whole into buf (NUL-terminated). */
static bool
read_proc(const char *root, const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t n, total = 0;
	int fd;

	snprintf(path, sizeof path, "%s/%s", root, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	while ((size_t)total < size - 1 &&
	       (n = read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total > 0;
}

bool
procfs_snapshot_take(struct procfs_snapshot *s, const char *root,
		     const char *const *disks, size_t ndisks)
{
	static char buf[256 * 1024];
	struct timespec ts;
	bool ok = true;

	memset(s, 0, sizeof *s);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->t = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	ok = read_proc(root, "stat", buf, sizeof buf) &&
	     procfs_parse_stat(buf, s) && ok;
	ok = read_proc(root, "vmstat", buf, sizeof buf) &&
	     procfs_parse_vmstat(buf, s) && ok;
	ok = read_proc(root, "meminfo", buf, sizeof buf) &&
	     procfs_parse_meminfo(buf, s) && ok;
	ok = read_proc(root, "diskstats", buf, sizeof buf) &&
	     procfs_parse_diskstats(buf, disks, ndisks, s) && ok;
	return ok;
}

void
procfs_snapshot_release(struct procfs_snapshot *s)
{
	for (size_t i = 0; i < s->nvmstat; i++)
		free(s->vmstat[i].name);
	for (size_t i = 0; i < s->nmeminfo; i++)
		free(s->meminfo[i].name);
	free(s->vmstat);
	free(s->meminfo);
	free(s->disks);
	memset(s, 0, sizeof *s);
}

static bool
kv_get(const struct procfs_kv *v, size_t n, const char *name,
       unsigned long long *value)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0) {
			*value = v[i].value;
			return true;
		}
	}
	return false;
}

bool
procfs_vmstat_get(const struct procfs_snapshot *s, const char *name,
		  unsigned long long *value)
{
	return kv_get(s->vmstat, s->nvmstat, name, value);
}

bool
procfs_meminfo_get(const struct procfs_snapshot *s, const char *name,
		   unsigned long long *value)
{
	return kv_get(s->meminfo, s->nmeminfo, name, value);
}

static double
delta(unsigned long long a, unsigned long long b)
{
	return b >= a ? (double)(b - a) : 0;
}

static double
mem(const struct procfs_snapshot *s, const char *name)
{
	unsigned long long v = 0;

	procfs_meminfo_get(s, name, &v);
	return (double)v;
}

static double
vm_rate(const struct procfs_snapshot *a, const struct procfs_snapshot *b,
	const char *name, double dt)
{
	unsigned long long x = 0, y = 0;

	procfs_vmstat_get(a, name, &x);
	procfs_vmstat_get(b, name, &y);
	return delta(x, y) / dt;
}

void
procfs_vmstat_columns(const struct procfs_snapshot *a,
		      const struct procfs_snapshot *b, procfs_emit_fn emit,
		      void *arg)
{
	double dt = b->t - a->t, total = 0, cpu[8];
	double page_kb = (double)sysconf(_SC_PAGESIZE) / 1024;

	if (!(dt > 0))
		dt = 1;
	for (int i = 0; i < 8; i++) {
		cpu[i] = delta(a->cpu[i], b->cpu[i]);
		total += cpu[i];
	}
	if (total == 0)
		total = 1;
	emit("vmstat.procs.r", (double)b->procs_running, arg);
	emit("vmstat.procs.b", (double)b->procs_blocked, arg);
	emit("vmstat.memory.swpd", mem(b, "SwapTotal") - mem(b, "SwapFree"),
	     arg);
	emit("vmstat.memory.free", mem(b, "MemFree"), arg);
	emit("vmstat.memory.buff", mem(b, "Buffers"), arg);
	emit("vmstat.memory.cache", mem(b, "Cached") + mem(b, "SReclaimable"),
	     arg);
	emit("vmstat.swap.si", vm_rate(a, b, "pswpin", dt) * page_kb, arg);
	emit("vmstat.swap.so", vm_rate(a, b, "pswpout", dt) * page_kb, arg);
	emit("vmstat.io.bi", vm_rate(a, b, "pgpgin", dt), arg);
	emit("vmstat.io.bo", vm_rate(a, b, "pgpgout", dt), arg);
	emit("vmstat.system.in", delta(a->intr, b->intr) / dt, arg);
	emit("vmstat.system.cs", delta(a->ctxt, b->ctxt) / dt, arg);
	emit("vmstat.cpu.us", 100 * (cpu[0] + cpu[1]) / total, arg);
	emit("vmstat.cpu.sy", 100 * (cpu[2] + cpu[5] + cpu[6]) / total, arg);
	emit("vmstat.cpu.id", 100 * cpu[3] / total, arg);
	emit("vmstat.cpu.wa", 100 * cpu[4] / total, arg);
	emit("vmstat.cpu.st", 100 * cpu[7] / total, arg);
}

void
procfs_iostat(const struct procfs_disk *a, const struct procfs_disk *b,
	      double dt, procfs_emit_fn emit, void *arg)
{
	double rd = delta(a->rd_ios, b->rd_ios),
	       wr = delta(a->wr_ios, b->wr_ios);
	double rsec = delta(a->rd_sectors, b->rd_sectors);
	double wsec = delta(a->wr_sectors, b->wr_sectors);
	double rt = delta(a->rd_ticks, b->rd_ticks);
	double wt = delta(a->wr_ticks, b->wr_ticks);
	double busy = delta(a->io_ticks, b->io_ticks);
	double queue = delta(a->time_in_queue, b->time_in_queue);
	char name[96];

#define EMIT(col, v)                                                           \
	do {                                                                   \
		snprintf(name, sizeof name, "iostat.%s.%s", b->name, col);     \
		emit(name, (v), arg);                                          \
	} while (0)

	if (!(dt > 0))
		dt = 1;
	EMIT("rrqm/s", delta(a->rd_merges, b->rd_merges) / dt);
	EMIT("wrqm/s", delta(a->wr_merges, b->wr_merges) / dt);
	EMIT("r/s", rd / dt);
	EMIT("w/s", wr / dt);
	EMIT("rkB/s", rsec / 2 / dt);
	EMIT("wkB/s", wsec / 2 / dt);
	EMIT("avgrq-sz", rd + wr > 0 ? (rsec + wsec) / (rd + wr) : 0);
	EMIT("avgqu-sz", queue / 1000 / dt);
	EMIT("await", rd + wr > 0 ? (rt + wt) / (rd + wr) : 0);
	EMIT("r_await", rd > 0 ? rt / rd : 0);
	EMIT("w_await", wr > 0 ? wt / wr : 0);
	EMIT("svctm", rd + wr > 0 ? busy / (rd + wr) : 0);
	EMIT("util", busy / 10 / dt > 100 ? 100 : busy / 10 / dt);
#undef EMIT
}
