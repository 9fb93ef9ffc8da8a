/*
 * fsmark.c: the fsmark workload, as LKP's programs/fsmark/run: the real
 * fs_mark, one -d per thread on the first filesystem, LKP's file-count
 * formula and sync_method numbers; its table gives files_per_sec and
 * app_overhead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "jobs/box/toolparse.h"
#include "jobs/catalog.h"
#include "jobs/box/workload.h"
#include "jobs/unit.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct fsmark {
	struct child *c;
	char *out, *err;
};

/* Whether a program is in PATH. */
static bool
in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save, *dir;
	bool found = false;

	copy = xstrdup(path ? path : "/usr/bin:/bin:/usr/sbin:/sbin");
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, prog);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

static int
sync_number(const char *m)
{
	for (int i = 0; m != NULL && catalog_sync_methods[i] != NULL; i++)
		if (strcmp(m, catalog_sync_methods[i]) == 0)
			return i;
	return 1; /* LKP's default: fsyncBeforeClose */
}

static uint64_t
size_or(const char *s, uint64_t def)
{
	uint64_t v;

	if (s == NULL)
		return def;
	if (strcmp(s, "0") == 0)
		return 0;
	return unit_size(s, &v) == NULL ? v : def;
}

static bool
fsmark_start(struct workload *w, char **err)
{
	const struct node *job = w->env.job;
	char *o_threads = workload_option(job, "fsmark", "nr_threads");
	char *o_filesize = workload_option(job, "fsmark", "filesize");
	char *o_test_size = workload_option(job, "fsmark", "test_size");
	char *o_iter = workload_option(job, "fsmark", "iterations");
	char *o_sync = workload_option(job, "fsmark", "sync_method");
	char *o_dirs = workload_option(job, "fsmark", "nr_directories");
	char *o_fpd = workload_option(job, "fsmark", "nr_files_per_directory");
	struct fsmark *f = xcalloc(1, sizeof *f);
	char *argv[64 * 2 + 20], nbuf[32], lbuf[32], sbuf[16], fbuf[32];
	char dbuf[32], pbuf[32], **dirs = NULL;
	long threads, iterations, nr_dirs = 0, per_dir = 0;
	uint64_t filesize, test_size, size, disk = 0, nr_files;
	struct statvfs sv;
	size_t a = 0;
	bool ok = false;

	w->priv = f;
	if (w->env.mounts[0] == NULL) {
		*err = xstrdup("fsmark needs a filesystem (disk: 1LOOP_1G, "
			       "fs: xfs)");
		goto out;
	}
	if (!in_path("fs_mark")) {
		*err = xstrdup("fs_mark is not installed (Debian package "
			       "fsmark)");
		goto out;
	}
	threads = workload_count(o_threads, w->env.cpus, w->env.cpus);
	if (threads > 64)
		threads = 64; /* fs_mark's limit, as LKP */
	iterations = workload_count(o_iter, w->env.cpus, 1);
	filesize = size_or(o_filesize, 4096);
	/* LKP: 80G by default, 20G for small files; at most the disk. */
	test_size = size_or(o_test_size,
			    filesize < (1 << 20) ? 20ULL << 30 : 80ULL << 30);
	if (statvfs(w->env.mounts[0], &sv) == 0)
		disk = (uint64_t)sv.f_blocks * sv.f_frsize;
	if (disk > 0 && test_size > disk)
		test_size = disk;
	size = filesize < 4096 ? 4096 : filesize;
	nr_files = test_size / size / (uint64_t)threads / (uint64_t)iterations;
	if (nr_files < 1)
		nr_files = 1;
	if (nr_files > 1000000)
		nr_files = 1000000;
	if (o_dirs != NULL)
		nr_dirs = strtol(o_dirs, NULL, 10);
	if (o_fpd != NULL)
		per_dir = strtol(o_fpd, NULL, 10);
	if (nr_dirs == 0 && per_dir > 0)
		nr_dirs = (long)nr_files / per_dir;

	argv[a++] = "fs_mark";
	dirs = xcalloc((size_t)threads + 1, sizeof *dirs);
	for (long t = 0; t < threads; t++) {
		dirs[t] = xasprintf("%s/%ld", w->env.mounts[0], t + 1);
		if (mkdir(dirs[t], 0755) == -1 && errno != EEXIST) {
			*err = xasprintf("cannot create '%s': %s", dirs[t],
					 strerror(errno));
			goto out;
		}
		argv[a++] = "-d";
		argv[a++] = dirs[t];
	}
	if (nr_dirs > 0 && per_dir > 0) {
		snprintf(dbuf, sizeof dbuf, "%ld", nr_dirs);
		snprintf(pbuf, sizeof pbuf, "%ld", per_dir);
		argv[a++] = "-D";
		argv[a++] = dbuf;
		argv[a++] = "-N";
		argv[a++] = pbuf;
	}
	snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)nr_files);
	snprintf(lbuf, sizeof lbuf, "%ld", iterations);
	snprintf(sbuf, sizeof sbuf, "%d", sync_number(o_sync));
	snprintf(fbuf, sizeof fbuf, "%llu", (unsigned long long)filesize);
	argv[a++] = "-n";
	argv[a++] = nbuf;
	argv[a++] = "-L";
	argv[a++] = lbuf;
	argv[a++] = "-S";
	argv[a++] = sbuf;
	argv[a++] = "-s";
	argv[a++] = fbuf;
	argv[a] = NULL;
	f->out = xasprintf("%s/fsmark.out", w->env.rundir);
	f->err = xasprintf("%s/fsmark.err", w->env.rundir);
	f->c = workload_spawn(w, "fs_mark", argv, f->out, f->err, err);
	ok = f->c != NULL;
