/*
 * regression.c: a regression's page, the one report mails link to: the
 * record, LKP's table as HTML with each row's verdict, a chart of every
 * run of each regressed KPI, the job and how to reproduce it, the report
 * as mailed, its news and its bisection.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/num.h"
#include "robot/core/rjson.h"
#include "robot/core/log.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* " -89.1% (p 0.00012, 6 runs a side)": what a later head showed. */
static void
still_figures(struct buf *b, double pct, double p, long long runs)
{
	char t[NUM_PCT_MAX];

	if (isnan(pct))
		return;
	buf_addf(b, " <span class=\"nw\">%s</span>",
		 num_pct(t, sizeof t, pct, "?"));
	if (!isnan(p))
		buf_addf(b, " (p %.2g", p);
	else
		buf_adds(b, " (");
	if (runs > 0)
		buf_addf(b, "%s%lld runs a side", !isnan(p) ? ", " : "", runs);
	buf_adds(b, ")");
}

/* A "measured" event's figures: the change, p, the runs a side (linked
 * to the runs when they are the ones the page lists, runs_listed), and
 * the submission whose runs it read. */
static void
measured_figures(struct buf *b, const struct store_regression_event *e,
		 bool runs_listed)
{
	char t[NUM_PCT_MAX], id[32], what[48];

	buf_addf(b, " <span class=\"nw\">%s</span>",
		 num_pct(t, sizeof t, e->change_pct, "?"));
	if (!isnan(e->p_value))
		buf_addf(b, " (p %.2g)", e->p_value);
	buf_adds(b, runs_listed ? " in <a href=\"#runs\">" : " in ");
	buf_addf(b, "%lld+%lld runs", e->base_runs, e->head_runs);
	buf_adds(b, runs_listed ? "</a>" : "");
	if (e->submission > 0) {
		snprintf(id, sizeof id, "%lld", e->submission);
		snprintf(what, sizeof what, "submission %s", id);
		buf_adds(b, ", the newest of ");
		page_link(b, "/submissions/", id, what);
	}
}

/* The newest "measured" event: the figures of the pair's latest look,
 * beside those the report gave; NULL when there is none. */
static const struct store_regression_event *
latest_measure(const struct store_regression *r)
{
	const struct store_regression_event *last = NULL;

	for (size_t i = 0; i < r->nevents; i++)
		if (strcmp(r->events[i].kind, "measured") == 0)
			last = &r->events[i];
	return last;
}

/* Whether comparison c's rounds are the runs a side given. */
static bool
lists_runs(const struct comparison *c, long long base, long long head)
{
	return c != NULL && c->nround_runs > 0 &&
	       (long long)c->nround_runs == base &&
	       (long long)c->nround_runs == head;
}

/* How a change point of a branch's history was found: the means of
 * the segments around it (the record's history). */
static void
history_row(struct buf *b, const struct store_regression *r)
{
	const struct store_regression_history *h = &r->history;

	if (r->found_by == NULL || strcmp(r->found_by, "change point") != 0 ||
	    !json_is_object(h->before_json) || !json_is_object(h->after_json) ||
	    r->kpi == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">found by</th><td>a change point "
		    "of the branch's history (");
	buf_addf(b, "%lld commits): ", h->points);
	page_mean_over(b, h->before.mean, h->before.to - h->before.from, r->kpi,
		       true);
	buf_adds(b, ", then ");
	page_mean_over(b, h->after.mean, h->after.to - h->after.from, r->kpi,
		       false);
	buf_adds(b, "</td></tr>\n");
}

/* The latest head that still shows it, with what it showed there (the
 * record above keeps what it was found with); nothing when that is the
 * commit it was found at. */
static void
still_row(struct buf *b, const struct store_regression *r)
{
	if (r->last_head == NULL || r->commit == NULL ||
	    strcmp(r->last_head, r->commit) == 0)
		return;
	buf_adds(b, "<tr><th scope=\"row\">still at</th><td>");
	page_sha(b, r->last_head, NULL);
	still_figures(b, r->last_change_pct, r->last_p_value, r->last_runs);
	buf_adds(b, "</td></tr>\n");
}

/* A row of the record: a name and a value (escaped), or nothing when
 * the value is absent. */
static void
row(struct buf *b, const char *name, const char *value)
{
	if (value == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">");
	html_text(b, name);
	buf_adds(b, "</th><td>");
	if (strcmp(name, "found") == 0 || strcmp(name, "updated") == 0)
		html_time(b, value);
	else
		html_text(b, value);
	buf_adds(b, "</td></tr>\n");
}

