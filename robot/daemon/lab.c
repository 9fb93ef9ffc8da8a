/*
 * lab.c: leases and the long-poll, and the boxes' other calls.
 *
 * A lease request is a waiter, a state machine:
 *
 *   CLAIMING --(a job)------------------------------> DONE (answered)
 *   CLAIMING --(none, deadline passed or stopping)--> DONE (no work)
 *   CLAIMING --(none, a notification raced it)------> CLAIMING
 *   CLAIMING --(none)-------------------------------> WAITING
 *   WAITING  --(woken)------------------------------> CLAIMING
 *   WAITING  --(deadline, stopping, box gone)-------> DONE
 *   CLAIMING --(box gone)---------------------------> ABANDONED
 *   ABANDONED --(claim back; a job is released)-----> DONE
 *
 * NOTIFY robot_jobs '<group>' (sent by robot_submit() and by leases that
 * go back to the queue, from any robotd on the database) wakes the oldest
 * waiting box of the group.  When its claim gets a job, the next waiting
 * box of the group is woken, and so on until a claim comes back empty:
 * a submit of n jobs wakes about n boxes, not every box of the lab.  A
 * claim that raced a notification (it was in flight when the
 * notification came) is tried again, so no wake-up is lost.  A waiter
 * learns its group from its first claim; only waiting ones (which know
 * it) are woken.
 *
 * A waiter that is DONE leaves the list at once and is freed after the
 * loop iteration (defer.h), never inside its own callbacks.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include "robot/analysis/result.h"
#include "robot/core/errlist.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/name.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/defer.h"
#include "robot/daemon/drain.h"
#include "robot/daemon/lab.h"
#include "robot/daemon/store/boxes.h"
#include "robot/daemon/store/leases.h"
#include "robot/core/banned.h"

enum waiter_state {
	WAITER_CLAIMING,  /* a claim runs for it */
	WAITER_WAITING,   /* nothing found: waits to be woken */
	WAITER_ABANDONED, /* its box hung up while a claim ran */
	WAITER_DONE,      /* answered or abandoned; freed soon */
};
static const char *const waiter_states[] = {
	[WAITER_CLAIMING] = "claiming",
	[WAITER_WAITING] = "waiting",
	[WAITER_ABANDONED] = "abandoned",
	[WAITER_DONE] = "done",
};
static const struct fsm waiter_fsm =
	FSM("lease request", waiter_states, WAITER_DONE);

struct lab_wait {
	struct lab *lab;
	char *box;
	char *group; /* from the first claim; set when WAITING */
	enum waiter_state state;
	double deadline;   /* CLOCK_MONOTONIC seconds */
	unsigned long gen; /* lab->gen when its claim started */
	lab_cb cb;
	void *arg;
	struct event *timer;
	TAILQ_ENTRY(lab_wait) entry; /* in lab->waiters */
};

TAILQ_HEAD(waiter_list, lab_wait);

struct lab {
	struct event_base *base;
	struct store *store;
	struct worker *worker; /* reads big documents off the loop */
	const struct settings *set;
	struct waiter_list waiters; /* oldest first */
	struct defer_list *later;   /* DONE, to be freed */
	size_t nwaiters;
	/* bumped by every notification, so that a claim that raced one is
	 * tried again */
	unsigned long gen;
	bool stopping;
	unsigned long long leases_granted, uploads;
};

static void waiter_claim(struct lab_wait *w);

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
waiter_free(void *arg)
{
	struct lab_wait *w = arg;

	event_free(w->timer);
	free(w->box);
	free(w->group);
	free(w);
}

static void
waiter_set_state(struct lab_wait *w, enum waiter_state s)
{
	struct lab *lab = w->lab;

	FSM_SET(&waiter_fsm, w->state, s, "lease request of box %s", w->box);
	if (s != WAITER_DONE)
		return;
	TAILQ_REMOVE(&lab->waiters, w, entry);
	lab->nwaiters--;
	evtimer_del(w->timer);
	defer_add(lab->later, waiter_free, w);
}

