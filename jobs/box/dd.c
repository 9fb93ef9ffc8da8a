/*
 * dd.c: the dd workload: nr_threads dd per filesystem in parallel,
 * writing /dev/zero for runtime or size.  With a runtime, each dd writes
 * a file of a share of its filesystem's free space and is started again
 * (truncating the file) until the time is up, when it is interrupted;
 * with a size, each writes that much once and fdatasyncs.
 *
 * Stats: dd.bytes and dd.write_bytes_per_sec from dd's own counts; and
 * per second, from the block devices' statistics, what each filesystem
 * wrote: dd.<dev>.write_bytes_per_sec with its .min, .max and .stddev
 * over time, and the same for all of them together (dd.disks...), so
 * that erratic throughput shows.
 */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "jobs/box/workload.h"
#include "jobs/unit.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct slot {
	char *file;
	char *err;       /* its dd's stderr: one file per slot, as several
			  * dd writing one file interleave their lines */
	const char *dev; /* borrowed */
	struct child *c; /* the dd running now */
	int runs;
};

struct dd {
	struct slot *slots;
	size_t nslots;
	uint64_t bs;
	uint64_t count; /* blocks per dd in size mode */
	double runtime; /* seconds; 0 in size mode */
	double deadline;
	bool stopping;
	char *err_path; /* every dd's stderr, joined after the run */
};

static bool
dd_spawn(struct workload *w, struct slot *s, uint64_t count, bool sync,
	 char **err)
{
	struct dd *d = w->priv;
	char of[4200], bs[64], cnt[64], name[128];
	char *argv[8];
	size_t a = 0;

	snprintf(of, sizeof of, "of=%s", s->file);
	snprintf(bs, sizeof bs, "bs=%llu", (unsigned long long)d->bs);
	snprintf(cnt, sizeof cnt, "count=%llu", (unsigned long long)count);
	snprintf(name, sizeof name, "dd on %s", s->dev ? s->dev : "?");
	argv[a++] = "dd";
	argv[a++] = "if=/dev/zero";
	argv[a++] = of;
	argv[a++] = bs;
	argv[a++] = cnt;
	if (sync)
		argv[a++] = "conv=fdatasync";
	argv[a] = NULL;
	s->c = workload_spawn(w, name, argv, NULL, s->err, err);
	s->runs++;
	return s->c != NULL;
}

/* Blocks per dd in runtime mode: a share of the free space, <= 4G. */
static uint64_t
chunk_blocks(const char *mnt, long per_fs, uint64_t bs)
{
	struct statvfs sv;
	uint64_t free_bytes = 0, chunk;

	if (statvfs(mnt, &sv) == 0)
		free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	chunk = free_bytes / 10 * 8 / (uint64_t)per_fs;
	if (chunk > (4ULL << 30))
		chunk = 4ULL << 30;
	return chunk / bs > 0 ? chunk / bs : 1;
}

static bool
dd_start(struct workload *w, char **err)
{
	const struct node *job = w->env.job;
	char *o_threads = workload_option(job, "dd", "nr_threads");
	char *o_bs = workload_option(job, "dd", "bs");
	char *o_size = workload_option(job, "dd", "size");
	char *o_runtime = workload_option(job, "dd", "runtime");
	struct dd *d = xcalloc(1, sizeof *d);
	long per_fs;
	size_t nfs = 0;
	uint64_t size = 0;
	bool ok = false;

	w->priv = d;
	while (w->env.mounts[nfs] != NULL)
		nfs++;
	if (nfs == 0) {
		*err = xstrdup("dd needs a filesystem (disk: 1LOOP_1G, fs: "
			       "xfs)");
		goto out;
	}
	per_fs = workload_count(o_threads, w->env.cpus, 1);
	d->bs = 1 << 20;
	if (o_bs != NULL && unit_size(o_bs, &d->bs) != NULL)
		d->bs = 1 << 20;
	if (o_size != NULL && unit_size(o_size, &size) == NULL) {
		d->count = size / d->bs > 0 ? size / d->bs : 1;
	} else {
		d->runtime = 30;
		if (o_runtime != NULL)
			unit_duration(o_runtime, &d->runtime);
	}
	d->err_path = xasprintf("%s/dd.err", w->env.rundir);
	d->slots = xcalloc(nfs * (size_t)per_fs, sizeof *d->slots);
	d->deadline = child_now() + d->runtime;
	for (size_t f = 0; f < nfs; f++) {
		uint64_t blocks =
			d->runtime > 0
				? chunk_blocks(w->env.mounts[f], per_fs, d->bs)
				: d->count;

		for (long t = 0; t < per_fs; t++) {
			struct slot *s = &d->slots[d->nslots++];

			s->file = xasprintf("%s/zero-%ld", w->env.mounts[f],
					    t + 1);
			s->err = xasprintf("%s/dd-%zu.err", w->env.rundir,
					   d->nslots);
			s->dev = f < w->env.ndevs ? w->env.devices[f] : NULL;
			if (!dd_spawn(w, s, blocks, d->runtime == 0, err))
				goto out;
		}
	}
	ok = true;
out:
	free(o_threads);
	free(o_bs);
	free(o_size);
	free(o_runtime);
	return ok;
}

