/*
 * reports.c: the store's reports, outbox and subscriptions (reports.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/log.h"
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
	view_release(&c->view);
	free(c);
}

/* robot_report_next()'s, robot_followup_next()'s or robot_note_next()'s
 * JSON, decoded; NULL when it is not one. */
static void *
report_claim_decode(const char *text)
{
	json_t *j = rjson_loads(text, NULL);
	struct store_report_claim *c = xcalloc(1, sizeof *c);
	const struct store_claim *k = &c->claim;
	const char *sha;
	char err[256];
	bool note;

	if (j == NULL ||
	    !store_claim_decode(&c->view, j, &c->claim, err, sizeof err)) {
		json_decref(j);
		store_report_claim_free(c);
		return NULL;
	}
	json_decref(j); /* the view holds it */
	note = strcmp(k->kind, "note") == 0;
	sha = note && k->id != 0 ? "" : k->commit.sha;
	if (sha == NULL) {
		store_report_claim_free(c);
		return NULL;
	}
	c->followup = strcmp(k->kind, "followup") == 0;
	c->note = note ? k->id : 0;
	c->tree = dup_or_null(k->tree);
	/* A report's branch and base are its first finding's. */
	c->branch = dup_or_null(k->nfindings > 0 ? k->findings[0].branch
						 : k->branch);
	c->base = dup_or_null(k->nfindings > 0 ? k->findings[0].base : k->base);
	c->commit = xstrdup(sha);
	if (k->range_json != NULL)
		c->range = xasprintf("%s..%s", k->range.base.sha, sha);
	c->thread = k->thread.id;
	c->regressions = k->regressions_json != NULL
				 ? json_deep_copy(k->regressions_json)
				 : json_array();
	c->events = k->events_json != NULL ? json_deep_copy(k->events_json)
					   : json_array();
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

static const struct view_field report_stored_fields[] = {
	VIEW_F(store_report_stored, "id", VIEW_INT, id),
	VIEW_F(store_report_stored, "message_id", VIEW_STR, message_id),
};
const struct view_type store_report_stored_view = VIEW_TYPE(
	"report stored", struct store_report_stored, report_stored_fields);

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
	json_error_t e;
	json_t *rows = text ? rjson_loads(text, &e) : NULL, *row;
	struct store_outbox_row *v =
		xcalloc(json_array_size(rows) + 1, sizeof *v);
	size_t i, n = 0;

	if (text != NULL && rows == NULL)
		log_warnx("the outbox's claimed rows cannot be read (%s); they "
			  "wait out their claim",
			  e.text);

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
		o->reply = rjson_get_str(row, "reply");
		o->in_reply_to = rjson_get_str(row, "in_reply_to");
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

static const struct store_stmt unsubscribe_look = {
	"SELECT robot_unsubscribe_look($1)", "s", store_read_text, false};

void
store_unsubscribe_look(struct store *s, const char *token, store_text_cb cb,
		       void *arg)
{
	store_call(s, &unsubscribe_look, STORE_FN(cb), arg, STORE_TEXT(token));
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
	VIEW_FO(store_commit_info, "email", VIEW_STR, email),
};
const struct view_type store_commit_info_view =
	VIEW_TYPE("commit", struct store_commit_info, commit_info_fields);

/* The claim's view: every part optional (VIEW_OPT), as the header
 * says. */
#define OO(st, key, type, field)                                               \
	{                                                                      \
		key, VIEW_OBJECT, offsetof(struct st, field), VIEW_OPT,        \
			&(type), 0                                             \
	}
#define OA(st, key, kind, type, field, count)                                  \
	{                                                                      \
		key, kind, offsetof(struct st, field), VIEW_OPT, type,         \
			offsetof(struct st, count)                             \
	}

/* A commit as a claim names it: its parts may be absent. */
static const struct view_field claim_commit_fields[] = {
	VIEW_FO(store_commit_info, "sha", VIEW_STR, sha),
	VIEW_FO(store_commit_info, "subject", VIEW_STR, subject),
	VIEW_FO(store_commit_info, "author", VIEW_STR, author),
	VIEW_FO(store_commit_info, "date", VIEW_STR, date),
	VIEW_FO(store_commit_info, "email", VIEW_STR, email),
};
static const struct view_type claim_commit =
	VIEW_TYPE("commit", struct store_commit_info, claim_commit_fields);
static const struct view_field claim_kpi_fields[] = {
	VIEW_FO(store_claim_kpi, "change_pct", VIEW_NUM, change_pct),
	VIEW_FO(store_claim_kpi, "p_value", VIEW_NUM, p_value),
};
static const struct view_type claim_kpi =
	VIEW_TYPE("kpi", struct store_claim_kpi, claim_kpi_fields);
static const struct view_field claim_bisection_fields[] = {
	VIEW_FO(store_claim_bisection, "id", VIEW_INT, id),
	VIEW_FO(store_claim_bisection, "state", VIEW_STR, state),
	VIEW_FO(store_claim_bisection, "reason", VIEW_STR, reason),
	VIEW_FO(store_claim_bisection, "first_bad", VIEW_STR, first_bad),
	VIEW_FO(store_claim_bisection, "steps", VIEW_INT, steps),
	VIEW_FO(store_claim_bisection, "lead_series", VIEW_STR, lead_series),
	OO(store_claim_bisection, "parent", claim_commit, parent),
	VIEW_FO(store_claim_bisection, "pair", VIEW_INT, pair),
	VIEW_FO(store_claim_bisection, "kpi", VIEW_JSON, kpi_json),
	OO(store_claim_bisection, "kpi", claim_kpi, kpi),
};
static const struct view_type claim_bisection = VIEW_TYPE(
	"bisection", struct store_claim_bisection, claim_bisection_fields);
static const struct view_field claim_segment_fields[] = {
	VIEW_FO(store_claim_segment, "from", VIEW_INT, from),
	VIEW_FO(store_claim_segment, "to", VIEW_INT, to),
	VIEW_FO(store_claim_segment, "mean", VIEW_NUM, mean),
};
static const struct view_type claim_segment =
	VIEW_TYPE("segment", struct store_claim_segment, claim_segment_fields);
static const struct view_field claim_history_fields[] = {
	VIEW_FO(store_claim_history, "points", VIEW_INT, points),
	VIEW_FO(store_claim_history, "before", VIEW_JSON, before_json),
	OO(store_claim_history, "before", claim_segment, before),
	VIEW_FO(store_claim_history, "after", VIEW_JSON, after_json),
	OO(store_claim_history, "after", claim_segment, after),
};
static const struct view_type claim_history =
	VIEW_TYPE("history", struct store_claim_history, claim_history_fields);
static const struct view_field claim_finding_fields[] = {
	VIEW_FO(store_claim_finding, "id", VIEW_INT, id),
	VIEW_FO(store_claim_finding, "kind", VIEW_STR, kind),
	VIEW_FO(store_claim_finding, "found_by", VIEW_STR, found_by),
	OO(store_claim_finding, "history", claim_history, history),
	VIEW_FO(store_claim_finding, "branch", VIEW_STR, branch),
	VIEW_FO(store_claim_finding, "base", VIEW_STR, base),
	VIEW_FO(store_claim_finding, "head", VIEW_STR, head),
	VIEW_FO(store_claim_finding, "series", VIEW_STR, series),
	VIEW_FO(store_claim_finding, "kpi", VIEW_STR, kpi),
	VIEW_FO(store_claim_finding, "change_pct", VIEW_NUM, change_pct),
	VIEW_FO(store_claim_finding, "p_value", VIEW_NUM, p_value),
	VIEW_FO(store_claim_finding, "runs", VIEW_INT, runs),
	VIEW_FO(store_claim_finding, "base_runs", VIEW_INT, base_runs),
	VIEW_FO(store_claim_finding, "head_runs", VIEW_INT, head_runs),
	VIEW_FO(store_claim_finding, "pair", VIEW_INT, pair),
	OO(store_claim_finding, "head_info", claim_commit, head_info),
	OO(store_claim_finding, "base_info", claim_commit, base_info),
	OO(store_claim_finding, "bisection", claim_bisection, bisection),
};
static const struct view_type claim_finding =
	VIEW_TYPE("finding", struct store_claim_finding, claim_finding_fields);
static const struct view_field claim_pair_fields[] = {
	VIEW_FO(store_claim_pair, "pair", VIEW_INT, pair),
	VIEW_FO(store_claim_pair, "series", VIEW_STR, series),
	VIEW_FO(store_claim_pair, "base", VIEW_STR, base),
	VIEW_FO(store_claim_pair, "head", VIEW_STR, head),
	VIEW_FO(store_claim_pair, "runs", VIEW_INT, runs),
	VIEW_FO(store_claim_pair, "base_runs", VIEW_INT, base_runs),
	VIEW_FO(store_claim_pair, "head_runs", VIEW_INT, head_runs),
	VIEW_FO(store_claim_pair, "table", VIEW_STR, table),
	VIEW_FO(store_claim_pair, "comparison", VIEW_JSON, comparison),
	VIEW_FO(store_claim_pair, "job", VIEW_JSON, job),
	VIEW_FO(store_claim_pair, "tbox_group", VIEW_STR, tbox_group),
	VIEW_FO(store_claim_pair, "facts", VIEW_JSON, facts),
	VIEW_FO(store_claim_pair, "provision", VIEW_JSON, provision),
};
static const struct view_type claim_pair =
	VIEW_TYPE("pair", struct store_claim_pair, claim_pair_fields);
static const struct view_field claim_range_fields[] = {
	OO(store_claim_range, "base", claim_commit, base),
	OO(store_claim_range, "head", claim_commit, head),
	VIEW_FO(store_claim_range, "count", VIEW_INT, count),
	OA(store_claim_range, "commits", VIEW_ARRAY, &claim_commit, commits,
	   ncommits),
};
static const struct view_type claim_range =
	VIEW_TYPE("range", struct store_claim_range, claim_range_fields);
static const struct view_field claim_news_fields[] = {
	VIEW_FO(store_claim_news, "kind", VIEW_STR, kind),
	VIEW_FO(store_claim_news, "regression", VIEW_INT, regression),
	VIEW_FO(store_claim_news, "regression", VIEW_JSON, regression_json),
	VIEW_FO(store_claim_news, "finding", VIEW_STR, finding),
	VIEW_FO(store_claim_news, "series", VIEW_STR, series),
	VIEW_FO(store_claim_news, "series", VIEW_JSON, series_json),
	VIEW_FO(store_claim_news, "kpi", VIEW_STR, kpi),
	VIEW_FO(store_claim_news, "kpi", VIEW_JSON, kpi_json),
	VIEW_FO(store_claim_news, "change_pct", VIEW_NUM, change_pct),
	VIEW_FO(store_claim_news, "change_pct", VIEW_JSON, change_pct_json),
	VIEW_FO(store_claim_news, "runs", VIEW_INT, runs),
	VIEW_FO(store_claim_news, "head", VIEW_JSON, head_json),
	OO(store_claim_news, "head", claim_commit, head),
};
static const struct view_type claim_news =
	VIEW_TYPE("news", struct store_claim_news, claim_news_fields);
static const struct view_field claim_note_fields[] = {
	VIEW_FO(store_claim_note, "kind", VIEW_STR, kind),
	VIEW_FO(store_claim_note, "series", VIEW_STR, series),
	VIEW_FO(store_claim_note, "message", VIEW_STR, message),
	OA(store_claim_note, "boxes", VIEW_STRS, NULL, boxes, nboxes),
	VIEW_FO(store_claim_note, "boxes", VIEW_JSON, boxes_json),
	VIEW_FO(store_claim_note, "kpi", VIEW_JSON, kpi_json),
	VIEW_FO(store_claim_note, "pair", VIEW_JSON, pair_json),
	VIEW_FO(store_claim_note, "created", VIEW_JSON, created_json),
	OA(store_claim_note, "also", VIEW_STRS, NULL, also, nalso),
};
static const struct view_type claim_note =
	VIEW_TYPE("note", struct store_claim_note, claim_note_fields);
static const struct view_field claim_subscriber_fields[] = {
	VIEW_FO(store_claim_subscriber, "email", VIEW_STR, email),
	VIEW_FO(store_claim_subscriber, "tree", VIEW_STR, tree),
	VIEW_FO(store_claim_subscriber, "branch", VIEW_STR, branch),
	VIEW_FO(store_claim_subscriber, "testcase", VIEW_STR, testcase),
	VIEW_FO(store_claim_subscriber, "metric", VIEW_STR, metric),
	VIEW_FO(store_claim_subscriber, "min_change", VIEW_NUM, min_change),
	VIEW_FO(store_claim_subscriber, "regressions", VIEW_BOOL, regressions),
	VIEW_FO(store_claim_subscriber, "improvements", VIEW_BOOL,
		improvements),
};
static const struct view_type claim_subscriber = VIEW_TYPE(
	"subscriber", struct store_claim_subscriber, claim_subscriber_fields);
static const struct view_field claim_tree_info_fields[] = {
	VIEW_FO(store_claim_tree_info, "url", VIEW_STR, url),
	VIEW_FO(store_claim_tree_info, "mail_author", VIEW_BOOL, mail_author),
};
static const struct view_type claim_tree_info = VIEW_TYPE(
	"tree_info", struct store_claim_tree_info, claim_tree_info_fields);
static const struct view_field claim_thread_fields[] = {
	VIEW_FO(store_claim_thread, "id", VIEW_INT, id),
	VIEW_FO(store_claim_thread, "subject", VIEW_STR, subject),
};
static const struct view_type claim_thread =
	VIEW_TYPE("thread", struct store_claim_thread, claim_thread_fields);
static const struct view_field claim_fields[] = {
	{"kind", VIEW_STR, offsetof(struct store_claim, kind), 0, NULL, 0},
	VIEW_FO(store_claim, "id", VIEW_INT, id),
	VIEW_FO(store_claim, "base", VIEW_STR, base),
	VIEW_FO(store_claim, "tree", VIEW_STR, tree),
	VIEW_FO(store_claim, "tree", VIEW_JSON, tree_json),
	VIEW_FO(store_claim, "branch", VIEW_STR, branch),
	VIEW_FO(store_claim, "branch", VIEW_JSON, branch_json),
	OO(store_claim, "tree_info", claim_tree_info, tree_info),
	VIEW_FO(store_claim, "commit", VIEW_JSON, commit_json),
	OO(store_claim, "commit", claim_commit, commit),
	VIEW_FO(store_claim, "culprit", VIEW_BOOL, culprit),
	VIEW_FO(store_claim, "range", VIEW_JSON, range_json),
	OO(store_claim, "range", claim_range, range),
	VIEW_FO(store_claim, "thread", VIEW_JSON, thread_json),
	OO(store_claim, "thread", claim_thread, thread),
	VIEW_FO(store_claim, "events", VIEW_JSON, events_json),
	VIEW_FO(store_claim, "regressions", VIEW_JSON, regressions_json),
	OA(store_claim, "findings", VIEW_ARRAY, &claim_finding, findings,
	   nfindings),
	VIEW_FO(store_claim, "findings", VIEW_JSON, findings_json),
	VIEW_FO(store_claim, "pairs", VIEW_JSON, pairs_json),
	VIEW_FO(store_claim, "culprit_pairs", VIEW_JSON, culprit_pairs_json),
	OA(store_claim, "pairs", VIEW_ARRAY, &claim_pair, pairs, npairs),
	OA(store_claim, "culprit_pairs", VIEW_ARRAY, &claim_pair, culprit_pairs,
	   nculprit_pairs),
	OA(store_claim, "bases", VIEW_ARRAY, &claim_commit, bases, nbases),
	OA(store_claim, "news", VIEW_ARRAY, &claim_news, news, nnews),
	OA(store_claim, "recipients", VIEW_STRS, NULL, recipients, nrecipients),
	OA(store_claim, "subscribers", VIEW_ARRAY, &claim_subscriber,
	   subscribers, nsubscribers),
	VIEW_FO(store_claim, "note", VIEW_JSON, note_json),
	OO(store_claim, "note", claim_note, note),
};
#undef OO
#undef OA
const struct view_type store_claim_view =
	VIEW_TYPE("claim", struct store_claim, claim_fields);

bool
store_claim_decode(struct view_doc *d, json_t *j, struct store_claim *out,
		   char *err, size_t len)
{
	if (!view_decode(d, &store_claim_view, j, out, err, len))
		return false;
	for (size_t i = 0; i < out->nfindings; i++)
		out->findings[i].json = json_array_get(out->findings_json, i);
	for (size_t i = 0; i < out->npairs; i++)
		out->pairs[i].json = json_array_get(out->pairs_json, i);
	for (size_t i = 0; i < out->nculprit_pairs; i++)
		out->culprit_pairs[i].json =
			json_array_get(out->culprit_pairs_json, i);
	return true;
}

static const struct store_stmt mail_in = {"SELECT robot_mail_in($1::json)", "s",
					  store_read_text, false};

void
store_mail_in(struct store *s, const char *p, store_text_cb cb, void *arg)
{
	store_call(s, &mail_in, STORE_FN(cb), arg, STORE_TEXT(p));
}

static const struct store_stmt mail_in_answer = {
	"SELECT robot_mail_in_answer($1::bigint, $2, $3)", "lss",
	store_read_text, false};

void
store_mail_in_answer(struct store *s, long long id, const char *subject,
		     const char *text, store_text_cb cb, void *arg)
{
	store_call(s, &mail_in_answer, STORE_FN(cb), arg, STORE_LONG(id),
		   STORE_TEXT(subject), STORE_TEXT(text));
}

static const struct store_stmt triage_link_open = {
	"SELECT robot_triage_link_open($1, $2, $3)", "sss", store_read_text,
	false};

void
store_triage_link_open(struct store *s, const char *token, const char *email,
		       const char *session_hash, store_text_cb cb, void *arg)
{
	store_call(s, &triage_link_open, STORE_FN(cb), arg, STORE_TEXT(token),
		   STORE_TEXT(email), STORE_TEXT(session_hash));
}

static const struct store_stmt triage_session = {
	"SELECT robot_triage_session($1)", "s", store_read_text, false};

void
store_triage_session(struct store *s, const char *hash, store_text_cb cb,
		     void *arg)
{
	store_call(s, &triage_session, STORE_FN(cb), arg, STORE_TEXT(hash));
}
