/*
 * home.c: the home page: the newest regressions by commit, the queue,
 * the lab in one line, the trees with their last fetch (/api/home).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robot/core/rjson.h"
#include "robot/daemon/store/pages.h"
#include "web/findings.h"
#include "web/html.h"
#include "web/pages/page.h"
#include "web/pages/pages.h"
#include "robot/core/banned.h"

static long long
num(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static void
on_home(const char *text, const struct problem *p, void *arg)
{
	struct http_req *req = arg;
	json_t *h = text ? json_loads(text, 0, NULL) : NULL;
	json_t *lab, *queue, *c, *f, *t;
	struct buf b;
	size_t i, k;
	char id[32];

	if (p != NULL || h == NULL) {
		page_fail(req, p, "home page");
		json_decref(h);
		return;
	}
	lab = json_object_get(h, "lab");
	queue = json_object_get(h, "queue");
	buf_init(&b);
	buf_addf(&b,
		 "<p><a href=\"/lab\">Lab</a>: %lld box%s, %lld idle, %lld "
		 "busy, %lld broken",
		 num(lab, "boxes"), num(lab, "boxes") == 1 ? "" : "es",
		 num(lab, "idle"), num(lab, "busy"), num(lab, "broken"));
	if (num(lab, "suspect") > 0)
		buf_addf(&b, ", %lld suspect", num(lab, "suspect"));
	buf_addf(&b,
		 ". <a href=\"/queue\">Queue</a>: %lld queued, %lld running. "
		 "<a href=\"/bisections\">Bisections</a>: %lld running.</p>\n",
		 num(queue, "queued"), num(queue, "leased"),
		 (long long)json_integer_value(
			 json_object_get(h, "bisections")));
	buf_adds(&b, "<h2>Newest findings</h2>\n");
	if (json_array_size(json_object_get(h, "commits")) == 0)
		buf_adds(&b, "<p class=\"muted\">No regression or improvement "
			     "found yet.</p>\n");
	else
		buf_adds(&b, "<div class=\"wide\"><table>\n<thead><tr>"
			     "<th scope=\"col\">commit</th><th scope=\"col\">"
			     "tree</th><th scope=\"col\">found</th></tr>"
			     "</thead>\n<tbody>\n");
	json_array_foreach(json_object_get(h, "commits"), i, c)
	{
		buf_adds(&b, "<tr><td>");
		page_blame(&b, json_object_get(c, "info"),
			   json_object_get(c, "range"),
			   rjson_get_str(
				   json_array_get(
					   json_object_get(c, "findings"), 0),
				   "head"));
		buf_adds(&b, "</td><td>");
		html_text(&b, rjson_get_str(c, "tree"));
		buf_adds(&b, "</td><td><ul>");
		json_array_foreach(json_object_get(c, "findings"), k, f)
		{
			snprintf(id, sizeof id, "%lld", num(f, "id"));
			buf_adds(&b, "<li><a href=\"/regressions/");
			html_attr(&b, id);
			buf_adds(&b, "\">");
			html_text(&b, rjson_get_str(f, "kpi"));
			buf_adds(&b, " ");
			page_pct(&b, json_object_get(f, "change_pct"));
			buf_adds(&b, " ");
			html_text(&b, rjson_get_str(f, "kind"));
			buf_adds(&b, "</a> <span class=\"state-");
			html_attr(&b, rjson_get_str(f, "state"));
			buf_adds(&b, "\">");
			html_text(&b, rjson_get_str(f, "state"));
			buf_adds(&b, "</span> <span class=\"muted\">");
			html_text(&b, rjson_get_str(f, "series"));
			buf_adds(&b, "</span></li>");
		}
		buf_adds(&b, "</ul></td></tr>\n");
	}
	if (json_array_size(json_object_get(h, "commits")) > 0)
		buf_adds(&b, "</tbody></table></div>\n");
	buf_adds(&b, "<h2>Trees</h2>\n");
	if (json_array_size(json_object_get(h, "trees")) == 0)
		buf_adds(&b, "<p class=\"muted\">robotd watches no tree "
			     "(robot tree add).</p>\n");
	else
		buf_adds(&b, "<table>\n<thead><tr><th scope=\"col\">tree</th>"
			     "<th scope=\"col\">last fetch</th><th "
			     "scope=\"col\">branches</th></tr></thead>\n"
			     "<tbody>\n");
	json_array_foreach(json_object_get(h, "trees"), i, t)
	{
		buf_adds(&b, "<tr><td>");
		page_link(&b, "/trees/", rjson_get_str(t, "name"),
			  rjson_get_str(t, "name"));
		buf_adds(&b, "</td><td>");
		html_time(&b, rjson_get_str(t, "fetched") != NULL
				      ? rjson_get_str(t, "fetched")
				      : "not yet");
		if (rjson_get_str(t, "fetch_error") != NULL) {
			buf_adds(&b, " <span class=\"state-new\">");
			html_text(&b, rjson_get_str(t, "fetch_error"));
			buf_adds(&b, "</span>");
		}
		buf_addf(&b, "</td><td class=\"num\">%lld</td></tr>\n",
			 num(t, "heads"));
	}
	if (json_array_size(json_object_get(h, "trees")) > 0)
		buf_adds(&b, "</tbody></table>\n");
	buf_adds(&b, "<p><a href=\"/api/home\">As JSON</a></p>");
	page_reply(req, 200, "robot", &b);
	buf_release(&b);
	json_decref(h);
}

void
pages_home(struct web *w, struct http_req *req, const struct web_call *call)
{
	(void)call;
	store_home(w->d.store, FINDINGS_HOME_COMMITS, on_home, req);
}
