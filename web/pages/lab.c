/*
 * lab.c: the lab (/lab: boxes, state, current job, last heartbeat,
 * failures; /api/status), the queue with filters (/queue?state=&series=;
 * /api/jobs), a tree with its branches and heads (/trees/:name;
 * /api/trees/:name), the bisections (/bisections[/:id];
 * /api/bisections[/:id]) and the stylesheet.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/bisect.h"
#include "robot/daemon/store/jobs.h"
#include "robot/daemon/store/pages.h"
#include "robot/daemon/store/trees.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

extern const char page_style_text[];

static void
cell(struct buf *b, const char *s)
{
	buf_adds(b, "<td>");
	html_text(b, s != NULL ? s : "-");
	buf_adds(b, "</td>");
}

static void
time_cell(struct buf *b, const char *s)
{
	buf_adds(b, "<td>");
	html_time(b, s != NULL ? s : "-");
	buf_adds(b, "</td>");
}

static void
job_link(struct buf *b, long long id)
{
	char s[32];

	snprintf(s, sizeof s, "%lld", id);
	buf_adds(b, "<td class=\"num\">");
	page_link(b, "/jobs/", s, s);
	buf_adds(b, "</td>");
}

/* The boxes: each with what it runs now. */
static void
boxes_table(struct buf *b, const struct store_status *s)
{
	buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr><th scope=\"col\">"
		    "box</th><th scope=\"col\">group</th><th scope=\"col\">"
		    "state</th><th scope=\"col\">failures</th><th "
		    "scope=\"col\">last seen</th><th scope=\"col\">running"
		    "</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < s->nboxes; i++) {
		const struct store_status_box *x = &s->boxes[i];

		buf_adds(b, "<tr>");
		cell(b, x->name);
		cell(b, x->tbox_group);
		buf_adds(b, "<td class=\"state-");
		html_attr(b, strcmp(x->state, "broken") == 0 ||
					     strcmp(x->state, "suspect") == 0
				     ? "new"
				     : "ok");
		buf_adds(b, "\">");
		html_text(b, x->state);
		buf_addf(b, "</td><td class=\"num\">%lld</td>", x->failures);
		time_cell(b, x->last_seen);
		buf_adds(b, "<td>");
		for (size_t k = 0; k < s->nrunning; k++) {
			const struct store_status_running *r = &s->running[k];
			char id[32];

			if (r->box == NULL || strcmp(r->box, x->name) != 0)
				continue;
			snprintf(id, sizeof id, "%lld", r->id);
			page_link(b, "/jobs/", id, r->key);
			buf_addf(b, " run %lld of %lld, lease until ", r->run,
				 r->runs);
			html_time(b, r->deadline);
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* What robotd tells the lab's operators (boxes too noisy), and the
 * newest failures. */
static void
notes_and_failures(struct buf *b, const struct store_status *s)
{
	if (s->nnotes > 0) {
		buf_adds(b, "<h2>Notes for the operators</h2>\n<ul>\n");
		for (size_t i = 0; i < s->nnotes; i++) {
			buf_adds(b, "<li>");
			html_text(b, s->notes[i].message);
			buf_adds(b, " <span class=\"muted\">");
			html_time(b, s->notes[i].created);
			buf_adds(b, "</span></li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
	buf_adds(b, "<h2>Recent failures</h2>\n");
	if (s->nfailed == 0) {
		buf_adds(b, "<p class=\"muted\">None.</p>\n");
		return;
	}
	buf_adds(b, "<div class=\"wide\"><table>\n<tbody>\n");
	for (size_t i = 0; i < s->nfailed; i++) {
		const struct store_status_failed *x = &s->failed[i];

		buf_adds(b, "<tr>");
		job_link(b, x->id);
		cell(b, x->box);
		cell(b, x->error);
		time_cell(b, x->updated);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

static void
on_status(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	struct view_doc d = {0};
	struct store_status s;
	struct buf b;
	char err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, "status");
		return;
	}
	if (!view_load(&d, &store_status_view, text, &s, err, sizeof err)) {
		page_broken(req, err);
		view_release(&d);
		return;
	}
	buf_init(&b);
	buf_addf(&b,
		 "<p>Runs: %lld queued, %lld running, %lld done, %lld failed "
		 "(<a href=\"/queue\">the queue</a>).</p>\n<h2>Boxes</h2>\n",
		 s.queue.queued, s.queue.leased, s.queue.done, s.queue.failed);
	boxes_table(&b, &s);
	notes_and_failures(&b, &s);
	buf_adds(&b, "<p><a href=\"/api/status\">As JSON</a></p>");
	page_reply(req, 200, "The lab", &b);
	buf_release(&b);
	view_release(&d);
}

void
pages_lab(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)call;
	web_status(w, on_status, req);
}

/* The queue's filter fields other than the state: each its query
 * argument. */
static const char *const queue_fields[] = {"series", "commit", "box",
					   "submission", NULL};

/* The filter's arguments given (not empty), each "&amp;NAME=VALUE". */
static void
queue_args(struct buf *b, struct http_req *req)
{
	static const char *const all[] = {"state", "series",     "commit",
					  "box",   "submission", NULL};

	for (size_t i = 0; all[i] != NULL; i++) {
		const char *v = http_req_arg(req, all[i], 0);

		if (v == NULL || v[0] == '\0')
			continue;
		buf_addf(b, "&amp;%s=", all[i]);
		page_query(b, v);
	}
}

/* A field's error, after it. */
static void
field_error(struct buf *b, const char *name, const char *field, const char *why)
{
	if (field == NULL || why == NULL || strcmp(name, field) != 0)
		return;
	buf_adds(b, " <strong class=\"state-new\" id=\"error\">");
	html_text(b, why);
	buf_adds(b, "</strong>");
}

/* The queue's filter: a state, and the fields above (empty: any), the
 * values as given, and why one of them (field) is refused. */
static void
queue_form(struct buf *b, struct http_req *req, const char *field,
	   const char *why)
{
	static const char *const states[] = {"",     "queued", "leased",
					     "done", "failed", NULL};
	static const int sizes[] = {50, 12, 16, 8};
	const char *state = http_req_arg(req, "state", 0);

	buf_adds(b, "<form method=\"get\" action=\"/queue\">\n<label>state "
		    "<select name=\"state\">");
	for (size_t i = 0; states[i] != NULL; i++) {
		buf_adds(b, "<option value=\"");
		html_attr(b, states[i]);
		buf_adds(b, "\"");
		if (state != NULL && strcmp(state, states[i]) == 0)
			buf_adds(b, " selected");
		buf_adds(b, ">");
		html_text(b, states[i][0] ? states[i] : "any");
		buf_adds(b, "</option>");
	}
	buf_adds(b, "</select></label>");
	field_error(b, "state", field, why);
	buf_adds(b, "\n");
	for (size_t i = 0; queue_fields[i] != NULL; i++) {
		buf_addf(b, "<label>%s <input name=\"%s\" size=\"%d\" value=\"",
			 queue_fields[i], queue_fields[i], sizes[i]);
		html_attr(b, http_req_arg(req, queue_fields[i], 0));
		buf_adds(b, "\"></label>");
		field_error(b, queue_fields[i], field, why);
		buf_adds(b, "\n");
	}
	buf_adds(b, "<button type=\"submit\">Show</button>\n</form>\n");
}

static void
on_jobs(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	struct view_doc d = {0};
	struct store_jobs j;
	struct buf b;
	char err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, "runs");
		return;
	}
	if (!view_load(&d, &store_jobs_view, text, &j, err, sizeof err)) {
		page_broken(req, err);
		view_release(&d);
		return;
	}
	buf_init(&b);
	queue_form(&b, req, NULL, NULL);
	buf_adds(&b, "<p class=\"muted\">The newest 100 (older ones "
		     "below).</p>\n"
		     "<div class=\"wide\"><table>\n<thead><tr><th "
		     "scope=\"col\">run</th><th scope=\"col\">state</th><th "
		     "scope=\"col\">series</th><th scope=\"col\">commit</th>"
		     "<th scope=\"col\">box</th><th scope=\"col\">updated</th>"
		     "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < j.njobs; i++) {
		const struct store_jobs_row *x = &j.jobs[i];

		buf_adds(&b, "<tr>");
		job_link(&b, x->id);
		cell(&b, x->state);
		/* the series' runs, the commit's page */
		buf_adds(&b, "<td>");
		if (x->series != NULL)
			page_link(&b, "/queue?series=", x->series, x->series);
		buf_adds(&b, "</td><td>");
		if (x->commit != NULL)
			page_sha(&b, x->commit, NULL);
		else
			buf_adds(&b, "-");
		buf_adds(&b, "</td>");
		cell(&b, x->box);
		time_cell(&b, x->updated);
		buf_adds(&b, "</tr>\n");
	}
	buf_adds(&b, "</tbody></table></div>\n");
	/* Paging: the next 100 below the last shown. */
	if (j.njobs == 100) {
		buf_addf(&b, "<p><a href=\"/queue?before=%lld", j.jobs[99].id);
		queue_args(&b, req);
		buf_adds(&b, "\">Older runs</a></p>\n");
	}
	/* its twin, with the same filter */
	buf_adds(&b, "<p><a href=\"/api/jobs?limit=100");
	queue_args(&b, req);
	buf_adds(&b, "\">As JSON</a></p>");
	page_reply(req, 200, "The queue", &b);
	buf_release(&b);
	view_release(&d);
}

void
pages_queue(struct web *w, struct http_req *req, const struct web_call *call)
{
	struct store_jobs_filter f = {.limit = 100};
	const char *field;
	char *why = web_jobs_filter(req, &f, &field);
	struct buf b;

	(void)call;
	if (why == NULL) {
		store_jobs(w->d.store, &f, on_jobs, req);
		return;
	}
	/* the form again, as it was filled in, its error at the field (a
	 * field the form has not, as limit or before, above it) */
	buf_init(&b);
	if (strcmp(field, "limit") == 0 || strcmp(field, "before") == 0) {
		buf_adds(&b, "<p class=\"state-new\" id=\"error\">");
		html_text(&b, why);
		buf_adds(&b, "</p>\n");
	}
	queue_form(&b, req, field, why);
	page_reply(req, 400, "The queue", &b);
	buf_release(&b);
	free(why);
}

static void
on_tree(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	struct view_doc d = {0};
	struct store_tree t;
	struct buf b;
	char err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, "tree of that name");
		return;
	}
	if (!view_load(&d, &store_tree_view, text, &t, err, sizeof err)) {
		page_broken(req, err);
		view_release(&d);
		return;
	}
	buf_init(&b);
	buf_adds(&b, "<table>\n<tr><th scope=\"row\">url</th><td>");
	html_text(&b, t.url);
	buf_adds(&b, "</td></tr>\n<tr><th scope=\"row\">base</th><td>");
	html_text(&b, t.base_ref);
	buf_adds(&b, "</td></tr>\n<tr><th scope=\"row\">last fetch</th><td>");
	html_time(&b, t.fetched ? t.fetched : "not yet");
	if (t.fetch_error != NULL) {
		buf_adds(&b, " <span class=\"state-new\">");
		html_text(&b, t.fetch_error);
		buf_adds(&b, "</span>");
	}
	buf_addf(&b,
		 "</td></tr>\n<tr><th scope=\"row\">runs a side</th><td>%lld, "
		 "at most %lld</td></tr>\n<tr><th scope=\"row\">commits known"
		 "</th><td>%lld</td></tr>\n</table>\n<h2>Branches</h2>\n"
		 "<table>\n<thead><tr><th scope=\"col\">branch</th><th "
		 "scope=\"col\">head</th><th scope=\"col\">base</th><th "
		 "scope=\"col\">updated</th></tr></thead>\n<tbody>\n",
		 t.runs, t.max_runs, t.commits);
	for (size_t i = 0; i < t.nheads; i++) {
		const struct store_tree_page_head *h = &t.heads[i];

		buf_adds(&b, "<tr>");
		cell(&b, h->branch);
		buf_adds(&b, "<td>");
		page_sha(&b, h->sha, NULL);
		buf_adds(&b, "</td><td>");
		page_sha(&b, h->base, NULL);
		buf_adds(&b, "</td>");
		time_cell(&b, h->updated);
		buf_adds(&b, "</tr>\n");
	}
	buf_adds(&b, "</tbody></table>\n<p>");
	page_link(&b, "/api/trees/", t.name, "As JSON");
	buf_adds(&b, "</p>");
	page_reply(req, 200, t.name, &b);
	buf_release(&b);
	view_release(&d);
}

