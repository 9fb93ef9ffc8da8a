/*
 * builder.c: reports built, a worker of the drain engine (drain.h), one
 * at a time.  Its claim looks for a report due (robot_report_next()),
 * when there is none for a thread with news (robot_followup_next()), and
 * then for a note to the lab's operators (robot_note_next()); each
 * claimed is rendered and stored:
 *
 *   (claimed: rendered)---------------------------------> STORING
 *   (claimed: cannot be rendered; left to its claim)---> ended
 *   STORING    --(stored, or stale: another robotd did)--> ended
 *
 * and the engine claims the next.  A claim holds its regressions (or
 * events) for report_claim seconds: a robotd killed meanwhile leaves
 * them to another, and a second robotd never builds the same report
 * (robot_report_store() refuses what was told already).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "reporters/builder.h"
#include "reporters/channel.h"
#include "reporters/mail.h"
#include "reporters/report.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

#define BUILDER_TICK 5 /* seconds between looks when nothing woke it */

struct builder {
	struct store *store;
	const struct settings *set;
	const char *(*url)(void *);
	void *url_arg;
	struct drain_worker *w;
	unsigned long long count;
};

/* A claimed report being stored. */
struct build {
	struct builder *b;
	struct store_report_claim *c;
	char *what; /* for the log */
};

static void
build_free(void *arg)
{
	struct build *k = arg;

	store_report_claim_free(k->c);
	free(k->what);
	free(k);
}

static void
build_on_stored(const char *text, const struct problem *p, void *arg)
{
	struct build *k = arg;

	if (p != NULL) {
		log_warnx("reports: cannot store %s: %s (tried again later)",
			  k->what, p->message);
	} else if (text != NULL && strcmp(text, "\"stale\"") == 0) {
		log_info("reports: %s: told by another robotd already",
			 k->what);
	} else if (k->c->note != 0) {
		k->b->count++;
		log_info("reports: %s: told", k->what);
	} else {
		struct view_doc d = {0};
		struct store_report_stored r;
		char err[256];

		k->b->count++;
		if (text != NULL && view_load(&d, &store_report_stored_view,
					      text, &r, err, sizeof err))
			log_info("reports: %s: report %lld %s", k->what, r.id,
				 r.message_id ? r.message_id : "");
		else
			log_warnx("reports: %s: stored, but %s", k->what,
				  text ? err : "no answer");
		view_release(&d);
	}
	drain_done(k->b->w, k);
}

/* The channels' recipients from the settings, each channel's that get
 * of it: its name, the recipient, ..., NULL.  The lab's operators
 * (each channel's operator()), or the recipients every report has
 * (its recipient()). */
static const char **
channel_recipients(const struct settings *set, bool operators)
{
	const char **v = xcalloc(2 * 8 + 1, sizeof *v);
	size_t n = 0;

	for (size_t i = 0; channels[i] != NULL && n < 16; i++) {
		const char *(*get)(const struct settings *) = operators
			? channels[i]->operator: channels[i]->recipient;
		const char *to = get != NULL ? get(set) : NULL;

		if (to != NULL) {
			v[n++] = channels[i]->name;
			v[n++] = to;
		}
	}
	return v;
}

/* The engine's: renders a claim and stores it; one that cannot be
 * rendered is left to its claim running out, and logged. */
