/*
 * series.c: a series' page (/series/:series, the twin of /api/series/
 * :series): its runs by state (the queue filtered to it) and by box,
 * its commits and trees, its KPIs as its newest pair left them (each
 * linked to its history), its newest pairs and findings, the lab's
 * notes of it, and the job its newest run ran.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "robot/core/num.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* <a href="/series/SERIES/history?metric=METRIC">TEXT</a> (metric NULL:
 * the history's picker). */
static void
history_link(struct buf *b, const char *series, const char *metric,
	     const char *text)
{
	buf_adds(b, "<a href=\"/series/");
	page_series_path(b, series);
	buf_adds(b, "/history");
	if (metric != NULL) {
		buf_adds(b, "?metric=");
		page_query(b, metric);
	}
	buf_adds(b, "\">");
	html_text(b, text);
	buf_adds(b, "</a>");
}

/* Its group, runs, commits and trees. */
static void
record(struct buf *b, const struct store_series_page *s)
{
	buf_adds(b, "<table>\n<tr><th scope=\"row\">box group</th><td>");
	html_text(b, s->tbox_group);
	buf_addf(b,
		 "</td></tr>\n<tr><th scope=\"row\">runs</th><td>%lld "
		 "queued, %lld running, %lld done, %lld failed (",
		 s->queued, s->leased, s->done, s->failed);
	page_link(b, "/queue?series=", s->series, "each run");
	buf_addf(b,
		 ")</td></tr>\n<tr><th scope=\"row\">commits run</th>"
		 "<td>%lld</td></tr>\n<tr><th scope=\"row\">trees</th><td>",
		 s->commits);
	for (size_t i = 0; i < s->ntrees; i++) {
		if (i > 0)
			buf_adds(b, ", ");
		page_link(b, "/trees/", s->trees[i], s->trees[i]);
	}
	if (s->ntrees == 0)
		buf_adds(b, "none: submitted by hand");
	buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">first run</th><td>");
	html_time(b, s->first);
	buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">last</th><td>");
	html_time(b, s->last);
	buf_adds(b, "</td></tr>\n</table>\n");
}

