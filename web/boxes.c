/*
 * boxes.c: the boxes' half of the API: register, lease (a long-poll),
 * heartbeat, result upload, and an operator's reset.
 *
 * A lease request is a waiter, a small state machine:
 *
 *   WAITER_CLAIMING  robot_claim() runs for it
 *   WAITER_WAITING   the claim found nothing; it waits, suspended, for a
 *                    notification of new work in its group or for its
 *                    deadline (204)
 *
 * NOTIFY robot_jobs '<group>' (sent by robot_submit() and by leases that
 * go back to the queue, from any robotd on the database) wakes the oldest
 * waiting box of the group.  When its claim gets a job, the next waiting
 * box of the group is woken, and so on until a claim comes back empty:
 * a submit of n jobs wakes about n boxes, not every box of the lab.  A
 * claim that raced a notification (it was in flight when the
 * notification came) is tried again, so no wake-up is lost.
 *
 * A box that hangs up while it waits (it was stopped) is noticed at once
 * (http_req_watch_gone()): its waiter goes, and a job claimed for it in
 * that moment is released without counting the attempt.
 */
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/result.h"
#include "robot/core/errlist.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "web/api.h"
#include "robot/core/banned.h"

enum waiter_state {
	WAITER_CLAIMING,
	WAITER_WAITING,
};

struct waiter {
	struct api *a;
	struct http_req *req;
	char *box;
	char *group; /* known after the first claim */
	enum waiter_state state;
	bool expired;      /* its deadline passed while claiming */
	bool gone;         /* the box hung up while claiming (req is NULL) */
	bool wake;         /* chosen to be woken after a reconnect */
	unsigned long gen; /* a->gen when its claim started */
	struct event *timer;
	struct waiter *prev, *next;
};

static void waiter_claim(struct waiter *w);

static void
waiter_unlink(struct waiter *w)
{
	struct api *a = w->a;

	if (w->prev != NULL)
		w->prev->next = w->next;
	else
		a->waiters = w->next;
	if (w->next != NULL)
		w->next->prev = w->prev;
	else
		a->waiters_tail = w->prev;
	a->nwaiters--;
	event_free(w->timer);
	free(w->box);
	free(w->group);
	free(w);
}

/* Wakes the oldest waiting box of group (any group for NULL). */
static void
waiters_wake(struct api *a, const char *group)
{
	for (struct waiter *w = a->waiters; w != NULL; w = w->next) {
		if (w->state != WAITER_WAITING)
			continue;
		if (group != NULL && strcmp(w->group, group) != 0)
			continue;
		waiter_claim(w);
		return;
	}
}

static void
release_on_row(const struct db_result *r, void *arg)
{
	(void)arg;
	if (r == NULL)
		log_warnx("cannot release a lease: %s (it will expire)",
			  db_last_message());
}

/* The box hung up. */
static void
waiter_on_gone(struct http_req *req, void *arg)
{
	struct waiter *w = arg;

	(void)req;
	if (w->state == WAITER_WAITING) {
		waiter_unlink(w);
		return;
	}
	w->gone = true;
	w->req = NULL;
}

static void
waiter_on_claim(const struct db_result *r, void *arg)
{
	struct waiter *w = arg;
	struct api *a = w->a;
	const char *lease;

	if (r == NULL) {
		if (!w->gone)
			api_reply_db_error(w->req);
		waiter_unlink(w);
		return;
	}
	lease = db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;
	if (w->gone) {
		if (lease != NULL && db_value(r, 0, 2) != NULL) {
			const char *params[1] = {db_value(r, 0, 2)};

			log_info("box %s hung up: lease %s released", w->box,
				 params[0]);
			db_query(a->db, "SELECT robot_release($1::bigint)", 1,
				 params, release_on_row, NULL);
		}
		waiter_unlink(w);
		return;
	}
	if (w->group == NULL && db_rows(r) > 0 && db_value(r, 0, 1) != NULL)
		w->group = xstrdup(db_value(r, 0, 1));
	if (lease != NULL) {
		char *group = w->group ? xstrdup(w->group) : NULL;

		a->leases_granted++;
		http_req_reply(w->req, 200, "application/json", lease,
			       strlen(lease));
		waiter_unlink(w);
		/* There may be more work: pass the wake-up on. */
		if (group != NULL)
			waiters_wake(a, group);
		free(group);
		return;
	}
	if (w->gen != a->gen && !a->stopping) {
		waiter_claim(w);
		return;
	}
	if (w->expired || a->stopping || w->group == NULL) {
		http_req_reply(w->req, 204, "application/json", "", 0);
		waiter_unlink(w);
		return;
	}
	w->state = WAITER_WAITING;
}

