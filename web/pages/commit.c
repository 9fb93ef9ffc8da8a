/*
 * commit.c: a commit's page (/commits/:sha?tree=, the twin of
 * /api/commits/:sha): what its tree knows of it, the series it was
 * measured in (with their histories and its comparison with its
 * parent), the pairs it is a side of, and the findings and bisections
 * that name it.  Every commit a page shows links here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/num.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/web.h"
#include "robot/core/banned.h"

/* The record: tree, SHA, author, date, parents. */
static void
record(struct buf *b, const struct store_commit *c)
{
	buf_adds(b, "<table>\n");
	if (c->tree != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">tree</th><td>");
		page_link(b, "/trees/", c->tree, c->tree);
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "<tr><th scope=\"row\">commit</th><td><code>");
	html_text(b, c->sha);
	buf_adds(b, "</code></td></tr>\n");
	if (c->author != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">author</th><td>");
		html_text(b, c->author);
		buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">date</th><td>");
		html_time(b, c->date);
		buf_adds(b, "</td></tr>\n");
	}
	if (c->nparents > 0) {
		buf_adds(b, "<tr><th scope=\"row\">parents</th><td>");
		for (size_t i = 0; i < c->nparents; i++) {
			if (i > 0)
				buf_adds(b, " ");
			page_sha(b, c->parents[i], NULL);
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table>\n");
}

/* The series it was measured in: its runs, the history, and its
 * comparison with its first parent. */
static void
series(struct buf *b, const struct store_commit *c)
{
	const char *parent = c->nparents > 0 ? c->parents[0] : NULL;

	buf_adds(b, "<h2>Measured in</h2>\n");
	if (c->nseries == 0) {
		buf_adds(b, "<p class=\"muted\">No runs of it yet.</p>\n");
		return;
	}
	buf_adds(b, "<table>\n<thead><tr><th scope=\"col\">series</th>"
		    "<th scope=\"col\">ok runs</th><th scope=\"col\">failed"
		    "</th><th scope=\"col\">to come</th><th scope=\"col\">"
		    "</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < c->nseries; i++) {
		const struct store_commit_series *s = &c->series[i];

		buf_adds(b, "<tr><td>");
		page_series(b, s->series);
		buf_addf(b,
			 "</td><td class=\"num\">%lld</td><td class=\"num\">"
			 "%lld</td><td class=\"num\">%lld</td><td>",
			 s->ok, s->failed, s->to_come);
		buf_adds(b, "<a href=\"/series/");
		page_series_path(b, s->series);
		buf_adds(b, "/history\">history</a>");
		if (parent != NULL && s->ok > 0 && s->parent_ok > 0) {
			buf_adds(b, " &middot; <a href=\"");
			page_compare_href(b, "/compare", s->series, parent,
					  c->sha);
			buf_adds(b, "\">against its parent</a>");
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table>\n");
}

/* The pairs it is a side of: base and head, state, verdict. */
static void
pairs(struct buf *b, const struct store_commit *c)
{
	if (c->npairs == 0)
		return;
	buf_adds(b, "<h2>Compared</h2>\n<table>\n<thead><tr><th "
		    "scope=\"col\">series</th><th scope=\"col\">base</th>"
		    "<th scope=\"col\">head</th><th scope=\"col\">verdict"
		    "</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < c->npairs; i++) {
		const struct store_commit_pair *p = &c->pairs[i];

		page_pair_row(b, p->series, p->base, p->head,
			      p->verdict ? p->verdict : p->state);
		if (p->bisection != 0)
			buf_adds(b, " <span class=\"muted\">(a bisection's"
				    ")</span>");
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table>\n");
}

/* The findings and bisections that name it, each with its part. */
static void
named(struct buf *b, const struct store_commit *c)
{
	char id[32], pct[NUM_PCT_MAX];

	if (c->nfindings > 0) {
		buf_adds(b, "<h2>Findings</h2>\n<ul>\n");
		for (size_t i = 0; i < c->nfindings; i++) {
			const struct store_commit_finding *x = &c->findings[i];

			snprintf(id, sizeof id, "%lld", x->id);
			buf_adds(b, "<li>");
			page_link(b, "/regressions/", id, x->kind);
			buf_adds(b, " ");
			html_text(b, id);
			buf_adds(b, " of ");
			html_text(b, x->kpi);
			buf_adds(b, " ");
			buf_adds(b,
				 num_pct(pct, sizeof pct, x->change_pct, "-"));
			buf_adds(b, " (");
			html_text(b, x->state);
			buf_adds(b, "): this commit is ");
			html_text(b, x->part);
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
	if (c->nbisections > 0) {
		buf_adds(b, "<h2>Bisections</h2>\n<ul>\n");
		for (size_t i = 0; i < c->nbisections; i++) {
			const struct store_commit_bisection *x =
				&c->bisections[i];

			snprintf(id, sizeof id, "%lld", x->id);
			buf_adds(b, "<li>");
			page_link(b, "/bisections/", id, "bisection");
			buf_adds(b, " ");
			html_text(b, id);
			buf_adds(b, " (");
			html_text(b, x->state);
			buf_adds(b, "): this commit is ");
			html_text(b, x->part);
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_commit *c = doc;
	char *title;

	(void)req;
	if (c->subject != NULL) {
		buf_adds(b, "<p><strong>");
		html_text(b, c->subject);
		buf_adds(b, "</strong></p>\n");
	}
	record(b, c);
	series(b, c);
	pairs(b, c);
	named(b, c);
	buf_adds(b, "<p>");
	page_link(b, "/api/commits/", c->sha, "As JSON");
	buf_adds(b, "</p>");
	title = xasprintf("Commit %.12s", c->sha);
	return title;
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	const char *tree;

	if (!web_name_arg(req, "tree", 0, NAME_LABEL, &tree))
		return;
	store_commit(w->d.store, call->arg, tree, page_answer(twin), req);
}

const struct page commit_page = {
	"/commits/:sha",    "/api/commits/:sha",   ask,
	&store_commit_view, "commit of that name", render};
