/*
 * runner.c: one run of one atomic job.
 *
 * The run is a sequence of steps in one function, each of which may fail
 * with a message; the teardown after them always runs.  The workload
 * phase is a poll() loop on the signalfd with a one-second tick for the
 * monitors, the workload's own tick, and the job's timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobs/box/child.h"
#include "jobs/box/monitor.h"
#include "jobs/box/perfmon.h"
#include "jobs/box/provision.h"
#include "jobs/box/runner.h"
#include "jobs/box/settle.h"
#include "jobs/box/storage.h"
#include "jobs/box/tunables.h"
#include "jobs/box/workload.h"
#include "jobs/emit.h"
#include "jobs/unit.h"
#include "jobs/validate.h"
#include "robot/analysis/result.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

struct run {
	const struct runner_request *rq;
	char *rundir;
	struct metrics *m;
	json_t *outputs;
	json_t *provision;
	json_t *storage;
	json_t *sysctl;
	json_t *warnings; /* for the result document */
	enum result_status status;
	char *error;
	bool job_fault; /* the failure is the job's, not the box's */
	double monitor_cpu;
	size_t samples;
	struct settle settle; /* what the box waited for before the run */
	bool settled;
	json_t *perf;  /* {"perf-profile": {"seconds": s, "cpu_seconds": c}} */
	json_t *guest; /* the run's document from the hook that ran the job */
};

static void
iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
fail(struct run *r, char *msg)
{
	int sig = child_stop_signal();

	if (r->error != NULL) {
		free(msg);
	} else if (sig != 0) {
		/* A step cut short by the stop failed because of it ("mount
		 * was stopped"): the stop is what the run says. */
		log_info("%s (stopped by SIG%s)", msg, sigabbrev_np(sig));
		free(msg);
		r->status = RESULT_INCOMPLETE;
		r->error = xasprintf("interrupted by SIG%s", sigabbrev_np(sig));
	} else {
		r->status = RESULT_FAILED;
		r->error = msg;
	}
}

static bool
stopped(struct run *r)
{
	int sig;

	if (child_signals_read(&sig) && r->error == NULL) {
		r->status = RESULT_INCOMPLETE;
		r->error = xasprintf("interrupted by SIG%s", sigabbrev_np(sig));
	}
	return r->status == RESULT_INCOMPLETE;
}

static double
job_timeout(const struct runner_request *rq)
{
	const struct node *t = node_get(rq->aj->job, "timeout");
	double secs = rq->bc->timeout;
	char *s;

	if (t != NULL && t->kind == NODE_SCALAR) {
		s = node_to_s(t);
		unit_duration(s, &secs);
		free(s);
	}
	return secs;
}

