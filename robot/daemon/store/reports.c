/*
 * reports.c: the store's reports, outbox and subscriptions (reports.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/call.h"
#include "robot/daemon/store/reports.h"
#include "robot/core/banned.h"

static char *
dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void
store_report_claim_free(struct store_report_claim *c)
{
	if (c == NULL)
		return;
	free(c->tree);
	free(c->branch);
	free(c->base);
	free(c->commit);
	free(c->range);
	json_decref(c->regressions);
	json_decref(c->events);
	json_decref(c->doc);
	free(c);
}

/* robot_report_next()'s or robot_followup_next()'s JSON, decoded; NULL
 * when it is not one. */
static void *
report_claim_decode(const char *text)
{
	json_t *j = json_loads(text, 0, NULL), *first;
	const char *kind = rjson_get_str(j, "kind");
	const char *sha = rjson_get_str(json_object_get(j, "commit"), "sha");
	bool note = kind != NULL && strcmp(kind, "note") == 0;
	struct store_report_claim *c;

	if (note && json_is_integer(json_object_get(j, "id")))
		sha = "";
	if (j == NULL || kind == NULL || sha == NULL) {
		json_decref(j);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->followup = strcmp(kind, "followup") == 0;
	c->note = note ? json_integer_value(json_object_get(j, "id")) : 0;
	c->tree = dup_or_null(rjson_get_str(j, "tree"));
	/* A report's branch and base are its first finding's. */
	first = json_array_get(json_object_get(j, "findings"), 0);
	c->branch = dup_or_null(rjson_get_str(first ? first : j, "branch"));
	c->base = dup_or_null(rjson_get_str(first ? first : j, "base"));
	c->commit = xstrdup(sha);
	if (json_is_object(json_object_get(j, "range")))
		c->range = xasprintf(
			"%s..%s",
			rjson_get_str(
				json_object_get(json_object_get(j, "range"),
						"base"),
				"sha"),
			sha);
	c->thread = json_integer_value(
		json_object_get(json_object_get(j, "thread"), "id"));
	c->regressions = json_incref(json_object_get(j, "regressions"));
	c->events = json_incref(json_object_get(j, "events"));
	if (c->regressions == NULL)
		c->regressions = json_array();
	if (c->events == NULL)
		c->events = json_array();
	c->doc = j;
	return c;
}

static void
read_report_claim(const struct db_result *r, const struct problem *p,
		  store_fn cb, void *arg)
{
	void *c;
	struct problem *q = store_decode(r, p, report_claim_decode, &c);

	((store_report_claim_cb)cb)(c, q, arg);
	store_decoded_free(q, p);
}

static const struct store_stmt report_next = {
	"SELECT robot_report_next($1::int, $2::int, $3::int)", "iii",
	read_report_claim, false};

void
store_report_next(struct store *s, int window, int bisect_wait, int seconds,
		  store_report_claim_cb cb, void *arg)
{
	store_call(s, &report_next, STORE_FN(cb), arg, STORE_INT(window),
		   STORE_INT(bisect_wait), STORE_INT(seconds));
}

static const struct store_stmt followup_next = {
	"SELECT robot_followup_next($1::int, $2::int)", "ii", read_report_claim,
	false};

void
store_followup_next(struct store *s, int window, int seconds,
		    store_report_claim_cb cb, void *arg)
{
	store_call(s, &followup_next, STORE_FN(cb), arg, STORE_INT(window),
		   STORE_INT(seconds));
}

static const struct store_stmt note_next = {"SELECT robot_note_next($1::int)",
					    "i", read_report_claim, false};

void
store_note_next(struct store *s, int seconds, store_report_claim_cb cb,
		void *arg)
{
	store_call(s, &note_next, STORE_FN(cb), arg, STORE_INT(seconds));
}

static const struct store_stmt note_store = {
	"SELECT robot_note_store($1::bigint, $2::json)", "ls", store_read_text,
	false};

void
store_note_store(struct store *s, long long id, const char *note,
		 store_text_cb cb, void *arg)
{
	store_call(s, &note_store, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_TEXT(note));
}

static const struct store_stmt report_store = {
	"SELECT robot_report_store($1::json, $2)", "ss", store_read_text,
	false};

void
store_report_store(struct store *s, const char *report, const char *domain,
		   store_text_cb cb, void *arg)
{
	store_call(s, &report_store, STORE_FN(cb), arg, STORE_TEXT(report),
		   STORE_TEXT(domain));
}

/* robot_outbox_next()'s rows, borrowed from the JSON for the callback. */
static void
read_outbox_rows(const struct db_result *r, const struct problem *p,
		 store_fn cb, void *arg)
{
	const char *text =
		p == NULL && db_rows(r) > 0 ? db_value(r, 0, 0) : NULL;
	json_t *rows = text ? json_loads(text, 0, NULL) : NULL, *row;
	struct store_outbox_row *v =
		xcalloc(json_array_size(rows) + 1, sizeof *v);
	size_t i, n = 0;

	json_array_foreach(rows, i, row)
	{
		struct store_outbox_row *o = &v[n];
		json_t *doc = json_object_get(row, "doc");

		o->id = json_integer_value(json_object_get(row, "id"));
		o->channel = rjson_get_str(row, "channel");
		o->recipient = rjson_get_str(row, "recipient");
		if (o->id == 0 || o->channel == NULL || o->recipient == NULL)
			continue; /* cannot be: left to its claim */
		o->attempts = (int)json_integer_value(
			json_object_get(row, "attempts"));
		o->subject = rjson_get_str(row, "subject");
		o->body = rjson_get_str(row, "body");
		o->doc = json_is_object(doc) ? doc : NULL;
		o->message_id = rjson_get_str(row, "message_id");
		o->thread = rjson_get_str(row, "thread");
		o->token = rjson_get_str(row, "token");
		n++;
	}
	((store_outbox_rows_cb)cb)(v, n, p, arg);
	free(v);
	json_decref(rows);
}

static const struct store_stmt outbox_next = {
	"SELECT robot_outbox_next($1::int, $2::int)", "ii", read_outbox_rows,
	false};

void
store_outbox_next(struct store *s, int limit, int seconds,
		  store_outbox_rows_cb cb, void *arg)
{
	store_call(s, &outbox_next, STORE_FN(cb), arg, STORE_INT(limit),
		   STORE_INT(seconds));
}

static const struct store_stmt outbox_done = {
	"SELECT robot_outbox_done($1::bigint, $2, $3, $4::int)", "lssi",
	store_read_text, false};

void
store_outbox_done(struct store *s, const struct store_outbox_done *d,
		  store_text_cb cb, void *arg)
{
	store_call(s, &outbox_done, STORE_FN(cb), arg, STORE_LONG(d->id),
		   STORE_TEXT(d->state), STORE_TEXT(d->error),
		   STORE_INT(d->retry_in));
}

static const struct store_stmt outbox = {"SELECT robot_outbox($1::int)", "i",
					 store_read_text, false};

void
store_outbox(struct store *s, int limit, store_text_cb cb, void *arg)
{
	store_call(s, &outbox, STORE_FN(cb), arg, STORE_INT(limit));
}

static const struct store_stmt subscribe = {
	"SELECT robot_subscribe($1::json, $2, $3, $4, nullif($5, ''))", "sssss",
	store_read_text, false};

void
store_subscribe(struct store *s, const struct store_subscribe *sub,
		store_text_cb cb, void *arg)
{
	store_call(s, &subscribe, STORE_FN(cb), arg, STORE_TEXT(sub->json),
		   STORE_TEXT(sub->confirm_hash), STORE_TEXT(sub->subject),
		   STORE_TEXT(sub->message),
		   STORE_TEXT(sub->client ? sub->client : ""));
}

static const struct store_stmt confirm = {
	"SELECT robot_subscription_confirm($1)", "s", store_read_text, false};

void
store_subscription_confirm(struct store *s, const char *hash, store_text_cb cb,
			   void *arg)
{
	store_call(s, &confirm, STORE_FN(cb), arg, STORE_TEXT(hash));
}

static const struct store_stmt unsubscribe = {"SELECT robot_unsubscribe($1)",
					      "s", store_read_text, false};

void
store_unsubscribe(struct store *s, const char *token, store_text_cb cb,
		  void *arg)
{
	store_call(s, &unsubscribe, STORE_FN(cb), arg, STORE_TEXT(token));
}

static const struct store_stmt subscriptions = {"SELECT robot_subscriptions()",
						"", store_read_text, false};

void
store_subscriptions(struct store *s, store_text_cb cb, void *arg)
{
	store_call(s, &subscriptions, STORE_FN(cb), arg);
}

static const struct view_field commit_info_fields[] = {
	VIEW_F(store_commit_info, "sha", VIEW_STR, sha),
	VIEW_F(store_commit_info, "subject", VIEW_STR, subject),
	VIEW_F(store_commit_info, "author", VIEW_STR, author),
	VIEW_F(store_commit_info, "date", VIEW_STR, date),
};
const struct view_type store_commit_info_view =
	VIEW_TYPE("commit", struct store_commit_info, commit_info_fields);
