/*
 * outbox.c: the outbox delivered.
 *
 * The outbox claims due rows (robot_outbox_next(): FOR UPDATE SKIP
 * LOCKED, for report_claim seconds; one delivery may take half of that) up to OUTBOX_INFLIGHT at a time:
 *
 *   IDLE      --(woken, the timer, or a full batch came)--> CLAIMING
 *   CLAIMING  --(rows: each a delivery)-------------------> IDLE
 *
 * and each row is a delivery:
 *
 *   SENDING   --(the server answered, or did not)--> MARKING
 *   MARKING   --(robot_outbox_done() stored it)----> freed
 *
 * A robotd killed between the server's answer and MARKING leaves the row
 * claimed; when the claim runs out it is sent again, with the same
 * Message-ID: at most one duplicate, never a loss.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "reporters/curl.h"
#include "reporters/mail.h"
#include "reporters/outbox.h"
#include "reporters/report.h"
#include "reporters/crypto.h"
#include "robot/core/backoff.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/core/banned.h"

#define OUTBOX_INFLIGHT  16   /* rows being delivered at once */
#define OUTBOX_TICK      5    /* seconds between looks for rows due */
#define OUTBOX_ATTEMPTS  48   /* tries before a row fails (about 2 days) */
#define OUTBOX_RETRY     10   /* seconds before the second try, doubling */
#define OUTBOX_RETRY_MAX 3600 /* at most between two tries */

enum outbox_state {
	OUTBOX_IDLE,
	OUTBOX_CLAIMING,
};

struct outbox {
	enum outbox_state state;
	struct event_base *base;
	struct store *store;
	const struct settings *set;
	const char *(*url)(void *);
	void *url_arg;
	struct curlm *curl;
	struct event *timer;
	int inflight;
	int asked;             /* rows the claim under way asked for */
	bool dirty;            /* rows may be due: claim when there is room */
	bool stopping;         /* robotd stops: nothing new starts */
	struct delivery *list; /* the deliveries under way */
	unsigned long long sent, failed;
};

enum delivery_state {
	DELIVERY_SENDING,
	DELIVERY_MARKING,
};

struct delivery {
	enum delivery_state state;
	struct outbox *o;
	long long id;
	int attempts; /* this one included */
	char *what;   /* "mail to x", "webhook http://...", for the log */
	bool ok, permanent;
	char *error;
	struct delivery *prev, *next;
};

static void
delivery_free(struct delivery *d)
{
	struct outbox *o = d->o;

	if (d->prev != NULL)
		d->prev->next = d->next;
	else
		o->list = d->next;
	if (d->next != NULL)
		d->next->prev = d->prev;
	o->inflight--;
	free(d->what);
	free(d->error);
	free(d);
}

static void outbox_drive(struct outbox *o);

