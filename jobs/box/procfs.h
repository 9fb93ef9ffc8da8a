/*
 * procfs.h: snapshots of the kernel's counters (/proc/stat, /proc/vmstat,
 * /proc/meminfo, /proc/diskstats) and the per-second figures between two
 * snapshots, named as LKP's monitors name them:
 *
 *   vmstat.procs.r, vmstat.memory.free, vmstat.io.bo, vmstat.system.cs,
 *   vmstat.cpu.sy, ...                      (the columns of vmstat)
 *   iostat.<dev>.w/s, .wkB/s, .await, .util, ...  (iostat -x, old names)
 *
 * The parsers take text so that captured files can be tested; the
 * snapshot reads the live files.
 */
#ifndef ROBOT_PROCFS_H
#define ROBOT_PROCFS_H

#include <stdbool.h>
#include <stddef.h>

struct procfs_kv {
	char *name;
	unsigned long long value;
};

struct procfs_disk {
	char name[64];
	unsigned long long rd_ios, rd_merges, rd_sectors, rd_ticks;
	unsigned long long wr_ios, wr_merges, wr_sectors, wr_ticks;
	unsigned long long in_flight, io_ticks, time_in_queue;
};

struct procfs_snapshot {
	double t; /* CLOCK_MONOTONIC, seconds */
	unsigned long long
		cpu[8]; /* user nice system idle iowait irq softirq steal */
	unsigned long long ctxt, intr, procs_running, procs_blocked;
	struct procfs_kv *vmstat; /* /proc/vmstat, in file order */
	size_t nvmstat;
	struct procfs_kv *meminfo; /* /proc/meminfo, kB */
	size_t nmeminfo;
	struct procfs_disk *disks; /* the watched devices, in the given order */
	size_t ndisks;
};

typedef void (*procfs_emit_fn)(const char *name, double value, void *arg);

/* Parsers of the files' text into s (additive; s starts zeroed). */
bool procfs_parse_stat(const char *text, struct procfs_snapshot *s);
bool procfs_parse_vmstat(const char *text, struct procfs_snapshot *s);
bool procfs_parse_meminfo(const char *text, struct procfs_snapshot *s);
/* Keeps the lines of the named devices only (all when names is NULL). */
bool procfs_parse_diskstats(const char *text, const char *const *names,
			    size_t nnames, struct procfs_snapshot *s);

/*
 * Reads /proc now (root is "/proc", or another directory for tests);
 * disks names the devices to watch.  Returns false if a file could not
 * be read.
 */
bool procfs_snapshot_take(struct procfs_snapshot *s, const char *root,
			  const char *const *disks, size_t ndisks);
void procfs_snapshot_release(struct procfs_snapshot *s);

/* The vmstat columns between two snapshots (rates per second). */
void procfs_vmstat_columns(const struct procfs_snapshot *a,
			   const struct procfs_snapshot *b, procfs_emit_fn emit,
			   void *arg);
/* iostat -x figures of one device between two snapshots, dt seconds. */
void procfs_iostat(const struct procfs_disk *a, const struct procfs_disk *b,
		   double dt, procfs_emit_fn emit, void *arg);
/* Whether a /proc/vmstat field counts events (reduced as last - first). */
bool procfs_vmstat_is_counter(const char *name);
/* A value of /proc/vmstat by name, or false. */
bool procfs_vmstat_get(const struct procfs_snapshot *s, const char *name,
		       unsigned long long *value);
bool procfs_meminfo_get(const struct procfs_snapshot *s, const char *name,
			unsigned long long *value);

#endif
