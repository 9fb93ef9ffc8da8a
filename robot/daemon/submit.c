/*
 * submit.c: submit planning.
 *
 * A submit is a small state machine; each completion records what it
 * brought and calls submit_drive(), which takes the next step:
 *
 *   TREE      a person's submit: the tree it names (?tree=, or the
 *             jobs' tree:) is being read
 *   RESOLVING its commits are becoming full SHAs (robot/daemon/resolve.h):
 *             in the tree's mirror, or checked as such without a tree
 *   GROUPS    the lab's groups are being read (for jobs that name none,
 *             and to say which groups no box has registered for); then
 *             each job's group is resolved
 *   PLANNING  the runs are being written for the store: on a worker
 *             thread when the request gives one (20,000 runs held the
 *             loop, issue 61), else at once
 *   QUEUEING  the planned runs are being stored
 *   DONE      answered; freed after the loop iteration
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event2/event.h>

#include "jobs/jobfile.h"
#include "jobs/needs.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/analysis/decide.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/resolve.h"
#include "robot/daemon/store/jobs.h"
#include "robot/daemon/store/trees.h"
#include "robot/daemon/submit.h"
#include "robot/daemon/worker.h"
#include "robot/core/banned.h"

enum submit_state {
	SUBMIT_TREE,
	SUBMIT_RESOLVING,
	SUBMIT_GROUPS,
	SUBMIT_PLANNING,
	SUBMIT_QUEUEING,
	SUBMIT_DONE,
};
static const char *const submit_states[] = {
	[SUBMIT_TREE] = "tree",         [SUBMIT_RESOLVING] = "resolving",
	[SUBMIT_GROUPS] = "groups",     [SUBMIT_PLANNING] = "planning",
	[SUBMIT_QUEUEING] = "queueing", [SUBMIT_DONE] = "done",
};
static const struct fsm submit_fsm = FSM("submit", submit_states, SUBMIT_DONE);

struct submit {
	enum submit_state state;
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	char *submitter;
	char **commits;
	size_t ncommits;
	long repeat, priority;
	char *group;         /* the request's, or NULL */
	char *tree, *branch; /* a tree's head, or NULL */
	char *named;         /* a person's submit: the tree it names */
	bool have_tree;      /* TREE: named was read */
	char *mirror;        /* TREE: named's mirror */
	json_t *resolved;    /* RESOLVING: {name: SHA} */
	int max_runs;
	struct jobfile *jf;
	json_t *warnings;
	const char **groups; /* per atomic job, once known (borrowed) */
	char **own;          /* groups read from the lab, owned */
	size_t nown;
	size_t nhave;    /* of own, the lab's (the first) */
	json_t *waiting; /* groups no box has registered for */
	char *body;
	bool have_groups;      /* GROUPS: the lab's groups are in own */
	struct worker *worker; /* PLANNING's, or NULL */
	int max_attempts;      /* PLANNING: the setting's, when it began */
	char *runs;            /* PLANNING: the runs, as the store takes them */
	json_t *answer;        /* QUEUEING: the store's answer */
	struct problem *fail;  /* a step failed: the answer is this */
	submit_cb cb;
	void *arg;
};

static void submit_drive(struct submit *s);

static void
submit_set_state(struct submit *s, enum submit_state st)
{
	FSM_SET(&submit_fsm, s->state, st, "submit of %s by %s",
		s->jf ? s->jf->name : "?", s->submitter);
}

static void
submit_free(void *arg)
{
	struct submit *s = arg;

	free(s->submitter);
	for (size_t i = 0; i < s->ncommits; i++)
		free(s->commits[i]);
	free(s->commits);
	free(s->group);
	free(s->tree);
	free(s->branch);
	free(s->named);
	free(s->mirror);
	json_decref(s->resolved);
	jobfile_free(s->jf);
	json_decref(s->warnings);
	free(s->groups);
	for (size_t i = 0; i < s->nown; i++)
		free(s->own[i]);
	free(s->own);
	json_decref(s->waiting);
	free(s->body);
	json_decref(s->answer);
	problem_free(s->fail);
	free(s);
}

/* A step failed; the next submit_drive() answers with it. */
static void
submit_fail(struct submit *s, enum problem_kind kind, json_t *details,
	    const char *msg)
{
	s->fail = problem_new(kind, details, "%s", msg);
}

/* Answers once; the submit ends and is freed after this iteration. */
static void
submit_finish(struct submit *s)
{
	json_t *answer = s->answer;

	submit_set_state(s, SUBMIT_DONE);
	s->answer = NULL;
	s->cb(s->fail ? NULL : answer, s->fail, s->arg);
	if (s->fail != NULL)
		json_decref(answer);
	defer(s->base, submit_free, s);
}