/* Answers the box and ends the waiter. */
static void
waiter_answer(struct lab_wait *w, json_t *lease, const struct problem *p)
{
	w->cb(lease, p, w->arg);
	waiter_set_state(w, WAITER_DONE);
}

/* Wakes the oldest waiting box of group. */
static void
lab_wake(struct lab *lab, const char *group)
{
	struct lab_wait *w;

	TAILQ_FOREACH(w, &lab->waiters, entry)
	{
		if (w->state == WAITER_WAITING &&
		    strcmp(w->group, group) == 0) {
			waiter_claim(w);
			return;
		}
	}
}

static void
lab_on_release(const char *text, const struct problem *p, void *arg)
{
	(void)text;
	(void)arg;
	if (p != NULL)
		log_warnx("cannot release a lease: %s (it will expire)",
			  p->message);
}

static void
waiter_on_claim(const struct store_claim *c, const struct problem *p, void *arg)
{
	struct lab_wait *w = arg;
	struct lab *lab = w->lab;

	if (w->state == WAITER_ABANDONED) {
		if (c != NULL && c->lease != 0) {
			log_info("box %s hung up: lease %lld released", w->box,
				 c->lease);
			store_release(lab->store, c->lease, lab_on_release,
				      NULL);
		}
		waiter_set_state(w, WAITER_DONE);
		return;
	}
	if (p != NULL) {
		waiter_answer(w, NULL, p);
		return;
	}
	if (w->group == NULL && c->group != NULL)
		w->group = xstrdup(c->group);
	if (c->lease != 0) {
		json_error_t jerr;
		json_t *lease = rjson_loads(c->json, &jerr);

		if (lease == NULL)
			fatalx("robot_claim gave a lease that is not JSON: %s",
			       jerr.text);
		lab->leases_granted++;
		waiter_answer(w, lease, NULL);
		/* There may be more work: pass the wake-up on. */
		if (c->group != NULL)
			lab_wake(lab, c->group);
		return;
	}
	if (w->gen != lab->gen && !lab->stopping) {
		waiter_claim(w);
		return;
	}
	if (now_mono() >= w->deadline || lab->stopping || w->group == NULL) {
		waiter_answer(w, NULL, NULL);
		return;
	}
	waiter_set_state(w, WAITER_WAITING);
}

static void
waiter_claim(struct lab_wait *w)
{
	waiter_set_state(w, WAITER_CLAIMING);
	w->gen = w->lab->gen;
	store_claim(w->lab->store, w->box, w->lab->set->lease_seconds,
		    waiter_on_claim, w);
}

static void
waiter_on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct lab_wait *w = arg;

	(void)fd;
	(void)what;
	/* A claim in flight sees the deadline when it comes back. */
	if (w->state == WAITER_WAITING)
		waiter_answer(w, NULL, NULL);
}

struct lab_wait *
lab_lease(struct lab *lab, const char *box, int wait, lab_cb cb, void *arg)
{
	struct lab_wait *w = xcalloc(1, sizeof *w);
	struct timeval tv = {wait, 0};

	w->lab = lab;
	w->box = xstrdup(box);
	w->cb = cb;
	w->arg = arg;
	waiter_set_state(w, WAITER_CLAIMING);
	w->deadline = now_mono() + wait;
	w->timer = evtimer_new(lab->base, waiter_on_timeout, w);
	if (wait > 0)
		evtimer_add(w->timer, &tv);
	TAILQ_INSERT_TAIL(&lab->waiters, w, entry);
	lab->nwaiters++;
	waiter_claim(w);
	return w;
}

void
lab_lease_cancel(struct lab_wait *w)
{
	if (w->state == WAITER_CLAIMING)
		waiter_set_state(w, WAITER_ABANDONED);
	else if (w->state == WAITER_WAITING)
		waiter_set_state(w, WAITER_DONE);
}

