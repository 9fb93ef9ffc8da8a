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

#include "robot/core/rjson.h"
#include "robot/core/xmalloc.h"
#include "robot/daemon/store/pages.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "web/web.h"
#include "robot/core/banned.h"

static long long
num(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* The record: tree, SHA, author, date, parents. */
static void
record(struct buf *b, json_t *c)
{
	json_t *p;
	size_t i;

	buf_adds(b, "<table>\n");
	if (rjson_get_str(c, "tree") != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">tree</th><td>");
		page_link(b, "/trees/", rjson_get_str(c, "tree"),
			  rjson_get_str(c, "tree"));
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "<tr><th scope=\"row\">commit</th><td><code>");
	html_text(b, rjson_get_str(c, "sha"));
	buf_adds(b, "</code></td></tr>\n");
	if (rjson_get_str(c, "author") != NULL) {
		buf_adds(b, "<tr><th scope=\"row\">author</th><td>");
		html_text(b, rjson_get_str(c, "author"));
		buf_adds(b, "</td></tr>\n<tr><th scope=\"row\">date</th><td>");
		html_time(b, rjson_get_str(c, "date"));
		buf_adds(b, "</td></tr>\n");
	}
	if (json_array_size(json_object_get(c, "parents")) > 0) {
		buf_adds(b, "<tr><th scope=\"row\">parents</th><td>");
		json_array_foreach(json_object_get(c, "parents"), i, p)
		{
			if (i > 0)
				buf_adds(b, " ");
			page_commit(b, p);
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</table>\n");
}

/* The series it was measured in: its runs, the history, and its
 * comparison with its first parent. */
static void
series(struct buf *b, json_t *c)
{
	const char *sha = rjson_get_str(c, "sha");
	const char *parent = json_string_value(
		json_array_get(json_object_get(c, "parents"), 0));
	json_t *s;
	size_t i;

	buf_adds(b, "<h2>Measured in</h2>\n");
	if (json_array_size(json_object_get(c, "series")) == 0) {
		buf_adds(b, "<p class=\"muted\">No runs of it yet.</p>\n");
		return;
	}
	buf_adds(b, "<table>\n<thead><tr><th scope=\"col\">series</th>"
		    "<th scope=\"col\">ok runs</th><th scope=\"col\">failed"
		    "</th><th scope=\"col\">to come</th><th scope=\"col\">"
		    "</th></tr></thead>\n<tbody>\n");
	json_array_foreach(json_object_get(c, "series"), i, s)
	{
		const char *name = rjson_get_str(s, "series");

		buf_adds(b, "<tr><td>");
		html_text(b, name);
		buf_addf(b,
			 "</td><td class=\"num\">%lld</td><td class=\"num\">"
			 "%lld</td><td class=\"num\">%lld</td><td>",
			 num(s, "ok"), num(s, "failed"), num(s, "to_come"));
		buf_adds(b, "<a href=\"/series/");
		html_attr(b, name);
		buf_adds(b, "/history\">history</a>");
		if (parent != NULL && num(s, "ok") > 0 &&
		    num(s, "parent_ok") > 0) {
			buf_adds(b, " &middot; <a href=\"/compare?series=");
			page_query(b, name);
			buf_adds(b, "&amp;base=");
			page_query(b, parent);
			buf_adds(b, "&amp;head=");
			page_query(b, sha);
			buf_adds(b, "\">against its parent</a>");
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table>\n");
}

/* The pairs it is a side of: base and head, state, verdict. */
static void
pairs(struct buf *b, json_t *c)
{
	json_t *p;
	size_t i;

	if (json_array_size(json_object_get(c, "pairs")) == 0)
		return;
	buf_adds(b, "<h2>Compared</h2>\n<table>\n<thead><tr><th "
		    "scope=\"col\">series</th><th scope=\"col\">base</th>"
		    "<th scope=\"col\">head</th><th scope=\"col\">verdict"
		    "</th></tr></thead>\n<tbody>\n");
	json_array_foreach(json_object_get(c, "pairs"), i, p)
	{
		buf_adds(b, "<tr><td>");
		html_text(b, rjson_get_str(p, "series"));
		buf_adds(b, "</td><td>");
		page_commit(b, json_object_get(p, "base"));
		buf_adds(b, "</td><td>");
		page_commit(b, json_object_get(p, "head"));
		buf_adds(b, "</td><td><a href=\"/compare?series=");
		page_query(b, rjson_get_str(p, "series"));
		buf_adds(b, "&amp;base=");
		page_query(b, rjson_get_str(p, "base"));
		buf_adds(b, "&amp;head=");
		page_query(b, rjson_get_str(p, "head"));
		buf_adds(b, "\">");
		html_text(b, rjson_get_str(p, "verdict")
				     ? rjson_get_str(p, "verdict")
				     : rjson_get_str(p, "state"));
		buf_adds(b, "</a>");
		if (json_is_integer(json_object_get(p, "bisection")))
			buf_adds(b, " <span class=\"muted\">(a bisection's"
				    ")</span>");
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table>\n");
}

/* The findings and bisections that name it, each with its part. */
static void
named(struct buf *b, json_t *c)
{
	json_t *x;
	size_t i;
	char id[32];

	if (json_array_size(json_object_get(c, "findings")) > 0) {
		buf_adds(b, "<h2>Findings</h2>\n<ul>\n");
		json_array_foreach(json_object_get(c, "findings"), i, x)
		{
			snprintf(id, sizeof id, "%lld", num(x, "id"));
			buf_adds(b, "<li>");
			page_link(b, "/regressions/", id,
				  rjson_get_str(x, "kind"));
			buf_adds(b, " ");
			html_text(b, id);
			buf_adds(b, " of ");
			html_text(b, rjson_get_str(x, "kpi"));
			buf_adds(b, " ");
			page_pct(b, json_object_get(x, "change_pct"));
			buf_adds(b, " (");
			html_text(b, rjson_get_str(x, "state"));
			buf_adds(b, "): this commit is ");
			html_text(b, rjson_get_str(x, "part"));
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
	if (json_array_size(json_object_get(c, "bisections")) > 0) {
		buf_adds(b, "<h2>Bisections</h2>\n<ul>\n");
		json_array_foreach(json_object_get(c, "bisections"), i, x)
		{
			snprintf(id, sizeof id, "%lld", num(x, "id"));
			buf_adds(b, "<li>");
			page_link(b, "/bisections/", id, "bisection");
			buf_adds(b, " ");
			html_text(b, id);
			buf_adds(b, " (");
			html_text(b, rjson_get_str(x, "state"));
			buf_adds(b, "): this commit is ");
			html_text(b, rjson_get_str(x, "part"));
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
}

static void
on_commit(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	json_t *c = text ? json_loads(text, 0, NULL) : NULL;
	struct buf b;
	char *title;

	if (p != NULL || c == NULL) {
		page_fail(req, p, "commit of that name");
		json_decref(c);
		return;
	}
	buf_init(&b);
	if (rjson_get_str(c, "subject") != NULL) {
		buf_adds(&b, "<p><strong>");
		html_text(&b, rjson_get_str(c, "subject"));
		buf_adds(&b, "</strong></p>\n");
	}
	record(&b, c);
	series(&b, c);
	pairs(&b, c);
	named(&b, c);
	buf_adds(&b, "<p>");
	page_link(&b, "/api/commits/", rjson_get_str(c, "sha"), "As JSON");
	buf_adds(&b, "</p>");
	title = xasprintf("Commit %.12s", rjson_get_str(c, "sha"));
	page_reply(req, 200, title, &b);
	free(title);
	buf_release(&b);
	json_decref(c);
}

void
pages_commit(struct web *w, struct http_req *req, const struct web_call *call)
{
	const char *tree;

	if (!web_name_arg(req, "tree", 0, NAME_LABEL, &tree))
		return;
	store_commit(w->d.store, call->arg, tree, on_commit, req);
}
