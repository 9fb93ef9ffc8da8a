/*
 * outbox.c: the outbox delivered, a worker of the drain engine
 * (drain.h): the engine claims due rows (robot_outbox_next(): FOR UPDATE
 * SKIP LOCKED, for report_claim seconds; one delivery may take half of
 * that), as many as there is room for of OUTBOX_INFLIGHT, and claims
 * again when a batch came full and a delivery ends.  Each row is a
 * delivery through its channel (channel.h):
 *
 *   SENDING   --(the server answered, or did not)--> MARKING
 *   MARKING   --(robot_outbox_done() stored it)----> ended
 *
 * A robotd killed between the server's answer and MARKING leaves the row
 * claimed; when the claim runs out it is sent again, with the same
 * Message-ID: at most one duplicate, never a loss.
 */
#include <stdlib.h>
#include <string.h>

#include "reporters/channel.h"
#include "reporters/curl.h"
#include "reporters/outbox.h"
#include "robot/core/backoff.h"
#include "robot/core/fsm.h"
#include "robot/core/log.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

#define OUTBOX_INFLIGHT  16   /* rows being delivered at once */
#define OUTBOX_TICK      5    /* seconds between looks for rows due */
#define OUTBOX_ATTEMPTS  48   /* tries before a row fails (about 2 days) */
#define OUTBOX_RETRY     10   /* seconds before the second try, doubling */
#define OUTBOX_RETRY_MAX 3600 /* at most between two tries */

struct outbox {
	struct store *store;
	const struct settings *set;
	const char *(*url)(void *);
	void *url_arg;
	struct curlm *curl;
	struct drain_worker *w;
	unsigned long long sent, failed;
};

enum delivery_state {
	DELIVERY_SENDING,
	DELIVERY_MARKING,
};
static const char *const delivery_states[] = {
	[DELIVERY_SENDING] = "sending",
	[DELIVERY_MARKING] = "marking",
};
static const struct fsm delivery_fsm =
	FSM("delivery", delivery_states, DELIVERY_MARKING);

struct delivery {
	enum delivery_state state;
	struct outbox *o;
	const struct channel_ops *channel;
	long long id;
	int attempts; /* this one included */
	char *what;   /* "mail to x", "webhook http://...", for the log */
	bool ok, permanent;
	char *error;
	struct store_outbox_row row; /* borrowed: until the claim's callback
				      * returns */
};

static void
delivery_free(void *arg)
{
	struct delivery *d = arg;

	free(d->what);
	free(d->error);
	free(d);
}

static void
delivery_set_state(struct delivery *d, enum delivery_state s)
{
	FSM_SET(&delivery_fsm, d->state, s, "outbox %lld", d->id);
}

const char *
outbox_outcome(bool ok, bool permanent, int attempts, int *retry_in)
{
	*retry_in = (int)backoff_delay(OUTBOX_RETRY, OUTBOX_RETRY_MAX,
				       attempts > 0 ? attempts : 1);
	if (ok)
		return "sent";
	if (permanent || attempts >= OUTBOX_ATTEMPTS)
		return "failed";
	return "pending";
}

static void
delivery_on_marked(const char *text, const struct problem *p, void *arg)
{
	struct delivery *d = arg;

	if (p != NULL)
		log_warnx("outbox %lld: %s (it is sent again when its claim "
			  "runs out)",
			  d->id, p->message);
	else if (!d->ok)
		log_warnx("outbox %lld: %s: %s (%s)", d->id, d->what, d->error,
			  text != NULL && strcmp(text, "failed") == 0
				  ? "given up"
				  : "tried again later");
	else
		log_info("outbox %lld: %s: sent", d->id, d->what);
	drain_done(d->o->w, d);
}

static void
delivery_mark(struct delivery *d)
{
	struct store_outbox_done done = {d->id, NULL, d->error, 0};

	done.state = outbox_outcome(d->ok, d->permanent, d->attempts,
				    &done.retry_in);
	delivery_set_state(d, DELIVERY_MARKING);
	if (d->ok)
		d->o->sent++;
	else
		d->o->failed++;
	store_outbox_done(d->o->store, &done, delivery_on_marked, d);
}

/* The transfer's end: the channel says whether a failure is for good. */
static void
delivery_on_sent(long code, const char *error, void *arg)
{
	struct delivery *d = arg;

	d->ok = error == NULL;
	d->permanent = error != NULL && d->channel->permanent(code);
	d->error = error ? xstrdup(error) : NULL;
	delivery_mark(d);
}