void
lab_on_notify(struct lab *lab, const char *group)
{
	const char **groups = NULL;
	size_t n = 0;
	struct lab_wait *w;

	lab->gen++;
	if (group != NULL) {
		lab_wake(lab, group);
		return;
	}
	/* After a reconnect: wake the oldest waiting box of each group.
	 * The groups are gathered first: a woken box no longer waits. */
	TAILQ_FOREACH(w, &lab->waiters, entry)
	{
		bool seen = false;

		if (w->state != WAITER_WAITING)
			continue;
		for (size_t i = 0; i < n && !seen; i++)
			seen = strcmp(groups[i], w->group) == 0;
		if (!seen) {
			groups = xreallocarray(groups, n + 1, sizeof *groups);
			groups[n++] = w->group;
		}
	}
	for (size_t i = 0; i < n; i++)
		lab_wake(lab, groups[i]);
	free(groups);
}

struct lab *
lab_new(struct event_base *base, struct store *store, struct worker *worker,
	const struct settings *set)
{
	struct lab *lab = xcalloc(1, sizeof *lab);

	lab->base = base;
	lab->store = store;
	lab->worker = worker;
	lab->set = set;
	TAILQ_INIT(&lab->waiters);
	lab->later = defer_list_new(base);
	return lab;
}

void
lab_quiesce(struct lab *lab)
{
	struct lab_wait *w, *next;

	lab->stopping = true;
	for (w = TAILQ_FIRST(&lab->waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->state == WAITER_WAITING)
			waiter_answer(w, NULL, NULL);
	}
}

void
lab_free(struct lab *lab)
{
	struct problem *p;
	struct lab_wait *w;

	if (lab == NULL)
		return;
	p = problem_new(PROBLEM_UNAVAILABLE, NULL, "robotd is stopping");
	while ((w = TAILQ_FIRST(&lab->waiters)) != NULL) {
		if (w->state == WAITER_ABANDONED)
			waiter_set_state(w, WAITER_DONE);
		else
			waiter_answer(w, NULL, p);
	}
	problem_free(p);
	defer_list_free(lab->later);
	free(lab);
}

void
lab_stats(const struct lab *lab, struct lab_stats *st)
{
	st->waiting = lab->nwaiters;
	st->leases_granted = lab->leases_granted;
	st->uploads = lab->uploads;
}

/* The other calls: one query each, its answer as a small object. */

struct lab_call {
	struct lab *lab;
	lab_cb cb;
	void *arg;
	const char *key; /* of the answer: {key: the query's value} */
};

static struct lab_call *
lab_call_new(struct lab *lab, const char *key, lab_cb cb, void *arg)
{
	struct lab_call *c = xcalloc(1, sizeof *c);

	c->lab = lab;
	c->key = key;
	c->cb = cb;
	c->arg = arg;
	return c;
}

/* Answers {key: text}. */
static void
lab_on_value(const char *text, const struct problem *p, void *arg)
{
	struct lab_call *c = arg;

	c->cb(p == NULL ? json_pack("{s:s}", c->key, text) : NULL, p, c->arg);
	free(c);
}

static void
register_on_state(const char *text, const struct problem *p, void *arg)
{
	struct lab_call *c = arg;
	int lease = c->lab->set->lease_seconds;

	c->cb(p == NULL ? json_pack("{s:s, s:i, s:i, s:i}", "state", text,
				    "lease_seconds", lease, "heartbeat_seconds",
				    lease / 4 > 0 ? lease / 4 : 1,
				    "long_poll_seconds", c->lab->set->long_poll)
			: NULL,
	      p, c->arg);
	free(c);
}

/* The number at key in facts, an integer in [lo, hi], or absent. */
static void
fact_int(const json_t *facts, const char *key, json_int_t lo, json_int_t hi,
	 json_t *details)
{
	json_t *v = json_object_get(facts, key);
	char *msg;

	if (v == NULL || (json_is_integer(v) && json_integer_value(v) >= lo &&
			  json_integer_value(v) <= hi))
		return;
	msg = xasprintf("%s: a whole number from %lld to %lld is expected", key,
			(long long)lo, (long long)hi);
	json_array_append_new(details, json_string(msg));
	free(msg);
}

