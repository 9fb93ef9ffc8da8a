/*
 * findings.c: regressions, comparisons and series over HTTP.  The JSON
 * twins of the pages are the pages' own (web/pages/pages.h); a twin
 * that does more than pass the store's answer on (the comparison with
 * its runs, the history with its change points) is answered here, its
 * arguments checked by the page's ask() with the helpers here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/analysis/changes.h"
#include "robot/analysis/history.h"
#include "robot/analysis/triage.h"
#include "robot/core/log.h"
#include "robot/core/rjson.h"
#include "robot/core/str.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/problem.h"
#include "robot/daemon/resolve.h"
#include "robot/daemon/store/analysis.h"
#include "robot/daemon/store/bisect.h"
#include "robot/daemon/store/pages.h"
#include "web/findings.h"
#include "robot/core/banned.h"

/* The states a person may give a regression. */
static const char *const settable[] = {"new", "reported", "invalid", "fixed",
				       NULL};

void
findings_regressions(struct web *w, struct http_req *req,
		     const struct web_call *call)
{
	struct store_regressions_filter f = {NULL, NULL, NULL, NULL, 100, NULL};
	const char *state = http_req_arg(req, "state", 0);
	const char *triage = http_req_arg(req, "triage", 0);
	const char *kind = http_req_arg(req, "kind", 0);
	const char *since = http_req_arg(req, "since", 0);

	(void)call;
	if (!web_name_arg(req, "tree", 0, NAME_LABEL, &f.tree) ||
	    !web_int_arg(req, "limit", 1, 10000, &f.limit))
		return;
	if (state != NULL && strcmp(state, "bisecting") != 0 &&
	    strcmp(state, "bisected") != 0) {
		bool ok = false;

		for (size_t i = 0; settable[i] != NULL; i++)
			ok = ok || strcmp(state, settable[i]) == 0;
		if (!ok) {
			http_req_reply_error(req, 400,
					     "state is new, reported, "
					     "bisecting, bisected, fixed or "
					     "invalid",
					     NULL);
			return;
		}
	}
	if (kind != NULL && strcmp(kind, "regression") != 0 &&
	    strcmp(kind, "improvement") != 0 &&
	    strcmp(kind, "change point") != 0) {
		http_req_reply_error(req, 400,
				     "kind is regression, improvement or "
				     "change point (those found in a branch's "
				     "history)",
				     NULL);
		return;
	}
	if (since != NULL &&
	    (strlen(since) < 10 || strlen(since) > 32 ||
	     strspn(since, "0123456789-:TZ+. ") != strlen(since))) {
		http_req_reply_error(req, 400,
				     "since is a date: YYYY-MM-DD or an ISO "
				     "8601 time",
				     NULL);
		return;
	}
	if (triage != NULL && !triage_state_valid(triage)) {
		http_req_reply_error(req, 400,
				     "triage is untriaged, acknowledged, "
				     "invalid, wontfix, duplicate, fixed or "
				     "recovered",
				     NULL);
		return;
	}
	f.state = state;
	f.triage = triage;
	f.kind = kind;
	f.since = since;
	store_regressions(w->d.store, &f, web_on_json, req);
}

void
findings_regression_set(struct web *w, struct http_req *req,
			const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len), *state;
	json_t *j = json_loadb(body, len, 0, NULL);
	bool ok = false;

	state = json_string_value(json_object_get(j, "state"));
	for (size_t i = 0; state != NULL && settable[i] != NULL; i++)
		ok = ok || strcmp(state, settable[i]) == 0;
	if (!ok) {
		http_req_reply_error(req, 400,
				     "the body is {\"state\": S}, S one of "
				     "new, reported, invalid or fixed",
				     NULL);
		json_decref(j);
		return;
	}
	log_info("%s sets regression %s to %s", call->name, call->arg, state);
	store_regression_set(w->d.store, strtoll(call->arg, NULL, 10), state,
			     call->name, strcmp(call->kind, "admin") == 0,
			     web_on_json, req);
	json_decref(j);
}

/*
 * POST /api/regressions/:id/triage: {"command": "invalid: box: ...",
 * "how": "api" or "cli"}, in the language of robot/analysis/triage.h;
 * who may is the store's to say (robot_regression_may()).
 */