static void
delivery_on_marked(const char *text, const struct problem *p, void *arg)
{
	struct delivery *d = arg;
	struct outbox *o = d->o;

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
	delivery_free(d);
	outbox_drive(o);
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
delivery_mark(struct delivery *d)
{
	struct store_outbox_done done = {d->id, NULL, d->error, 0};

	done.state = outbox_outcome(d->ok, d->permanent, d->attempts,
				    &done.retry_in);

	d->state = DELIVERY_MARKING;
	if (d->ok)
		d->o->sent++;
	else
		d->o->failed++;
	store_outbox_done(d->o->store, &done, delivery_on_marked, d);
}

/* SMTP: a 5xx refuses the recipient for good; anything else (4xx, no
 * server, a timeout) is tried again. */
static void
delivery_on_mailed(long code, const char *error, void *arg)
{
	struct delivery *d = arg;

	d->ok = error == NULL;
	d->permanent = code >= 500 && code < 600;
	d->error = error ? xstrdup(error) : NULL;
	delivery_mark(d);
}

/* HTTP: a 4xx other than 408 and 429 is for good; 5xx and no answer are
 * tried again. */
static void
delivery_on_posted(long code, const char *error, void *arg)
{
	struct delivery *d = arg;

	d->ok = error == NULL;
	d->permanent = code >= 400 && code < 500 && code != 408 && code != 429;
	d->error = error ? xstrdup(error) : NULL;
	delivery_mark(d);
}

/* A failure before anything was sent. */
static void
delivery_fail(struct delivery *d, bool permanent, const char *why)
{
	d->ok = false;
	d->permanent = permanent;
	d->error = xstrdup(why);
	delivery_mark(d);
}

static void
delivery_mail(struct delivery *d, json_t *row)
{
	struct outbox *o = d->o;
	const char *to = rjson_get_str(row, "recipient");
	const char *token = rjson_get_str(row, "token");
	const char *from = o->set->mail_from, *url = o->url(o->url_arg);
	char *mid = NULL, *unsub = NULL, *footer, *text, *rcpt, *mfrom;
	char *list_id = xasprintf("<reports.%s>", mail_domain(from));
	struct curlm_request rq;
	struct mail m;

	if (mail_address_check(to) != NULL) {
		delivery_fail(d, true, mail_address_check(to));
		free(list_id);
		return;
	}
	if (o->set->smtp == NULL) {
		delivery_fail(d, false,
			      "no smtp: in robotd's settings: the mail "
			      "waits");
		free(list_id);
		return;
	}
	if (rjson_get_str(row, "message_id") == NULL)
		mid = xasprintf("<robot.mail.%lld@%s>", d->id,
				mail_domain(from));
	if (token != NULL)
		unsub = xasprintf("%s/subscriptions/unsubscribe?t=%s", url,
				  token);
	footer =
		unsub ? xasprintf("robot, a performance test robot: %s\n"
				  "No more mail from robot: %s\n",
				  url, unsub)
		      : xasprintf("robot, a performance test robot: %s\n", url);
	m = (struct mail){
		from,
		"robot",
		to,
		rjson_get_str(row, "subject"),
		mid ? mid : rjson_get_str(row, "message_id"),
		rjson_get_str(row, "thread"),
		list_id,
		unsub,
		NULL,
		time(NULL),
		rjson_get_str(row, "body") ? rjson_get_str(row, "body") : "",
		footer};
	text = mail_format(&m);
	rcpt = xasprintf("<%s>", to);
	mfrom = xasprintf("<%s>", from);
	rq = (struct curlm_request){o->set->smtp,
				    mfrom,
				    rcpt,
				    o->set->smtp_user,
				    o->set->smtp_password,
				    o->set->smtp_starttls != 0,
				    NULL,
				    text,
				    strlen(text),
				    o->set->report_claim / 2};
	curlm_send(o->curl, &rq, delivery_on_mailed, d);
	free(mid);
	free(unsub);
	free(footer);
	free(text);
	free(rcpt);
	free(mfrom);
	free(list_id);
}

static void
delivery_post(struct delivery *d, json_t *row, bool chat)
{
	struct outbox *o = d->o;
	json_t *doc = json_object_get(row, "doc"), *body;
	char ts[32], *text, *sig = NULL, *h[6];
	const char *kind = rjson_get_str(doc, "kind");
	struct curlm_request rq;
	size_t n = 0;

	if (!json_is_object(doc)) {
		delivery_fail(d, true, "only reports are posted");
		return;
	}
	body = chat ? report_chat(doc) : json_incref(doc);
	text = rjson_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(body);
	snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
	h[n++] = xstrdup("Content-Type: application/json");
	h[n++] = xasprintf("X-Robot-Event: %s", kind ? kind : "report");
	h[n++] = xasprintf("X-Robot-Delivery: %lld", d->id);
	h[n++] = xasprintf("X-Robot-Timestamp: %s", ts);
	if (!chat && o->set->webhook_secret != NULL) {
		sig = crypto_signature(o->set->webhook_secret, ts, text,
				       strlen(text));
		h[n++] = xasprintf("X-Robot-Signature: %s", sig);
	}
	h[n] = NULL;
	rq = (struct curlm_request){rjson_get_str(row, "recipient"),
				    NULL,
				    NULL,
				    NULL,
				    NULL,
				    false,
				    (const char *const *)h,
				    text,
				    strlen(text),
				    o->set->report_claim / 2};
	curlm_send(o->curl, &rq, delivery_on_posted, d);
	for (size_t i = 0; i < n; i++)
		free(h[i]);
	free(sig);
	free(text);
}

static void
delivery_start(struct outbox *o, json_t *row)
{
	struct delivery *d = xcalloc(1, sizeof *d);
	const char *channel = rjson_get_str(row, "channel");

	d->state = DELIVERY_SENDING;
	d->o = o;
	d->id = json_integer_value(json_object_get(row, "id"));
	d->attempts = (int)json_integer_value(json_object_get(row, "attempts"));
	d->what = xasprintf("%s %s", channel ? channel : "?",
			    rjson_get_str(row, "recipient"));
	d->next = o->list;
	if (o->list != NULL)
		o->list->prev = d;
	o->list = d;
	o->inflight++;
	if (channel != NULL && strcmp(channel, "mail") == 0)
		delivery_mail(d, row);
	else if (channel != NULL && strcmp(channel, "webhook") == 0)
		delivery_post(d, row, false);
	else if (channel != NULL && strcmp(channel, "chat") == 0)
		delivery_post(d, row, true);
	else
		delivery_fail(d, true, "an unknown channel");
}

static void
outbox_on_claimed(const char *text, const struct problem *p, void *arg)
{
	struct outbox *o = arg;
	json_t *rows = NULL, *row;
	size_t i;

	o->state = OUTBOX_IDLE;
	if (p != NULL)
		log_warnx("outbox: cannot claim: %s", p->message);
	else if (o->stopping)
		; /* the rows claimed are sent when their claims run out */
	else if (text != NULL && (rows = json_loads(text, 0, NULL)) != NULL) {
		json_array_foreach(rows, i, row)
		{
			delivery_start(o, row);
		}
		/* A full batch: more may be due. */
		if ((int)json_array_size(rows) >= o->asked)
			o->dirty = true;
		json_decref(rows);
	}
	outbox_drive(o);
}

static void
outbox_drive(struct outbox *o)
{
	switch (o->state) {
	case OUTBOX_IDLE:
		if (o->stopping || !o->dirty ||
		    o->inflight >= OUTBOX_INFLIGHT || !store_up(o->store))
			return;
		o->dirty = false;
		o->state = OUTBOX_CLAIMING;
		o->asked = OUTBOX_INFLIGHT - o->inflight;
		store_outbox_next(o->store, o->asked, o->set->report_claim,
				  outbox_on_claimed, o);
		return;
	case OUTBOX_CLAIMING:
		return; /* outbox_on_claimed() drives again */
	}
}

static void
outbox_on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	outbox_wake(arg);
}