/* Whether v is a fact's text: printable ASCII, spaces allowed, at most
 * 256 bytes. */
static bool
fact_text_ok(const json_t *v)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	if (s == NULL || len == 0 || len > 256)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

/* The machine's facts a report shows: cpu_model, kernel, proc_version
 * (texts) and disks (a list of at most 32 texts), or absent. */
static void
fact_texts(const json_t *facts, json_t *details)
{
	static const char *const keys[] = {"cpu_model", "kernel",
					   "proc_version", NULL};
	const json_t *disks = json_object_get(facts, "disks"), *v;
	size_t i;

	for (i = 0; keys[i] != NULL; i++) {
		v = json_object_get(facts, keys[i]);
		if (v != NULL && !fact_text_ok(v))
			json_array_append_new(
				details,
				json_pack("s+", keys[i],
					  ": a text of printable ASCII, 1 to "
					  "256 bytes, is expected"));
	}
	if (disks == NULL)
		return;
	if (!json_is_array(disks) || json_array_size(disks) > 32) {
		json_array_append_new(details,
				      json_string("disks: a list of at most 32 "
						  "texts is expected"));
		return;
	}
	json_array_foreach(disks, i, v)
	{
		if (!fact_text_ok(v)) {
			json_array_append_new(
				details,
				json_string("disks: each element is a text of "
					    "printable ASCII, 1 to 256 bytes"));
			break;
		}
	}
}

/*
 * A box's facts: the ones robotd matches jobs against are typed and in
 * range, names are names, the machine's texts printable, anything else
 * a short printable value.  The problems go to details, one line each;
 * its tbox_group (in facts), or NULL.
 */
static const char *
facts_check(const json_t *facts, json_t *details)
{
	const json_t *fs = json_object_get(facts, "fs"), *v;
	const char *group = rjson_get_str(facts, "tbox_group"), *key, *why;
	size_t i;

	if (group == NULL)
		json_array_append_new(details,
				      json_string("tbox_group: a name is "
						  "expected"));
	else if ((why = name_check(NAME_LABEL, group, strlen(group))) != NULL)
		json_array_append_new(
			details, json_pack("s+", "tbox_group: the name ", why));
	fact_int(facts, "cpus", 1, 1 << 20, details);
	fact_int(facts, "memory", 0, (json_int_t)1 << 53, details);
	fact_int(facts, "ram_disk_limit", 0, (json_int_t)1 << 53, details);
	fact_int(facts, "hdd", 0, 4096, details);
	fact_int(facts, "ssd", 0, 4096, details);
	if (fs != NULL && (!json_is_array(fs) || json_array_size(fs) > 32))
		json_array_append_new(details,
				      json_string("fs: a list of at most 32 "
						  "filesystem names is "
						  "expected"));
	json_array_foreach(fs, i, v)
	{
		if (!json_is_string(v) ||
		    name_check(NAME_LABEL, json_string_value(v),
			       json_string_length(v)) != NULL) {
			json_array_append_new(details,
					      json_string("fs: each element is "
							  "a filesystem's "
							  "name"));
			break;
		}
	}
	fact_texts(facts, details);
	if (json_object_size(facts) > 64)
		json_array_append_new(details,
				      json_string("more than 64 facts"));
	json_object_foreach((json_t *)facts, key, v)
	{
		/* the facts checked above, each its own way */
		static const char *const known[] = {
			"tbox_group",     "fs",           "cpus",  "memory",
			"ram_disk_limit", "hdd",          "ssd",   "cpu_model",
			"kernel",         "proc_version", "disks", NULL};
		size_t k = 0;

		while (known[k] != NULL && strcmp(key, known[k]) != 0)
			k++;
		if (known[k] != NULL)
			continue;
		if (name_check(NAME_METRIC, key, strlen(key)) != NULL ||
		    (json_is_string(v) &&
		     (json_string_length(v) > 256 ||
		      name_check(NAME_METRIC, json_string_value(v),
				 json_string_length(v)) != NULL)) ||
		    json_is_object(v) || json_is_array(v)) {
			char *q = str_quote(key);

			json_array_append_new(
				details,
				json_pack("s+", q,
					  ": another fact is a short printable "
					  "value (256 bytes at most, no "
					  "spaces or control characters)"));
			free(q);
		}
	}
	return group;
}