static void
run_workload(struct run *r, const char *name, struct storage *st)
{
	const char **devices = xcalloc(st->n + 1, sizeof *devices);
	struct workload_env env;
	struct workload *w;
	struct monitor mon;
	struct perfmon pms[PERFMON_KINDS];
	size_t npms = 0;
	double next_tick, deadline, timeout = job_timeout(r->rq);
	char *err = NULL;
	bool ok = true;

	for (size_t i = 0; i < st->n; i++)
		devices[i] = st->devs[i].name;
	env = (struct workload_env){
		r->rq->aj->job, storage_mounts(st), devices, st->n,
		r->rundir,      r->rq->bc->cpus,    r->m};
	w = workload_new(name, &env);
	if (w == NULL) {
		fail(r, xasprintf("this box cannot run the %s workload", name));
		free(devices);
		return;
	}
	monitor_start(&mon, "/proc", devices, st->n, r->m);
	for (size_t i = 0; perfmon_kinds[i] != NULL; i++)
		if (perfmon_wanted(r->rq->aj->job, perfmon_kinds[i]))
			perfmon_init(&pms[npms++], perfmon_kinds[i],
				     r->rq->aj->job, r->rq->bc->perf,
				     r->rundir);
	/* perf starts before the workload, so that a profile without a
	 * delay sees its start. */
	for (size_t i = 0; i < npms; i++)
		perfmon_tick(&pms[i], 0);
	w->started = child_now();
	next_tick = w->started + 1;
	deadline = w->started + timeout;
	if (!w->ops->start(w, &err)) {
		fail(r, err);
		ok = false;
	}
	while (ok && !w->ops->done(w)) {
		struct pollfd p = {child_signals_fd(), POLLIN, 0};
		double now = child_now(), wait = next_tick - now;

		poll(&p, 1, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		if (stopped(r)) {
			ok = false;
			break;
		}
		for (size_t i = 0; i < w->nchildren && ok; i++) {
			struct child *c = w->children[i];

			if (c->state == CHILD_RUNNING && child_reap(c) &&
			    !w->ops->child_ended(w, c, &err)) {
				fail(r, err);
				ok = false;
			}
		}
		now = child_now();
		if (now >= next_tick) {
			monitor_sample(&mon);
			for (size_t i = 0; i < npms; i++)
				perfmon_tick(&pms[i], now - w->started);
			w->ops->tick(w, now);
			next_tick += 1;
			if (next_tick < now)
				next_tick = now + 1;
		}
		if (ok && now >= deadline) {
			fail(r, xasprintf("the job timed out after %.0f s "
					  "(timeout)",
					  timeout));
			ok = false;
		}
	}
	workload_kill(w);
	w->ended = child_now();
	for (size_t i = 0; i < npms; i++)
		perfmon_stop(&pms[i]);
	monitor_sample(&mon);
	monitor_finish(&mon);
	r->monitor_cpu = mon.cpu_seconds;
	r->samples = mon.samples;
	if (ok && !w->ops->finish(w, &err))
		fail(r, err);
	for (size_t i = 0; i < npms; i++) {
		if (pms[i].recorded > 0)
			json_object_set_new(r->perf, pms[i].kind,
					    json_pack("{s:f, s:f}", "seconds",
						      pms[i].recorded,
						      "cpu_seconds",
						      pms[i].cpu));
		if (r->error == NULL)
			perfmon_finish(&pms[i], r->m);
		if (pms[i].warning != NULL)
			json_array_append_new(r->warnings,
					      json_string(pms[i].warning));
		perfmon_release(&pms[i]);
	}
	workload_time_stats(w);
	json_object_update(r->outputs, w->outputs);
	monitor_release(&mon);
	workload_free(w);
	free(devices);
}

/*
 * The run the hook's guest made becomes this run: its status, numbers,
 * outputs, disks and settings; the job, the box, the commit, the times
 * and what was provisioned stay this box's.
 */
static void
adopt_guest(json_t *doc, json_t *guest)
{
	static const char *const taken[] = {"status", "error",  "fault",
					    "stats",  "series", "storage",
					    "sysctl", NULL};
	json_t *run = json_object_get(guest, "run");
	json_t *gw = json_object_get(guest, "warnings");
	json_t *w = json_object_get(doc, "warnings");
	size_t i;
	json_t *v;

	for (i = 0; taken[i] != NULL; i++)
		if ((v = json_object_get(guest, taken[i])) != NULL)
			json_object_set(doc, taken[i], v);
	/* The guest's CPUs, samples and costs; the index is this box's. */
	if (json_is_object(run)) {
		json_t *mine = json_object_get(doc, "run");
		json_t *index = json_incref(json_object_get(mine, "index"));
		json_t *of = json_incref(json_object_get(mine, "of"));

		json_object_update(mine, run);
		json_object_set_new(mine, "index", index);
		json_object_set_new(mine, "of", of);
	}
	if (json_is_object(json_object_get(guest, "outputs")))
		json_object_update_missing(json_object_get(doc, "outputs"),
					   json_object_get(guest, "outputs"));
	if (json_is_array(gw) && json_array_size(gw) > 0) {
		if (w == NULL) {
			w = json_array();
			json_object_set_new(doc, "warnings", w);
		}
		json_array_extend(w, gw);
	}
}

/*
 * A box whose hook runs the job: the atomic job goes to the hook as a
 * file, and the one result document it writes back is the run's, once it
 * proves that it ran where the hook says ("kernel").
 */
static void
run_by_hook(struct run *r)
{
	const struct runner_request *rq = r->rq;
	char *job = xasprintf("%s/job.yaml", r->rundir);
	char *result = xasprintf("%s/result.json", r->rundir);
	char *yaml = emit_yaml(rq->aj->job, rq->aj->key), *err = NULL;
	const char *said, *ran;
	json_error_t je;
	json_t *doc = NULL;
	struct result res;
	struct errlist el;
	FILE *fp;

	errlist_init(&el);
	if (yaml == NULL || (fp = fopen(job, "w")) == NULL) {
		fail(r, xasprintf("cannot write the job for the hook to '%s'",
				  job));
		goto out;
	}
	fputs(yaml, fp);
	if (fclose(fp) != 0) {
		fail(r, xasprintf("cannot write '%s'", job));
		goto out;
	}
	log_info("%s %s: the hook runs %s", rq->label, rq->aj->key,
		 rq->commit ? rq->commit : "(no commit)");
	r->provision =
		provision_run(rq->bc, rq->tree, rq->commit, job, result,
			      r->rundir, r->outputs, &err, &r->job_fault);
	if (r->provision == NULL) {
		fail(r, err);
		goto out;
	}
	doc = json_load_file(result, JSON_REJECT_DUPLICATES, &je);
	if (json_is_array(doc) && json_array_size(doc) == 1) {
		json_t *one = json_incref(json_array_get(doc, 0));

		json_decref(doc);
		doc = one;
	}
	if (doc == NULL || !result_parse("the hook's result", doc, &res, &el)) {
		fail(r, xasprintf("the hook wrote no result document to "
				  "'%s': %s",
				  result,
				  doc == NULL ? je.text
				  : el.n > 0  ? el.v[0].message
					      : "?"));
		goto out;
	}
	result_release(&res);
	/* The proof: the release the guest ran is the one the hook built. */
	said = json_string_value(json_object_get(r->provision, "kernel"));
	ran = json_string_value(
		json_object_get(json_object_get(doc, "provision"), "kernel"));
	if (said == NULL || ran == NULL || strcmp(said, ran) != 0) {
		fail(r,
		     xasprintf("the hook says it ran kernel %s, but the "
			       "job ran on %s",
			       said ? said : "(none)", ran ? ran : "(none)"));
		goto out;
	}
	r->guest = json_incref(doc);
out:
	json_decref(doc);
	errlist_release(&el);
	free(yaml);
	free(job);
	free(result);
}

static json_t *
result_json(struct run *r, const char *started, const char *finished)
{
	const struct runner_request *rq = r->rq;
	struct result_head h = {node_to_json(rq->aj->job),
				rq->aj->key,
				rq->bc->tbox_group,
				rq->bc->name,
				rq->tree,
				rq->commit,
				started,
				finished,
				r->status,
				r->error,
				r->job_fault};
	json_t *doc = result_doc_new(&h), *stats, *series;

	metrics_reduce(r->m);
	stats = r->status == RESULT_OK ? metrics_stats_json(r->m)
				       : json_object();
	series = metrics_series_json(r->m);
	json_object_set_new(doc, "stats", stats);
	json_object_set_new(doc, "series", series);
	if (r->status == RESULT_OK && (r->samples < METRICS_SPREAD_MIN ||
				       metrics_short_series(r->m) > 0)) {
		char *w = xasprintf("a short run: %zu monitor samples; the "
				    "per-second figures (min, max, stddev, "
				    "cv) are left out, and the monitors' "
				    "means are of few samples",
				    r->samples);

		json_array_insert_new(r->warnings, 0, json_string(w));
		free(w);
	}
	if (json_array_size(r->warnings) > 0)
		json_object_set(doc, "warnings", r->warnings);
	json_object_set_new(doc, "outputs", json_incref(r->outputs));
	json_object_set_new(doc, "provision",
			    r->provision ? json_incref(r->provision)
					 : json_null());
	json_object_set_new(doc, "storage",
			    r->storage ? json_incref(r->storage) : json_null());
	json_object_set_new(doc, "sysctl", json_incref(r->sysctl));
	json_object_set_new(
		doc, "run",
		json_pack("{s:i, s:i, s:i, s:f, s:I}", "index", rq->run, "of",
			  rq->runs, "cpus", rq->bc->cpus, "monitor_cpu_seconds",
			  r->monitor_cpu, "samples", (json_int_t)r->samples));
	if (r->settled)
		json_object_set_new(json_object_get(doc, "run"), "settle",
				    json_pack("{s:f, s:f, s:b}", "waited_s",
					      r->settle.waited, "busy_cpus",
					      r->settle.busy, "quiet",
					      r->settle.quiet));
	/* What perf cost the box while it recorded (docs/box.md). */
	if (json_object_size(r->perf) > 0)
		json_object_set(json_object_get(doc, "run"), "perf", r->perf);
	if (r->guest != NULL)
		adopt_guest(doc, r->guest);
	return doc;
}

static void
remove_tree(const char *dir)
{
	char *argv[] = {"rm", "-rf", (char *)dir, NULL};
	struct child c;
	bool timed_out;

	if (child_spawn(&c, "rm", argv, NULL, NULL, NULL)) {
		(void)child_wait(&c, 300, &timed_out);
		child_release(&c);
	}
}

json_t *
runner_run(const struct runner_request *rq)
{
	struct run r = {.rq = rq};
	struct storage st = {0};
	struct tunables tun = {0};
	const char *workload = NULL;
	char started[32], finished[32], *err = NULL, *path;
	bool have_storage = false, have_tunables = false;
	json_t *doc;

	iso_now(started, sizeof started);
	r.m = metrics_new();
	r.outputs = json_object();
	r.sysctl = json_object();
	r.warnings = json_array();
	r.perf = json_object();
	r.status = RESULT_OK;
	r.rundir = xasprintf("%s/runs/%ld-%d", rq->bc->workdir, (long)getpid(),
			     rq->run);
	path = xasprintf("%s/runs", rq->bc->workdir);
	mkdir(rq->bc->workdir, 0755);
	mkdir(path, 0755);
	free(path);
	if (mkdir(r.rundir, 0755) == -1 && errno != EEXIST) {
		fail(&r, xasprintf("cannot create '%s': %s", r.rundir,
				   strerror(errno)));
		goto teardown;
	}
	validate_workloads(rq->aj->job, &workload);
	if (workload == NULL) {
		r.job_fault = true;
		fail(&r, xstrdup("the job runs no workload"));
		goto teardown;
	}

	if (rq->bc->hook_runs_job) {
		run_by_hook(&r);
		goto teardown;
	}
	/* 1. Save the tunables before the hook or the job touch them. */
	path = xasprintf("%s/sysctl.saved", rq->bc->workdir);
	have_tunables = tunables_save(&tun, path, &err);
	free(path);
	if (!have_tunables) {
		fail(&r, err);
		goto teardown;
	}
	/* 2. The job's sysctl settings, then the commit: what the commit
	 * changes is what the box runs (docs/box.md). */
	if (!tunables_apply(node_get(rq->aj->job, "sysctl"), r.sysctl, &err)) {
		fail(&r, err);
		goto teardown;
	}
	/* 3. Provision. */
	if (rq->bc->hook == NULL)
		log_info(
			"%s %s: no provisioning hook: the box's own kernel%s%s",
			rq->label, rq->aj->key,
			rq->commit ? ", runs named " : "",
			rq->commit ? rq->commit : "");
	else
		log_info("%s %s: provisioning %s", rq->label, rq->aj->key,
			 rq->commit ? rq->commit : "(no commit)");
	r.provision = provision_run(rq->bc, rq->tree, rq->commit, NULL, NULL,
				    r.rundir, r.outputs, &err, &r.job_fault);
	if (r.provision == NULL) {
		fail(&r, err);
		goto teardown;
	}
	if (stopped(&r))
		goto teardown;
	/* 4. Disks and filesystems. */
	path = xasprintf("%s/storage.log", r.rundir);
	have_storage = true;
	if (!storage_setup(&st, rq->bc, rq->aj->job, path, &err))
		fail(&r, err);
	r.storage = storage_json(&st);
	workload_keep_output_path(r.outputs, "mkfs", path);
	free(path);
	if (r.error != NULL || stopped(&r))
		goto teardown;
	if (st.backend != NULL)
		log_info("%s %s: %s, %s", rq->label, rq->aj->key, st.backend,
			 st.fs ? st.fs : "no filesystem");
	/* 5. The workload and its monitors, on a quiet machine. */
	tunables_drop_caches();
	if (rq->bc->settle > 0) {
		settle_wait(rq->bc->settle, &r.settle);
		r.settled = true;
	}
	if (r.settled && !r.settle.quiet) {
		char *w = xasprintf("the box was busy when the run started: "
				    "%.1f CPUs in use by other work after "
				    "%.1f s (settle: %g s); its figures may "
				    "be noisier than its series'",
				    r.settle.busy, r.settle.waited,
				    rq->bc->settle);

		json_array_append_new(r.warnings, json_string(w));
		free(w);
	}
	log_info("%s %s: running %s", rq->label, rq->aj->key, workload);
	run_workload(&r, workload, &st);
teardown:
	if (have_storage)
		storage_teardown(&st);
	if (have_tunables)
		tunables_restore(&tun);
	tunables_release(&tun);
	if (r.rundir != NULL)
		remove_tree(r.rundir);
	iso_now(finished, sizeof finished);
	doc = result_json(&r, started, finished);
	metrics_free(r.m);
	json_decref(r.outputs);
	json_decref(r.provision);
	json_decref(r.storage);
	json_decref(r.sysctl);
	json_decref(r.warnings);
	json_decref(r.perf);
	json_decref(r.guest);
	free(r.error);
	free(r.rundir);
	return doc;
}
