/*
 * unlink.c: the unlink workload: nr_threads workers create nr_files
 * files of filesize bytes (spread over nr_directories directories), the
 * page cache is dropped, and the workers unlink them all in parallel.
 *
 * The workers are forked children counting their files in shared memory,
 * so that the box sees creates and unlinks per second while they run.
 * Stats: unlink.creates_per_sec and unlink.unlinks_per_sec over each
 * phase, and each per-second series with its .min (trough), .max (peak)
 * and .stddev.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/box/tunables.h"
#include "jobs/box/workload.h"
#include "jobs/unit.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

enum unlink_phase {
	UNLINK_CREATE,
	UNLINK_DELETE,
	UNLINK_DONE,
};

#define ERR_LEN 256

/* Shared with the workers. */
struct shared {
	_Atomic unsigned long long done[64];
	char error[64][ERR_LEN];
};

struct unlink_wl {
	enum unlink_phase phase;
	struct shared *sh;
	char *base;
	unsigned long long nr_files;
	unsigned long long filesize;
	long threads;
	long dirs;
	double phase_started;
	double create_time;
	double delete_time;
	unsigned long long last_count;
	double last_t;
	/* for the worker being forked */
	long worker;
};

static char *
file_path(const struct unlink_wl *u, unsigned long long i)
{
	return xasprintf("%s/d%llu/f%08llu", u->base,
			 i % (unsigned long long)u->dirs, i);
}

static int
worker(void *arg)
{
	struct unlink_wl *u = arg;
	long w = u->worker;
	static char zeros[65536];

	for (unsigned long long i = (unsigned long long)w; i < u->nr_files;
	     i += (unsigned long long)u->threads) {
		char *p = file_path(u, i);

		if (u->phase == UNLINK_CREATE) {
			int fd =
				open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				     0644);
			unsigned long long left = u->filesize;

			if (fd == -1)
				goto fail;
			while (left > 0) {
				size_t n = left > sizeof zeros ? sizeof zeros
							       : (size_t)left;
				ssize_t r = write(fd, zeros, n);

				if (r <= 0) {
					close(fd);
					goto fail;
				}
				left -= (unsigned long long)r;
			}
			if (close(fd) == -1)
				goto fail;
		} else if (unlink(p) == -1) {
			goto fail;
		}
		free(p);
		atomic_fetch_add_explicit(&u->sh->done[w], 1,
					  memory_order_relaxed);
		continue;
	fail:
		snprintf(u->sh->error[w], ERR_LEN, "cannot %s '%s': %s",
			 u->phase == UNLINK_CREATE ? "create" : "unlink", p,
			 strerror(errno));
		free(p);
		return 1;
	}
	return 0;
}

static bool
start_phase(struct workload *w, char **err)
{
	struct unlink_wl *u = w->priv;

	for (long i = 0; i < u->threads; i++)
		atomic_store(&u->sh->done[i], 0);
	u->phase_started = u->last_t = child_now();
	u->last_count = 0;
	for (long i = 0; i < u->threads; i++) {
		char name[64];

		u->worker = i;
		snprintf(name, sizeof name, "unlink worker %ld", i);
		if (workload_fork(w, name, worker, u, err) == NULL)
			return false;
	}
	return true;
}