void
lab_register(struct lab *lab, const char *box, const char *facts, size_t len,
	     lab_cb cb, void *arg)
{
	json_error_t jerr;
	json_t *j = json_loadb(facts, len, JSON_REJECT_DUPLICATES, &jerr);
	json_t *details = json_array();
	struct problem *p = NULL;
	const char *group = NULL;
	char *s;

	if (j == NULL)
		p = problem_new(PROBLEM_INVALID, NULL,
				"the facts are not JSON: line %d: %s",
				jerr.line, jerr.text);
	else if (!json_is_object(j))
		p = problem_new(PROBLEM_INVALID, NULL,
				"the facts are a JSON object with a "
				"tbox_group");
	else
		group = facts_check(j, details);
	if (p == NULL && json_array_size(details) > 0) {
		p = problem_new(PROBLEM_INVALID, details,
				"the facts are invalid");
		details = NULL;
	}
	json_decref(details);
	if (p != NULL) {
		cb(NULL, p, arg);
		problem_free(p);
		json_decref(j);
		return;
	}
	s = rjson_dumps(j, JSON_COMPACT);
	log_info("box %s registers (%s)", box, group);
	store_register(lab->store, box, group, s, lab->set->broken_after,
		       register_on_state, lab_call_new(lab, "state", cb, arg));
	free(s);
	json_decref(j);
}

void
lab_heartbeat(struct lab *lab, long long lease, const char *box, lab_cb cb,
	      void *arg)
{
	store_heartbeat(lab->store, lease, box, lab->set->lease_seconds,
			lab->set->lease_max_life, lab_on_value,
			lab_call_new(lab, "deadline", cb, arg));
}

/*
 * An upload, a state machine driven by upload_drive():
 *
 *   CHECKING  is the lease the box's, and open?  (before the body is read)
 *   PARSING   the document is read and checked on the worker thread
 *   STORING   the store ties it to the lease's job and keeps it
 *   DONE      answered; freed after this loop iteration
 */
enum upload_state {
	UPLOAD_CHECKING,
	UPLOAD_PARSING,
	UPLOAD_STORING,
	UPLOAD_DONE,
};
static const char *const upload_states[] = {
	[UPLOAD_CHECKING] = "checking",
	[UPLOAD_PARSING] = "parsing",
	[UPLOAD_STORING] = "storing",
	[UPLOAD_DONE] = "done",
};
static const struct fsm upload_fsm = FSM("upload", upload_states, UPLOAD_DONE);

struct upload {
	enum upload_state state;
	struct lab *lab;
	long long lease;
	char *box;
	const char *doc; /* the request's body, alive until answered */
	size_t len;
	json_t *json;      /* PARSING: the document read */
	struct result res; /* its checked fields */
	bool parsed;
	struct problem *fail; /* a step failed: the answer */
	char *outcome;        /* STORING: the store's answer */
	lab_cb cb;
	void *arg;
};

static void upload_drive(struct upload *u);

static void
upload_set_state(struct upload *u, enum upload_state st)
{
	FSM_SET(&upload_fsm, u->state, st, "upload for lease %lld", u->lease);
}

/* On the worker thread: the document read, which may be megabytes of
 * small allocations, freed off the loop. */
static void
upload_release(void *arg)
{
	struct upload *u = arg;

	if (u->parsed)
		result_release(&u->res);
	json_decref(u->json);
}

static void
upload_free(void *arg)
{
	struct upload *u = arg;

	problem_free(u->fail);
	free(u->outcome);
	free(u->box);
	free(u);
}

