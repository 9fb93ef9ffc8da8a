/*
 * builder.c: reports built, as a state machine driven by builder_drive():
 *
 *   IDLE       --(woken, or the timer)------------------> REPORT
 *   REPORT     --(a commit due: rendered)---------------> STORING
 *   REPORT     --(none due)-----------------------------> FOLLOWUP
 *   FOLLOWUP   --(a thread with news: rendered)---------> STORING
 *   FOLLOWUP   --(none)---------------------------------> IDLE
 *   STORING    --(stored, or stale: another robotd did)--> REPORT
 *   any        --(the database failed)------------------> IDLE (the timer
 *                                                         tries again)
 *
 * A claim holds its regressions (or events) for report_claim seconds:
 * a robotd killed meanwhile leaves them to another, and a second robotd
 * never builds the same report (robot_report_store() refuses what was
 * told already).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "reporters/builder.h"
#include "reporters/mail.h"
#include "reporters/report.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define BUILDER_TICK 5 /* seconds between looks when nothing woke it */

enum builder_state {
	BUILDER_IDLE,
	BUILDER_REPORT,
	BUILDER_FOLLOWUP,
	BUILDER_STORING,
};

struct builder {
	enum builder_state state;
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	const char *(*url)(void *);
	void *url_arg;
	struct event *timer;
	bool again; /* woken while busy: look once more */
	bool stopping;
	char *what; /* the report being stored, for the log */
	unsigned long long count;
};

static void builder_drive(struct builder *b);

static const char *
builder_state_name(enum builder_state s)
{
	switch (s) {
	case BUILDER_IDLE:
		return "idle";
	case BUILDER_REPORT:
		return "report";
	case BUILDER_FOLLOWUP:
		return "followup";
	case BUILDER_STORING:
		return "storing";
	}
	return "?";
}

static void
builder_set_state(struct builder *b, enum builder_state s)
{
	log_debug("reports: %s -> %s", builder_state_name(b->state),
		  builder_state_name(s));
	b->state = s;
}

static void
builder_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct builder *b = arg;

	if (p != NULL) {
		log_warnx("reports: cannot store %s: %s (tried again later)",
			  b->what, p->message);
		builder_set_state(b, BUILDER_IDLE);
	} else if (text != NULL && strcmp(text, "\"stale\"") == 0) {
		log_info("reports: %s: told by another robotd already",
			 b->what);
		builder_set_state(b, BUILDER_REPORT);
	} else {
		json_t *j = text ? json_loads(text, 0, NULL) : NULL;

		b->count++;
		log_info(
			"reports: %s: report %lld %s", b->what,
			(long long)json_integer_value(json_object_get(j, "id")),
			rjson_get_str(j, "message_id")
				? rjson_get_str(j, "message_id")
				: "");
		json_decref(j);
		builder_set_state(b, BUILDER_REPORT);
	}
	free(b->what);
	b->what = NULL;
	builder_drive(b);
}

/* Renders a claim and stores it; false when it cannot be rendered (it
 * is left to its claim running out, and logged). */
