/*
 * perfmon.c: the perf-profile and perf-stat monitors (perfmon.h).
 *
 * perf runs as a child of its own, in the run directory, recording the
 * whole box (-a) until it gets SIGINT; the folding (perf script, then
 * perfparse) happens after the workload, so that only the recording
 * costs the workload anything (docs/box.md has the measured cost).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "jobs/box/perfmon.h"
#include "jobs/box/toolparse.h"
#include "jobs/unit.h"
#include "robot/core/buf.h"
#include "robot/core/fsm.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

const char *const perfmon_kinds[PERFMON_KINDS + 1] = {"perf-profile",
						      "perf-stat", NULL};

/* What perf-stat counts unless the job names events: LKP's software
 * and basic hardware counters (those the kernel lacks are skipped). */
static const char default_stat_events[] =
	"cpu-clock,task-clock,context-switches,cpu-migrations,page-faults,"
	"minor-faults,major-faults,cycles,instructions,branch-instructions,"
	"branch-misses,cache-references,cache-misses";

/* The longest perf script output read (a profile of an hour at 800 Hz on
 * many CPUs is far bigger than worth folding in memory). */
#define SCRIPT_MAX ((size_t)1 << 30)

static const char *const perfmon_states[] = {
	[PERFMON_WAITING] = "waiting", [PERFMON_RECORDING] = "recording",
	[PERFMON_STOPPED] = "stopped", [PERFMON_DONE] = "done",
	[PERFMON_FAILED] = "failed",
};
static const struct fsm perfmon_fsm =
	FSM("perf monitor", perfmon_states, PERFMON_FAILED);

static void
perfmon_set_state(struct perfmon *pm, enum perfmon_state s)
{
	FSM_SET(&perfmon_fsm, pm->state, s, "%s", pm->kind);
}

static void
failed(struct perfmon *pm, char *why)
{
	if (pm->state != PERFMON_FAILED) {
		perfmon_set_state(pm, PERFMON_FAILED);
		pm->warning = xasprintf("%s: %s; the run went on without it",
					pm->kind, why);
	}
	free(why);
}

bool
perfmon_wanted(const struct node *job, const char *kind)
{
	return node_get(job, kind) != NULL;
}

/* The option's text from the monitor's own mapping, or NULL. */
static char *
option(const struct node *job, const char *kind, const char *name)
{
	const struct node *m = node_get(job, kind), *v;

	if (m == NULL || m->kind != NODE_MAP ||
	    (v = node_get(m, name)) == NULL || v->kind != NODE_SCALAR)
		return NULL;
	return node_to_s(v);
}

static bool
duration_option(struct perfmon *pm, const struct node *job, const char *name,
		double *out)
{
	char *s = option(job, pm->kind, name);
	const char *err;

	if (s == NULL)
		return true;
	if ((err = unit_duration(s, out)) != NULL || *out < 0) {
		failed(pm, xasprintf("%s '%s' %s", name, s,
				     err ? err : "is negative"));
		free(s);
		return false;
	}
	free(s);
	return true;
}

/* perf's event list: names, modifiers and PMU terms, nothing perf could
 * read as an option. */
static bool
events_ok(const char *s)
{
	return *s != '\0' && *s != '-' && strlen(s) <= 512 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:,/=@") ==
		       strlen(s);
}