/* A job's own setting at key, when it is a plain value. */
static char *
job_str(const struct atomic_job *aj, const char *key)
{
	const struct node *n = node_get(aj->job, key);

	return n != NULL && n->kind == NODE_SCALAR ? node_to_s(n) : NULL;
}

static long
job_int(const struct atomic_job *aj, const char *key, long dflt)
{
	const struct node *n = node_get(aj->job, key);

	if (n != NULL && n->kind == NODE_SCALAR && n->stype == NODE_INT)
		return (long)n->ival;
	return dflt;
}

/* Whether atomic job i is the same job as an earlier one: commits from
 * the request replace the file's, whose list gave jobs that differ in
 * the commit alone. */
static bool
submit_dup(const struct submit *s, size_t i)
{
	for (size_t k = 0; s->ncommits > 0 && k < i; k++)
		if (strcmp(s->jf->jobs[k].key, s->jf->jobs[i].key) == 0)
			return true;
	return false;
}

static long
submit_repeat(const struct submit *s, size_t i)
{
	return s->repeat ? s->repeat : jobfile_repeat(&s->jf->jobs[i]);
}

static void
submit_on_queued(const char *text, const struct problem *p, void *arg)
{
	struct submit *s = arg;
	json_error_t jerr;

	if (p != NULL)
		s->fail = problem_new(p->kind, json_deep_copy(p->details), "%s",
				      p->message);
	else if ((s->answer = rjson_loads(text, &jerr)) == NULL)
		fatalx("robot_submit gave an answer that is not JSON: %s",
		       jerr.text);
	submit_drive(s);
}

/* The store's answer, with the warnings and the groups without boxes. */
static void
submit_answer(struct submit *s)
{
	json_t *answer = s->answer, *waiting;

	waiting = json_array();
	for (size_t i = 0; i < json_array_size(s->waiting); i++) {
		const char *g =
			json_string_value(json_array_get(s->waiting, i));
		/* (a typo's nearest registered group: s->own[0..nhave)) */
		const char **have = xcalloc(s->nhave + 1, sizeof *have);
		const char *near;
		char *msg;

		for (size_t k = 0; k < s->nhave; k++)
			have[k] = s->own[k];
		near = str_closest(g, have);
		if (near != NULL)
			msg = xasprintf(
				"no box of tbox_group %s has registered "
				"yet: its jobs wait in the queue (did "
				"you mean %s?)",
				g, near);
		else
			msg = xasprintf(
				"no box of tbox_group %s has registered "
				"yet: its jobs wait in the queue",
				g);
		json_array_append_new(waiting, json_string(msg));
		free(msg);
		free(have);
	}
	json_object_set(answer, "warnings", s->warnings);
	json_object_set_new(answer, "waiting", waiting);
	/* How many runs a side analysis may ask for in all. */
	json_object_set_new(
		answer, "max_runs",
		json_integer(s->max_runs > 0 ? s->max_runs : s->set->max_runs));
	/* robotd's cap, not the submitter's: a KPI near the line at the cap
	 * gets the promising look past it (decide()). */
	if (s->max_runs <= 0)
		json_object_set_new(
			answer, "promising_runs",
			json_integer(decide_promising_runs(s->set->max_runs)));
	if (s->resolved != NULL)
		json_object_set(answer, "resolved", s->resolved);
	log_info("%s submitted %zu runs of %s", s->submitter,
		 json_array_size(json_object_get(answer, "jobs")), s->jf->name);
}

/* PLANNING, on the worker's thread when there is one: the runs, as
 * robot_submit() takes them; reads only what no one changes meanwhile. */
static void
submit_plan(void *arg)
{
	struct submit *s = arg;
	json_t *runs = json_array();

	for (size_t i = 0; i < s->jf->njobs; i++) {
		const struct atomic_job *aj = &s->jf->jobs[i];
		long repeat = submit_repeat(s, i);
		long priority = s->priority != LONG_MIN
					? s->priority
					: job_int(aj, "priority", 0);
		size_t nc = s->ncommits ? s->ncommits : 1;
		json_t *job, *needs;

		if (submit_dup(s, i))
			continue;
		/* (made once a job, not once a run) */
		job = jobfile_job_json(aj);
		needs = needs_of_job(aj->job);
		for (size_t c = 0; c < nc; c++) {
			const char *commit =
				s->ncommits ? s->commits[c] : aj->commit;

			for (long run = 1; run <= repeat; run++)
				json_array_append_new(
					runs,
					json_pack(
						"{s:s, s:s, s:o, s:o, s:O, "
						"s:O, s:I, s:I, s:I, s:i}",
						"key", aj->key, "tbox_group",
						s->groups[i], "commit",
						commit ? json_string(commit)
						       : json_null(),
						"tree",
						s->tree ? json_string(s->tree)
						: s->named
							? json_string(s->named)
							: json_null(),
						"job", job, "needs", needs,
						"run", (json_int_t)run, "runs",
						(json_int_t)repeat, "priority",
						(json_int_t)priority,
						"max_attempts",
						s->max_attempts));
		}
		json_decref(job);
		json_decref(needs);
	}
	s->runs = rjson_dumps(runs, JSON_COMPACT);
	json_decref(runs);
}