struct outbox *
outbox_new(struct event_base *base, struct store *store,
	   const struct settings *set, const char *(*url)(void *),
	   void *url_arg)
{
	struct outbox *o = xcalloc(1, sizeof *o);
	struct timeval tv = {OUTBOX_TICK, 0};

	o->state = OUTBOX_IDLE;
	o->base = base;
	o->store = store;
	o->set = set;
	o->url = url;
	o->url_arg = url_arg;
	o->curl = curlm_new(base);
	o->timer = event_new(base, -1, EV_PERSIST, outbox_on_timer, o);
	event_add(o->timer, &tv);
	o->dirty = true;
	return o;
}

void
outbox_wake(struct outbox *o)
{
	o->dirty = true;
	outbox_drive(o);
}

void
outbox_counts(const struct outbox *o, unsigned long long *sent,
	      unsigned long long *failed)
{
	*sent = o->sent;
	*failed = o->failed;
}

void
outbox_stop(struct outbox *o)
{
	struct delivery *d, *next;

	o->stopping = true;
	/* Deliveries still sending end with their transfers: their rows
	 * stay claimed and are sent again when the claims run out.  Those
	 * being marked end with their queries. */
	for (d = o->list; d != NULL; d = next) {
		next = d->next;
		if (d->state == DELIVERY_SENDING)
			delivery_free(d);
	}
	curlm_free(o->curl);
	o->curl = NULL;
}

void
outbox_free(struct outbox *o)
{
	if (o == NULL)
		return;
	if (!o->stopping)
		outbox_stop(o);
	while (o->list != NULL)
		delivery_free(o->list);
	event_free(o->timer);
	free(o);
}
