/*
 * tree.c: a tree's page (/trees/:name, the twin of /api/trees/:name):
 * what robot watches of it, and its branches' heads.
 */

#include "robot/core/view.h"
#include "robot/daemon/store/trees.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

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
		page_cell(&b, h->branch);
		buf_adds(&b, "<td>");
		page_sha(&b, h->sha, NULL);
		buf_adds(&b, "</td><td>");
		page_sha(&b, h->base, NULL);
		buf_adds(&b, "</td>");
		page_time_cell(&b, h->updated);
		buf_adds(&b, "</tr>\n");
	}
	buf_adds(&b, "</tbody></table>\n<p>");
	page_link(&b, "/api/trees/", t.name, "As JSON");
	buf_adds(&b, "</p>");
	page_reply(req, 200, t.name, &b);
	buf_release(&b);
	view_release(&d);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_trees(w->d.store, call->arg, twin ? web_on_json : on_tree, req);
}

const struct page tree_page = {"/trees/:name", "/api/trees/:name", ask};