/* A failure before anything was sent. */
static void
delivery_on_failed(bool permanent, const char *why, void *arg)
{
	struct delivery *d = arg;

	d->ok = false;
	d->permanent = permanent;
	d->error = xstrdup(why);
	delivery_mark(d);
}

/* The engine's: a row claimed, to deliver. */
static void
outbox_start(struct drain_worker *w, void *work)
{
	struct delivery *d = work;
	struct outbox *o = drain_ctx(w);
	struct channel_send cs = {o->curl,
				  o->set,
				  o->url(o->url_arg),
				  delivery_on_sent,
				  delivery_on_failed,
				  d};

	delivery_set_state(d, DELIVERY_SENDING);
	if (d->channel == NULL)
		delivery_on_failed(true, "an unknown channel", d);
	else
		d->channel->deliver(&cs, &d->row);
	memset(&d->row, 0, sizeof d->row); /* the claim's, gone after */
}

/* A row's channel and recipient as the log may name them: a mail's
 * address; of a URL, its scheme and host alone, since a webhook's or a
 * chat's path and query are its credential (Slack's and Mattermost's
 * hooks), and user:password@ one too. */
static char *
recipient_shown(const char *channel, const char *recipient)
{
	const char *p = strstr(recipient, "://"), *host, *end, *at;

	if (strcmp(channel, "mail") == 0 || p == NULL)
		return xasprintf("%s %s", channel,
				 p == NULL && strcmp(channel, "mail") != 0
					 ? "(not a URL)"
					 : recipient);
	host = p + 3;
	end = host + strcspn(host, "/?#");
	for (at = host; at < end; at++)
		if (*at == '@')
			host = at + 1;
	return xasprintf("%s %.*s%.*s/...", channel, (int)(p + 3 - recipient),
			 recipient, (int)(end - host), host);
}

static void
outbox_on_claimed(const struct store_outbox_row *rows, size_t n,
		  const struct problem *p, void *arg)
{
	struct outbox *o = arg;
	struct delivery **ds = xcalloc(n + 1, sizeof *ds);

	if (p != NULL)
		log_warnx("outbox: cannot claim: %s", p->message);
	for (size_t i = 0; i < n; i++) {
		struct delivery *d = xcalloc(1, sizeof *d);

		d->o = o;
		d->row = rows[i];
		d->id = rows[i].id;
		d->attempts = rows[i].attempts;
		d->channel = channel_find(rows[i].channel);
		d->what = recipient_shown(rows[i].channel, rows[i].recipient);
		ds[i] = d;
	}
	/* The rows are borrowed for this call: the deliveries start now,
	 * inside drain_claimed(). */
	drain_claimed(o->w, (void *const *)ds, n, p != NULL);
	free(ds);
}

static void
outbox_claim(struct drain_worker *w, int n)
{
	struct outbox *o = drain_ctx(w);

	store_outbox_next(o->store, n, o->set->report_claim, outbox_on_claimed,
			  o);
}

/* robotd stops: deliveries still sending end with their transfers (their
 * rows stay claimed and are sent again when the claims run out); those
 * being marked end with their queries. */
static void
outbox_halt(struct drain_worker *w)
{
	struct outbox *o = drain_ctx(w);

	curlm_free(o->curl);
	o->curl = NULL;
}

static const struct drain_ops outbox_ops = {
	.name = "outbox",
	.topic = ":outbox",
	.tick = OUTBOX_TICK,
	.slots = OUTBOX_INFLIGHT,
	.batch = 0,
	.claim = outbox_claim,
	.start = outbox_start,
	.free = delivery_free,
	.stop = outbox_halt,
};

struct outbox *
outbox_new(struct drain *d, struct event_base *base, struct store *store,
	   const struct settings *set, const char *(*url)(void *),
	   void *url_arg)
{
	struct outbox *o = xcalloc(1, sizeof *o);

	o->store = store;
	o->set = set;
	o->url = url;
	o->url_arg = url_arg;
	o->curl = curlm_new(base);
	o->w = drain_add(d, &outbox_ops, o);
	return o;
}

void
outbox_counts(const struct outbox *o, unsigned long long *sent,
	      unsigned long long *failed)
{
	*sent = o->sent;
	*failed = o->failed;
}

void
outbox_free(struct outbox *o)
{
	if (o == NULL)
		return;
	curlm_free(o->curl);
	free(o);
}