void
findings_regression_triage(struct web *w, struct http_req *req,
			   const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len), *line, *how;
	json_t *j = json_loadb(body, len, 0, NULL);
	struct triage_cmd c;
	char err[256], *text;

	line = json_string_value(json_object_get(j, "command"));
	how = json_string_value(json_object_get(j, "how"));
	if (!json_is_object(j) || line == NULL ||
	    (json_object_get(j, "how") != NULL &&
	     (how == NULL ||
	      (strcmp(how, "api") != 0 && strcmp(how, "cli") != 0)))) {
		http_req_reply_error(req, 400,
				     "the body is {\"command\": C}, C a "
				     "triage command (ack, invalid: WHY, "
				     "wontfix: WHY, dup-of: ID, fixed-by: SHA, "
				     "note: TEXT, link: URL, tag: NAMES, "
				     "mute: 30d WHY, untriage), and \"how\": "
				     "api or cli",
				     NULL);
		json_decref(j);
		return;
	}
	if (!triage_parse(line, strlen(line), &c, err, sizeof err)) {
		http_req_reply_error(req, 400, err, NULL);
		json_decref(j);
		return;
	}
	text = triage_cmd_json(&c);
	log_info("%s triages regression %s: %s", call->name, call->arg,
		 triage_action_name(c.action));
	store_regression_triage(w->d.store, strtoll(call->arg, NULL, 10), text,
				call->name, call->kind, how ? how : "api",
				w->d.set->box_false_alarms, web_on_json, req);
	free(text);
	json_decref(j);
}

/*
 * POST /api/mutes: {"kind": "series"|"metric"|"box", "pattern", "for":
 * "30d", "reason", "how": "api"|"cli"}: findings that match are
 * recorded and not mailed until it expires (robot_mute()).
 */
void
findings_mute(struct web *w, struct http_req *req, const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_t *j = json_loadb(body, len, 0, NULL), *p;
	const char *kind = rjson_get_str(j, "kind");
	const char *pattern = rjson_get_str(j, "pattern");
	const char *dur = rjson_get_str(j, "for");
	const char *reason = rjson_get_str(j, "reason");
	const char *how = rjson_get_str(j, "how");
	long long secs = dur ? triage_duration(dur, strlen(dur)) : 0;
	char *text;

	if (kind == NULL ||
	    (strcmp(kind, "series") != 0 && strcmp(kind, "metric") != 0 &&
	     strcmp(kind, "box") != 0) ||
	    pattern == NULL || pattern[0] == '\0' || strlen(pattern) > 300 ||
	    reason == NULL || reason[0] == '\0' ||
	    strlen(reason) > TRIAGE_TEXT_MAX ||
	    !str_utf8_valid(pattern, strlen(pattern)) ||
	    !str_utf8_valid(reason, strlen(reason)) || secs == 0 ||
	    (how != NULL && strcmp(how, "api") != 0 &&
	     strcmp(how, "cli") != 0)) {
		http_req_reply_error(
			req, 400,
			"the body is {\"kind\": \"series\", \"metric\" (a "
			"glob) or \"box\", \"pattern\": its name (at most 300 "
			"bytes), \"for\": N and h, d or w (at most 365 days), "
			"\"reason\": why (at most 1000 bytes)}",
			NULL);
		json_decref(j);
		return;
	}
	for (const char *c = pattern; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			http_req_reply_error(req, 400,
					     "the pattern has a control "
					     "character",
					     NULL);
			json_decref(j);
			return;
		}
	p = json_pack("{s:s, s:s, s:s, s:I}", "kind", kind, "pattern", pattern,
		      "reason", reason, "seconds", (json_int_t)secs);
	text = json_dumps(p, JSON_COMPACT);
	log_info("%s mutes %s %s for %s", call->name, kind, pattern, dur);
	store_mute(w->d.store, text, call->name, how ? how : "api", web_on_json,
		   req);
	free(text);
	json_decref(p);
	json_decref(j);
}

void
findings_unmute(struct web *w, struct http_req *req,
		const struct web_call *call)
{
	log_info("%s ends mute %s", call->name, call->arg);
	store_unmute(w->d.store, strtoll(call->arg, NULL, 10), web_on_json,
		     req);
}

void
findings_mutes(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)call;
	store_mutes(w->d.store, web_on_json, req);
}

/*
 * A comparison being answered with its KPIs' runs
 * (findings_compare_values()):
 *
 *   RESOLVING (base, then head: a short SHA, a branch or the tree's base
 *             ref made a full SHA; robot_series_commit())
 *     --(both full SHAs)--> COMPARING --(compared)--> VALUES --> done
 *     --(not a commit of the series)--> done (400, robotd's words)
 */