static void
row_commit(struct buf *b, const char *name, const struct store_commit_info *c)
{
	if (c->sha == NULL)
		return;
	buf_adds(b, "<tr><th scope=\"row\">");
	html_text(b, name);
	buf_adds(b, "</th><td>");
	page_sha(b, c->sha, c->subject);
	buf_adds(b, "</td></tr>\n");
}

/* The record: where and what, the change, the runs, and what became of
 * it; change is the change, formatted. */
static void
record(struct buf *b, const struct store_regression *r,
       const struct comparison *c, const char *change)
{
	const struct store_regression_event *last;
	char num[64];

	buf_adds(b, "<p class=\"state-");
	html_attr(b, r->state);
	buf_adds(b, "\">");
	html_text(b, r->state);
	buf_adds(b, "</p>\n<table>\n");
	if (r->tree != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">tree</th><td>");
		page_link(b, "/trees/", r->tree, r->tree);
		buf_adds(b, "</td></tr>\n");
	}
	row(b, "branch", r->branch);
	row_commit(b, "commit at fault", &r->culprit);
	row_commit(b, "found at", &r->commit_info);
	row_commit(b, "base", &r->base_info);
	buf_adds(b, "<tr><th scope=\"row\">series</th><td>");
	page_series(b, r->series);
	buf_adds(b, "</td></tr>\n");
	row(b, "KPI", r->kpi);
	history_row(b, r);
	row(b, r->report.id != 0 ? "change, as mailed" : "change", change);
	if (!isnan(r->p_value)) {
		snprintf(num, sizeof num, "%.2g", r->p_value);
		row(b, "p", num);
	}
	if (r->base_runs > 0)
		snprintf(num, sizeof num, "%lld+%lld", r->base_runs,
			 r->head_runs);
	else
		snprintf(num, sizeof num, "%lld", r->runs);
	if (lists_runs(c, r->base_runs, r->head_runs)) /* to the runs */
		buf_addf(b,
			 "<tr><th scope=\"row\">runs compared (base+head)"
			 "</th><td><a href=\"#runs\">%s</a></td></tr>\n",
			 num);
	else
		row(b, "runs compared (base+head)", num);
	if ((last = latest_measure(r)) != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">measured since</th><td>");
		measured_figures(
			b, last,
			lists_runs(c, last->base_runs, last->head_runs));
		buf_adds(b, "</td></tr>\n");
	}
	still_row(b, r);
	row(b, "fixed by", r->fixed_by);
	row(b, "found", r->created);
	row(b, "updated", r->updated);
	buf_adds(b, "</table>\n<p>");
	buf_adds(b, "<a href=\"");
	page_compare_href(b, "/compare", r->series, r->base, r->commit);
	buf_adds(b, "\">Compare these commits</a> &middot; <a href=\"/series/");
	page_series_path(b, r->series);
	buf_adds(b, "/history?metric=");
	page_query(b, r->kpi);
	buf_adds(b, "\">the KPI's history</a> &middot; <a "
		    "href=\"/queue?series=");
	page_query(b, r->series);
	buf_adds(b, "\">the series' runs</a></p>\n");
}

/* Its pair's runs of each regressed KPI, LKP's table and the
 * bisection (bs, or NULL). */
static void
measured(struct buf *b, const struct store_regression *r,
	 const struct comparison *c, const struct store_bisection *bs)
{
	page_sides_charts(b, r->values, r->base, r->commit, c);
	buf_adds(b, "<h2>The changed metrics (LKP's table)</h2>\n");
	page_comparison(b, c);
	page_round_runs(b, c);
	if (bs != NULL)
		page_bisection(b, bs, false);
}

/* The pair bs (or NULL) confirmed the first bad commit on: it against
 * its parent (NULL: none). */
static const struct store_bisection_pair *
confirmed(const struct store_bisection *bs)
{
	for (size_t i = 0; bs != NULL && i < bs->nsteps; i++) {
		const struct store_bisection_step *s = &bs->steps[i];

		if (strcmp(s->kind, "confirm") == 0 && s->verdict != NULL &&
		    strcmp(s->verdict, "confirmed") == 0 &&
		    s->good_pair.base != NULL && s->good_pair.head != NULL)
			return &s->good_pair;
	}
	return NULL;
}

/* robot submit's command for the job at base and head. */
static void
submit_command(struct buf *b, const struct store_regression *r, const char *id,
	       const char *base, const char *head)
{
	buf_addf(b, "<pre id=\"%s\">robot submit job.json", id);
	if (r->tbox_group != NULL) {
		buf_adds(b, " --tbox-group ");
		html_text(b, r->tbox_group);
	}
	if (r->tree != NULL) {
		buf_adds(b, " --tree ");
		html_text(b, r->tree);
	}
	buf_adds(b, " --commit ");
	html_text(b, base);
	buf_adds(b, " --commit ");
	html_text(b, head);
	if (r->repeat > 0)
		buf_addf(b, " --repeat %lld", r->repeat);
	buf_adds(b, "</pre>\n");
}

