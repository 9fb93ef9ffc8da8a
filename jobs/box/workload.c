/*
 * workload.c: what the workloads share: their children, their rusage
 * figures, their options.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs/box/workload.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct workload *
workload_new(const char *name, const struct workload_env *env)
{
	struct workload *w;

	for (size_t i = 0; workload_all[i] != NULL; i++) {
		if (strcmp(workload_all[i]->name, name) != 0)
			continue;
		w = xcalloc(1, sizeof *w);
		w->ops = workload_all[i];
		w->env = *env;
		w->outputs = json_object();
		return w;
	}
	return NULL;
}

void
workload_free(struct workload *w)
{
	if (w == NULL)
		return;
	workload_kill(w);
	if (w->ops->release != NULL)
		w->ops->release(w);
	for (size_t i = 0; i < w->nchildren; i++) {
		child_release(w->children[i]);
		free(w->children[i]);
	}
	free(w->children);
	json_decref(w->outputs);
	free(w);
}

static struct child *
add_child(struct workload *w)
{
	w->children = xreallocarray(w->children, w->nchildren + 1,
				    sizeof *w->children);
	w->children[w->nchildren] = xcalloc(1, sizeof **w->children);
	return w->children[w->nchildren++];
}

struct child *
workload_spawn(struct workload *w, const char *name, char *const argv[],
	       const char *out, const char *err_path, char **err)
{
	struct child *c = add_child(w);

	/* In the run's own directory: what a tool writes where it runs
	 * (fs_mark's fs_log.txt.PID) goes with the run. */
	if (!child_spawn(c, name, argv, out, err_path, w->env.rundir)) {
		*err = xasprintf("cannot start %s", name);
		return NULL;
	}
	return c;
}

struct child *
workload_fork(struct workload *w, const char *name, int (*fn)(void *),
	      void *arg, char **err)
{
	struct child *c = add_child(w);

	if (!child_fork(c, name, fn, arg)) {
		*err = xasprintf("cannot start %s", name);
		return NULL;
	}
	return c;
}

void
workload_signal(struct workload *w, int sig)
{
	for (size_t i = 0; i < w->nchildren; i++)
		child_signal(w->children[i], sig);
}

void
workload_kill(struct workload *w)
{
	for (size_t i = 0; i < w->nchildren; i++)
		child_kill_wait(w->children[i]);
}

bool
workload_running(const struct workload *w)
{
	for (size_t i = 0; i < w->nchildren; i++)
		if (w->children[i]->state == CHILD_RUNNING)
			return true;
	return false;
}

static double
tv(const struct timeval *t)
{
	return (double)t->tv_sec + t->tv_usec / 1e6;
}

void
workload_time_stats(struct workload *w)
{
	double user = 0, sys = 0, maxrss = 0, minflt = 0, majflt = 0;
	double nvcsw = 0, nivcsw = 0, inblock = 0, oublock = 0, longest = 0;
	double elapsed = w->ended - w->started;
	int exit_status = 0;
	char name[128];

	for (size_t i = 0; i < w->nchildren; i++) {
		const struct child *c = w->children[i];

		if (c->state != CHILD_DONE)
			continue;
		user += tv(&c->ru.ru_utime);
		sys += tv(&c->ru.ru_stime);
		if ((double)c->ru.ru_maxrss > maxrss)
			maxrss = (double)c->ru.ru_maxrss;
		minflt += (double)c->ru.ru_minflt;
		majflt += (double)c->ru.ru_majflt;
		nvcsw += (double)c->ru.ru_nvcsw;
		nivcsw += (double)c->ru.ru_nivcsw;
		inblock += (double)c->ru.ru_inblock;
		oublock += (double)c->ru.ru_oublock;
		if (c->ended - c->started > longest)
			longest = c->ended - c->started;
		if (WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0)
			exit_status = WEXITSTATUS(c->status);
	}
#define SET(key, v)                                                            \
	do {                                                                   \
		snprintf(name, sizeof name, "%s.time.%s", w->ops->name, key);  \
		metrics_set(w->env.m, name, (v));                              \
	} while (0)
	SET("user_time", user);
	SET("system_time", sys);
	SET("percent_of_cpu_this_job_got",
	    elapsed > 0 ? floor(100 * (user + sys) / elapsed) : 0);
	SET("elapsed_time", elapsed);
	SET("elapsed_time.max", longest);
	SET("maximum_resident_set_size", maxrss);
	SET("major_page_faults", majflt);
	SET("minor_page_faults", minflt);
	SET("voluntary_context_switches", nvcsw);
	SET("involuntary_context_switches", nivcsw);
	SET("file_system_inputs", inblock);
	SET("file_system_outputs", oublock);
	SET("exit_status", exit_status);
#undef SET
}

void
workload_keep_output_path(json_t *outputs, const char *name, const char *path)
{
	char *buf = xmalloc(256 * 1024 + 1);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1) {
		free(buf);
		return;
	}
	n = read(fd, buf, 256 * 1024);
	close(fd);
	if (n > 0)
		json_object_set_new(outputs, name,
				    rjson_string_lossy(buf, (size_t)n));
	free(buf);
}

void
workload_keep_output(struct workload *w, const char *name, const char *path)
{
	workload_keep_output_path(w->outputs, name, path);
}

char *
workload_option(const struct node *job, const char *program, const char *option)
{
	const struct node *p = node_get(job, program), *v = NULL;

	if (p != NULL && p->kind == NODE_MAP)
		v = node_get(p, option);
	if (v == NULL || v->kind == NODE_NULL)
		v = node_get(job, option);
	if (v == NULL || v->kind != NODE_SCALAR)
		return NULL;
	return node_to_s(v);
}

long
workload_count(const char *s, int cpus, long def)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return def;
	v = strtod(s, &end);
	if (end == s || !(v > 0))
		return def;
	if (*end == '%')
		v = ceil(v * cpus / 100);
	return v < 1 ? 1 : (long)v;
}