struct compared {
	struct web *w;
	char *series, *base, *head;
	char **resolving; /* RESOLVING: &base or &head; NULL after */
	/* Each side is resolved once: a run stored before submits resolved
	 * commits may carry a short one, which resolves to itself. */
	bool base_resolved, head_resolved;
	struct analysis_ask ask_copy;
	bool asked;
	json_t *answer;
	findings_compare_cb cb;
	void *arg;
};

static void
compared_free(struct compared *c)
{
	free(c->series);
	free(c->base);
	free(c->head);
	json_decref(c->answer);
	free(c);
}

static const struct view_field compared_fields[] = {
	VIEW_F(findings_compared, "verdict", VIEW_STR, verdict),
	VIEW_F(findings_compared, "kpi", VIEW_STR, kpi),
	VIEW_F(findings_compared, "comparison", VIEW_JSON, comparison),
	VIEW_F(findings_compared, "values", VIEW_JSON, values),
};
const struct view_type findings_compared_view =
	VIEW_TYPE("comparison", struct findings_compared, compared_fields);

static void
findings_on_values(const char *text, const struct problem *p, void *arg)
{
	struct compared *c = arg;
	json_t *v = text ? rjson_loads(text, NULL) : NULL, *answer;

	if (p != NULL) {
		c->cb(NULL, p, c->arg);
	} else {
		json_t *vals = json_object_get(v, "values"),
		       *runs = json_object_get(v, "runs");

		json_object_set(c->answer, "values",
				json_is_object(vals) ? vals : json_object());
		json_object_set(c->answer, "runs",
				json_is_object(runs) ? runs : json_object());
		/* the answer alone holds what it took of v from here: it may
		 * be written on another thread */
		json_decref(v);
		v = NULL;
		answer = c->answer;
		c->answer = NULL;
		c->cb(answer, NULL, c->arg);
	}
	json_decref(v);
	compared_free(c);
}

static void
findings_on_compared(json_t *answer, const struct problem *p, void *arg)
{
	struct compared *c = arg;
	json_t *names = json_array(), *m;
	char *text;
	size_t i;

	if (p != NULL || answer == NULL) {
		c->cb(answer, p, c->arg);
		json_decref(names);
		compared_free(c);
		return;
	}
	c->answer = answer;
	json_array_foreach(
		json_object_get(json_object_get(answer, "comparison"),
				"metrics"),
		i, m)
	{
		if (json_is_true(json_object_get(m, "kpi")))
			json_array_append(names, json_object_get(m, "metric"));
	}
	text = rjson_dumps(names, JSON_COMPACT);
	store_side_values(c->w->d.store, c->series, c->base, c->head, text,
			  findings_on_values, c);
	free(text);
	json_decref(names);
}

static void compared_resolve(struct compared *c);

static void
findings_on_resolved(const char *text, const struct problem *p, void *arg)
{
	struct compared *c = arg;
	json_t *j = text ? rjson_loads(text, NULL) : NULL;
	const char *sha = rjson_get_str(j, "sha");

	if (p != NULL || sha == NULL) {
		struct problem *bad = NULL;

		if (p == NULL)
			p = bad = problem_new(
				json_is_true(json_object_get(j, "missing"))
					? PROBLEM_NOT_FOUND
					: PROBLEM_INVALID,
				NULL, "%s",
				rjson_get_str(j, "error")
					? rjson_get_str(j, "error")
					: "no such commit");
		c->cb(NULL, p, c->arg);
		problem_free(bad);
		json_decref(j);
		compared_free(c);
		return;
	}
	free(*c->resolving);
	*c->resolving = xstrdup(sha);
	if (c->resolving == &c->base)
		c->base_resolved = true;
	else
		c->head_resolved = true;
	json_decref(j);
	compared_resolve(c);
}

/* RESOLVING the next name that is no full SHA, else COMPARING. */
static void
compared_resolve(struct compared *c)
{
	c->resolving = !c->base_resolved && !resolve_is_sha(c->base) ? &c->base
		       : !c->head_resolved && !resolve_is_sha(c->head)
			       ? &c->head
			       : NULL;
	if (c->resolving != NULL) {
		store_series_commit(c->w->d.store, c->series, *c->resolving,
				    findings_on_resolved, c);
		return;
	}
	analysis_compare(c->w->d.analysis, c->series, c->base, c->head,
			 c->asked ? &c->ask_copy : NULL, findings_on_compared,
			 c);
}