void
pages_tree(struct web *w, struct http_req *req, const struct web_call *call)
{
	store_trees(w->d.store, call->arg, on_tree, req);
}

static void
on_bisections(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	struct view_doc d = {0};
	struct store_bisections j;
	struct buf b;
	char err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, "bisections");
		return;
	}
	if (!view_load(&d, &store_bisections_view, text, &j, err, sizeof err)) {
		page_broken(req, err);
		view_release(&d);
		return;
	}
	buf_init(&b);
	if (j.nbisections == 0)
		buf_adds(&b, "<p class=\"muted\">No bisection yet.</p>\n");
	buf_adds(&b, "<div class=\"wide\"><table>\n<thead><tr><th "
		     "scope=\"col\">bisection</th><th scope=\"col\">state</th>"
		     "<th scope=\"col\">steps</th><th scope=\"col\">first bad"
		     "</th><th scope=\"col\">KPI, series</th></tr></thead>\n"
		     "<tbody>\n");
	for (size_t i = 0; i < j.nbisections; i++) {
		const struct store_bisections_row *x = &j.bisections[i];
		char id[32];

		snprintf(id, sizeof id, "%lld", x->id);
		buf_adds(&b, "<tr><td class=\"num\">");
		page_link(&b, "/bisections/", id, id);
		buf_adds(&b, "</td>");
		cell(&b, x->state);
		buf_addf(&b, "<td class=\"num\">%lld</td><td>", x->steps);
		if (x->first_bad.sha != NULL)
			page_sha(&b, x->first_bad.sha, x->first_bad.subject);
		buf_adds(&b, "</td><td>");
		html_text(&b, x->kpi);
		buf_adds(&b, " <span class=\"muted\">");
		html_text(&b, x->series);
		buf_adds(&b, "</span></td></tr>\n");
	}
	buf_adds(&b, "</tbody></table></div>\n<p><a href=\"/api/bisections\">"
		     "As JSON</a></p>");
	page_reply(req, 200, "Bisections", &b);
	buf_release(&b);
	view_release(&d);
}