void
perfmon_init(struct perfmon *pm, const char *kind, const struct node *job,
	     const char *perf, const char *rundir)
{
	bool profile = strcmp(kind, "perf-profile") == 0;
	double interval = 1;
	char *s;

	memset(pm, 0, sizeof *pm);
	pm->kind = kind;
	pm->perf = perf;
	perfmon_set_state(pm, PERFMON_WAITING);
	pm->data =
		xasprintf("%s/%s.%s", rundir, kind, profile ? "data" : "txt");
	pm->log = xasprintf("%s/%s.log", rundir, kind);
	pm->events = option(job, kind, "events");
	if (pm->events == NULL)
		pm->events =
			xstrdup(profile ? "cycles:pp" : default_stat_events);
	if (!events_ok(pm->events)) {
		failed(pm, xasprintf("events '%s' is not a list of perf "
				     "events",
				     pm->events));
		return;
	}
	if (!duration_option(pm, job, "delay", &pm->delay) ||
	    !duration_option(pm, job, "duration", &pm->duration) ||
	    !duration_option(pm, job, "interval", &interval))
		return;
	if (interval < 0.01) {
		failed(pm, xstrdup("interval is under 10 ms"));
		return;
	}
	pm->interval_ms = xasprintf("%ld", (long)(interval * 1000 + 0.5));
	s = option(job, kind, "freq");
	pm->freq = s != NULL ? s : xstrdup(PERFMON_FREQ);
	if (strspn(pm->freq, "0123456789") != strlen(pm->freq) ||
	    atol(pm->freq) < 1 || atol(pm->freq) > 100000)
		failed(pm,
		       xasprintf("freq '%s' is not 1 to 100000 Hz", pm->freq));
}

/* The first line of file path, when it starts with prefix. */
static bool
first_line(const char *path, const char *prefix, char **out)
{
	struct buf b;
	bool ok;

	buf_init(&b);
	ok = buf_add_file(&b, path, 4096) && str_has_prefix(b.data, prefix);
	if (ok) {
		b.data[strcspn(b.data, "\n")] = '\0';
		*out = xstrdup(b.data);
	}
	buf_release(&b);
	return ok;
}

/* Why perf ended: "perf is not installed", or its own last words. */
static char *
why_ended(struct perfmon *pm)
{
	char *words, *exit, *why;

	if (WIFEXITED(pm->c.status) && WEXITSTATUS(pm->c.status) == 127)
		return xasprintf("'%s' could not be run: perf is not "
				 "installed on this box (Debian: apt-get "
				 "install linux-perf)",
				 pm->perf);
	words = child_last_words(&pm->c);
	exit = child_exit_text(&pm->c);
	/* perf's event errors come first, before a usage text. */
	if (first_line(pm->log, "event syntax error", &why)) {
		free(words);
		words = why;
	}
	why = xasprintf("perf %s%s%s", exit, words ? ": " : "",
			words ? words : "");
	free(words);
	free(exit);
	return why;
}

static void
start(struct perfmon *pm)
{
	char *argv[20];
	size_t n = 0;

	argv[n++] = (char *)pm->perf;
	if (strcmp(pm->kind, "perf-profile") == 0) {
		argv[n++] = "record";
		argv[n++] = "-q";
		argv[n++] = "-a";
		argv[n++] = "-g";
		argv[n++] = "-F";
		argv[n++] = pm->freq;
	} else {
		argv[n++] = "stat";
		argv[n++] = "-a";
		argv[n++] = "-x,";
		argv[n++] = "-I";
		argv[n++] = pm->interval_ms;
	}
	argv[n++] = "-e";
	argv[n++] = pm->events;
	argv[n++] = "-o";
	argv[n++] = pm->data;
	argv[n] = NULL;
	if (!child_spawn(&pm->c, pm->kind, argv, NULL, pm->log, NULL)) {
		failed(pm, xasprintf("cannot start perf: %s", strerror(errno)));
		return;
	}
	pm->started = child_now();
	perfmon_set_state(pm, PERFMON_RECORDING);
}

void
perfmon_tick(struct perfmon *pm, double elapsed)
{
	switch (pm->state) {
	case PERFMON_WAITING:
		if (elapsed >= pm->delay)
			start(pm);
		break;
	case PERFMON_RECORDING:
		if (child_reap(&pm->c))
			failed(pm, why_ended(pm));
		else if (pm->duration > 0 &&
			 child_now() - pm->started >= pm->duration)
			perfmon_stop(pm);
		break;
	case PERFMON_STOPPED:
	case PERFMON_DONE:
	case PERFMON_FAILED:
		break;
	}
}