/* PLANNING done, on the loop: the runs go to the store. */
static void
submit_planned(void *arg)
{
	struct submit *s = arg;

	submit_set_state(s, SUBMIT_QUEUEING);
	if (s->tree != NULL && s->ncommits == 2) {
		struct store_tree_submit ts = {
			s->submitter,  s->jf->name,   s->body,
			s->runs,       s->tree,       s->branch,
			s->commits[0], s->commits[1], s->max_runs};

		store_tree_submit(s->store, &ts, submit_on_queued, s);
	} else {
		store_submit(s->store, s->submitter, s->jf->name, s->body,
			     s->runs, s->max_runs, submit_on_queued, s);
	}
	free(s->runs);
	s->runs = NULL;
}

/* The runs, once every job's group is known; false after a failure. */
static bool
submit_queue(struct submit *s)
{
	size_t total = 0;

	for (size_t i = 0; i < s->jf->njobs; i++)
		if (!submit_dup(s, i))
			total += (size_t)submit_repeat(s, i) *
				 (s->ncommits ? s->ncommits : 1);
	for (size_t i = 0; s->max_runs > 0 && i < s->jf->njobs; i++)
		if (submit_repeat(s, i) > s->max_runs) {
			char *msg = xasprintf(
				"max_runs (%d) is below the runs asked of %s "
				"(%ld): give --max-runs at least --repeat",
				s->max_runs, s->jf->jobs[i].key,
				submit_repeat(s, i));

			submit_fail(s, PROBLEM_INVALID, NULL, msg);
			free(msg);
			return false;
		}
	if (total > SUBMIT_MAX_RUNS) {
		char *msg = xasprintf("%zu runs in one submission; the limit "
				      "is %d",
				      total, SUBMIT_MAX_RUNS);

		submit_fail(s, PROBLEM_INVALID, NULL, msg);
		free(msg);
		return false;
	}
	submit_set_state(s, SUBMIT_PLANNING);
	s->max_attempts = s->set->max_attempts;
	if (s->worker != NULL)
		worker_run(s->worker, submit_plan, submit_planned, s);
	else {
		submit_plan(s);
		submit_planned(s);
	}
	return true;
}

static bool
json_has_string(const json_t *array, const char *str)
{
	for (size_t i = 0; i < json_array_size(array); i++)
		if (strcmp(json_string_value(json_array_get(array, i)), str) ==
		    0)
			return true;
	return false;
}

static void
submit_on_groups(const char *const *have, size_t nhave, const struct problem *p,
		 void *arg)
{
	struct submit *s = arg;

	if (p != NULL)
		s->fail = problem_new(p->kind, json_deep_copy(p->details), "%s",
				      p->message);
	s->own = xcalloc(nhave + 1, sizeof *s->own);
	for (size_t i = 0; i < nhave; i++)
		s->own[s->nown++] = xstrdup(have[i]);
	s->have_groups = true;
	submit_drive(s);
}