void
pages_bisections(struct web *w, struct http_req *req,
		 const struct web_call *call)
{
	(void)call;
	store_bisections(w->d.store, 100, on_bisections, req);
}

static void
on_bisection(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	struct view_doc d = {0};
	struct store_bisection j;
	struct buf b;
	char *title, id[32], err[256];

	if (p != NULL || text == NULL) {
		page_fail(req, p, "bisection of that number");
		return;
	}
	if (!view_load(&d, &store_bisection_view, text, &j, err, sizeof err)) {
		page_broken(req, err);
		view_release(&d);
		return;
	}
	buf_init(&b);
	buf_adds(&b, "<p>");
	html_text(&b, j.series);
	buf_adds(&b, ", tree ");
	html_text(&b, j.tree);
	buf_adds(&b, ", between ");
	page_sha(&b, j.good, NULL);
	buf_adds(&b, " (good) and ");
	page_sha(&b, j.bad, NULL);
	buf_adds(&b, " (bad)");
	if (j.regression != 0) {
		char what[48];

		snprintf(id, sizeof id, "%lld", j.regression);
		snprintf(what, sizeof what, "regression %s", id);
		buf_adds(&b, ", for ");
		page_link(&b, "/regressions/", id, what);
	}
	buf_adds(&b, ".</p>\n");
	page_bisection(&b, &j, true);
	snprintf(id, sizeof id, "%lld", j.id);
	buf_adds(&b, "<p>");
	page_link(&b, "/api/bisections/", id, "As JSON");
	buf_adds(&b, "</p>");
	title = xasprintf("Bisection %s", id);
	page_reply(req, 200, title, &b);
	free(title);
	buf_release(&b);
	view_release(&d);
}