static bool
unlink_start(struct workload *w, char **err)
{
	const struct node *job = w->env.job;
	char *o_files = workload_option(job, "unlink", "nr_files");
	char *o_size = workload_option(job, "unlink", "filesize");
	char *o_threads = workload_option(job, "unlink", "nr_threads");
	char *o_dirs = workload_option(job, "unlink", "nr_directories");
	struct unlink_wl *u = xcalloc(1, sizeof *u);
	bool ok = false;
	uint64_t size = 0;

	w->priv = u;
	if (w->env.mounts[0] == NULL) {
		*err = xstrdup("unlink needs a filesystem (disk: 1LOOP_1G, "
			       "fs: xfs)");
		goto out;
	}
	u->nr_files = o_files ? strtoull(o_files, NULL, 10) : 100000;
	if (u->nr_files == 0)
		u->nr_files = 100000;
	if (o_size != NULL && strcmp(o_size, "0") != 0 &&
	    unit_size(o_size, &size) == NULL)
		u->filesize = size;
	u->threads = workload_count(o_threads, w->env.cpus, w->env.cpus);
	if (u->threads > 64)
		u->threads = 64;
	u->dirs = workload_count(o_dirs, w->env.cpus, u->threads);
	u->base = xasprintf("%s/unlink", w->env.mounts[0]);
	u->sh = mmap(NULL, sizeof *u->sh, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (u->sh == MAP_FAILED) {
		u->sh = NULL;
		*err = xasprintf("cannot map shared counters: %s",
				 strerror(errno));
		goto out;
	}
	memset(u->sh, 0, sizeof *u->sh);
	if (mkdir(u->base, 0755) == -1 && errno != EEXIST) {
		*err = xasprintf("cannot create '%s': %s", u->base,
				 strerror(errno));
		goto out;
	}
	for (long d = 0; d < u->dirs; d++) {
		char *p = xasprintf("%s/d%ld", u->base, d);

		if (mkdir(p, 0755) == -1 && errno != EEXIST) {
			*err = xasprintf("cannot create '%s': %s", p,
					 strerror(errno));
			free(p);
			goto out;
		}
		free(p);
	}
	u->phase = UNLINK_CREATE;
	ok = start_phase(w, err);
out:
	free(o_files);
	free(o_size);
	free(o_threads);
	free(o_dirs);
	return ok;
}

static unsigned long long
count(const struct unlink_wl *u)
{
	unsigned long long n = 0;

	for (long i = 0; i < u->threads; i++)
		n += atomic_load_explicit(&u->sh->done[i],
					  memory_order_relaxed);
	return n;
}

static void
record(struct workload *w, double now)
{
	struct unlink_wl *u = w->priv;
	unsigned long long n = count(u);
	double dt = now - u->last_t;

	if (u->phase == UNLINK_DONE || !(dt > 0.05))
		return;
	metrics_append(w->env.m,
		       u->phase == UNLINK_CREATE ? "unlink.creates_per_sec"
						 : "unlink.unlinks_per_sec",
		       (double)(n - u->last_count) / dt, true);
	u->last_count = n;
	u->last_t = now;
}

static bool
unlink_child_ended(struct workload *w, struct child *c, char **err)
{
	struct unlink_wl *u = w->priv;

	if (!child_succeeded(c)) {
		for (long i = 0; i < u->threads; i++) {
			if (u->sh->error[i][0] != '\0') {
				*err = xstrdup(u->sh->error[i]);
				return false;
			}
		}
		char *how = child_exit_text(c);

		*err = xasprintf("%s %s", c->name, how);
		free(how);
		return false;
	}
	if (workload_running(w))
		return true;
	/* The phase is over. */
	record(w, child_now());
	if (u->phase == UNLINK_CREATE) {
		u->create_time = child_now() - u->phase_started;
		tunables_drop_caches();
		u->phase = UNLINK_DELETE;
		return start_phase(w, err);
	}
	u->delete_time = child_now() - u->phase_started;
	u->phase = UNLINK_DONE;
	return true;
}

static void
unlink_tick(struct workload *w, double now)
{
	record(w, now);
}

static bool
unlink_done(struct workload *w)
{
	struct unlink_wl *u = w->priv;

	return u->phase == UNLINK_DONE && !workload_running(w);
}

static bool
unlink_finish(struct workload *w, char **err)
{
	struct unlink_wl *u = w->priv;

	(void)err;
	metrics_set(w->env.m, "unlink.nr_files", (double)u->nr_files);
	metrics_set(w->env.m, "unlink.create_time", u->create_time);
	metrics_set(w->env.m, "unlink.unlink_time", u->delete_time);
	if (u->create_time > 0)
		metrics_set(w->env.m, "unlink.creates_per_sec",
			    (double)u->nr_files / u->create_time);
	if (u->delete_time > 0)
		metrics_set(w->env.m, "unlink.unlinks_per_sec",
			    (double)u->nr_files / u->delete_time);
	metrics_spread(w->env.m, "unlink.creates_per_sec", false, true);
	metrics_spread(w->env.m, "unlink.unlinks_per_sec", false, true);
	return true;
}

static void
unlink_release(struct workload *w)
{
	struct unlink_wl *u = w->priv;

	if (u == NULL)
		return;
	if (u->sh != NULL)
		munmap(u->sh, sizeof *u->sh);
	free(u->base);
	free(u);
}

const struct workload_ops unlink_ops = {
	"unlink",    unlink_start,  unlink_child_ended, unlink_tick,
	unlink_done, unlink_finish, unlink_release,
};