void
findings_compare_values(struct web *w, const char *series, const char *base,
			const char *head, const struct analysis_ask *ask,
			findings_compare_cb cb, void *arg)
{
	struct compared *c = xcalloc(1, sizeof *c);

	c->w = w;
	c->series = xstrdup(series);
	c->base = xstrdup(base);
	c->head = xstrdup(head);
	if (ask != NULL) {
		c->ask_copy = *ask;
		c->asked = true;
	}
	c->cb = cb;
	c->arg = arg;
	compared_resolve(c);
}

/* GET /api/compare's: the answer of every metric may be megabytes of
 * JSON, written off the loop. */
struct api_compare {
	struct web *w;
	struct http_req *req;
};

static void
findings_on_api_compared(json_t *answer, const struct problem *p, void *arg)
{
	struct api_compare *x = arg;

	web_reply_off_loop(x->w, x->req, 200, answer, p);
	free(x);
}

/* A comparison's options, on the compare page and its twin alike:
 * ?method=robust|lkp, &min_effect=PCT, &all=1; false after answering
 * 400. */
bool
findings_compare_args(struct http_req *req, struct analysis_ask *ask)
{
	struct compare_options def;
	const char *m = http_req_arg(req, "method", 0),
		   *e = http_req_arg(req, "min_effect", 0),
		   *all = http_req_arg(req, "all", 0);
	char *end;

	compare_options_init(&def);
	*ask = (struct analysis_ask){def.method, def.min_effect_pct, false};
	if (m != NULL && strcmp(m, "lkp") == 0)
		ask->method = COMPARE_LKP;
	else if (m != NULL && strcmp(m, "robust") != 0) {
		web_reply_error(req, 400, "method is robust or lkp");
		return false;
	}
	if (e != NULL) {
		ask->min_effect_pct = strtod(e, &end);
		if (end == e || *end != '\0' ||
		    !(ask->min_effect_pct >= 0 &&
		      ask->min_effect_pct < COMPARE_EFFECT_LIMIT)) {
			char *msg = xasprintf("min_effect wants a percentage "
					      "from 0 to %d (2 or 0.5)",
					      COMPARE_EFFECT_LIMIT);

			web_reply_error(req, 400, msg);
			free(msg);
			return false;
		}
	}
	if (all != NULL && strcmp(all, "1") != 0 && strcmp(all, "true") != 0 &&
	    strcmp(all, "0") != 0 && strcmp(all, "false") != 0) {
		web_reply_error(req, 400, "all is 1 or 0");
		return false;
	}
	ask->all = all != NULL &&
		   (strcmp(all, "1") == 0 || strcmp(all, "true") == 0);
	return true;
}

void
findings_compare_answer(struct web *w, struct http_req *req, const char *series,
			const char *base, const char *head,
			const struct analysis_ask *ask)
{
	struct api_compare *x;

	if (series == NULL || base == NULL || head == NULL) {
		http_req_reply_error(req, 400,
				     "compare wants ?series=KEY/TBOX_GROUP, "
				     "&base=COMMIT and &head=COMMIT",
				     NULL);
		return;
	}
	x = xcalloc(1, sizeof *x);
	x->w = w;
	x->req = req;
	findings_compare_values(w, series, base, head, ask,
				findings_on_api_compared, x);
}

size_t
findings_history_find(const json_t *h, struct history *hist,
		      struct change_point **cp)
{
	struct changes_options opt;

	changes_options_init(&opt);
	history_from_json(hist, json_object_get(h, "commits"));
	return changes_find(hist->pts, hist->n, &opt, cp);
}

json_t *
findings_history_changes(const json_t *h, size_t *points, size_t *runs)
{
	struct change_point *cp;
	struct history hist;
	size_t n = findings_history_find(h, &hist, &cp);
	json_t *list;

	list = history_changes_json(&hist, cp, n);
	if (points != NULL)
		*points = hist.n;
	if (runs != NULL)
		*runs = hist.runs;
	free(cp);
	history_release(&hist);
	return list;
}

/* A history asked for (/changes, /history): the request, whether it
 * wants the change points alone (/changes) or the history with them,
 * the store's text and, made from it on the writer's thread, the
 * answer. */
struct history_ask {
	struct web *w;
	struct http_req *req;
	bool changes_only;
	char *text;
	char *answer; /* JSON, or NULL when the text did not parse */
};

/* On the writer's thread: the text parsed, its change points found, the
 * answer written. */