void
pages_bisection(struct web *w, struct http_req *req,
		const struct web_call *call)
{
	store_bisection(w->d.store, strtoll(call->arg, NULL, 10), on_bisection,
			req);
}

void
pages_style(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)w;
	(void)call;
	/* The stylesheet is built in: its ETag is robotd's version and its
	 * length. */
	char etag[64];

	snprintf(etag, sizeof etag, "\"%s-%zu\"", ROBOT_VERSION,
		 strlen(page_style_text));
	http_req_reply_etag(req, "text/css; charset=utf-8", page_style_text,
			    strlen(page_style_text), etag);
}

/* The pages' icon: an R on the header's colour. */
static const char page_icon_text[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
	"<rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#1f2d3d\"/>"
	"<path d=\"M5 13V3h3.5a2.5 2.5 0 0 1 0 5H5m3.5 0 3 5\" fill=\"none\" "
	"stroke=\"#fff\" stroke-width=\"1.8\"/></svg>\n";

void
pages_icon(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)w;
	(void)call;
	char etag[64];

	snprintf(etag, sizeof etag, "\"%s-icon-%zu\"", ROBOT_VERSION,
		 sizeof page_icon_text - 1);
	http_req_reply_etag(req, "image/svg+xml", page_icon_text,
			    sizeof page_icon_text - 1, etag);
}