void
perfmon_stop(struct perfmon *pm)
{
	bool timed_out;

	switch (pm->state) {
	case PERFMON_WAITING:
		failed(pm, xasprintf("the workload ended before its delay "
				     "(%.0f s)",
				     pm->delay));
		break;
	case PERFMON_RECORDING:
		if (child_reap(&pm->c)) {
			failed(pm, why_ended(pm));
			break;
		}
		/* perf writes what it has and ends on SIGINT. */
		child_signal(&pm->c, SIGINT);
		if (!child_wait(&pm->c, 60, &timed_out)) {
			failed(pm, xstrdup(timed_out ? "perf did not stop "
						       "within 60 s of SIGINT"
						     : "interrupted"));
			break;
		}
		pm->recorded = child_now() - pm->started;
		pm->cpu = (double)pm->c.ru.ru_utime.tv_sec +
			  (double)pm->c.ru.ru_utime.tv_usec / 1e6 +
			  (double)pm->c.ru.ru_stime.tv_sec +
			  (double)pm->c.ru.ru_stime.tv_usec / 1e6;
		perfmon_set_state(pm, PERFMON_STOPPED);
		break;
	case PERFMON_STOPPED:
	case PERFMON_DONE:
	case PERFMON_FAILED:
		break;
	}
}

static void
add_stat(const char *key, const char *value, void *arg)
{
	void **a = arg;
	char *name = xasprintf("%s.%s", (const char *)a[1], key);

	metrics_set(a[0], name, strtod(value, NULL));
	free(name);
}

/* perf script of the recorded data, into path; NULL or why not. */
static char *
script(struct perfmon *pm, const char *path)
{
	char *argv[] = {(char *)pm->perf, "script", "-i", pm->data, "-F",
			"event,ip,sym",   NULL};
	struct child c;
	bool timed_out;
	char *why = NULL;

	if (!child_spawn(&c, "perf script", argv, path, pm->log, NULL))
		return xasprintf("cannot start perf script: %s",
				 strerror(errno));
	if (!child_wait(&c, 600, &timed_out))
		why = xstrdup(timed_out ? "perf script took over 600 s"
					: "interrupted");
	else if (!child_succeeded(&c)) {
		char *exit = child_exit_text(&c), *words = child_last_words(&c);

		why = xasprintf("perf script %s%s%s", exit, words ? ": " : "",
				words ? words : "");
		free(exit);
		free(words);
	}
	child_release(&c);
	return why;
}

void
perfmon_finish(struct perfmon *pm, struct metrics *m)
{
	char *text_path, *why;
	const char *err = NULL;
	void *arg[2] = {m, (void *)pm->kind};
	struct buf b;

	if (pm->state != PERFMON_STOPPED)
		return;
	if (strcmp(pm->kind, "perf-profile") == 0) {
		text_path = xasprintf("%s.script", pm->data);
		if ((why = script(pm, text_path)) != NULL) {
			failed(pm, why);
			free(text_path);
			return;
		}
	} else {
		text_path = xstrdup(pm->data);
	}
	buf_init(&b);
	if (!buf_add_file(&b, text_path, SCRIPT_MAX))
		failed(pm, xasprintf("cannot read %s: %s", text_path,
				     strerror(errno)));
	else if (b.len > SCRIPT_MAX)
		failed(pm, xasprintf("perf's output is over %zu MiB",
				     SCRIPT_MAX >> 20));
	else if (!toolparse_run(pm->kind, b.data, b.len, add_stat, arg, &err))
		failed(pm, xstrdup(err));
	else
		perfmon_set_state(pm, PERFMON_DONE);
	buf_release(&b);
	free(text_path);
}

void
perfmon_release(struct perfmon *pm)
{
	if (pm->state == PERFMON_RECORDING || pm->c.state == CHILD_RUNNING)
		child_kill_wait(&pm->c);
	if (pm->c.state != CHILD_NEW)
		child_release(&pm->c);
	free(pm->data);
	free(pm->log);
	free(pm->freq);
	free(pm->events);
	free(pm->interval_ms);
	free(pm->warning);
	memset(pm, 0, sizeof *pm);
}