/* Each job's group, resolved once; false after a failure. */
static bool
submit_resolve_groups(struct submit *s)
{
	size_t nhave = s->nown;
	bool unnamed = false;

	s->nhave = nhave;

	for (size_t i = 0; i < s->jf->njobs; i++) {
		const char *g = s->group;
		char *own = NULL;

		if (g == NULL &&
		    (own = job_str(&s->jf->jobs[i], "tbox_group")) != NULL) {
			s->own = xreallocarray(s->own, s->nown + 1,
					       sizeof *s->own);
			s->own[s->nown++] = own;
			g = own;
		}
		if (g == NULL)
			g = s->set->tbox_group;
		if (g == NULL && nhave == 1)
			g = s->own[0];
		unnamed = unnamed || g == NULL;
		s->groups[i] = g;
	}
	if (unnamed) {
		char *msg;

		if (nhave == 0) {
			msg = xstrdup("no box has registered yet: name the "
				      "tbox_group to queue for");
		} else {
			struct buf b;

			buf_init(&b);
			for (size_t i = 0; i < nhave; i++)
				buf_addf(&b, "%s%s", i ? ", " : "", s->own[i]);
			msg = xasprintf("name a tbox_group (in the job file or "
					"?tbox_group=): the lab has %s",
					b.data);
			buf_release(&b);
		}
		submit_fail(s, PROBLEM_INVALID, NULL, msg);
		free(msg);
		return false;
	}
	/* Groups no box has registered for: queued, and said so. */
	for (size_t i = 0; i < s->jf->njobs; i++) {
		bool known = false;

		for (size_t k = 0; k < nhave && !known; k++)
			known = strcmp(s->own[k], s->groups[i]) == 0;
		if (!known && !json_has_string(s->waiting, s->groups[i]))
			json_array_append_new(s->waiting,
					      json_string(s->groups[i]));
	}
	return true;
}

static void
submit_on_tree(const char *text, const struct problem *p, void *arg)
{
	struct submit *s = arg;
	struct stat st;
	json_t *tree = NULL;

	if (p == NULL && text == NULL) {
		char *msg = xasprintf("no tree named '%s' (robot tree list "
				      "shows the trees)",
				      s->named);

		submit_fail(s, PROBLEM_INVALID, NULL, msg);
		free(msg);
	} else if (p != NULL) {
		s->fail = problem_new(p->kind, json_deep_copy(p->details), "%s",
				      p->message);
	} else {
		tree = text != NULL ? rjson_loads(text, NULL) : NULL;
		s->mirror = settings_mirror(s->set, s->named);
		if (!json_is_string(json_object_get(tree, "fetched")) ||
		    stat(s->mirror, &st) != 0) {
			char *msg = xasprintf("tree %s has not been fetched "
					      "yet: submit again after its "
					      "first fetch (robot tree show "
					      "%s)",
					      s->named, s->named);

			submit_fail(s, PROBLEM_CONFLICT, NULL, msg);
			free(msg);
		}
	}
	json_decref(tree);
	s->have_tree = true;
	submit_drive(s);
}

/* The tree a person's submit names: ?tree=, else the jobs' own tree:,
 * which must agree; false after a failure. */
static bool
submit_named_tree(struct submit *s, const char *asked)
{
	for (size_t i = 0; asked == NULL && i < s->jf->njobs; i++) {
		char *t = job_str(&s->jf->jobs[i], "tree");

		if (t != NULL && s->named != NULL && strcmp(t, s->named) != 0) {
			char *msg = xasprintf("the jobs name two trees, %s "
					      "and %s: submit them apart",
					      s->named, t);

			submit_fail(s, PROBLEM_INVALID, NULL, msg);
			free(msg);
			free(t);
			return false;
		}
		if (s->named == NULL)
			s->named = t;
		else
			free(t);
	}
	if (asked != NULL)
		s->named = xstrdup(asked);
	return true;
}

static void
submit_on_resolved(char *const *shas, const struct problem *p, void *arg)
{
	struct submit *s = arg;
	size_t i;
	json_t *v;
	const char *name;

	if (p != NULL) {
		s->fail = problem_new(p->kind, json_deep_copy(p->details), "%s",
				      p->message);
		submit_drive(s);
		return;
	}
	i = 0;
	json_object_foreach(s->resolved, name, v)
	{
		json_object_set_new(s->resolved, name, json_string(shas[i++]));
	}
	for (i = 0; i < s->ncommits; i++) {
		name = json_string_value(
			json_object_get(s->resolved, s->commits[i]));
		free(s->commits[i]);
		s->commits[i] = xstrdup(name);
	}
	for (i = 0; i < s->jf->njobs; i++) {
		struct atomic_job *aj = &s->jf->jobs[i];
		struct node *c;

		if (aj->commit == NULL)
			continue;
		name = json_string_value(
			json_object_get(s->resolved, aj->commit));
		free(aj->commit);
		aj->commit = xstrdup(name);
		if ((c = node_get(aj->job, "commit")) != NULL &&
		    c->kind == NODE_SCALAR) {
			free(c->text);
			c->text = xstrdup(name);
			c->len = strlen(name);
		}
	}
	submit_drive(s);
}