out:
	for (long t = 0; dirs != NULL && t < threads; t++)
		free(dirs[t]);
	free(dirs);
	free(o_threads);
	free(o_filesize);
	free(o_test_size);
	free(o_iter);
	free(o_sync);
	free(o_dirs);
	free(o_fpd);
	return ok;
}

static bool
fsmark_child_ended(struct workload *w, struct child *c, char **err)
{
	(void)w;
	if (!child_succeeded(c)) {
		char *how = child_exit_text(c), *words = child_last_words(c);

		*err = xasprintf("fs_mark %s%s%s", how, words ? ": " : "",
				 words ? words : "");
		free(how);
		free(words);
		return false;
	}
	return true;
}

static void
fsmark_tick(struct workload *w, double now)
{
	(void)w;
	(void)now;
}

static bool
fsmark_done(struct workload *w)
{
	return !workload_running(w);
}

struct emit_ctx {
	struct metrics *m;
	int n;
};

static void
fsmark_emit(const char *key, const char *value, void *arg)
{
	struct emit_ctx *e = arg;
	char name[128];

	snprintf(name, sizeof name, "fsmark.%s", key);
	metrics_set(e->m, name, strtod(value, NULL));
	e->n++;
}

static bool
fsmark_finish(struct workload *w, char **err)
{
	struct fsmark *f = w->priv;
	struct emit_ctx e = {w->env.m, 0};
	const char *perr = NULL;
	json_t *out;

	workload_keep_output(w, "fsmark", f->out);
	workload_keep_output(w, "fsmark.stderr", f->err);
	out = json_object_get(w->outputs, "fsmark");
	if (out == NULL ||
	    !toolparse_run("fsmark", json_string_value(out),
			   json_string_length(out), fsmark_emit, &e, &perr)) {
		*err = xasprintf("cannot read fs_mark's results: %s",
				 perr ? perr : "no output");
		return false;
	}
	return true;
}

static void
fsmark_release(struct workload *w)
{
	struct fsmark *f = w->priv;

	if (f == NULL)
		return;
	free(f->out);
	free(f->err);
	free(f);
}

const struct workload_ops fsmark_ops = {
	"fsmark",    fsmark_start,  fsmark_child_ended, fsmark_tick,
	fsmark_done, fsmark_finish, fsmark_release,
};
