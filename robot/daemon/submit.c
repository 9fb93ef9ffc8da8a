/*
 * submit.c: submit planning.
 *
 * A submit is a small state machine; each completion records what it
 * brought and calls submit_drive(), which takes the next step:
 *
 *   GROUPS    the lab's groups are being read (for jobs that name none,
 *             and to say which groups no box has registered for); then
 *             each job's group is resolved and the runs are planned
 *   QUEUEING  the planned runs are being stored
 *   DONE      answered; freed after the loop iteration
 */
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "jobs/jobfile.h"
#include "jobs/needs.h"
#include "robot/core/buf.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/submit.h"
#include "robot/core/banned.h"

enum submit_state {
	SUBMIT_GROUPS,
	SUBMIT_QUEUEING,
	SUBMIT_DONE,
};

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
	int max_runs;
	struct jobfile *jf;
	json_t *warnings;
	const char **groups; /* per atomic job, once known (borrowed) */
	char **own;          /* groups read from the lab, owned */
	size_t nown;
	json_t *waiting; /* groups no box has registered for */
	char *body;
	bool have_groups;     /* GROUPS: the lab's groups are in own */
	json_t *answer;       /* QUEUEING: the store's answer */
	struct problem *fail; /* a step failed: the answer is this */
	submit_cb cb;
	void *arg;
};

static void submit_drive(struct submit *s);

static const char *
submit_state_name(enum submit_state s)
{
	switch (s) {
	case SUBMIT_GROUPS:
		return "groups";
	case SUBMIT_QUEUEING:
		return "queueing";
	case SUBMIT_DONE:
		return "done";
	}
	return "?";
}

static void
submit_set_state(struct submit *s, enum submit_state st)
{
	log_debug("submit of %s by %s: %s -> %s", s->jf ? s->jf->name : "?",
		  s->submitter, submit_state_name(s->state),
		  submit_state_name(st));
	s->state = st;
}

static void
submit_on_free(evutil_socket_t fd, short what, void *arg)
{
	struct submit *s = arg;

	(void)fd;
	(void)what;
	free(s->submitter);
	for (size_t i = 0; i < s->ncommits; i++)
		free(s->commits[i]);
	free(s->commits);
	free(s->group);
	free(s->tree);
	free(s->branch);
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
	static const struct timeval now = {0, 0};
	json_t *answer = s->answer;

	submit_set_state(s, SUBMIT_DONE);
	s->answer = NULL;
	s->cb(s->fail ? NULL : answer, s->fail, s->arg);
	if (s->fail != NULL)
		json_decref(answer);
	event_base_once(s->base, -1, EV_TIMEOUT, submit_on_free, s, &now);
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
	else if ((s->answer = json_loads(text, 0, &jerr)) == NULL)
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
		char *msg = xasprintf(
			"no box of tbox_group %s has registered yet: its jobs "
			"wait in the queue",
			json_string_value(json_array_get(s->waiting, i)));

		json_array_append_new(waiting, json_string(msg));
		free(msg);
	}
	json_object_set(answer, "warnings", s->warnings);
	json_object_set_new(answer, "waiting", waiting);
	log_info("%s submitted %zu runs of %s", s->submitter,
		 json_array_size(json_object_get(answer, "jobs")), s->jf->name);
}

/* The runs, once every job's group is known; false after a failure. */
static bool
submit_queue(struct submit *s)
{
	json_t *runs;
	size_t total = 0;
	char *text;

	for (size_t i = 0; i < s->jf->njobs; i++)
		if (!submit_dup(s, i))
			total += (size_t)submit_repeat(s, i) *
				 (s->ncommits ? s->ncommits : 1);
	if (total > SUBMIT_MAX_RUNS) {
		char *msg = xasprintf("%zu runs in one submission; the limit "
				      "is %d",
				      total, SUBMIT_MAX_RUNS);

		submit_fail(s, PROBLEM_INVALID, NULL, msg);
		free(msg);
		return false;
	}
	runs = json_array();
	for (size_t i = 0; i < s->jf->njobs; i++) {
		const struct atomic_job *aj = &s->jf->jobs[i];
		long repeat = submit_repeat(s, i);
		long priority = s->priority != LONG_MIN
					? s->priority
					: job_int(aj, "priority", 0);
		size_t nc = s->ncommits ? s->ncommits : 1;

		if (submit_dup(s, i))
			continue;
		for (size_t c = 0; c < nc; c++) {
			const char *commit =
				s->ncommits ? s->commits[c] : aj->commit;

			for (long run = 1; run <= repeat; run++)
				json_array_append_new(
					runs,
					json_pack(
						"{s:s, s:s, s:o, s:o, s:o, "
						"s:o, s:I, s:I, s:I, s:i}",
						"key", aj->key, "tbox_group",
						s->groups[i], "commit",
						commit ? json_string(commit)
						       : json_null(),
						"tree",
						s->tree ? json_string(s->tree)
							: json_null(),
						"job", jobfile_job_json(aj),
						"needs", needs_of_job(aj->job),
						"run", (json_int_t)run, "runs",
						(json_int_t)repeat, "priority",
						(json_int_t)priority,
						"max_attempts",
						s->set->max_attempts));
		}
	}
	text = rjson_dumps(runs, JSON_COMPACT);
	json_decref(runs);
	submit_set_state(s, SUBMIT_QUEUEING);
	if (s->tree != NULL && s->ncommits == 2) {
		struct store_tree_submit ts = {
			s->submitter,  s->jf->name,   s->body,
			text,          s->tree,       s->branch,
			s->commits[0], s->commits[1], s->max_runs};

		store_tree_submit(s->store, &ts, submit_on_queued, s);
	} else {
		store_submit(s->store, s->submitter, s->jf->name, s->body, text,
			     submit_on_queued, s);
	}
	free(text);
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
submit_drive(struct submit *s)
{
	switch (s->state) {
	case SUBMIT_GROUPS:
		if (s->fail == NULL && !s->have_groups) {
			store_groups(s->store, submit_on_groups, s);
			return;
		}
		if (s->fail == NULL && submit_resolve_groups(s) &&
		    submit_queue(s))
			return; /* QUEUEING */
		submit_finish(s);
		return;
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

	s->state = SUBMIT_GROUPS;
	s->base = base;
	s->store = store;
	s->set = set;
	s->submitter = xstrdup(rq->submitter);
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
	submit_drive(s);
}