/* The atomic job as a job file robot submit takes (its runs in the
 * command, not the file's repeat), and how to reproduce it: where it
 * was found, and once bisected the commit at fault against its parent,
 * as the report's recipe has it. */
static void
reproduce(struct buf *b, const struct store_regression *r,
	  const struct store_bisection *bs)
{
	const struct store_bisection_pair *fault = confirmed(bs);

	json_t *job = json_object_get(r->job, "job"), *file;
	char *text;

	if (!json_is_object(job))
		return;
	file = json_deep_copy(job);
	json_object_del(file, "repeat");
	text = rjson_dumps(file, JSON_INDENT(2));
	json_decref(file);
	buf_adds(b, "<h2>The job</h2>\n<pre id=\"job\">");
	html_text(b, text);
	buf_adds(b, "</pre>\n<p>To reproduce: save the job as "
		    "<code>job.json</code>, then run, where robot was set "
		    "up (<code>scripts/quickstart</code> puts "
		    "<code>robot</code> on PATH, and this robotd with a "
		    "submit token in <code>~/.config/robot/config</code>; "
		    "elsewhere add <code>--server URL --token T</code>), "
		    "its base and the head it was found at:</p>\n");
	submit_command(b, r, "reproduce", r->base, r->commit);
	if (fault != NULL) {
		buf_adds(b, "<p>or the commit at fault against its parent, "
			    "as the report's recipe has it:</p>\n");
		submit_command(b, r, "reproduce-fault", fault->base,
			       fault->head);
	}
	free(text);
}

/* Its triage: what people said it is (robot triage, the API). */
static void
triage(struct buf *b, const struct store_regression *r)
{
	if (r->triage == NULL)
		return;
	buf_adds(b, "<h2>Triage</h2>\n<p class=\"triage\">");
	html_text(b, r->triage);
	if (r->triage_reason != NULL) {
		buf_adds(b, " (");
		html_text(b, r->triage_reason);
		buf_adds(b, ")");
	}
	if (r->triage_text != NULL) {
		buf_adds(b, ": ");
		html_text(b, r->triage_text);
	}
	buf_adds(b, "</p>\n<ul>\n");
	if (r->assignee != NULL) {
		buf_adds(b, "<li>assignee ");
		html_text(b, r->assignee);
		buf_adds(b, "</li>\n");
	}
	if (r->duplicate_of > 0)
		buf_addf(b,
			 "<li>a duplicate of <a href=\"/regressions/%lld\">"
			 "regression %lld</a></li>\n",
			 r->duplicate_of, r->duplicate_of);
	if (r->fix_claimed != NULL) {
		buf_adds(b, "<li>fixed by ");
		page_sha(b, r->fix_claimed, NULL);
		buf_adds(b, r->fix_confirmed != NULL
				    ? " (confirmed: robotd measured the fix)"
				    : " (robotd confirms it when it measures "
				      "the fix)");
		buf_adds(b, "</li>\n");
	}
	if (r->bug_url != NULL) {
		buf_adds(b, "<li>bug <a href=\"");
		html_attr(b, r->bug_url);
		buf_adds(b, "\" rel=\"nofollow\">");
		html_text(b, r->bug_url);
		buf_adds(b, "</a></li>\n");
	}
	if (json_is_object(r->muted_by)) {
		const json_t *m = r->muted_by;

		buf_addf(b,
			 "<li class=\"muted\">muted, not mailed: mute %lld "
			 "of ",
			 (long long)json_integer_value(
				 json_object_get(m, "id")));
		html_text(b, json_string_value(json_object_get(m, "kind")));
		buf_adds(b, " ");
		html_text(b, json_string_value(json_object_get(m, "pattern")));
		buf_adds(b, " (");
		html_text(b, json_string_value(json_object_get(m, "reason")));
		buf_adds(b, "), until ");
		html_time(b, json_string_value(json_object_get(m, "expires")));
		buf_adds(b, "</li>\n");
	}
	if (r->ntags > 0) {
		buf_adds(b, "<li>tags");
		for (size_t i = 0; i < r->ntags; i++) {
			buf_adds(b, " ");
			html_text(b, r->tags[i]);
		}
		buf_adds(b, "</li>\n");
	}
	buf_addf(b,
		 "</ul>\n<form method=\"post\" "
		 "action=\"/regressions/%lld/triage\">\n<p><label>command "
		 "<input name=\"command\" required size=\"60\" "
		 "placeholder=\"ack, invalid: box: WHY, fixed-by: SHA, "
		 "...\"></label> <button type=\"submit\">Triage</button>"
		 "</p>\n</form>\n<form method=\"post\" "
		 "action=\"/regressions/%lld/triage\"><p><input "
		 "type=\"hidden\" name=\"command\" value=\"ack\"><button "
		 "type=\"submit\">Acknowledge</button></p></form>\n"
		 "<p class=\"muted\">As you, when <a href=\"/signin\">signed "
		 "in</a> with a triage token or through your report mail's "
		 "link; or <code>robot triage %lld COMMAND</code>. The "
		 "commands: ack, invalid: [box|test|noise|other:] WHY, "
		 "wontfix: WHY, dup-of: ID, fixed-by: SHA, note: TEXT, link: "
		 "URL, tag: NAMES, mute: 30d WHY, untriage "
		 "(docs/reports.md).</p>\n",
		 r->id, r->id, r->id);
}