/* Every commit the runs will carry, to its full SHA. */
static void
submit_resolve(struct submit *s)
{
	const char **names;
	size_t n = 0;
	const char *name;
	json_t *v;

	s->resolved = json_object();
	for (size_t i = 0; i < s->ncommits; i++)
		json_object_set_new(s->resolved, s->commits[i], json_null());
	for (size_t i = 0; s->ncommits == 0 && i < s->jf->njobs; i++)
		if (s->jf->jobs[i].commit != NULL)
			json_object_set_new(s->resolved, s->jf->jobs[i].commit,
					    json_null());
	if (json_object_size(s->resolved) > RESOLVE_MAX_NAMES) {
		char *msg = xasprintf("%zu commits in one submission; the "
				      "limit is %d",
				      json_object_size(s->resolved),
				      RESOLVE_MAX_NAMES);

		submit_fail(s, PROBLEM_INVALID, NULL, msg);
		free(msg);
		submit_drive(s);
		return;
	}
	names = xcalloc(json_object_size(s->resolved) + 1, sizeof *names);
	json_object_foreach(s->resolved, name, v)
	{
		names[n++] = name;
	}
	resolve_start(s->base, s->named, s->mirror, names, n,
		      s->set->tree_fetch_timeout, submit_on_resolved, s);
	free(names);
}

static void
submit_drive(struct submit *s)
{
	switch (s->state) {
	case SUBMIT_TREE:
		if (s->fail == NULL && s->named != NULL && !s->have_tree) {
			store_trees(s->store, s->named, submit_on_tree, s);
			return;
		}
		if (s->fail == NULL) {
			submit_set_state(s, SUBMIT_RESOLVING);
			submit_resolve(s);
			return;
		}
		submit_finish(s);
		return;
	case SUBMIT_RESOLVING:
		if (s->fail == NULL) {
			submit_set_state(s, SUBMIT_GROUPS);
			submit_drive(s);
			return;
		}
		submit_finish(s);
		return;
	case SUBMIT_GROUPS:
		if (s->fail == NULL && !s->have_groups) {
			store_groups(s->store, submit_on_groups, s);
			return;
		}
		if (s->fail == NULL && submit_resolve_groups(s) &&
		    submit_queue(s))
			return; /* PLANNING */
		submit_finish(s);
		return;
	case SUBMIT_PLANNING:
		return; /* (submit_planned() goes on) */
	case SUBMIT_QUEUEING:
		if (s->fail == NULL)
			submit_answer(s);
		submit_finish(s);
		return;
	case SUBMIT_DONE:
		return;
	}
}

void
submit_start(struct event_base *base, struct store *store,
	     const struct settings *set, const struct submit_request *rq,
	     submit_cb cb, void *arg)
{
	/* robotd reads no file a job names, and queues only what a box of
	 * the robot can run. */
	struct jobfile_options opt = {JOBFILE_AUTO, (size_t)set->max_jobs,
				      false, true};
	struct submit *s = xcalloc(1, sizeof *s);
	struct errlist el;

	s->base = base;
	s->store = store;
	s->set = set;
	s->submitter = xstrdup(rq->submitter);
	/* A tree's heads come from git: full SHAs already. */
	submit_set_state(s, rq->tree != NULL ? SUBMIT_GROUPS : SUBMIT_TREE);
	s->commits = xcalloc(rq->ncommits + 1, sizeof *s->commits);
	for (size_t i = 0; i < rq->ncommits; i++)
		s->commits[i] = xstrdup(rq->commits[i]);
	s->ncommits = rq->ncommits;
	s->repeat = rq->repeat;
	s->priority = rq->priority;
	s->group = rq->group ? xstrdup(rq->group) : NULL;
	s->tree = rq->tree ? xstrdup(rq->tree) : NULL;
	s->branch = rq->branch ? xstrdup(rq->branch) : NULL;
	s->max_runs = rq->max_runs;
	s->worker = rq->worker;
	s->waiting = json_array();
	s->cb = cb;
	s->arg = arg;
	errlist_init(&el);
	s->jf = jobfile_split(rq->file_name ? rq->file_name : "job.yaml",
			      rq->body, rq->len, &opt, &el);
	if (s->jf == NULL) {
		char *msg = xasprintf("the job file has %zu error%s",
				      el.nerrors, el.nerrors == 1 ? "" : "s");

		submit_fail(s, PROBLEM_INVALID, errlist_to_json(&el, false),
			    msg);
		free(msg);
		errlist_release(&el);
		submit_drive(s);
		return;
	}
	s->warnings = errlist_to_json(&el, true);
	errlist_release(&el);
	s->body = xstrndup(rq->body, rq->len);
	s->groups = xcalloc(s->jf->njobs + 1, sizeof *s->groups);
	if (s->state == SUBMIT_TREE)
		submit_named_tree(s, rq->named_tree);
	submit_drive(s);
}