static bool
builder_store(struct builder *b, json_t *claim)
{
	struct report_config cfg = {b->url(b->url_arg), b->set->mail_from,
				    b->set->webhook, b->set->chat_webhook};
	struct report_out out;
	json_t *commit = json_object_get(claim, "commit"), *first, *thread;
	json_t *stored;
	char *text;

	if (!report_render(claim, &cfg, &out)) {
		log_warnx("reports: a claim that cannot be rendered: %.200s",
			  rjson_get_str(commit, "sha"));
		return false;
	}
	first = json_array_get(json_object_get(claim, "findings"), 0);
	thread = json_object_get(claim, "thread");
	stored = json_pack(
		"{s:O, s:O?, s:O?, s:O?, s:O?, s:O?, s:s, s:s, s:O, s:O, s:O, "
		"s:O}",
		"kind", json_object_get(claim, "kind"), "tree",
		json_object_get(claim, "tree"), "branch",
		first ? json_object_get(first, "branch")
		      : json_object_get(claim, "branch"),
		"commit", json_object_get(commit, "sha"), "base",
		first ? json_object_get(first, "base")
		      : json_object_get(claim, "base"),
		"thread", json_object_get(thread, "id"), "subject", out.subject,
		"body", out.body, "doc", out.doc, "regressions",
		json_object_get(claim, "regressions"), "events",
		json_object_get(claim, "events"), "outbox", out.outbox);
	if (stored == NULL) {
		log_warnx("reports: a claim without its parts");
		report_out_release(&out);
		return false;
	}
	text = rjson_dumps(stored, JSON_COMPACT);
	b->what = xasprintf(
		"%s of %.12s (%zu recipients)", rjson_get_str(claim, "kind"),
		rjson_get_str(commit, "sha"), json_array_size(out.outbox));
	builder_set_state(b, BUILDER_STORING);
	store_report_store(b->store, text, mail_domain(b->set->mail_from),
			   builder_on_stored, b);
	free(text);
	json_decref(stored);
	report_out_release(&out);
	return true;
}

static void
builder_on_claimed(const char *text, const struct problem *p, void *arg)
{
	struct builder *b = arg;
	json_t *claim;

	if (p != NULL) {
		log_warnx("reports: cannot claim: %s", p->message);
		builder_set_state(b, BUILDER_IDLE);
		return;
	}
	if (text == NULL || b->stopping) {
		/* Nothing here: the follow-ups, then rest. */
		builder_set_state(b, b->state == BUILDER_REPORT && !b->stopping
					     ? BUILDER_FOLLOWUP
					     : BUILDER_IDLE);
		if (b->state == BUILDER_IDLE && b->again && !b->stopping) {
			b->again = false;
			builder_set_state(b, BUILDER_REPORT);
		}
		builder_drive(b);
		return;
	}
	claim = json_loads(text, 0, NULL);
	if (claim == NULL || !builder_store(b, claim)) {
		/* The next state looks further; this claim runs out. */
		builder_set_state(b, b->state == BUILDER_REPORT
					     ? BUILDER_FOLLOWUP
					     : BUILDER_IDLE);
		builder_drive(b);
	}
	json_decref(claim);
}

static void
builder_drive(struct builder *b)
{
	if (b->stopping)
		return;
	switch (b->state) {
	case BUILDER_IDLE:
		return;
	case BUILDER_REPORT:
		if (!store_up(b->store)) {
			builder_set_state(b, BUILDER_IDLE);
			return;
		}
		store_report_next(b->store, b->set->report_window,
				  b->set->report_claim, builder_on_claimed, b);
		return;
	case BUILDER_FOLLOWUP:
		store_followup_next(b->store, b->set->report_claim,
				    builder_on_claimed, b);
		return;
	case BUILDER_STORING:
		return; /* builder_on_stored() drives on */
	}
}

void
builder_wake(struct builder *b)
{
	if (b->state != BUILDER_IDLE) {
		b->again = true;
		return;
	}
	b->again = false;
	builder_set_state(b, BUILDER_REPORT);
	builder_drive(b);
}

static void
builder_on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	builder_wake(arg);
}

struct builder *
builder_new(struct event_base *base, struct store *store,
	    const struct settings *set, const char *(*url)(void *),
	    void *url_arg)
{
	struct builder *b = xcalloc(1, sizeof *b);
	struct timeval tv = {BUILDER_TICK, 0};

	b->state = BUILDER_IDLE;
	b->base = base;
	b->store = store;
	b->set = set;
	b->url = url;
	b->url_arg = url_arg;
	b->timer = event_new(base, -1, EV_PERSIST, builder_on_timer, b);
	event_add(b->timer, &tv);
	return b;
}

void
builder_stop(struct builder *b)
{
	b->stopping = true;
}

void
builder_free(struct builder *b)
{
	if (b == NULL)
		return;
	event_free(b->timer);
	free(b->what);
	free(b);
}

unsigned long long
builder_count(const struct builder *b)
{
	return b->count;
}
