/*
 * home.c: the home page: the newest regressions by commit, the queue,
 * the lab in one line, the trees with their last fetch (/api/home).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/num.h"
#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/findings.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

/* The lab, the queue and the bisections in one line. */
static void
summary(struct buf *b, const struct store_home *h)
{
	buf_addf(b,
		 "<p><a href=\"/lab\">Lab</a>: %lld box%s, %lld idle, %lld "
		 "busy, %lld broken",
		 h->lab.boxes, h->lab.boxes == 1 ? "" : "es", h->lab.idle,
		 h->lab.busy, h->lab.broken);
	if (h->lab.suspect > 0)
		buf_addf(b, ", %lld suspect", h->lab.suspect);
	buf_addf(b,
		 ". <a href=\"/queue\">Queue</a>: %lld queued, %lld running. "
		 "<a href=\"/bisections\">Bisections</a>: %lld running.</p>\n",
		 h->queue.queued, h->queue.leased, h->bisections);
}

/* A commit's findings, each a link to its page. */
static void
findings(struct buf *b, const struct store_home_commit *c)
{
	char id[32], pct[NUM_PCT_MAX];

	buf_adds(b, "<ul>");
	for (size_t k = 0; k < c->nfindings; k++) {
		const struct store_home_finding *f = &c->findings[k];

		snprintf(id, sizeof id, "%lld", f->id);
		buf_adds(b, "<li><a href=\"/regressions/");
		html_attr(b, id);
		buf_adds(b, "\">");
		html_text(b, f->kpi);
		buf_adds(b, " ");
		buf_adds(b, num_pct(pct, sizeof pct, f->change_pct, "-"));
		buf_adds(b, " ");
		html_text(b, f->kind);
		buf_adds(b, "</a> <span class=\"state-");
		html_attr(b, f->state);
		buf_adds(b, "\">");
		html_text(b, f->state);
		buf_adds(b, "</span> <span class=\"muted\">");
		page_series(b, f->series);
		buf_adds(b, "</span></li>");
	}
	buf_adds(b, "</ul>");
}

static void
trees(struct buf *b, const struct store_home *h)
{
	buf_adds(b, "<h2>Trees</h2>\n");
	if (h->ntrees == 0) {
		buf_adds(b, "<p class=\"muted\">robotd watches no tree "
			    "(robot tree add).</p>\n");
		return;
	}
	buf_adds(b, "<table>\n<thead><tr><th scope=\"col\">tree</th>"
		    "<th scope=\"col\">last fetch</th><th "
		    "scope=\"col\">branches</th></tr></thead>\n"
		    "<tbody>\n");
	for (size_t i = 0; i < h->ntrees; i++) {
		const struct store_home_tree *t = &h->trees[i];

		buf_adds(b, "<tr><td>");
		page_link(b, "/trees/", t->name, t->name);
		buf_adds(b, "</td><td>");
		html_time(b, t->fetched != NULL ? t->fetched : "not yet");
		if (t->fetch_error != NULL) {
			buf_adds(b, " <span class=\"state-new\">");
			html_text(b, t->fetch_error);
			buf_adds(b, "</span>");
		}
		buf_addf(b, "</td><td class=\"num\">%lld</td></tr>\n",
			 t->heads);
	}
	buf_adds(b, "</tbody></table>\n");
}

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_home *h = doc;

	(void)req;
	summary(b, h);
	buf_adds(b, "<h2>Newest findings</h2>\n");
	if (h->ncommits == 0)
		buf_adds(b, "<p class=\"muted\">No regression or improvement "
			    "found yet.</p>\n");
	else
		buf_adds(b, "<div class=\"wide\"><table>\n<thead><tr>"
			    "<th scope=\"col\">commit</th><th scope=\"col\">"
			    "tree</th><th scope=\"col\">found</th></tr>"
			    "</thead>\n<tbody>\n");
	for (size_t i = 0; i < h->ncommits; i++) {
		const struct store_home_commit *c = &h->commits[i];

		buf_adds(b, "<tr><td>");
		page_blame(b, &c->info,
			   c->range_json != NULL ? &c->range.base : NULL,
			   c->range_json != NULL ? &c->range.head : NULL,
			   c->nfindings > 0 ? c->findings[0].head : NULL);
		buf_adds(b, "</td><td>");
		if (c->tree != NULL)
			page_link(b, "/trees/", c->tree, c->tree);
		buf_adds(b, "</td><td>");
		findings(b, c);
		buf_adds(b, "</td></tr>\n");
	}
	if (h->ncommits > 0)
		buf_adds(b, "</tbody></table></div>\n");
	trees(b, h);
	buf_adds(b, "<p><a href=\"/api/home\">As JSON</a></p>");
	return xstrdup("robot");
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	(void)call;
	store_home(w->d.store, FINDINGS_HOME_COMMITS, page_answer(twin), req);
}

const struct page home_page = {"/",         "/api/home", ask, &store_home_view,
			       "home page", render};