/* Its document released on the worker: the upload is freed after this
 * loop iteration. */
static void
upload_on_released(void *arg)
{
	struct upload *u = arg;

	defer(u->lab->base, upload_free, u);
}

static void
upload_fail(struct upload *u, const struct problem *p)
{
	u->fail = problem_new(p->kind, json_deep_copy(p->details), "%s",
			      p->message);
}

static void
upload_on_checked(const char *text, const struct problem *p, void *arg)
{
	struct upload *u = arg;

	(void)text;
	if (p != NULL)
		upload_fail(u, p);
	upload_drive(u);
}

/* On the worker thread: reads and checks the document. */
static void
upload_parse(void *arg)
{
	struct upload *u = arg;
	json_error_t jerr;
	struct errlist el;

	u->json = json_loadb(u->doc, u->len, JSON_REJECT_DUPLICATES, &jerr);
	if (u->json == NULL) {
		u->fail = problem_new(PROBLEM_INVALID, NULL,
				      "the result document is not JSON: line "
				      "%d: %s",
				      jerr.line, jerr.text);
		return;
	}
	errlist_init(&el);
	u->parsed = result_parse("upload", u->json, &u->res, &el);
	if (!u->parsed)
		u->fail = problem_new(PROBLEM_INVALID,
				      errlist_to_json(&el, false),
				      "the result document is invalid");
	errlist_release(&el);
}

static void
upload_on_parsed(void *arg)
{
	upload_drive(arg);
}

static void
upload_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct upload *u = arg;

	if (p != NULL)
		upload_fail(u, p);
	else
		u->outcome = xstrdup(text);
	upload_drive(u);
}

/* Answers once; the upload ends, and is freed by the worker (a later
 * loop iteration sees it done). */
static void
upload_finish(struct upload *u)
{
	upload_set_state(u, UPLOAD_DONE);
	if (u->fail == NULL && strcmp(u->outcome, "stored") == 0)
		u->lab->uploads++;
	u->cb(u->fail ? NULL : json_pack("{s:s}", "result", u->outcome),
	      u->fail, u->arg);
	worker_run(u->lab->worker, upload_release, upload_on_released, u);
}

static void
upload_drive(struct upload *u)
{
	struct store_upload su;

	if (u->fail != NULL) {
		upload_finish(u);
		return;
	}
	switch (u->state) {
	case UPLOAD_CHECKING:
		/* The lease is fine: now the document. */
		upload_set_state(u, UPLOAD_PARSING);
		worker_run(u->lab->worker, upload_parse, upload_on_parsed, u);
		return;
	case UPLOAD_PARSING:
		upload_set_state(u, UPLOAD_STORING);
		su = (struct store_upload){u->lease,
					   u->box,
					   u->res.key,
					   u->res.tbox_group,
					   u->res.box,
					   u->res.commit,
					   result_status_name(u->res.status),
					   u->res.error,
					   u->doc, /* as sent: key order kept */
					   u->lab->set->broken_after,
					   u->res.job_fault};
		store_upload(u->lab->store, &su, upload_on_stored, u);
		return;
	case UPLOAD_STORING:
		upload_finish(u);
		return;
	case UPLOAD_DONE:
		return;
	}
}

void
lab_upload(struct lab *lab, long long lease, const char *box, const char *doc,
	   size_t len, lab_cb cb, void *arg)
{
	struct upload *u = xcalloc(1, sizeof *u);

	u->lab = lab;
	u->lease = lease;
	upload_set_state(u, UPLOAD_CHECKING);
	u->box = xstrdup(box);
	u->doc = doc;
	u->len = len;
	u->cb = cb;
	u->arg = arg;
	store_lease_check(lab->store, lease, box, upload_on_checked, u);
}

void
lab_reset(struct lab *lab, const char *box, const char *by, lab_cb cb,
	  void *arg)
{
	log_info("%s resets box %s", by, box);
	store_reset(lab->store, box, lab_on_value,
		    lab_call_new(lab, "state", cb, arg));
}