static void
waiter_claim(struct waiter *w)
{
	char secs[16];
	const char *params[2] = {w->box, secs};

	snprintf(secs, sizeof secs, "%d", w->a->cfg.lease_seconds);
	w->state = WAITER_CLAIMING;
	w->gen = w->a->gen;
	db_query(w->a->db,
		 "SELECT CASE WHEN c.lease IS NULL THEN NULL ELSE "
		 "json_build_object('lease', c.lease, 'deadline', c.deadline, "
		 "'job_id', c.job_id, 'key', c.key, 'commit', c.commit, "
		 "'tree', c.tree, 'run', c.run, 'runs', c.runs, 'attempt', "
		 "c.attempts, 'tbox_group', c.tbox_group, 'lease_seconds', "
		 "$2::int, 'job', c.job)::text END, c.tbox_group "
		 "FROM robot_claim($1, $2::int) c",
		 2, params, waiter_on_claim, w);
}

static void
waiter_on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct waiter *w = arg;

	(void)fd;
	(void)what;
	if (w->state == WAITER_CLAIMING) {
		w->expired = true;
		return;
	}
	http_req_reply(w->req, 204, "application/json", "", 0);
	waiter_unlink(w);
}

void
boxes_notify(struct api *a, const char *group)
{
	a->gen++;
	if (group == NULL) {
		/* After a reconnect: wake the oldest waiting box of each
		 * group (one whose group no older waiting box has).  Chosen
		 * first, woken after: a woken box is no longer waiting. */
		for (struct waiter *w = a->waiters; w != NULL; w = w->next) {
			struct waiter *v = a->waiters;

			while (v != w && !(v->state == WAITER_WAITING &&
					   strcmp(v->group, w->group) == 0))
				v = v->next;
			w->wake = w->state == WAITER_WAITING && v == w;
		}
		for (struct waiter *w = a->waiters; w != NULL; w = w->next)
			if (w->wake)
				waiter_claim(w);
		return;
	}
	waiters_wake(a, group);
}

void
boxes_quiesce(struct api *a)
{
	struct waiter *w = a->waiters, *next;

	for (; w != NULL; w = next) {
		next = w->next;
		if (w->state == WAITER_WAITING) {
			http_req_reply(w->req, 204, "application/json", "", 0);
			waiter_unlink(w);
		}
	}
}

void
boxes_free(struct api *a)
{
	while (a->waiters != NULL) {
		if (!a->waiters->gone)
			http_req_reply_error(a->waiters->req, 503,
					     "robotd is stopping", NULL);
		waiter_unlink(a->waiters);
	}
}

/* Box calls need the token of that box. */
static bool
boxes_token_ok(struct http_req *req, const char *kind, const char *name,
	       const char *box)
{
	char *msg;

	if (strcmp(kind, "box") == 0 && (box == NULL || strcmp(name, box) == 0))
		return true;
	msg = strcmp(kind, "box") == 0
		      ? xasprintf("this token is box %s's, not %s's", name, box)
		      : xstrdup("box calls need a box token");
	http_req_reply_error(req, 403, msg, NULL);
	free(msg);
	return false;
}

/* The request's box name or lease id, kept while its token is checked. */
struct box_call {
	struct api *a;
	char *what;
	char *name; /* the box, after the token check */
};

static struct box_call *
box_call_new(struct api *a, const char *what)
{
	struct box_call *c = xcalloc(1, sizeof *c);

	c->a = a;
	c->what = xstrdup(what);
	return c;
}

static void
box_call_free(struct box_call *c)
{
	free(c->what);
	free(c->name);
	free(c);
}

/* Register. */