static void
history_work(void *arg)
{
	struct history_ask *a = arg;
	json_t *h = rjson_loads(a->text, NULL), *answer;
	size_t points, runs;

	free(a->text);
	a->text = NULL;
	if (h == NULL)
		return;
	if (a->changes_only) {
		json_t *changes = findings_history_changes(h, &points, &runs);

		answer = json_pack("{s:O, s:O, s:I, s:I, s:o}", "series",
				   json_object_get(h, "series"), "metric",
				   json_object_get(h, "metric"), "points",
				   (json_int_t)points, "runs", (json_int_t)runs,
				   "changes", changes);
	} else {
		json_object_set_new(h, "changes",
				    findings_history_changes(h, NULL, NULL));
		answer = json_incref(h);
	}
	a->answer = rjson_dumps(answer, JSON_COMPACT);
	json_decref(answer);
	json_decref(h);
}

static void
history_done(void *arg)
{
	struct history_ask *a = arg;

	if (a->answer != NULL)
		http_req_reply(a->req, 200, "application/json", a->answer,
			       strlen(a->answer));
	else
		http_req_reply_error(a->req, 500,
				     "internal error: the history cannot be "
				     "read",
				     NULL);
	web_heavy_end(a->w);
	free(a->answer);
	free(a);
}

static void
findings_on_history(const char *text, const struct problem *p, void *arg)
{
	struct history_ask *a = arg;

	if (p != NULL || text == NULL) {
		web_on_json(text, p, a->req);
		web_heavy_end(a->w);
		free(a);
		return;
	}
	a->text = xstrdup(text);
	worker_run(a->w->writer, history_work, history_done, a);
}

bool
findings_history_args(struct http_req *req, const char **metric, long *limit)
{
	*limit = FINDINGS_HISTORY_COMMITS;
	return web_name_arg(req, "metric", 0, NAME_METRIC, metric) &&
	       web_int_arg(req, "limit", 1, 10000, limit);
}

void
findings_history_answer(struct web *w, struct http_req *req, const char *series,
			const char *metric, long limit, bool changes_only)
{
	struct history_ask *a;

	if (metric == NULL) {
		char *msg = xasprintf("%s wants ?metric=NAME (a KPI such as "
				      "dd.write_bytes_per_sec)",
				      changes_only ? "changes" : "history");

		http_req_reply_error(req, 400, msg, NULL);
		free(msg);
		return;
	}
	if (!web_heavy_begin(w, req))
		return;
	a = xcalloc(1, sizeof *a);
	a->w = w;
	a->req = req;
	a->changes_only = changes_only;
	store_series_history(w->d.store, series, metric, (int)limit,
			     w->d.set->compare_max_values, findings_on_history,
			     a);
}

void
findings_changes(struct web *w, struct http_req *req,
		 const struct web_call *call)
{
	const char *metric;
	long limit;

	if (findings_history_args(req, &metric, &limit))
		findings_history_answer(w, req, call->arg, metric, limit, true);
}

void
findings_series(struct web *w, struct http_req *req,
		const struct web_call *call)
{
	const char *match;
	long limit = 1000;

	(void)call;
	if (!web_name_arg(req, "match", 0, NAME_SERIES, &match) ||
	    !web_int_arg(req, "limit", 1, 100000, &limit))
		return;
	store_series(w->d.store, match, limit, web_on_json, req);
}

void
findings_series_commits(struct web *w, struct http_req *req,
			const struct web_call *call)
{
	store_series_commits(w->d.store, call->arg, web_on_json, req);
}

void
findings_bisect(struct web *w, struct http_req *req,
		const struct web_call *call)
{
	size_t len;
	const char *body = http_req_body(req, &len);
	json_error_t e;
	json_t *j = json_loadb(body, len, 0, &e);
	char *by;

	if (j == NULL) {
		char msg[256];

		snprintf(msg, sizeof msg,
			 "the body is not JSON (line %d: %s): "
			 "{\"regression\": ID} or {\"series\", \"good\", "
			 "\"bad\"}",
			 e.line, e.text);
		http_req_reply_error(req, 400, msg, NULL);
		return;
	}
	by = xasprintf("%s %s", call->kind, call->name);
	bisect_start(w->d.bisect, j, by, web_on_json, req);
	free(by);
	json_decref(j);
}

void
findings_bisect_cancel(struct web *w, struct http_req *req,
		       const struct web_call *call)
{
	char *by = xasprintf("%s %s", call->kind, call->name);

	log_info("%s cancels bisection %s", by, call->arg);
	store_bisect_cancel(w->d.store, strtoll(call->arg, NULL, 10), by,
			    strcmp(call->kind, "admin") == 0, web_on_json, req);
	free(by);
}
