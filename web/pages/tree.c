/*
 * tree.c: a tree's page (/trees/:name, the twin of /api/trees/:name):
 * what robot watches of it, and its branches' heads.
 */

#include "robot/core/view.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/trees.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

static char *
render(struct buf *b, const void *doc, struct http_req *req)
{
	const struct store_tree *t = doc;

	(void)req;
	buf_adds(b, "<table>\n<tr><th scope=\"row\">url</th><td>");
	html_text(b, t->url);
	buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">base</th><td>");
	html_text(b, t->base_ref);
	buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">last fetch</th><td>");
	html_time(b, t->fetched ? t->fetched : "not yet");
	if (t->fetch_error != NULL) {
		buf_adds(b, " <span class=\"state-new\">");
		html_text(b, t->fetch_error);
		buf_adds(b, "</span>");
	}
	buf_addf(b,
		 "</td></tr>\n<tr><th scope=\"row\">runs a side</th><td>%lld, "
		 "at most %lld</td></tr>\n<tr><th scope=\"row\">commits known"
		 "</th><td>%lld</td></tr>\n</table>\n<h2>Branches</h2>\n"
		 "<table>\n<thead><tr><th scope=\"col\">branch</th><th "
		 "scope=\"col\">head</th><th scope=\"col\">base</th><th "
		 "scope=\"col\">updated</th></tr></thead>\n<tbody>\n",
		 t->runs, t->max_runs, t->commits);
	for (size_t i = 0; i < t->nheads; i++) {
		const struct store_tree_page_head *h = &t->heads[i];

		buf_adds(b, "<tr>");
		page_cell(b, h->branch);
		buf_adds(b, "<td>");
		page_sha(b, h->sha, NULL);
		buf_adds(b, "</td><td>");
		page_sha(b, h->base, NULL);
		buf_adds(b, "</td>");
		page_time_cell(b, h->updated);
		buf_adds(b, "</tr>\n");
	}
	buf_adds(b, "</tbody></table>\n<p>");
	page_link(b, "/api/trees/", t->name, "As JSON");
	buf_adds(b, "</p>");
	return xstrdup(t->name);
}

static void
ask(struct web *w, struct http_req *req, const struct web_call *call, bool twin)
{
	store_trees(w->d.store, call->arg, page_answer(twin), req);
}

const struct page tree_page = {"/trees/:name",   "/api/trees/:name",  ask,
			       &store_tree_view, "tree of that name", render};