static void
build_start(struct drain_worker *w, void *work)
{
	struct build *k = work;
	struct builder *b = drain_ctx(w);
	const char **fixed = channel_recipients(b->set, false);
	const char **ops = channel_recipients(b->set, true);
	struct report_config cfg = {b->url(b->url_arg), b->set->mail_from,
				    fixed, ops};
	struct report_out out;
	json_t *stored;
	char *text;
	bool ok = report_render(&k->c->claim, &cfg, &out);

	free(fixed);
	free(ops);
	if (!ok) {
		log_warnx("reports: a claim that cannot be rendered: %.200s",
			  k->c->commit);
		drain_done(w, k);
		return;
	}
	if (k->c->note != 0) {
		stored = json_pack("{s:s, s:s, s:O, s:O}", "subject",
				   out.subject, "body", out.body, "doc",
				   out.doc, "outbox", out.outbox);
		text = rjson_dumps(stored, JSON_COMPACT);
		k->what = xasprintf("lab note %lld (%zu recipients)",
				    k->c->note, json_array_size(out.outbox));
		store_note_store(b->store, k->c->note, text, build_on_stored,
				 k);
		free(text);
		json_decref(stored);
		report_out_release(&out);
		return;
	}
	stored = json_pack(
		"{s:s, s:s?, s:s?, s:s, s:s?, s:s?, s:o, s:s, s:s, "
		"s:O, s:O, s:O, s:O}",
		"kind", k->c->followup ? "followup" : "report", "tree",
		k->c->tree, "branch", k->c->branch, "commit", k->c->commit,
		"base", k->c->base, "range", k->c->range, "thread",
		k->c->thread ? json_integer(k->c->thread) : json_null(),
		"subject", out.subject, "body", out.body, "doc", out.doc,
		"regressions", k->c->regressions, "events", k->c->events,
		"outbox", out.outbox);
	text = rjson_dumps(stored, JSON_COMPACT);
	k->what = xasprintf("%s of %.12s (%zu recipients)",
			    k->c->followup ? "followup" : "report",
			    k->c->commit, json_array_size(out.outbox));
	store_report_store(b->store, text, mail_domain(b->set->mail_from),
			   build_on_stored, k);
	free(text);
	json_decref(stored);
	report_out_release(&out);
}

static void
build_claimed(struct builder *b, struct store_report_claim *c,
	      const struct problem *p)
{
	struct build *k = NULL;

	if (c != NULL) {
		k = xcalloc(1, sizeof *k);
		k->b = b;
		k->c = c;
	}
	drain_claimed_one(b->w, k, p);
}

static void
builder_on_note(struct store_report_claim *c, const struct problem *p,
		void *arg)
{
	build_claimed(arg, c, p);
}

/* No follow-up due: a note for the lab's operators, then. */
static void
builder_on_followup(struct store_report_claim *c, const struct problem *p,
		    void *arg)
{
	struct builder *b = arg;

	if (c == NULL && p == NULL) {
		store_note_next(b->store, b->set->report_claim, builder_on_note,
				b);
		return;
	}
	build_claimed(b, c, p);
}

/* No report due: a thread with news, then. */
static void
builder_on_report(struct store_report_claim *c, const struct problem *p,
		  void *arg)
{
	struct builder *b = arg;

	if (c == NULL && p == NULL) {
		store_followup_next(b->store, b->set->report_window,
				    b->set->report_claim, builder_on_followup,
				    b);
		return;
	}
	build_claimed(b, c, p);
}

static void
builder_claim(struct drain_worker *w, int n)
{
	struct builder *b = drain_ctx(w);

	(void)n;
	store_report_next(b->store, b->set->report_window,
			  b->set->report_bisect_wait, b->set->report_claim,
			  builder_on_report, b);
}

static const struct drain_ops builder_ops = {
	.name = "reports",
	.topic = ":reports",
	.tick = BUILDER_TICK,
	.slots = 1,
	.batch = 1,
	.look_after_each = true,
	.claim = builder_claim,
	.start = build_start,
	.free = build_free,
};

struct builder *
builder_new(struct drain *d, struct store *store, const struct settings *set,
	    const char *(*url)(void *), void *url_arg)
{
	struct builder *b = xcalloc(1, sizeof *b);

	b->store = store;
	b->set = set;
	b->url = url;
	b->url_arg = url_arg;
	b->w = drain_add(d, &builder_ops, b);
	return b;
}

void
builder_free(struct builder *b)
{
	free(b);
}

unsigned long long
builder_count(const struct builder *b)
{
	return b->count;
}