static void
register_on_row(const struct db_result *r, void *arg)
{
	struct http_req *req = arg;
	struct api *a = http_req_data(req);
	int lease = a->cfg.lease_seconds;

	if (r == NULL) {
		api_reply_db_error(req);
		return;
	}
	http_req_reply_json(req, 200,
			    json_pack("{s:s, s:i, s:i, s:i}", "state",
				      db_value(r, 0, 0), "lease_seconds", lease,
				      "heartbeat_seconds",
				      lease / 4 > 0 ? lease / 4 : 1,
				      "long_poll_seconds", a->cfg.long_poll));
}

static void
register_on_auth(struct http_req *req, const char *kind, const char *name,
		 void *arg)
{
	struct box_call *c = arg;
	struct api *a = c->a;
	const char *body, *group, *params[3];
	json_error_t jerr;
	json_t *facts;
	size_t len;
	char *s;

	if (kind == NULL) {
		box_call_free(c);
		return;
	}

	if (!boxes_token_ok(req, kind, name, c->what)) {
		box_call_free(c);
		return;
	}
	body = http_req_body(req, &len);
	facts = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	group = facts ? rjson_get_str(facts, "tbox_group") : NULL;
	if (facts == NULL || !json_is_object(facts) || group == NULL ||
	    group[0] == '\0') {
		char *msg = facts == NULL
				    ? xasprintf("the facts are not JSON: line "
						"%d: %s",
						jerr.line, jerr.text)
				    : xstrdup("the facts are a JSON object "
					      "with a tbox_group");

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		json_decref(facts);
		box_call_free(c);
		return;
	}
	s = rjson_dumps(facts, JSON_COMPACT);
	params[0] = c->what;
	params[1] = group;
	params[2] = s;
	http_req_set_data(req, a);
	log_info("box %s registers (%s)", c->what, group);
	db_query(a->db, "SELECT robot_register($1, $2, $3::jsonb)", 3, params,
		 register_on_row, req);
	free(s);
	json_decref(facts);
	box_call_free(c);
}

void
boxes_register(struct api *a, struct http_req *req, const char *box)
{
	api_auth(a, req, register_on_auth, box_call_new(a, box));
}

/* Lease. */

static void
lease_on_auth(struct http_req *req, const char *kind, const char *name,
	      void *arg)
{
	struct box_call *c = arg;
	struct api *a = c->a;
	const char *ws = http_req_arg(req, "wait", 0);
	int wait = a->cfg.long_poll;
	struct timeval tv;
	struct waiter *w;

	if (kind == NULL) {
		box_call_free(c);
		return;
	}

	if (!boxes_token_ok(req, kind, name, c->what)) {
		box_call_free(c);
		return;
	}
	if (ws != NULL) {
		char *end;
		long v = strtol(ws, &end, 10);

		if (end == ws || *end != '\0' || v < 0 ||
		    v > a->cfg.long_poll) {
			char *msg = xasprintf("wait is 0 to %d seconds",
					      a->cfg.long_poll);

			http_req_reply_error(req, 400, msg, NULL);
			free(msg);
			box_call_free(c);
			return;
		}
		wait = (int)v;
	}
	w = xcalloc(1, sizeof *w);
	w->a = a;
	w->req = req;
	w->box = xstrdup(c->what);
	w->expired = wait == 0;
	w->prev = a->waiters_tail;
	if (a->waiters_tail != NULL)
		a->waiters_tail->next = w;
	else
		a->waiters = w;
	a->waiters_tail = w;
	a->nwaiters++;
	w->timer = evtimer_new(a->base, waiter_on_timeout, w);
	tv.tv_sec = wait;
	tv.tv_usec = 0;
	if (wait > 0)
		evtimer_add(w->timer, &tv);
	http_req_watch_gone(req, waiter_on_gone, w);
	box_call_free(c);
	waiter_claim(w);
}

void
boxes_lease(struct api *a, struct http_req *req, const char *box)
{
	api_auth(a, req, lease_on_auth, box_call_new(a, box));
}

/* Heartbeat. */