/* Its KPIs as its newest pair left them, each linked to its history. */
static void
kpis(struct buf *b, const struct store_series_page *s)
{
	buf_adds(b, "<h2>History</h2>\n<p>");
	history_link(b, s->series, NULL, "Every metric's history");
	buf_adds(b, " (a chart of its runs, commit by commit, with its "
		    "change points).</p>\n");
	if (s->nkpis == 0)
		return;
	buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr><th scope=\"col\">"
		    "KPI</th><th scope=\"col\">at the newest pair</th><th "
		    "scope=\"col\">change</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < s->nkpis; i++) {
		const struct store_series_kpi *k = &s->kpis[i];
		char pct[NUM_PCT_MAX];

		buf_adds(b, "<tr><td>");
		history_link(b, s->series, k->kpi, k->kpi);
		buf_adds(b, "</td>");
		page_cell(b, k->verdict);
		buf_addf(b, "<td class=\"num\">%s</td></tr>\n",
			 num_pct(pct, sizeof pct, k->change_pct, "-"));
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* The boxes that ran it. */
static void
boxes(struct buf *b, const struct store_series_page *s)
{
	if (s->nboxes == 0)
		return;
	buf_adds(b, "<h2>Boxes</h2>\n<div class=\"wide\"><table>\n<thead><tr>"
		    "<th scope=\"col\">box</th><th scope=\"col\">runs</th><th "
		    "scope=\"col\">failed</th><th scope=\"col\">last</th></tr>"
		    "</thead>\n<tbody>\n");
	for (size_t i = 0; i < s->nboxes; i++) {
		const struct store_series_box *x = &s->boxes[i];

		buf_adds(b, "<tr>");
		page_box_cell(b, x->box);
		buf_addf(b,
			 "<td class=\"num\">%lld</td><td class=\"num\">%lld"
			 "</td>",
			 x->runs, x->failed);
		page_time_cell(b, x->last);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* Its newest pairs, each linked to its comparison. */
static void
pairs(struct buf *b, const struct store_series_page *s)
{
	if (s->npairs == 0)
		return;
	page_pairs_open(b);
	for (size_t i = 0; i < s->npairs; i++) {
		const struct store_series_pair *p = &s->pairs[i];

		page_pair_row(b, s->series, p->base, p->head,
			      p->verdict != NULL ? p->verdict : p->state);
		buf_adds(b, " <span class=\"muted\">");
		if (p->kpi != NULL)
			html_text(b, p->kpi);
		if (p->runs > 0)
			buf_addf(b, "%s%lld runs a side", p->kpi ? ", " : "",
				 p->runs);
		if (p->tree != NULL) {
			buf_adds(b, ", tree ");
			page_link(b, "/trees/", p->tree, p->tree);
			if (p->branch != NULL) {
				buf_adds(b, " ");
				html_text(b, p->branch);
			}
		}
		buf_adds(b, "</span></td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
	if (s->npairs == 20)
		buf_adds(b, "<p class=\"muted\">The newest 20.</p>\n");
}

/* Its newest findings. */
static void
findings(struct buf *b, const struct store_series_page *s)
{
	if (s->nfindings == 0)
		return;
	buf_adds(b, "<h2>Findings</h2>\n<div class=\"wide\"><table>\n<thead>"
		    "<tr><th scope=\"col\">finding</th><th scope=\"col\">"
		    "state</th><th scope=\"col\">KPI</th><th scope=\"col\">"
		    "change</th><th scope=\"col\">found at</th><th "
		    "scope=\"col\">when</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct store_series_finding *f = &s->findings[i];
		char id[64], pct[NUM_PCT_MAX];

		snprintf(id, sizeof id, "%lld", f->id);
		buf_adds(b, "<tr><td>");
		page_link(b, "/regressions/", id, f->kind);
		buf_addf(b, " %s</td>", id);
		page_cell(b, f->state);
		page_cell(b, f->kpi);
		buf_addf(b, "<td class=\"num\">%s</td><td>",
			 num_pct(pct, sizeof pct, f->change_pct, "-"));
		page_sha(b, f->commit, NULL);
		buf_adds(b, "</td>");
		page_time_cell(b, f->created);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* What robotd told the lab's operators of it. */
static void
notes(struct buf *b, const struct store_series_page *s)
{
	if (s->nnotes == 0)
		return;
	buf_adds(b, "<h2>Lab notes</h2>\n<ul>\n");
	for (size_t i = 0; i < s->nnotes; i++) {
		const struct store_series_note *n = &s->notes[i];

		buf_adds(b, "<li>");
		html_time(b, n->created);
		buf_adds(b, ": ");
		html_text(b, n->message);
		buf_adds(b, "</li>\n");
	}
	buf_adds(b, "</ul>\n");
}

/* The job its newest run ran, as robotd queued it. */
static void
job(struct buf *b, const struct store_series_page *s)
{
	char *text;

	if (s->job == NULL)
		return;
	text = json_dumps(s->job, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	buf_adds(b, "<h2>Its job</h2>\n<pre>");
	html_text(b, text != NULL ? text : "");
	buf_adds(b, "</pre>\n");
	free(text);
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_series_page *s = doc;

	(void)req;
	record(b, s);
	kpis(b, s);
	findings(b, s);
	pairs(b, s);
	boxes(b, s);
	notes(b, s);
	job(b, s);
	buf_adds(b, "<p><a href=\"/api/series/");
	page_series_path(b, s->series);
	buf_adds(b, "\">As JSON</a></p>");
	return xasprintf("Series %s", s->series);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_series_page(w->d.store, call->arg, page_answer(twin), req);
}

const struct page series_page = {
	"/series/:series",       "/api/series/:series", ask,
	&store_series_page_view, "series of that name", render};