/* The report as mailed, and what happened since. */
static void
story(struct buf *b, const struct store_regression *r)
{
	if (r->report.id != 0 && r->report.recipients == 0)
		/* (told to the webhooks alone, if any: no address matched) */
		buf_adds(b, "<h2>The report</h2>\n<p>mailed to no one: no "
			    "subscriber, job mail_to or author matched</p>\n"
			    "<pre>");
	else if (r->report.id != 0)
		buf_addf(b,
			 "<h2>The report as mailed</h2>\n<p>to %lld "
			 "recipient%s, %lld sent</p>\n<pre>",
			 r->report.recipients,
			 r->report.recipients == 1 ? "" : "s", r->report.sent);
	if (r->report.id != 0) {
		html_text(b, r->report.subject);
		buf_adds(b, "\n\n");
		html_text(b, r->report.body);
		buf_adds(b, "</pre>\n");
	}
	triage(b, r);
	buf_adds(b, "<h2>What happened</h2>\n<ul>\n<li>");
	html_time(b, r->created);
	buf_adds(b, ": found</li>\n");
	for (size_t i = 0; i < r->nevents; i++) {
		const struct store_regression_event *e = &r->events[i];

		buf_adds(b, "<li>");
		html_time(b, e->created);
		buf_adds(b, ": ");
		html_text(b, e->kind);
		if (e->head != NULL) {
			buf_adds(b, " ");
			page_sha(b, e->head, NULL);
		}
		if (strcmp(e->kind, "measured") == 0)
			measured_figures(b, e, false);
		else
			still_figures(b, e->change_pct, e->p_value, e->runs);
		buf_adds(b, "</li>\n");
	}
	/* what people said of it (their times interleave with the news
	 * above only by their dates: each list is in its own order) */
	for (size_t i = 0; i < r->ntriage_events; i++) {
		const struct store_triage_event *e = &r->triage_events[i];

		buf_adds(b, "<li>");
		html_time(b, e->created);
		buf_adds(b, ": ");
		html_text(b, e->action);
		if (e->detail != NULL) {
			buf_adds(b, " ");
			html_text(b, e->detail);
		}
		buf_adds(b, ", by ");
		html_text(b, e->by);
		buf_adds(b, " (");
		html_text(b, e->how);
		buf_adds(b, ")</li>\n");
	}
	buf_adds(b, "</ul>\n");
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_regression *r = doc;
	const struct store_bisection *bsp = NULL;
	struct store_bisection bs;
	struct view_doc bd = {0};
	struct comparison *c;
	char change[NUM_PCT_MAX], *title;

	(void)req;
	num_pct(change, sizeof change, r->change_pct, "?");
	/* The commit at fault leads once it is known; its range before. */
	if (r->culprit.sha != NULL)
		title = xasprintf("%.10s: %s %s %s", r->culprit.sha, r->kpi,
				  change, r->kind);
	else
		title = xasprintf("%.10s..%.10s: %s %s %s", r->base, r->commit,
				  r->kpi, change, r->kind);
	c = comparison_from_json((json_t *)r->comparison);
	if (json_is_object(r->bisection)) {
		char err[256];

		bsp = &bs;
		if (!view_decode(&bd, &store_bisection_view,
				 (json_t *)r->bisection, &bs, err,
				 sizeof err)) {
			log_warnx("regression page: %s", err);
			bsp = NULL;
		}
	}
	record(b, r, c, change);
	measured(b, r, c, bsp);
	comparison_free(c);
	reproduce(b, r, bsp);
	story(b, r);
	view_release(&bd);
	buf_addf(b, "<p><a href=\"/api/regressions/%lld\">As JSON</a></p>",
		 r->id);
	return title;
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_regression(w->d.store, strtoll(call->arg, NULL, 10),
			 page_answer(twin), req);
}

const struct page regression_page = {
	"/regressions/:id",     "/api/regressions/:id",      ask,
	&store_regression_view, "regression of that number", render};