/* Answers {key: the query's one value}; false when the query failed. */
static bool
reply_value(struct http_req *req, const struct db_result *r, const char *key)
{
	if (r == NULL) {
		api_reply_db_error(req);
		return false;
	}
	http_req_reply_json(req, 200,
			    json_pack("{s:s}", key, db_value(r, 0, 0)));
	return true;
}

static void
heartbeat_on_row(const struct db_result *r, void *arg)
{
	reply_value(arg, r, "deadline");
}

static void
heartbeat_on_auth(struct http_req *req, const char *kind, const char *name,
		  void *arg)
{
	struct box_call *c = arg;
	char secs[16];
	const char *params[3] = {c->what, name, secs};

	if (kind == NULL) {
		box_call_free(c);
		return;
	}

	if (boxes_token_ok(req, kind, name, NULL)) {
		snprintf(secs, sizeof secs, "%d", c->a->cfg.lease_seconds);
		db_query(c->a->db,
			 "SELECT robot_heartbeat($1::bigint, $2, $3::int)", 3,
			 params, heartbeat_on_row, req);
	}
	box_call_free(c);
}

void
boxes_heartbeat(struct api *a, struct http_req *req, const char *lease)
{
	api_auth(a, req, heartbeat_on_auth, box_call_new(a, lease));
}

/* Result. */

static void
result_on_row(const struct db_result *r, void *arg)
{
	struct http_req *req = arg;
	struct api *a = http_req_data(req);

	if (r != NULL && strcmp(db_value(r, 0, 0), "stored") == 0)
		a->uploads++;
	reply_value(req, r, "result");
}

static void
result_on_auth(struct http_req *req, const char *kind, const char *name,
	       void *arg)
{
	struct box_call *c = arg;
	struct api *a = c->a;
	const char *body, *params[7];
	json_error_t jerr;
	struct errlist el;
	struct result res;
	json_t *doc;
	size_t len;
	char broken[16];

	if (kind == NULL) {
		box_call_free(c);
		return;
	}

	if (!boxes_token_ok(req, kind, name, NULL)) {
		box_call_free(c);
		return;
	}
	body = http_req_body(req, &len);
	doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL) {
		char *msg = xasprintf("the result document is not JSON: line "
				      "%d: %s",
				      jerr.line, jerr.text);

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		box_call_free(c);
		return;
	}
	errlist_init(&el);
	if (!result_parse("upload", doc, &res, &el)) {
		http_req_reply_error(req, 400, "the result document is invalid",
				     errlist_to_json(&el, false));
		errlist_release(&el);
		json_decref(doc);
		box_call_free(c);
		return;
	}
	errlist_release(&el);
	snprintf(broken, sizeof broken, "%d", a->cfg.broken_after);
	params[0] = c->what;
	params[1] = name;
	params[2] = res.key;
	params[3] = result_status_name(res.status);
	params[4] = res.error;
	params[5] = body; /* as sent: its key order is kept */
	params[6] = broken;
	http_req_set_data(req, a);
	db_query(a->db,
		 "SELECT robot_upload($1::bigint, $2, $3, $4, $5, $6::json, "
		 "$7::int)",
		 7, params, result_on_row, req);
	result_release(&res);
	json_decref(doc);
	box_call_free(c);
}

void
boxes_result(struct api *a, struct http_req *req, const char *lease)
{
	api_auth(a, req, result_on_auth, box_call_new(a, lease));
}

/* Reset. */

static void
reset_on_row(const struct db_result *r, void *arg)
{
	reply_value(arg, r, "state");
}

static void
reset_on_auth(struct http_req *req, const char *kind, const char *name,
	      void *arg)
{
	struct box_call *c = arg;
	const char *params[1] = {c->what};

	if (kind == NULL) {
		box_call_free(c);
		return;
	}

	if (strcmp(kind, "admin") != 0) {
		http_req_reply_error(
			req, 403, "resetting a box needs an admin token", NULL);
	} else {
		log_info("%s resets box %s", name, c->what);
		db_query(c->a->db, "SELECT robot_reset($1)", 1, params,
			 reset_on_row, req);
	}
	box_call_free(c);
}

void
boxes_reset(struct api *a, struct http_req *req, const char *box)
{
	api_auth(a, req, reset_on_auth, box_call_new(a, box));
}