static struct slot *
slot_of(struct dd *d, struct child *c)
{
	for (size_t i = 0; i < d->nslots; i++)
		if (d->slots[i].c == c)
			return &d->slots[i];
	return NULL;
}

static bool
dd_child_ended(struct workload *w, struct child *c, char **err)
{
	struct dd *d = w->priv;
	struct slot *s = slot_of(d, c);

	if (s == NULL)
		return true;
	s->c = NULL;
	if (d->stopping)
		return true; /* interrupted at the deadline, as asked */
	if (!child_succeeded(c)) {
		char *how = child_exit_text(c), *words = child_last_words(c);

		*err = xasprintf("dd on %s %s%s%s", s->dev ? s->dev : "?", how,
				 words ? ": " : "", words ? words : "");
		free(how);
		free(words);
		return false;
	}
	if (d->runtime > 0 && child_now() < d->deadline) {
		const char *mnt = NULL;
		long per_fs = 0;

		/* The mount of this slot, and how many dd share it. */
		for (size_t f = 0; w->env.mounts[f] != NULL; f++)
			if (strncmp(s->file, w->env.mounts[f],
				    strlen(w->env.mounts[f])) == 0)
				mnt = w->env.mounts[f];
		for (size_t i = 0; i < d->nslots; i++)
			if (mnt &&
			    strncmp(d->slots[i].file, mnt, strlen(mnt)) == 0)
				per_fs++;
		return dd_spawn(w, s, chunk_blocks(mnt, per_fs, d->bs), false,
				err);
	}
	return true;
}

static void
dd_tick(struct workload *w, double now)
{
	struct dd *d = w->priv;

	if (d->runtime > 0 && !d->stopping && now >= d->deadline) {
		d->stopping = true;
		/* GNU dd prints its counts when interrupted. */
		workload_signal(w, SIGINT);
	}
}

static bool
dd_done(struct workload *w)
{
	return !workload_running(w);
}

/* The sum of every "N bytes" line dd wrote. */
static double
bytes_written(const char *path)
{
	char line[512];
	double total = 0;
	FILE *fp = fopen(path, "r");

	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof line, fp) != NULL) {
		char *end;
		double v;

		if (!isdigit((unsigned char)line[0]))
			continue;
		v = strtod(line, &end);
		if (strncmp(end, " bytes", 6) == 0 ||
		    strncmp(end, " byte ", 6) == 0)
			total += v;
	}
	fclose(fp);
	return total;
}

/* Appends the file at path to fp. */
static void
append_file(FILE *fp, const char *path)
{
	char buf[4096];
	size_t n;
	FILE *in = fopen(path, "r");

	if (in == NULL)
		return;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, n, fp);
	fclose(in);
}

static bool
dd_finish(struct workload *w, char **err)
{
	struct dd *d = w->priv;
	double bytes = 0, elapsed = w->ended - w->started;
	size_t nmax = 0;
	double *total = NULL;
	FILE *all = fopen(d->err_path, "w");

	(void)err;
	for (size_t i = 0; i < d->nslots; i++) {
		bytes += bytes_written(d->slots[i].err);
		if (all != NULL)
			append_file(all, d->slots[i].err);
	}
	if (all != NULL)
		fclose(all);
	workload_keep_output(w, "dd", d->err_path);
	metrics_set(w->env.m, "dd.bytes", bytes);
	metrics_set(w->env.m, "dd.write_bytes_per_sec",
		    elapsed > 0 ? bytes / elapsed : 0);
	/* Per device and second, from iostat's wkB/s series. */
	for (size_t i = 0; i < w->env.ndevs; i++) {
		char src[128], dst[128];
		const double *v;
		size_t n;

		snprintf(src, sizeof src, "iostat.%s.wkB/s", w->env.devices[i]);
		snprintf(dst, sizeof dst, "dd.%s.write_bytes_per_sec",
			 w->env.devices[i]);
		if ((v = metrics_series(w->env.m, src, &n)) == NULL)
			continue;
		if (n > nmax) {
			total = xreallocarray(total, n, sizeof *total);
			memset(total + nmax, 0, (n - nmax) * sizeof *total);
			nmax = n;
		}
		for (size_t k = 0; k < n; k++) {
			metrics_append(w->env.m, dst, v[k] * 1024, true);
			total[k] += v[k] * 1024;
		}
		metrics_spread(w->env.m, dst, true, true);
	}
	for (size_t k = 0; k < nmax; k++)
		metrics_append(w->env.m, "dd.disks.write_bytes_per_sec",
			       total[k], true);
	if (nmax > 0)
		metrics_spread(w->env.m, "dd.disks.write_bytes_per_sec", true,
			       true);
	free(total);
	return true;
}

static void
dd_release(struct workload *w)
{
	struct dd *d = w->priv;

	if (d == NULL)
		return;
	for (size_t i = 0; i < d->nslots; i++) {
		free(d->slots[i].file);
		free(d->slots[i].err);
	}
	free(d->slots);
	free(d->err_path);
	free(d);
}

const struct workload_ops dd_ops = {
	"dd", dd_start, dd_child_ended, dd_tick, dd_done, dd_finish, dd_release,
};
